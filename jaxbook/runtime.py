"""The one place where the execution environment of the book is configured.

Both the build (through :mod:`jaxbook.kernel`) and pytest (through ``tests/conftest.py`` and
:mod:`jaxbook.run`) call :func:`configure` before JAX is imported, so every published output and
every test sees the same platform and the same number of devices.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Number of emulated CPU devices. Change it here and nowhere else.
DEVICE_COUNT = 8

#: Environment variables that fix JAX's platform and device count, and turn on JAX's key-reuse
#: checker: a snippet or test that uses a typed PRNG key twice raises ``KeyReuseError``. A snippet
#: that shows reuse on purpose says so in its code, ``jax.config.update("jax_debug_key_reuse",
#: False)``; the build restores the configuration after each snippet.
JAX_ENV = {
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": f"--xla_force_host_platform_device_count={DEVICE_COUNT}",
    "JAX_DEBUG_KEY_REUSE": "true",
}

#: Where test runs and ``make check`` keep JAX's compilation cache (:func:`compilation_cache_env`).
TEST_COMPILATION_CACHE = Path("_build") / "jax-cache"

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
    """Apply :data:`JAX_ENV` to ``environ`` (default ``os.environ``) and return it, with JAX's
    compilation cache in ``compilation_cache`` (:func:`compilation_cache_env`) or without one.

    Must run before ``import jax``; raises if JAX was already imported with other settings.
    """
    import sys

    env = os.environ if environ is None else environ
    if env is os.environ and "jax" in sys.modules:
        current = {key: os.environ.get(key) for key in JAX_ENV}
        if current != JAX_ENV:
            raise RuntimeError(
                "jaxbook.runtime.configure() must run before `import jax` "
                f"(found {current}, expected {JAX_ENV})"
            )
    env.update(JAX_ENV)
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


def execution_key() -> str:
    """A string that changes whenever published outputs could change without a source edit:
    the JAX/jaxlib versions and the device settings. The build re-executes every page when it changes."""
    from importlib.metadata import version

    settings = ";".join(f"{k}={v}" for k, v in sorted(JAX_ENV.items()))
    return f"jax=={version('jax')};jaxlib=={version('jaxlib')};{settings}"


def stamp() -> dict:
    """Describe the environment that produced the outputs (call after :func:`configure`)."""
    import platform

    import jax

    return {
        "jax": jax.__version__,
        "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else jax.__version__,
        "backend": jax.default_backend(),
        "devices": jax.device_count(),
        "python": platform.python_version(),
    }


if __name__ == "__main__":  # python -m jaxbook.runtime: print the stamp as JSON
    import json

    configure()
    print(json.dumps(stamp()))
