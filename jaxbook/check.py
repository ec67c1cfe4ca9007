"""Check a learner's attempt at a practice problem: ``make check PROBLEM=adamw-from-scratch``.

Runs the problem's tests against ``practice/<section>/<problem>/starter.py`` (the file the learner
edits) and prints one line per test and a verdict. ``--impl solution`` checks the reference instead.
"""
from __future__ import annotations

import argparse
import sys

import pytest

from jaxbook import ROOT
from practice._check import Summary, report


def find_problem(name: str):
    """The folder of the problem called ``name`` (dashes or underscores)."""
    slug = name.strip().replace("-", "_")
    matches = [p for p in (ROOT / "practice").glob(f"*/{slug}") if (p / "starter.py").is_file()]
    return matches[0] if matches else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem")
    parser.add_argument("--impl", choices=["starter", "solution"], default="starter")
    args = parser.parse_args(argv)
    folder = find_problem(args.problem)
    if folder is None:
        known = sorted(p.parent.name.replace("_", "-") for p in (ROOT / "practice").glob("*/*/starter.py"))
        print(f"no practice problem called {args.problem!r}. Known problems:\n  " + "\n  ".join(known),
              file=sys.stderr)
        return 2
    summary = Summary()
    code = pytest.main([str(folder), f"--impl={args.impl}", "-q", "--tb=short", "-n", "0",
                        "-p", "no:cacheprovider", "--rootdir", str(ROOT)], plugins=[summary])
    report(summary, int(code), f"{folder.relative_to(ROOT)}/{args.impl}.py")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
