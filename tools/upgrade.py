"""``make upgrade [JAX=0.11.2]`` and ``make lock``: a JAX upgrade as one command and one reviewed diff.

``lock`` pins JAX and jaxlib in requirements.in (to ``--jax`` or the newest) and re-resolves
requirements.lock; once .venv is rebuilt, ``outputs`` reruns every snippet, rewrites its expected
output and summarises per page what changed. ``compile`` is ``make lock``.
"""

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from jaxbook import book_root, layout, outputs, pages, runtime
from jaxbook.results import CellResult

JAX_PIN = re.compile(r"^[ \t]*(jax|jaxlib)[ \t]*(==[^\s#]*)?[ \t]*(#.*)?$", re.M)
REVIEW = "Review with: git diff -- requirements.in requirements.lock '*.out'"


def pin(requirements_in: str, version: str | None) -> str:
    """``requirements_in`` with the jax and jaxlib lines pinned to ``version`` (unpinned: None)."""
    return JAX_PIN.sub(lambda found: found.group(1) + (f"=={version}" if version else ""), requirements_in)


def compile_lock(root: Path, source: Path, output: Path, upgrade: bool = False) -> None:
    """Resolve ``source`` into the hashed lock ``output``, keeping its pins unless ``upgrade``, with
    the uv that ``tools/uv-requirements.txt`` pins (installed once into ``_build/locker``)."""
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
    upgrading = ["--upgrade"] if upgrade else []
    args = ["pip", "compile", "--quiet", "--generate-hashes", *upgrading, "-o", str(output), str(source)]
    subprocess.run([str(uv), *args], check=True, cwd=root)


def lock(root: Path, work: Path, version: str | None) -> None:
    """Remember the versions (for :func:`summarise`), pin JAX and re-resolve the lock."""
    (work / "before.txt").write_text(runtime.execution_key(), encoding="utf-8")
    requirements = root / "requirements.in"
    text = requirements.read_text(encoding="utf-8")
    if version is None:  # the newest JAX the index serves, with everything else
        (work / "requirements.in").write_text(pin(text, None), encoding="utf-8")
        compile_lock(root, work / "requirements.in", work / "newest.lock", upgrade=True)
        found = re.search(r"^jax==(\S+)", (work / "newest.lock").read_text(encoding="utf-8"), re.M)
        if not found:
            raise SystemExit("upgrade: jax is not in the resolved lock")
        version = found.group(1)
    requirements.write_text(pin(text, version), encoding="utf-8")
    compile_lock(root, Path("requirements.in"), Path("requirements.lock"), upgrade=True)
    print(f"upgrade: requirements.lock re-resolved with jax=={version}")


def changes(result: CellResult, changed: bool) -> list[str]:
    """What the upgrade changed of one snippet: whether its expected output ``changed``, and what
    its new ``result`` raises, warns or breaks."""
    notes = ["output changed"] if changed else []
    why = []
    declared, raised = result.declared, result.raised
    if raised and not declared:
        why.append(f"now raises {raised}")
    elif declared and not raised:
        why.append(f"stops raising {declared}")
    elif declared and raised and raised.rsplit(".", 1)[-1] != declared.rsplit(".", 1)[-1]:
        why.append(f"raises {raised} instead of {declared}")
    why += [f"warns {warning.splitlines()[0][:150]}" for warning in result.warnings]
    if result.contract and not why:
        why.append("breaks its contract: " + result.contract.splitlines()[0][:150])
    return notes + why


def summarise(root: Path, before: str, results: dict[str, CellResult], changed: set[str]) -> str:
    """Per page, what the upgrade from the versions ``before`` changed of each snippet: whether its
    expected output changed (its name in ``changed``) and :func:`changes` of its result."""
    lines = [f"upgrade: {before}", f"     -> {runtime.execution_key()}", ""]
    totals = Counter()
    for page, snippets in pages.selection(root, [], []).items():
        rows = []
        for path in snippets:
            name = path.relative_to(root).as_posix()
            notes = changes(results[name], name in changed)
            totals.update(note.split(":")[0] for note in notes)
            if notes:
                rows.append(f"  {name}: " + "; ".join(notes))
        if rows:
            lines += [f"{page}: {len(rows)} of {len(snippets)} snippets differ", *rows]
        else:
            lines.append(f"{page}: no change ({len(snippets)} snippets)")
    totals_line = ", ".join(f"{kind} {n}" for kind, n in sorted(totals.items())) or "none"
    return "\n".join([*lines, "", f"totals: {totals_line}", REVIEW]) + "\n"


def rerun(root: Path, work: Path) -> int:
    """Rewrite every expected output in this (new) environment and print the summary."""
    from jaxbook.execute import Executor
    from jaxbook.snippet import parse_tolerance, source_of

    results: dict[str, CellResult] = {}
    changed = set()
    with Executor(root) as executor:
        for page, snippets in pages.selection(root, [], []).items():
            print(f"{page}: {len(snippets)} snippet(s)", flush=True)
            result = executor.page(root / page)
            for path in snippets:
                name = path.relative_to(root).as_posix()
                cell = results[name] = result.cell(name)
                tolerance = parse_tolerance(source_of(path), name)
                if cell.contract is None and outputs.write_expected(path, cell.text, tolerance):
                    changed.add(name)
    text = summarise(root, (work / "before.txt").read_text(encoding="utf-8"), results, changed)
    (work / "summary.txt").write_text(text, encoding="utf-8")
    print("\n" + text, end="")
    return int(any(cell.contract is not None for cell in results.values()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.upgrade", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    step = sub.add_parser("lock", help="remember the versions, pin JAX, re-resolve requirements.lock")
    step.add_argument("--jax", help="JAX and jaxlib version (default: the newest)")
    sub.add_parser("outputs", help="rewrite expected outputs and print the summary")
    sub.add_parser("compile", help="make lock: re-resolve requirements.in, keeping the current pins")
    args = parser.parse_args(argv)
    root = book_root()
    work = root / layout.UPGRADE
    work.mkdir(parents=True, exist_ok=True)
    if args.step == "compile":
        compile_lock(root, Path("requirements.in"), Path("requirements.lock"))
        return 0
    if args.step == "lock":
        lock(root, work, args.jax)
        return 0
    return rerun(root, work)


if __name__ == "__main__":
    sys.exit(main())
