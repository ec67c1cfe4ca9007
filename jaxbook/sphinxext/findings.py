"""The build's findings (failing cells): each at its page's line, read again by the next build, all
listed at the end with the command that fixes each, details in ``reports/<page>.txt`` beside the site."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from sphinx.util import logging

from jaxbook import layout
from jaxbook.files import write_atomic
from jaxbook.snippet import display_path
from jaxbook.verdict import Finding, helper_commands

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CellFinding:
    """A finding at ``line`` of a page: of its source (kind ``source``) or of a cell's result."""

    line: int
    finding: Finding


def findings(env) -> dict[str, list[CellFinding]]:
    """Each page's findings, as Sphinx's environment keeps them between builds."""
    if not hasattr(env, "jaxbook_findings"):
        env.jaxbook_findings = {}
    return env.jaxbook_findings


def source_finding(env, docname: str, message: str, line: int) -> None:
    """Report a finding in the page's source (the fix may be in a snippet the page could not depend on)."""
    logger.error(message, location=(docname, line))
    findings(env).setdefault(docname, []).append(CellFinding(line, Finding(None, "source", message, "")))


def report(app, docname: str, found: list[CellFinding]) -> None:
    """The findings in a page's results: one warning each at its line, the details in its report file."""
    kept = [cell for cell in findings(app.env).get(docname, []) if cell.finding.kind == "source"]
    without_details = [replace(cell, finding=replace(cell.finding, details="")) for cell in found]
    findings(app.env)[docname] = kept + without_details
    path = Path(app.outdir).parent / layout.REPORTS / f"{docname}.txt"
    if not found:
        path.unlink(missing_ok=True)
        return
    for cell in found:
        logger.warning(
            cell.finding.summary, location=(docname, cell.line), type="jaxbook", subtype=cell.finding.kind
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    details = (f"{app.env.doc2path(docname)}:{cell.line}\n{cell.finding.details}" for cell in found)
    write_atomic(path, "\n\n".join(details) + "\n")


def on_env_get_outdated(app, env, added, changed, removed) -> list[str]:
    """Read again the pages whose last reading found a failing cell: a failure is never cached."""
    return [d for d, found in findings(env).items() if found and d in env.found_docs]


def on_env_merge_info(app, env, docnames, other) -> None:
    """Parallel read: bring the workers' findings into the main environment."""
    theirs = findings(other)
    findings(env).update({d: theirs[d] for d in docnames if d in theirs})


def on_env_purge_doc(app, env, docname) -> None:
    findings(env).pop(docname, None)


def on_build_finished(app, exception) -> None:
    """List every finding, one line each, with the command that fixes or accepts it, and keep the
    snippets whose outputs to accept for ``make outputs FAILED=1``."""
    found = [(docname, cell) for docname, cells in sorted(findings(app.env).items()) for cell in cells]
    build = Path(app.outdir).parent
    outputs_to_accept = sorted(
        {cell.finding.snippet for _, cell in found if cell.finding.kind in ("differs", "missing")}
    )
    write_atomic(build / layout.FAILURES, json.dumps({"snippets": outputs_to_accept}, indent=1))
    if not found:
        return
    logger.info("")
    logger.info(f"{len(found)} failing cell(s) in the book:", color="red")
    for docname, cell in found:
        logger.info(f"  {app.env.doc2path(docname, False)}:{cell.line}: {cell.finding.summary}")
    for command in helper_commands([cell.finding for _, cell in found]):
        logger.info(f"  {command}")
    if len(outputs_to_accept) > 1:
        logger.info(f"  to accept all {len(outputs_to_accept)} outputs listed above: `make outputs FAILED=1`")
    if outputs_to_accept:
        logger.info("  then review: git status, git diff (make outputs prints what it wrote)")
    reports = sorted({docname for docname, _ in found})
    where = ", ".join(display_path(build / layout.REPORTS / f"{d}.txt") for d in reports)
    logger.info(f"  diffs and tracebacks: {where}")


def setup(app):
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-merge-info", on_env_merge_info)
    app.connect("env-purge-doc", on_env_purge_doc)
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
