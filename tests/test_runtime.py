"""The one runtime configuration serves pytest too, with a compilation cache the build never uses."""

import os
import subprocess
import sys

import jax
import pytest

from jaxbook import ROOT, layout, runtime

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()


def test_pytest_sees_eight_cpu_devices():
    assert jax.device_count() == runtime.DEVICE_COUNT == 8
    assert jax.default_backend() == "cpu"
    assert os.environ["XLA_FLAGS"] == runtime.JAX_ENV["XLA_FLAGS"]


def test_execution_key_names_versions_and_devices():
    key = runtime.execution_key()
    assert f"jax=={jax.__version__}" in key
    assert "xla_force_host_platform_device_count=8" in key


def test_tests_share_a_compilation_cache_and_the_build_kernel_has_none():
    """pytest (and every process it starts) uses the test session's compilation cache; the
    book's kernel, even when a test starts it, compiles everything itself."""
    assert jax.config.jax_compilation_cache_dir == str(ROOT / layout.JAX_CACHE)
    assert os.environ["JAX_COMPILATION_CACHE_DIR"] == jax.config.jax_compilation_cache_dir
    code = "import jaxbook.kernel, jax, os; print(jax.config.jax_compilation_cache_dir, 'JAX_COMPILATION_CACHE_DIR' in os.environ)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.split() == ["None", "False"], result.stderr


COUNT_COMPILES = """import collections, jax, jax.numpy as jnp
events = collections.Counter()
jax.monitoring.register_event_listener(lambda name, **kw: events.update([name]))
jax.monitoring.register_event_duration_secs_listener(lambda name, secs, **kw: events.update([name]))
jax.jit(lambda x: jnp.sin(x) * 3.0 + 1.0)(jnp.arange(5.0))
print(events["/jax/core/compile/backend_compile_duration"], events["/jax/compilation_cache/cache_hits"])
"""


def test_a_program_loaded_from_the_cache_still_counts_as_a_compilation(tmp_path):
    """What the cache may not change: practice tests count compilations with JAX's monitoring
    events (test_bucketed_padding.py), and a program loaded from the cache is reported as one."""
    env = runtime.configure(dict(os.environ), compilation_cache=tmp_path / "cache")
    runs = [
        subprocess.run(
            [sys.executable, "-c", COUNT_COMPILES], env=env, capture_output=True, text=True, timeout=120
        )
        for _ in range(2)
    ]
    (first_compiles, first_hits), (compiles, hits) = [tuple(map(int, r.stdout.split())) for r in runs]
    assert first_compiles >= 1 and first_hits == 0, runs[0].stderr
    assert compiles == first_compiles and hits == compiles, runs[1].stderr
