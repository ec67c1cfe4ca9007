import contextlib
import shlex
import shutil
import tempfile

import _your_script
from _process import new_process

COUNT = 'import jax; print("devices:", jax.device_count())'


def terminal(*args, **env):
    """Print the command line that runs Python with args and env, as you
    would type it, then run it in a fresh process and print its output."""
    settings = [f"{name}={shlex.quote(value)}" for name, value in env.items()]
    print("$", *settings, "python", shlex.join(args))
    print(new_process(list(args), **env))


terminal("-c", COUNT)
terminal("-c", COUNT, JAX_NUM_CPU_DEVICES="8")
with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
    shutil.copy(_your_script.__file__, "your_script.py")  # the file you saved
    terminal("your_script.py")
