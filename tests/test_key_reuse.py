"""JAX's key-reuse checker is on wherever the book runs code, so a snippet that uses a PRNG key
twice fails the build and the tests unless it switches the checker off on purpose."""

import os
import subprocess
import sys

import jax
import pytest

from jaxbook import ROOT, runtime

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()

REUSE = """import jax

key = jax.random.key(0)
a = jax.random.normal(key, (2,))
b = jax.random.normal(key, (2,))
"""


def clean_env():
    """The environment without the book's JAX settings, as a fresh shell would have it."""
    return {k: v for k, v in os.environ.items() if k not in runtime.JAX_ENV}


def test_pytest_runs_with_the_checker_on():
    assert jax.config.jax_debug_key_reuse is True


def test_a_snippet_that_reuses_a_key_fails(tmp_path):
    """jaxbook.run (what test_snippet runs) turns the checker on by itself."""
    snippet = tmp_path / "reuse.py"
    snippet.write_text(REUSE, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "jaxbook.run", str(snippet)],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "raised jax.errors.KeyReuseError" in result.stderr
    assert "reuse.py:5" in result.stderr  # the line of the second use


def test_the_build_kernel_turns_the_checker_on():
    code = "import jaxbook.kernel, jax; print(jax.config.jax_debug_key_reuse)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean_env(), capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "True", result.stderr
