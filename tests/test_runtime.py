"""The one runtime configuration serves pytest too."""

import os

import jax

from jaxbook import runtime


def test_pytest_sees_eight_cpu_devices():
    assert jax.device_count() == runtime.DEVICE_COUNT == 8
    assert jax.default_backend() == "cpu"
    assert os.environ["XLA_FLAGS"] == runtime.JAX_ENV["XLA_FLAGS"]


def test_execution_key_names_versions_and_devices():
    key = runtime.execution_key()
    assert f"jax=={jax.__version__}" in key
    assert "xla_force_host_platform_device_count=8" in key
