"""A new Python process with a clean environment, for settings that JAX
reads only when it starts."""

import subprocess
import sys


def new_process(args, **env):
    """Run Python with args in a new process (deprecation warnings as
    errors) whose environment holds only JAX_PLATFORMS=cpu and env;
    -> what it printed."""
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", *args],
        env={"JAX_PLATFORMS": "cpu", **env},
        capture_output=True,
        text=True,
        timeout=120,  # killed if it takes longer
        check=True,
    )
    return done.stdout.strip()
