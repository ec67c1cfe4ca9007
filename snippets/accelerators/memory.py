# platform: gpu,tpu differs -- There `memory_stats()` returns the device allocator's counters
import os
from unittest import mock

import jax
from jaxlib import xla_client

NAMES = (  # the variables of GPU memory that jaxlib reads
    "XLA_PYTHON_CLIENT_PREALLOCATE",
    "XLA_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_ALLOCATOR",
)


def gpu_plugin_options(**env):
    """The options JAX's CUDA plugin passes to its client, under env."""
    with mock.patch.dict(os.environ):  # restored afterwards
        for name in NAMES:
            os.environ.pop(name, None)
        os.environ.update(env)
        try:
            options = xla_client.generate_pjrt_gpu_plugin_options()
        except ValueError as error:
            return f"ValueError: {error}"
    keys = ("allocator", "preallocate", "memory_fraction")
    return {key: options[key] for key in keys if key in options}


print("what the CUDA plugin would be given, read from the environment:")
for setting in [
    {},
    {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    {"XLA_CLIENT_MEM_FRACTION": ".5"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
    {"XLA_CLIENT_MEM_FRACTION": ".5", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5"},
]:
    shown = " ".join(f"{k}={v}" for k, v in setting.items()) or "(nothing set)"
    print(f"  {shown}:\n    {gpu_plugin_options(**setting)}")

device = jax.devices()[0]
print(f"memory_stats() of {device.platform} device 0:", device.memory_stats())
