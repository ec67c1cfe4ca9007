"""``make check PROBLEM=...``: check an attempt at a practice problem, one line per test and a
verdict (:mod:`jaxbook.practice` runs the tests)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jaxbook import ROOT, layout, runtime
from jaxbook.practice import PRACTICE, ProblemNameError, check_problem, find_problem, report


def main(argv=None) -> int:
    """``make check``: one line per test and a verdict; exit status 2 for a bad name."""
    parser = argparse.ArgumentParser(description="Check an attempt at a practice problem (make check)")
    parser.add_argument("problem")
    parser.add_argument("--impl", choices=["starter", "solution"], default="starter")
    parser.add_argument("--practice", type=Path, default=PRACTICE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        folder = find_problem(args.problem, args.practice)
    except ProblemNameError as error:
        print(error, file=sys.stderr)
        return 2
    shown = (folder / f"{args.impl}.py").relative_to(args.practice.parent)
    # Before the attempt imports JAX, as the tests' conftest.py requires (with the tests' cache).
    runtime.configure(compilation_cache=ROOT / layout.JAX_CACHE)
    code, summary, error = check_problem(folder, args.impl, args.practice)
    if summary is None:
        print(f"{shown} does not import, so no test can run:\n\n{error}", file=sys.stderr)
        print(f"ERROR  {shown}: fix the error above, then run the check again")
        return 1
    report(summary, code, str(shown))
    return code or (1 if summary.collect_errors else 0)


if __name__ == "__main__":
    sys.exit(main())
