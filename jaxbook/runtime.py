"""The one place that configures JAX for the book: the build's kernel and the tests call
:func:`configure` before JAX is imported, so every output and every test sees the same platform
and the same number of devices.
"""

from __future__ import annotations

import functools
import os
import platform
import sys
from pathlib import Path

#: Number of emulated CPU devices. Change it here and nowhere else.
DEVICE_COUNT = 8

#: JAX's platform and device count, its key-reuse checker on (a snippet showing reuse turns it off
#: in its code) and jaxprs printed without colour; the reader's notebook sets these too.
JAX_ENV = {
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": f"--xla_force_host_platform_device_count={DEVICE_COUNT}",
    "JAX_DEBUG_KEY_REUSE": "true",
    "JAX_PPRINT_USE_COLOR": "false",  # Upstream: JAX colours jaxprs in Jupyter (docs/upstream.md, JAX 0.12)
}

#: XLA flags that make this machine compile as another CPU (an older instruction set, narrower
#: vectors), on whose choice the last digits of float results depend: ``JAXBOOK_AS_CPU=<name>``.
OTHER_CPUS = {
    "avx2": "--xla_cpu_max_isa=AVX2",  # x86-64 without AVX-512: most laptops, many CI machines
    "avx2-128": "--xla_cpu_max_isa=AVX2 --xla_cpu_prefer_vector_width=128",  # and Arm NEON's width
    "avx512": "--xla_cpu_max_isa=AVX512",  # without FP16 and BF16 (Skylake-X to Ice Lake, Zen 4)
    "128": "--xla_cpu_prefer_vector_width=128",  # this machine's instructions, 128-bit vectors
    "avx": "--xla_cpu_max_isa=AVX",  # no FMA, no AVX2 (before 2013): a bound, not a build machine
}


def as_cpu() -> str | None:
    """The name of the CPU this process compiles as (``JAXBOOK_AS_CPU``), validated."""
    name = os.environ.get("JAXBOOK_AS_CPU") or None
    if name is not None and name not in OTHER_CPUS:
        raise ValueError(f"JAXBOOK_AS_CPU={name}: not one of {', '.join(OTHER_CPUS)} (jaxbook/runtime.py)")
    return name


#: The variables of :data:`JAX_ENV` that choose the devices: left out on the machine's own devices.
DEVICE_VARIABLES = ("JAX_PLATFORMS", "XLA_FLAGS")


def devices() -> str | int:
    """Which devices this process runs on (``JAXBOOK_DEVICES``): ``cpu`` (default), the book's
    :data:`DEVICE_COUNT` emulated CPU devices; ``cpu:N``, N of them; ``own``, those JAX finds
    itself (a GPU or TPU: the accelerator check). Returns ``"own"`` or the count."""
    value = os.environ.get("JAXBOOK_DEVICES", "cpu").strip() or "cpu"
    if value == "own":
        return value
    if value == "cpu":
        return DEVICE_COUNT
    kind, _, count = value.partition(":")
    if kind != "cpu" or not count.isdigit() or int(count) < 1:
        raise ValueError(f"JAXBOOK_DEVICES={value}: not 'cpu', 'cpu:<count>' or 'own' (jaxbook/runtime.py)")
    return int(count)


def jax_env() -> dict[str, str]:
    """:data:`JAX_ENV`, with the flags of :func:`as_cpu` added to ``XLA_FLAGS`` when one is set,
    for the devices :func:`devices` chooses (none of :data:`DEVICE_VARIABLES` for ``own``)."""
    chosen = devices()
    if chosen == "own":
        return {k: v for k, v in JAX_ENV.items() if k not in DEVICE_VARIABLES}
    env = dict(JAX_ENV, XLA_FLAGS=f"--xla_force_host_platform_device_count={chosen}")
    name = as_cpu()
    if name is not None:
        env["XLA_FLAGS"] = f"{env['XLA_FLAGS']} {OTHER_CPUS[name]}"
    return env


#: Seconds one snippet may run before it is stopped with an error naming its file and line.
SNIPPET_TIMEOUT = int(os.environ.get("JAXBOOK_SNIPPET_TIMEOUT", "300"))


def compilation_cache_env(folder: Path) -> dict[str, str]:
    """JAX's persistent compilation cache in ``folder``, for test runs and ``make check`` only:
    never the build's, whose pages show a reader's first run, where a first call compiles."""
    return {
        "JAX_COMPILATION_CACHE_DIR": str(folder),
        # JAX caches only compilations slower than 1 s by default; most of ours take ~30 ms.
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }


#: The environment variables of the compilation cache.
CACHE_VARIABLES = tuple(compilation_cache_env(Path()))


def configure(environ: dict | None = None, compilation_cache: Path | None = None) -> dict:
    """Apply :func:`jax_env` to ``environ`` (default ``os.environ``) and return it, with JAX's
    compilation cache in ``compilation_cache`` (:func:`compilation_cache_env`) or without one.
    Must run before ``import jax``; raises if JAX was already imported with other settings."""
    env = os.environ if environ is None else environ
    wanted = jax_env()
    imported = env is os.environ and "jax" in sys.modules
    found = {key: env.get(key) for key in wanted}
    if imported and found != wanted:
        raise RuntimeError(
            f"jaxbook.runtime.configure() must run before `import jax` (found {found}, expected {wanted})"
        )
    for name in DEVICE_VARIABLES:  # on its own devices, JAX chooses (unless the user said otherwise)
        if name not in wanted and env.get(name) == JAX_ENV[name]:
            env.pop(name)
    for name in CACHE_VARIABLES:
        env.pop(name, None)
    cache = compilation_cache_env(compilation_cache) if compilation_cache else {}
    env.update(wanted, **cache)
    if imported:  # JAX read these at import: tell it now
        import jax

        jax.config.update("jax_compilation_cache_dir", cache.get("JAX_COMPILATION_CACHE_DIR"))
        minimum = float(cache.get("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", 1.0))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", minimum)
    return env


def execution_key() -> str:
    """The JAX/jaxlib versions and the settings :func:`configure` gives the kernel (part of every
    key's environment; ``make upgrade`` prints it)."""
    settings = ";".join(f"{k}={v}" for k, v in sorted(jax_env().items()))
    return f"{_versions()};{settings}"


@functools.cache
def _versions() -> str:
    from importlib.metadata import version

    return f"jax=={version('jax')};jaxlib=={version('jaxlib')}"


#: cpuinfo flags, widest first, and how the stamp names them: the vector instructions XLA may use.
VECTOR_ISAS = (
    ("avx512_fp16", "AVX-512 and FP16"),
    ("avx512f", "AVX-512"),
    ("avx2", "AVX2"),
    ("avx", "AVX"),
    ("sve", "SVE"),
    ("asimd", "NEON"),
)


def cpu() -> str:
    """The processor outputs are computed on, as far as their last digits depend on it: its
    architecture and the widest vector instructions XLA may use there (``x86_64 with AVX2``), or
    the CPU it compiles as (:func:`as_cpu`)."""
    machine = platform.machine()
    if as_cpu():
        return f"{machine} compiling as {as_cpu()} ({OTHER_CPUS[as_cpu()]})"
    flags = _cpu_flags()
    return next((f"{machine} with {name}" for flag, name in VECTOR_ISAS if flag in flags), machine)


@functools.cache
def _cpu_flags() -> frozenset[str]:
    """The processor's feature flags from /proc/cpuinfo (none but on Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass  # not Linux: the architecture alone
    return frozenset()


def stamp() -> dict:
    """Describe the environment that produced the outputs (call after :func:`configure`)."""
    import jax

    return {
        "jax": jax.__version__,
        "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else jax.__version__,
        "backend": jax.default_backend(),
        "devices": jax.device_count(),
        "python": platform.python_version(),
        "cpu": cpu(),
        # what decides the last digits on an accelerator: its kind, and the float32 matmul precision
        "device_kind": jax.devices()[0].device_kind,
        "matmul_precision": jax.config.jax_default_matmul_precision or "default",
    }
