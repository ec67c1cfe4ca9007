"""A new Python process with a clean environment, for settings that JAX
reads only when it starts."""

import functools
import subprocess
import sys


def new_process(args, **env):
    """Run Python with args in a new process whose environment holds only
    JAX_PLATFORMS=cpu and env; -> what it printed."""
    done = subprocess.run(
        [sys.executable, *args],
        env={"JAX_PLATFORMS": "cpu", **env},
        capture_output=True,
        text=True,
        timeout=120,  # killed if it takes longer
        check=True,
    )
    return done.stdout.strip()


def _strict(run):
    """``run`` for this book's build, which fails on a deprecation: Python
    reads PYTHONWARNINGS when it starts, so a deprecated call in the new
    process stops it (CalledProcessError) as it would stop the build."""

    @functools.wraps(run)
    def strict(args, **env):
        policy = "error::DeprecationWarning,error::FutureWarning"
        return run(args, **{**env, "PYTHONWARNINGS": policy})

    return strict


new_process = _strict(new_process)
