"""How the build starts its kernels: without port races, and warm.

jupyter_client's default (``LocalProvisioner``) picks five free TCP ports by binding and closing
them, then tells the new kernel to bind them again a second or more later. Kernels started at the
same moment (parallel Sphinx workers, test builds running side by side) can be handed the same
port, and one of them dies with "Address already in use". JAX's documentation fixes this with a
provisioner that picks ports from a port server; this one removes the window altogether: the
kernel gets a connection file whose ports are 0, binds ports that the operating system assigns
(atomically), and writes the real ports back into the file (ipykernel does this for port 0). The
provisioner reads them from there. Nothing is picked twice, and no daemon is needed.

Warm kernels: a kernel costs about 2 s of CPU to start (Python, ipykernel, JAX), more than most
pages spend running their snippets. With ``reuse`` (the default; ``JAXBOOK_KERNEL_REUSE=0`` turns
it off), each process of the build keeps its kernel between pages: when MyST-NB shuts the kernel
down after a page, the kernel (:class:`jaxbook.kernel.BookKernel`) resets everything a page can
leave behind and answers that it stays; the provisioner then keeps it for the next page of the
same process. A kernel that is still running a cell, or that does not answer, is shut down for
real. Kernels are stopped when the build process exits (and stop by themselves if it dies).

The kernel specification (``jaxbook/kernels/python3/kernel.json``) names this provisioner;
jupyter_client finds it through the ``jupyter_client.kernel_provisioners`` entry point, which
``jaxbook_kernel.dist-info`` (at the repository root, on ``sys.path`` wherever the book is built or
tested) declares, so no install step is needed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from multiprocessing import util
from pathlib import Path

from jupyter_client.provisioning import LocalProvisioner
from traitlets import Bool

#: Seconds to wait for a new kernel to bind its ports, and for a kernel's answer at the end of a page.
START_TIMEOUT = 120
REPLY_TIMEOUT = 10
PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
#: Environment variable telling the kernel that it may be kept between pages.
REUSE_ENV = "JAXBOOK_KERNEL_REUSE"


class _Warm:
    """A kernel process that can serve another page, with its connection information."""

    def __init__(self, process, info: dict):
        self.process, self.info = process, info

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if not self.alive():
            return
        try:
            os.killpg(os.getpgid(self.process.pid), signal.SIGTERM)
        except OSError:
            self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except Exception:  # noqa: BLE001 - a kernel that ignores SIGTERM is killed
            self.process.kill()
            self.process.wait(timeout=5)


class _Pool:
    """The idle kernels of this process, one per launch command and environment."""

    def __init__(self):
        self.pid = os.getpid()
        self.idle: dict[str, _Warm] = {}
        # Runs at exit in this process, including a forked Sphinx worker (multiprocessing runs
        # its finalizers there; atexit handlers do not run in such workers).
        util.Finalize(self, _Pool.close, args=(self.idle,), exitpriority=10)

    def take(self, key: str) -> _Warm | None:
        warm = self.idle.pop(key, None)
        if warm is not None and not warm.alive():
            return None
        return warm

    def put(self, key: str, warm: _Warm) -> None:
        previous = self.idle.get(key)
        if previous is not None and previous is not warm:
            previous.stop()
        self.idle[key] = warm

    @staticmethod
    def close(idle: dict) -> None:
        for warm in idle.values():
            warm.stop()
        idle.clear()


_pool: _Pool | None = None


def pool() -> _Pool:
    """This process's pool (a forked child starts with an empty one: its parent owns the rest)."""
    global _pool
    if _pool is None or _pool.pid != os.getpid():
        _pool = _Pool()
    return _pool


def read_ports(path: Path) -> dict | None:
    """The connection file at ``path`` once the kernel has written real ports into it."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not there yet, or half written
        return None
    return info if all(info.get(port) for port in PORTS) else None


class BookProvisioner(LocalProvisioner):
    """A local provisioner whose kernels bind OS-assigned ports, kept warm between pages."""

    reuse = Bool(True, config=True, help="keep the kernel between pages of one build process")

    _warm: _Warm | None = None
    _released = False
    _key = ""

    def _reuse(self) -> bool:
        return self.reuse and os.environ.get(REUSE_ENV, "1") != "0"

    async def pre_launch(self, **kwargs):
        km = self.parent
        km.cache_ports = False  # ports are chosen by the kernel itself (see launch_kernel)
        kwargs = await super().pre_launch(**kwargs)
        env = kwargs.setdefault("env", dict(os.environ))
        env[REUSE_ENV] = "1" if self._reuse() else "0"
        # Which kernels may serve this launch: same command (without the connection file) and
        # same environment.
        command = [arg for arg in kwargs["cmd"] if arg != km.connection_file]
        self._key = json.dumps([command, sorted(env.items())])
        return kwargs

    async def launch_kernel(self, cmd, **kwargs):
        warm = pool().take(self._key) if self._reuse() else None
        if warm is None:
            warm = await self._start(cmd, **kwargs)
        self._warm, self._released = warm, False
        self.process, self.pid = warm.process, warm.process.pid
        try:
            self.pgid = os.getpgid(self.pid)
        except OSError:
            self.pgid = None
        self.connection_info = dict(warm.info)
        return self.connection_info

    async def _start(self, cmd, **kwargs) -> _Warm:
        """Start a kernel on ports it binds itself; return it once they are known."""
        path = Path(self.parent.connection_file)
        info = json.loads(path.read_text(encoding="utf-8"))
        info.update(dict.fromkeys(PORTS, 0))
        path.write_text(json.dumps(info, indent=1), encoding="utf-8")
        await super().launch_kernel(cmd, **kwargs)
        process = self.process
        deadline = time.monotonic() + START_TIMEOUT
        while (bound := read_ports(path)) is None:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the kernel exited with status {process.returncode} before "
                    f"binding its ports (command: {' '.join(cmd)})"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the kernel did not bind its ports within {START_TIMEOUT} s")
            await asyncio.sleep(0.02)
        bound["key"] = bound["key"].encode()
        # The manager still holds the ports it would have used: without its file, it loads ours.
        path.unlink()
        return _Warm(process, bound)

    async def shutdown_requested(self, restart: bool = False) -> None:
        """The page is done. Keep the kernel if it answers that it has reset itself."""
        await super().shutdown_requested(restart=restart)
        if restart or not self._reuse() or self._warm is None or not self._warm.alive():
            return
        if await self._kept_alive():
            self._released = True
            pool().put(self._key, self._warm)

    async def _kept_alive(self) -> bool:
        """Read the kernel's answer to the shutdown request that the manager just sent."""
        km = self.parent
        socket = getattr(km, "_control_socket", None)  # the socket the request went out on
        if socket is None:
            return False
        deadline = time.monotonic() + REPLY_TIMEOUT
        while time.monotonic() < deadline:
            if not await socket.poll(100):
                continue
            _, message = km.session.feed_identities(await socket.recv_multipart(), copy=True)
            reply = km.session.deserialize(message)
            if reply["msg_type"] == "shutdown_reply":
                return bool(reply["content"].get("jaxbook_kernel_kept"))
        return False

    # Once released, the kernel belongs to the pool: to the manager it has exited.
    async def poll(self):
        return 0 if self._released else await super().poll()

    async def wait(self):
        if self._released:
            self.process = None
            return 0
        return await super().wait()

    async def send_signal(self, signum: int) -> None:
        if not self._released:
            await super().send_signal(signum)

    async def kill(self, restart: bool = False) -> None:
        if not self._released:
            await super().kill(restart=restart)

    async def terminate(self, restart: bool = False) -> None:
        if not self._released:
            await super().terminate(restart=restart)
