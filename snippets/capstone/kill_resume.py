import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np

from snippets.capstone._train import make_mesh, manager, restore, train
from snippets.multiprocess._launch import ROOT, STRICT

KILL_AT = 25  # the step after which the first run is killed
ENV = {  # a clean environment for the training processes
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": os.environ.get(
        "XLA_FLAGS", "--xla_force_host_platform_device_count=8"
    ),
    "PYTHONPATH": str(ROOT),
}


def start(folder, cache):
    """A new process that trains into folder, resuming from its latest
    checkpoint; both processes share a compilation cache."""
    env = ENV | {
        "JAX_COMPILATION_CACHE_DIR": str(cache),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }
    command = [
        sys.executable,
        *STRICT,
        "-m",
        "snippets.capstone._train",
        str(folder),
    ]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run(folder, cache, kill_at=None):
    """Let a training process go step by step; SIGKILL it once it prints
    `step kill_at`. -> (exit status, last step printed)."""
    proc, step = start(folder, cache), None
    for line in proc.stdout:
        step = int(line.split()[1])  # the lines read "step <k>"
        if step == kill_at:
            proc.send_signal(signal.SIGKILL)  # no handler, no cleanup
            break
        proc.stdin.write("\n")
        proc.stdin.flush()
    proc.stdin.close()
    status = proc.wait()
    if status not in (0, -signal.SIGKILL):
        raise RuntimeError(proc.stderr.read()[-2000:])
    proc.stderr.close()
    return status, step


with tempfile.TemporaryDirectory() as tmp:
    folder, cache = Path(tmp) / "run", Path(tmp) / "cache"
    status, step = run(folder, cache, kill_at=KILL_AT)
    print(f"first process: killed by signal {-status} after step {step}")
    print("on disk:", sorted(p.name for p in folder.iterdir()))

    # what a kill during a save leaves: a partial copy under a temporary name
    partial = folder / "30.orbax-checkpoint-tmp"
    shutil.copytree(folder / "20" / "state", partial / "state")
    with manager(folder) as mngr:
        print(
            "with",
            partial.name,
            "beside them, Orbax lists steps",
            mngr.all_steps(),
            "-> latest",
            mngr.latest_step(),
        )

    status, step = run(folder, cache)
    print(f"second process: resumed, exit status {status} after step {step}")

    mesh = make_mesh()
    with jax.set_mesh(mesh), manager(folder) as mngr:
        resumed, _ = restore(mngr, mesh)
    reference = train(Path(tmp) / "reference", mesh)  # never interrupted

    def same(a, b):
        """Bit-exact equality of two pytrees of arrays."""
        return jax.tree.all(
            jax.tree.map(lambda x, y: np.array_equal(x, y), a, b)
        )

    print(
        "final params equal the uninterrupted run's, bit for bit:",
        same(resumed["params"], reference["params"]),
    )
    print(
        "so do the Optax state and the 40 losses:",
        same(resumed["opt"], reference["opt"])
        and same(resumed["losses"], reference["losses"]),
    )
