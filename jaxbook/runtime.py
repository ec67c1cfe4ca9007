"""The one place that configures JAX for the book: the build's kernel and the tests call
:func:`configure` before JAX is imported, so every output and every test sees the same platform
and the same number of devices.
"""

from __future__ import annotations

import functools
import os
import platform
from pathlib import Path

from jaxbook import layout

#: Number of emulated CPU devices. Change it here and nowhere else.
DEVICE_COUNT = 8

#: Environment variables that fix JAX's platform and device count, and turn on JAX's key-reuse
#: checker: a snippet or test that uses a typed PRNG key twice raises ``KeyReuseError``. A snippet
#: that shows reuse on purpose says so in its code, ``jax.config.update("jax_debug_key_reuse",
#: False)``; the build restores the configuration after each snippet. Printed jaxprs are plain text
#: everywhere: JAX colours them in Jupyter (and in a terminal) unless told not to, and the
#: reader's notebook sets these variables too (:mod:`jaxbook.downloads`).
JAX_ENV = {
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": f"--xla_force_host_platform_device_count={DEVICE_COUNT}",
    "JAX_DEBUG_KEY_REUSE": "true",
    "JAX_PPRINT_USE_COLOR": "false",  # Upstream: JAX colours jaxprs in Jupyter (docs/upstream.md, JAX 0.12)
}

#: XLA flags that make this machine compile as another CPU does: an older instruction set than its
#: own (``--xla_cpu_max_isa``) or narrower vectors (``--xla_cpu_prefer_vector_width``). The last
#: digits of float results depend on both (the order of a vectorised sum; float16 arithmetic with or
#: without AVX-512), so expected outputs are checked under one of these besides the machine's own.
#: ``JAXBOOK_AS_CPU=<name>`` applies one to the book's kernel and ``python -m jaxbook.run``.
OTHER_CPUS = {
    # x86-64 without AVX-512: most laptops, AMD before Zen 4, many CI and hosting machines
    "avx2": "--xla_cpu_max_isa=AVX2",
    # the same with 128-bit vectors, as on Arm's NEON: sums in yet another order
    "avx2-128": "--xla_cpu_max_isa=AVX2 --xla_cpu_prefer_vector_width=128",
    # AVX-512 without its FP16 and BF16 extensions (Skylake-X to Ice Lake, Zen 4)
    "avx512": "--xla_cpu_max_isa=AVX512",
    # the machine's own instruction set with 128-bit vectors
    "128": "--xla_cpu_prefer_vector_width=128",
    # no FMA and no AVX2 (x86 CPUs before 2013): a bound, not a CPU anyone builds on today
    "avx": "--xla_cpu_max_isa=AVX",
}

#: Where ``make test`` checks that outputs hold on another CPU: the reader-notebook test runs every
#: page in a kernel compiling for this one (``None``: this machine has no other to emulate). On
#: x86-64 it differs from any build machine in vector width and, with AVX-512, in instruction set;
#: an Arm CPU's NEON vectors are already 128 bits wide and XLA has no older ISA to choose there.
READER_CPU = "avx2-128" if platform.machine().lower() in ("x86_64", "amd64") else None


def as_cpu() -> str | None:
    """The name of the CPU this process compiles as (``JAXBOOK_AS_CPU``), validated."""
    name = os.environ.get("JAXBOOK_AS_CPU") or None
    if name is not None and name not in OTHER_CPUS:
        raise ValueError(f"JAXBOOK_AS_CPU={name}: not one of {', '.join(OTHER_CPUS)} (jaxbook/runtime.py)")
    return name


#: The variables of :data:`JAX_ENV` that choose the devices: left out on the machine's own devices.
DEVICE_VARIABLES = ("JAX_PLATFORMS", "XLA_FLAGS")


def devices() -> str | int:
    """Which devices this process runs on (``JAXBOOK_DEVICES``): unset or ``cpu``, the book's
    :data:`DEVICE_COUNT` emulated CPU devices; ``cpu:N``, N of them (``cpu:1`` stands in for a
    machine with one accelerator); ``own``, the devices JAX finds itself (a GPU or TPU when there
    is one: the accelerator check, :mod:`tools.accelerator`). Returns ``"own"`` or the count."""
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


#: Where test runs and ``make check`` keep JAX's compilation cache (:func:`compilation_cache_env`).
TEST_COMPILATION_CACHE = layout.JAX_CACHE

#: Seconds one snippet may run before it is stopped with an error naming its file and line.
SNIPPET_TIMEOUT = int(os.environ.get("JAXBOOK_SNIPPET_TIMEOUT", "300"))


def compilation_cache_env(folder: Path) -> dict[str, str]:
    """JAX's persistent compilation cache in ``folder``, for test runs and ``make check`` only.

    A program that one test compiled is loaded from the cache by the next test, worker, practice
    run or notebook kernel that needs it: the same executable a compile would give, and JAX still
    reports it as a compilation (``/jax/core/compile/backend_compile_duration``). The build never
    uses it (:func:`configure` without ``compilation_cache`` removes it): a page shows what a
    reader's first run does, where a first call compiles and ``jax.log_compiles`` logs it.
    """
    return {
        "JAX_COMPILATION_CACHE_DIR": str(folder),
        # JAX caches only compilations slower than 1 s by default; most of ours take ~30 ms.
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }


#: The environment variables of the compilation cache.
CACHE_VARIABLES = tuple(compilation_cache_env(Path()))


def configure(environ: dict | None = None, compilation_cache: Path | None = None) -> dict:
    """Apply :data:`JAX_ENV` (:func:`jax_env`: with ``JAXBOOK_AS_CPU``'s flags) to ``environ`` (default ``os.environ``) and return it, with JAX's
    compilation cache in ``compilation_cache`` (:func:`compilation_cache_env`) or without one.

    Must run before ``import jax``; raises if JAX was already imported with other settings.
    """
    import sys

    env = os.environ if environ is None else environ
    wanted = jax_env()
    if env is os.environ and "jax" in sys.modules:
        current = {key: os.environ.get(key) for key in wanted}
        if current != wanted:
            raise RuntimeError(
                "jaxbook.runtime.configure() must run before `import jax` "
                f"(found {current}, expected {wanted})"
            )
    for name in DEVICE_VARIABLES:  # on its own devices, JAX chooses (unless the user said otherwise)
        if name not in wanted and env.get(name) == JAX_ENV[name]:
            env.pop(name)
    env.update(wanted)
    cache = compilation_cache_env(compilation_cache) if compilation_cache else {}
    for name in CACHE_VARIABLES:
        env.pop(name, None)
    env.update(cache)
    if env is os.environ and "jax" in sys.modules:  # JAX read these at import: tell it now
        import jax

        jax.config.update("jax_compilation_cache_dir", cache.get("JAX_COMPILATION_CACHE_DIR"))
        jax.config.update(
            "jax_persistent_cache_min_compile_time_secs",
            float(cache.get("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", 1.0)),
        )
    return env


#: What else of the kernel's environment can change what a snippet prints, besides :data:`JAX_ENV`
#: (which :func:`configure` sets) and the compilation cache (which it removes): JAX's and XLA's
#: other settings (``JAX_ENABLE_X64``, ``JAX_DEFAULT_MATMUL_PRECISION``, ...) and matplotlib's
#: backend. (``JAXBOOK_SNIPPET_TIMEOUT`` is not one: a snippet stopped at its limit broke its
#: contract, and such a result is never kept.)
KERNEL_PREFIXES = ("JAX_", "XLA_")
KERNEL_VARIABLES = ("MPLBACKEND",)


def kernel_settings(environ: dict | None = None) -> dict[str, str]:
    """The variables of ``environ`` (default ``os.environ``) that reach the book's kernel and can
    change an output, besides those :func:`configure` sets or removes, sorted by name."""
    env = os.environ if environ is None else environ
    return {
        name: env[name]
        for name in sorted(env)
        if (name.startswith(KERNEL_PREFIXES) or name in KERNEL_VARIABLES)
        and name not in JAX_ENV
        and name not in CACHE_VARIABLES
    }


def execution_key() -> str:
    """The JAX/jaxlib versions and the settings :func:`configure` gives the kernel (the
    devices); ``make upgrade`` prints it. Part of every key's environment
    (:func:`jaxbook.fingerprint.environment`)."""
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
    """The processor's feature flags from /proc/cpuinfo, read once per process (none but on Linux)."""
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


if __name__ == "__main__":  # python -m jaxbook.runtime: print the stamp as JSON
    import json

    configure()
    print(json.dumps(stamp()))
