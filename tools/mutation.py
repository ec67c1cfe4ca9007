"""Mutation testing of the practice solutions: ``make mutation PROBLEM=masked-mean`` (or every problem).

Each mutant is ``solution.py`` with one small change made by one of cosmic-ray's operators (an
operator swapped, a comparison loosened, a number moved by one, a decorator removed, ...). The
problem's tests run against it, as against a learner's attempt (``--impl=<file>``), with
Hypothesis's small profile, ``-x`` and JAX's persistent compilation cache (_build/jax-cache): a
mutant is *killed* when a test fails, *survives* when every test passes. A survivor is either a gap
in the tests (kill it with a new test) or *equivalent*: a change no input can observe, which the
report lists with a one-line reason written by a maintainer.

The report, ``practice/<section>/<problem>/mutation.json``, names the sha256 of the solution.py it
measured (tests/test_practice.py fails when that is no longer the current file) and keeps the
reasons of equivalent mutants across runs (a mutant is known by its operator and its mutated line).

Mutants run one at a time, each in a child forked from a process that has already imported JAX,
pytest and Hypothesis (no backend started: the child starts its own), under a time limit.
"""

from __future__ import annotations

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

#: Binary operators that only make sense between integers or booleans: an arithmetic operator is
#: replaced by another arithmetic one, a bitwise one by another bitwise one (an arithmetic mutant
#: into ``|`` or ``<<`` is a TypeError on float arrays that every first call catches).
BITWISE = {"BitOr", "BitAnd", "BitXor", "LShift", "RShift"}
#: Seconds one mutant's tests may run (the unmutated run takes a few): past it the mutant counts
#: as killed (a hang a learner would notice), and the report says "timeout".
TIMEOUT = 300


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def key(mutant: dict) -> tuple[str, str]:
    """What identifies a mutant across runs: its operator and its change (line numbers and
    occurrence counts move when the solution is edited elsewhere)."""
    return mutant["id"].split("#")[0], mutant["change"]


def report_path(folder: Path) -> Path:
    return folder / "mutation.json"


def operators():
    """(name, operator) for every cosmic-ray operator used: all that take no arguments, except
    binary replacements across the arithmetic / bitwise divide (see BITWISE)."""
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
    """Every distinct mutant of ``source``: dicts with id (operator#occurrence), line, the original
    and mutated lines, and the mutated code."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    seen = {source}
    original = source.splitlines()
    for name, operator in operators():
        tree = get_ast(source)
        positions = [start for node in ast_nodes(tree) for start, _ in operator.mutation_positions(node)]
        for occurrence, (line, _col) in enumerate(positions):
            code = mutate_code(source, operator, occurrence)
            if code is None or code in seen:
                continue
            seen.add(code)
            changed = [
                text[1:].strip()
                for text in difflib.unified_diff(original, code.splitlines(), lineterm="", n=0)
                if text[:1] in "+-" and text[:3] not in ("+++", "---")
            ]
            yield {
                "id": f"{name.removeprefix('core/')}#{occurrence}",
                "line": line,
                "change": " -> ".join(changed),
                "code": code,
            }


def run_tests(folder: Path, impl: Path) -> tuple[str, float]:
    """Run the problem's tests against the module file ``impl`` in a forked child:
    ("passed" | "failed" | "timeout", seconds)."""
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: pytest, then exit without running the parent's handlers
        try:
            import pytest

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            code = pytest.main(
                [
                    str(folder),
                    f"--impl={impl.with_suffix('')}",
                    "--hypothesis-profile=small",
                    "-x",
                    "-q",
                    "-n",
                    "0",
                    "-p",
                    "no:cacheprovider",
                ]
            )
            os._exit(int(code))
        except BaseException:
            os._exit(99)
    deadline = started + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", time.monotonic() - started
        time.sleep(0.05)
    code = os.waitstatus_to_exitcode(status)
    return ("passed" if code == 0 else "failed"), time.monotonic() - started


def measure(folder: Path, log=print) -> dict:
    """Run every mutant of folder/solution.py; write and return the report."""
    solution = folder / "solution.py"
    source = solution.read_text(encoding="utf-8")
    old = {}
    if report_path(folder).is_file():
        previous = json.loads(report_path(folder).read_text(encoding="utf-8"))
        old = {key(m): m.get("reason", "") for m in previous.get("equivalent", [])}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutant-", dir=ROOT / layout.BUILD) as scratch:
        baseline = Path(scratch) / "unmutated.py"
        baseline.write_text(source, encoding="utf-8")
        outcome, seconds = run_tests(folder, baseline)
        if outcome != "passed":
            raise SystemExit(f"{folder}: the tests do not pass on the unmutated solution ({outcome})")
        log(f"{folder.relative_to(ROOT)}: unmutated solution passes ({seconds:.1f} s)")
        killed, survived, equivalent, timeouts = [], [], [], []
        for number, mutant in enumerate(mutants(source)):
            path = Path(scratch) / f"mutant_{number}.py"
            path.write_text(mutant["code"], encoding="utf-8")
            outcome, seconds = run_tests(folder, path)
            entry = {k: mutant[k] for k in ("id", "line", "change")}
            if outcome == "failed":
                killed.append(entry)
            elif outcome == "timeout":
                timeouts.append(entry)
            elif old.get(key(entry)):
                equivalent.append({**entry, "reason": old[key(entry)]})
            else:
                survived.append(entry)
            log(f"  {outcome:7} {seconds:5.1f} s  line {mutant['line']}: {entry['change']}  [{entry['id']}]")
    total = len(killed) + len(timeouts) + len(survived) + len(equivalent)
    report = {
        "solution": solution.relative_to(ROOT).as_posix(),
        "solution_sha256": sha256(solution),
        "tool": f"cosmic-ray {metadata.version('cosmic-ray')} operators, {TIMEOUT} s limit, "
        f"Hypothesis profile small, pytest -x",
        "mutants": total,
        "killed": len(killed) + len(timeouts),
        "survived": len(survived),
        "equivalent": equivalent,
        # None: no mutant that a test could kill (cosmic-ray found nothing to change)
        "score": round((len(killed) + len(timeouts)) / (total - len(equivalent)), 3)
        if total > len(equivalent)
        else None,
        "seconds": round(time.monotonic() - started),
        "surviving": survived,
        "timeouts": timeouts,
    }
    report_path(folder).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    log(
        f"{folder.relative_to(ROOT)}: {total} mutants, {report['killed']} killed, {len(survived)} survived, "
        f"{len(equivalent)} equivalent ({report['seconds']} s)"
    )
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problems", nargs="*", help="problem names (default: every problem)")
    args = parser.parse_args(argv)
    runtime.configure(compilation_cache=ROOT / runtime.TEST_COMPILATION_CACHE)
    os.environ["JAXBOOK_RECHECK"] = "1"  # never skip a test as "unchanged since it passed"
    sys.path.insert(0, str(ROOT))
    # imported once here, before any fork (JAX starts no backend until its first computation)
    import hypothesis  # noqa: F401
    import jax  # noqa: F401
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401

    from jaxbook.practice import find_problem, problems

    folders = [find_problem(name) for name in args.problems] or list(problems().values())
    (ROOT / layout.BUILD).mkdir(exist_ok=True)
    for folder in folders:
        measure(folder, log=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
