"""``make mutation [PROBLEM=masked-mean]``: how well each practice problem's tests catch small changes
to its solution.

Each mutant is ``solution.py`` changed by one cosmic-ray operator; the problem's tests kill it by
failing. The report, ``mutation.json`` beside the solution, names the sha256 of the solution and
keeps the reasons a maintainer wrote for equivalent mutants (docs/maintainers.md).
"""

import argparse
import difflib
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from jaxbook import ROOT, layout, runtime

#: Binary operators between integers or booleans: a binary operator is replaced only by another
#: of its kind (an arithmetic one into ``|`` is a TypeError on floats that every first call catches).
BITWISE = {"BitOr", "BitAnd", "BitXor", "LShift", "RShift"}
#: Seconds one mutant's tests may run: past it, the mutant is killed (a hang a learner would notice).
TIMEOUT = 300
PYTEST_OPTIONS = ("--hypothesis-profile=small", "-x", "-q", "-n", "0", "-p", "no:cacheprovider")


def key(mutant: dict) -> tuple[str, str]:
    """A mutant across runs: its operator and its change (line numbers move with other edits)."""
    return mutant["id"].split("#")[0], mutant["change"]


def operators():
    """(name, operator) of each cosmic-ray operator that takes no arguments, but binary
    replacements across the arithmetic / bitwise divide (:data:`BITWISE`)."""
    import cosmic_ray.plugins

    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if cls.arguments():
            continue
        if name.startswith("core/ReplaceBinaryOperator_"):
            source, target = name.removeprefix("core/ReplaceBinaryOperator_").split("_")
            if (source in BITWISE) != (target in BITWISE):
                continue
        yield name, cls()


def mutants(source: str):
    """Each distinct mutant of ``source``: id (operator#occurrence), line, change and code."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    seen = {source}
    for name, operator in operators():
        nodes = ast_nodes(get_ast(source))
        positions = [start for node in nodes for start, _ in operator.mutation_positions(node)]
        for occurrence, (line, _col) in enumerate(positions):
            code = mutate_code(source, operator, occurrence)
            if code is None or code in seen:
                continue
            seen.add(code)
            diff = difflib.unified_diff(source.splitlines(), code.splitlines(), lineterm="", n=0)
            changed = [text[1:].strip() for text in list(diff)[2:] if text[0] in "+-"]  # past the file names
            yield {
                "id": f"{name.removeprefix('core/')}#{occurrence}",
                "line": line,
                "change": " -> ".join(changed),
                "code": code,
            }


def run_tests(folder: Path, impl: Path) -> tuple[str, float]:
    """Run the problem's tests against the module file ``impl`` in a forked child, which an alarm
    kills after :data:`TIMEOUT`: ("passed" | "failed" | "timeout", seconds)."""
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: pytest, then exit without running the parent's handlers
        try:
            import pytest

            signal.alarm(TIMEOUT)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os._exit(int(pytest.main([str(folder), f"--impl={impl.with_suffix('')}", *PYTEST_OPTIONS])))
        except BaseException:
            os._exit(99)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == -signal.SIGALRM:
        return "timeout", time.monotonic() - started
    return ("passed" if code == 0 else "failed"), time.monotonic() - started


def measure(folder: Path) -> dict:
    """Run every mutant of folder/solution.py; write the report beside it and return it."""
    solution, report_file = folder / "solution.py", folder / "mutation.json"
    source = solution.read_text(encoding="utf-8")
    old = {}
    if report_file.is_file():
        previous = json.loads(report_file.read_text(encoding="utf-8"))
        old = {key(m): m.get("reason", "") for m in previous["equivalent"]}
    started = time.monotonic()
    found = {"failed": [], "timeout": [], "passed": [], "equivalent": []}
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        outcome, seconds = run_tests(folder, solution)
        if outcome != "passed":
            raise SystemExit(f"{folder}: the tests do not pass on the unmutated solution ({outcome})")
        print(f"{folder.relative_to(ROOT)}: unmutated solution passes ({seconds:.1f} s)")
        for number, mutant in enumerate(mutants(source)):
            path = Path(scratch) / f"mutant_{number}.py"
            path.write_text(mutant["code"], encoding="utf-8")
            outcome, seconds = run_tests(folder, path)
            entry = {k: mutant[k] for k in ("id", "line", "change")}
            if outcome == "passed" and old.get(key(entry)):
                outcome = "equivalent"
                entry["reason"] = old[key(entry)]
            found[outcome].append(entry)
            print(
                f"  {outcome:10} {seconds:5.1f} s  line {mutant['line']}: {entry['change']}  [{entry['id']}]"
            )
    killed = len(found["failed"]) + len(found["timeout"])
    measured = killed + len(found["passed"])  # None below: cosmic-ray found nothing a test could kill
    report = {
        "solution": solution.relative_to(ROOT).as_posix(),
        "solution_sha256": hashlib.sha256(solution.read_bytes()).hexdigest(),
        "tool": f"cosmic-ray {metadata.version('cosmic-ray')} operators, {TIMEOUT} s limit, "
        "Hypothesis profile small, pytest -x",
        "mutants": measured + len(found["equivalent"]),
        "killed": killed,
        "survived": len(found["passed"]),
        "equivalent": found["equivalent"],
        "score": round(killed / measured, 3) if measured else None,
        "seconds": round(time.monotonic() - started),
        "surviving": found["passed"],
        "timeouts": found["timeout"],
    }
    report_file.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(
        f"{folder.relative_to(ROOT)}: {report['mutants']} mutants, {killed} killed, {report['survived']} "
        f"survived, {len(found['equivalent'])} equivalent ({report['seconds']} s)"
    )
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__.split("\n\n")[0])
    parser.add_argument("problems", nargs="*", help="problem names (default: every problem)")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # each mutant's line as it is measured
    runtime.configure(compilation_cache=ROOT / layout.JAX_CACHE)
    os.environ["JAXBOOK_RECHECK"] = "1"  # never skip a test as "unchanged since it passed"
    # imported once here, before any fork (JAX starts no backend until its first computation)
    import hypothesis  # noqa: F401
    import jax.numpy  # noqa: F401
    import pytest  # noqa: F401

    from jaxbook.practice import find_problem, problems

    folders = [find_problem(name) for name in args.problems] or list(problems().values())
    for folder in folders:
        measure(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
