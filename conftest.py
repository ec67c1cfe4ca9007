"""pytest set-up shared by tests/ and practice/: JAX is configured here, before any test imports it."""

from __future__ import annotations

import os
import sys
import time

from jaxbook import ROOT, runtime

# One JAX compilation cache for every test, worker and practice run (never the build: see runtime).
runtime.configure(compilation_cache=ROOT / runtime.TEST_COMPILATION_CACHE)
sys.path.insert(0, str(ROOT))

# Tests read what Sphinx and the tools print as plain text, also where the caller's environment asks
# for colours (a CI service setting FORCE_COLOR): every process a test starts inherits this.
os.environ.pop("FORCE_COLOR", None)
os.environ["NO_COLOR"] = "1"


def pytest_addoption(parser):
    parser.addoption(
        "--impl",
        default="solution",
        help="practice problems: test the reference solution (default), the learner's starter, "
        "a kept wrong solution such as wrong/no_bias_correction, or wrong: every one of them",
    )


_started = time.time()


def pytest_terminal_summary(terminalreporter):
    from tests.browser.support import print_page_weights  # measured by tests/browser/test_weight.py

    print_page_weights(terminalreporter, _started)
