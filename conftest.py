"""pytest set-up shared by tests/ and practice/: JAX is configured here, before any test imports it."""
from __future__ import annotations

import sys

from jaxbook import ROOT, runtime

runtime.configure()
sys.path.insert(0, str(ROOT))


def pytest_addoption(parser):
    parser.addoption(
        "--impl", default="solution",
        help="practice problems: test the reference solution (default), the learner's starter, "
             "a kept wrong solution such as wrong/no_bias_correction, or wrong: every one of them",
    )
