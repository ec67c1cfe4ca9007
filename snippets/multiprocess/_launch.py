"""Start one script as several local JAX processes and collect what they
print, in process order: a small stand-in for a cluster's job launcher."""

import contextlib
import functools
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The folder that holds the `snippets` package, for the processes' imports.
ROOT = Path(__file__).resolve().parents[2]


class PortTaken(RuntimeError):
    """Another program took the coordinator's port before process 0 did."""


def free_port():
    """A TCP port on the loopback address that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(script, args, processes, devices, timeout=180.0):
    """Run `python script COORDINATOR N K *args` for K = 0 .. N-1 at once,
    N = processes, each process with `devices` CPU devices.

    -> list of N str: what each process printed, in process order.
    Raises RuntimeError with the end of a failed process's stderr if one
    exits with an error, TimeoutError if they are not all done after
    `timeout` seconds; either way, every process still running is killed
    first.
    """
    env = {  # a clean environment: nothing inherited from this process
        "JAX_PLATFORMS": "cpu",
        "JAX_NUM_CPU_DEVICES": str(devices),
        "PYTHONPATH": str(ROOT),
    }
    for attempt in range(3):  # a free port can be taken before we bind it
        coordinator = f"127.0.0.1:{free_port()}"  # process 0 serves it
        commands = [
            [sys.executable, str(script), coordinator]
            + [str(processes), str(k), *map(str, args)]
            for k in range(processes)
        ]
        try:
            return _run_all(commands, env, timeout)
        except PortTaken:
            if attempt == 2:
                raise


def _run_all(commands, env, timeout):
    """Start every command at once, wait for all. -> their stdouts."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        outs, errs, procs = [], [], []
        for k, command in enumerate(commands):
            outs.append(stack.enter_context(open(f"{tmp}/{k}.out", "w+")))
            errs.append(stack.enter_context(open(f"{tmp}/{k}.err", "w+")))
            procs.append(
                subprocess.Popen(
                    command, env=env, stdout=outs[k], stderr=errs[k]
                )
            )
        try:
            _wait(procs, errs, time.monotonic() + timeout)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
        return [_read(out) for out in outs]


def _strict(run_all):
    """``run_all`` for this book's build, which fails on a deprecation:
    Python reads PYTHONWARNINGS when it starts, so a deprecated call stops
    the process (RuntimeError here) as it would stop the build."""

    @functools.wraps(run_all)
    def strict(commands, env, timeout):
        policy = "error::DeprecationWarning,error::FutureWarning"
        return run_all(commands, {**env, "PYTHONWARNINGS": policy}, timeout)

    return strict


_run_all = _strict(_run_all)


def _wait(procs, errs, deadline):
    """Until every process in procs has exited with status 0."""
    while True:
        codes = [p.poll() for p in procs]
        failed = [k for k, code in enumerate(codes) if code]
        if failed:
            k = failed[0]
            tail = "\n".join(_read(errs[k]).splitlines()[-20:])
            if "Address already in use" in _read(errs[0]):
                raise PortTaken(tail)
            raise RuntimeError(f"process {k} failed:\n{tail}")
        if all(code == 0 for code in codes):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the processes did not finish in time")
        time.sleep(0.05)


def _read(file):
    """The text of an open file, without a final newline."""
    file.seek(0)
    return file.read().rstrip("\n")
