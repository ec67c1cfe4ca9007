"""pytest set-up shared by tests/ and practice/: JAX is configured here, before any test imports it."""

from __future__ import annotations

import os
import sys

from jaxbook import ROOT, layout, runtime

# One JAX compilation cache for every test, worker and practice run (never the build: see runtime).
runtime.configure(compilation_cache=ROOT / layout.JAX_CACHE)
sys.path.insert(0, str(ROOT))

# Python caches bytecode, and pytest its assert-rewritten test modules, in __pycache__ folders (which
# git ignores), also where the caller's environment sets PYTHONDONTWRITEBYTECODE (this machine's
# image and CI do): without them every run rewrites ~150 test modules again (collection 5.8 s
# instead of 3.4 s, quiet 2-core machine), and the suite runs as on most contributors' machines.
# Every process a test starts inherits this.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

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
