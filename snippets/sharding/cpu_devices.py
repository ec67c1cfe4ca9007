import subprocess
import sys

from snippets.sharding import _your_script

COUNT = "import jax; print('devices:', jax.device_count())"


def new_process(args, **env):
    """Run Python with args in a new process whose environment holds only
    JAX_PLATFORMS=cpu and env; -> what it printed."""
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", *args],
        env={"JAX_PLATFORMS": "cpu", **env},
        capture_output=True,
        text=True,
        timeout=120,  # killed if it takes longer
        check=True,
    )
    return done.stdout.strip()


print("nothing set:          ", new_process(["-c", COUNT]))
print(
    "JAX_NUM_CPU_DEVICES=8:",
    new_process(["-c", COUNT], JAX_NUM_CPU_DEVICES="8"),
)
print("your script:")
print(new_process([_your_script.__file__]))
