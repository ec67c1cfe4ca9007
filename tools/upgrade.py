"""``make upgrade``: a JAX upgrade as one command and one reviewed diff.

``make upgrade`` (newest versions) or ``make upgrade JAX=0.11.2`` (a given JAX and jaxlib) runs:

1. ``python -m tools.upgrade lock [--jax X]`` -- remembers every expected output, pins JAX and
   jaxlib in ``requirements.in`` (to X, or to the newest the index serves) and re-resolves
   ``requirements.in`` into ``requirements.lock`` with :func:`compile_lock`, as ``make lock`` does;
2. ``tools/bootstrap.sh`` -- rebuilds ``.venv`` from the new lock;
3. ``python -m tools.upgrade outputs`` -- runs every snippet in the book's kernel with the new
   versions, rewrites the expected outputs, and prints a per-page summary: which snippets changed
   output, and which now raise, stop raising, raise something else or warn.

The reviewer then reads ``git diff`` (requirements and ``*.out`` files). Working files go to
``_build/upgrade/`` (``JAXBOOK_UPGRADE_DIR`` to change it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from jaxbook import book_root, layout
from jaxbook.store import CellResult

JAX_PIN = re.compile(r"^(jax|jaxlib)\s*(==[^\s#]*)?\s*(#.*)?$")


def work_dir(root: Path) -> Path:
    path = Path(os.environ.get("JAXBOOK_UPGRADE_DIR", root / layout.UPGRADE))
    path.mkdir(parents=True, exist_ok=True)
    return path


def pin(requirements_in: str, version: str | None) -> str:
    """``requirements_in`` with the jax and jaxlib lines pinned to ``version`` (unpinned: None)."""
    lines = []
    for line in requirements_in.splitlines():
        found = JAX_PIN.match(line.strip())
        if found:
            line = found.group(1) + (f"=={version}" if version else "")
        lines.append(line)
    return "\n".join(lines) + "\n"


def locked_version(lock: str, package: str) -> str:
    found = re.search(rf"^{re.escape(package)}==(\S+)", lock, re.M)
    if not found:
        raise SystemExit(f"upgrade: {package} is not in the resolved lock")
    return found.group(1)


def compile_lock(root: Path, source: Path, output: Path, upgrade: bool = False) -> None:
    """Resolve ``source`` into the hashed lock ``output`` with ``uv pip compile`` (it reads the
    hashes from the index). ``make lock`` keeps the pins already in the lock (``upgrade`` False);
    ``make upgrade`` moves them. uv is the one ``tools/uv-requirements.txt`` pins and hashes,
    installed into ``_build/locker``: every lock is written by the same uv, whoever runs it."""
    locker = root / layout.LOCKER
    uv = locker / "bin" / "uv"
    if not uv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(locker)], check=True)
        pinned = root / "tools" / "uv-requirements.txt"
        installed = subprocess.run([str(locker / "bin" / "pip"), "install", "--quiet", "-r", str(pinned)])
        if installed.returncode:
            raise SystemExit(
                f"lock: could not install uv from {pinned.relative_to(root)} (no wheel for this "
                "platform, or no package index); re-resolve the lock on a machine that has one"
            )
    options = ["--upgrade"] if upgrade else []
    command = [
        str(uv),
        "pip",
        "compile",
        "--quiet",
        "--generate-hashes",
        *options,
        "-o",
        str(output),
        str(source),
    ]
    subprocess.run(command, check=True, cwd=root)


def snapshot(root: Path, work: Path) -> None:
    """Remember every expected output and the current versions, for the summary."""
    from jaxbook import outputs, pages, runtime

    before = {}
    for snippets in pages.selection(root, [], []).values():
        for path in snippets:
            before[path.relative_to(root).as_posix()] = outputs.read_expected(path)
    state = {"execution_key": runtime.execution_key(), "outputs": before}
    (work / "before.json").write_text(json.dumps(state, indent=1), encoding="utf-8")


def lock(root: Path, version: str | None) -> None:
    work = work_dir(root)
    snapshot(root, work)
    requirements = root / "requirements.in"
    if version is None:  # the newest JAX the index serves, with everything else
        probe = work / "requirements.in"
        probe.write_text(pin(requirements.read_text(encoding="utf-8"), None), encoding="utf-8")
        compile_lock(root, probe, work / "newest.lock", upgrade=True)
        version = locked_version((work / "newest.lock").read_text(encoding="utf-8"), "jax")
    requirements.write_text(pin(requirements.read_text(encoding="utf-8"), version), encoding="utf-8")
    compile_lock(root, Path("requirements.in"), Path("requirements.lock"), upgrade=True)
    print(f"upgrade: requirements.lock re-resolved with jax=={version}")


def summarise(root: Path, work: Path, results: dict[str, CellResult]) -> str:
    """The per-page summary of what the upgrade changed (from the snapshot and each snippet's
    result in the new environment, ``{snippet path: CellResult}``)."""
    from jaxbook import outputs, pages, runtime

    state = json.loads((work / "before.json").read_text(encoding="utf-8"))
    before = state["outputs"]
    lines = [f"upgrade: {state['execution_key']}", f"     -> {runtime.execution_key()}", ""]
    totals = {}
    for page, snippets in pages.selection(root, [], []).items():
        rows = []
        for path in snippets:
            name = path.relative_to(root).as_posix()
            result = results.get(name)
            declared, raised = (result.declared, result.raised) if result else (None, None)
            notes = []
            if result is None:
                notes.append("failed to run")
            if outputs.read_expected(path) != before.get(name):
                notes.append("output changed")
            if raised and not declared:
                notes.append(f"now raises {raised}")
            elif declared and not raised and result:
                notes.append(f"stops raising {declared}")
            elif declared and raised and raised.rsplit(".", 1)[-1] != declared.rsplit(".", 1)[-1]:
                notes.append(f"raises {raised} instead of {declared}")
            for warning in result.warnings if result else []:
                notes.append(f"warns {warning.splitlines()[0][:150]}")
            if (
                result
                and result.contract
                and not any(n.startswith(("now", "stops", "raises", "warns")) for n in notes)
            ):
                notes.append("breaks its contract: " + result.contract.splitlines()[0][:150])
            for note in notes:
                key = (
                    note.split(":")[0]
                    if note.startswith(("warns", "breaks", "failed"))
                    else " ".join(note.split()[:2])
                )
                totals[key] = totals.get(key, 0) + 1
            if notes:
                rows.append(f"  {name}: " + "; ".join(notes))
        lines.append(
            f"{page}: "
            + (
                f"{len(rows)} of {len(snippets)} snippets differ"
                if rows
                else f"no change ({len(snippets)} snippets)"
            )
        )
        lines += rows
    lines += [
        "",
        "totals: " + (", ".join(f"{k} {v}" for k, v in sorted(totals.items())) or "none"),
        "Review with: git diff -- requirements.in requirements.lock '*.out'",
    ]
    return "\n".join(lines) + "\n"


def rerun(root: Path) -> int:
    """Rewrite every expected output in this (new) environment and print the summary."""
    from jaxbook import outputs, pages
    from jaxbook.execute import Executor
    from jaxbook.snippet import parse_tolerance, source_of

    work = work_dir(root)
    results: dict[str, CellResult] = {}
    status = 0
    with Executor(root) as executor:
        for page, snippets in pages.selection(root, [], []).items():
            print(f"{page}: {len(snippets)} snippet(s)", flush=True)
            result = executor.page(root / page)
            for path in snippets:
                name = path.relative_to(root).as_posix()
                cell = result.cell(name)
                results[name] = cell
                if cell.contract is not None:
                    status = 1
                    continue
                outputs.write_expected(path, cell.text, parse_tolerance(source_of(path), name))
    text = summarise(root, work, results)
    (work / "summary.txt").write_text(text, encoding="utf-8")
    print("\n" + text, end="")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.upgrade", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    step = sub.add_parser("lock", help="snapshot outputs, pin JAX, re-resolve requirements.lock")
    step.add_argument("--jax", help="JAX and jaxlib version (default: the newest)")
    sub.add_parser("outputs", help="rewrite expected outputs and print the summary")
    sub.add_parser("compile", help="make lock: re-resolve requirements.in, keeping the current pins")
    args = parser.parse_args(argv)
    root = book_root()
    if args.step == "lock":
        lock(root, args.jax)
        return 0
    if args.step == "compile":
        compile_lock(root, Path("requirements.in"), Path("requirements.lock"))
        return 0
    return rerun(root)


if __name__ == "__main__":
    sys.exit(main())
