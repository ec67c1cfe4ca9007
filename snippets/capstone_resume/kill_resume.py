import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np

from snippets.capstone._train import make_mesh, manager, restore, train
from snippets.multiprocess._launch import ROOT

KILL_IN_SAVE = 30  # the first run dies while it writes this step's checkpoint
ENV = {  # a clean environment for the training processes
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": os.environ.get(
        "XLA_FLAGS", "--xla_force_host_platform_device_count=8"
    ),
    "PYTHONPATH": str(ROOT),
}


def start(folder, cache, log):
    """A new process that trains into folder, resuming from its latest
    checkpoint; both processes share a compilation cache. Its stderr goes
    to the file log: a pipe that nobody reads could fill and block it."""
    env = ENV | {
        "JAX_COMPILATION_CACHE_DIR": str(cache),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }
    command = [sys.executable, "-m", "snippets.capstone._train"]
    command += [str(folder), "--step-by-step"]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
    )


def run(folder, cache, kill_in_save=None):
    """Let a training process go step by step; tell it to die during the
    save of step kill_in_save. -> (exit status, what it printed)."""
    log = folder.with_name(f"{folder.name}-stderr.txt")
    with open(log, "a") as err:
        proc, said = start(folder, cache, err), []
        for line in proc.stdout:  # "restored step k", "step k", ...
            said.append(line.strip())
            if kill_in_save and said[-1] == f"step {kill_in_save - 1}":
                proc.stdin.write("kill during the next save\n")
            else:
                proc.stdin.write("\n")
            proc.stdin.flush()
        proc.stdin.close()
        status = proc.wait()
    if status not in (0, -signal.SIGKILL):
        raise RuntimeError(log.read_text()[-2000:])
    return status, said


with tempfile.TemporaryDirectory() as tmp:
    folder, cache = Path(tmp) / "run", Path(tmp) / "cache"
    status, said = run(folder, cache, kill_in_save=KILL_IN_SAVE)
    print(f"first process: {said[0]} to {said[-2]}, then {said[-1]!r};")
    print(f"  killed by signal {-status} while that save was being written")
    print("on disk:", sorted(p.name for p in folder.iterdir()))
    partial = folder / f"{KILL_IN_SAVE}.orbax-checkpoint-tmp"
    print(
        "commit_success.txt in it:", (partial / "commit_success.txt").exists()
    )
    with manager(folder) as mngr:
        print(
            "Orbax lists steps",
            mngr.all_steps(),
            "-> latest",
            mngr.latest_step(),
        )

    status, said = run(folder, cache)
    print(
        f"second process: {said[0]!r}, then {said[1]} to {said[-1]},",
        f"exit status {status}",
    )
    print("on disk:", sorted(p.name for p in folder.iterdir()))

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
