"""Build the site: ``python -m jaxbook.build`` (strict, the whole book, as ``make html``, the tests
and Read the Docs run it; any warning fails it) or ``python -m jaxbook.build guide/grad.md`` (a
quick preview of pages). How it fills the store first and then runs Sphinx on every core, and
when it does nothing: docs/maintainers.md, "Builds".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jaxbook import ROOT, layout


def sphinx(*args: str) -> list[str]:
    """A strict html build by sphinx-build (any warning fails it; all are reported), with ``args``."""
    jobs = os.environ.get("JAXBOOK_JOBS", "auto")
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-j", jobs, "-b", "html", *args]


def strict_command(source: Path = ROOT, build: Path | None = None, *extra: str) -> list[str]:
    """The sphinx-build command line of the strict build of the book at ``source``."""
    build = build or source / layout.BUILD
    return sphinx("-d", str(build / layout.DOCTREES), *extra, str(source), str(build / layout.SITE))


def page_command(pages: list[str], root: Path = ROOT) -> list[str]:
    """Build only ``pages`` into _build/page (or $JAXBOOK_PAGE_DIR), with the pages the theme's
    navigation needs (:func:`jaxbook.pages.preview`): links to other pages are not checked; any
    other warning (a failed snippet, an output that differs) fails it."""
    from jaxbook.pages import preview

    out = Path(os.environ.get("JAXBOOK_PAGE_DIR", root / layout.PAGE))
    partial = "myst.xref_missing,toc.not_included,toc.excluded,toc.not_readable"
    return sphinx(
        "-d", str(out / ".doctrees"),
        "-D", "include_patterns=" + ",".join(["404.md", *preview(root, pages)]),
        "-D", f"suppress_warnings={partial}",
        "-D", "jaxbook_preview=1",
        str(root), str(out),
    )  # fmt: skip


def strict_build(root: Path = ROOT, build: Path | None = None) -> int:
    """``make html``: the strict build of the book at ``root`` into ``build`` (default
    ``root/_build``), unless the site there is up to date (:mod:`jaxbook.uptodate`). Its exit status."""
    from jaxbook import uptodate
    from jaxbook.execute import execute_book

    build = build or root / layout.BUILD
    command = strict_command(root, build)
    key = uptodate.inputs_key(root, command)
    if uptodate.holds(build, key):
        from jaxbook.snippet import display_path

        html = display_path(build / layout.SITE)
        print(
            "build succeeded, nothing to do: nothing the site is built from has changed since its last "
            f"successful build, so {html} is up to date (jaxbook/uptodate.py)"
        )
        return 0
    uptodate.forget(build)
    jobs = os.environ.get("JAXBOOK_JOBS", "auto")
    try:
        execute_book(root, None if jobs == "auto" else int(jobs))
    except Exception as exc:  # noqa: BLE001 - Sphinx executes what is missing, and reports
        print(f"jaxbook: executing the pages ahead of Sphinx failed ({exc}); Sphinx will retry")
    status = subprocess.call(command, cwd=root)
    if status == 0 and uptodate.inputs_key(root, command) == key:  # not edited meanwhile
        uptodate.record(build, key)
    elif status == 0:
        print(
            "jaxbook: the next make html builds again: a file changed during this build, or an "
            "installed distribution is editable or unreadable (jaxbook/uptodate.py)"
        )
    return status


def main(argv: list[str]) -> int:
    """``[--out DIR] [PAGE ...]``: the strict build into DIR (default ``_build``), or a preview of
    the pages."""
    build = None
    if argv[:1] == ["--out"]:
        build, argv = Path(argv[1]), argv[2:]
    if not argv:
        return strict_build(ROOT, build)
    try:
        command = page_command(argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
