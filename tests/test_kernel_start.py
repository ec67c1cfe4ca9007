"""Kernels started at the same moment do not collide (jaxbook.provisioner)."""

from __future__ import annotations

import asyncio
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from jupyter_client.manager import AsyncKernelManager

from jaxbook import ROOT
from jaxbook.outputs import execute_request
from jaxbook.provisioner import PORTS, BookProvisioner

pytestmark = pytest.mark.build  # starts real kernels


@pytest.fixture
def kernel_path(monkeypatch, tmp_path):
    """Jupyter finds the book's kernel, as in the build (jaxbook.sphinxext.on_config_inited);
    the kernel's book is a throwaway one holding the snippet that prints the kernel's pid."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "pid.py").write_text("import os\n\nprint(os.getpid())\n")
    monkeypatch.setenv("JAXBOOK_ROOT", str(tmp_path))
    monkeypatch.setenv("JAXBOOK_EXPECTED_OUTPUTS", "0")
    monkeypatch.setenv("JUPYTER_PATH", str(ROOT / "jaxbook"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("JAXBOOK_KERNEL_REUSE", "0")  # two new processes, not a kept one


def run_async(coroutine):
    """``asyncio.run`` in a thread of its own: a test on the same xdist worker may have left an
    event loop running in this one (Playwright's sync API does)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def run_snippet(kc, path: Path) -> dict:
    """Execute the snippet at ``path`` the way the build asks (its file named in the request's
    metadata, jaxbook.outputs.execute_request); keep its printed output in ``outputs``."""
    msg = execute_request(kc.session, path)
    kc.shell_channel.send(msg)
    while True:
        message = await kc.get_iopub_msg(timeout=120)
        if message["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
            continue
        if message["msg_type"] == "stream":
            outputs.append(message)
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    while True:
        reply = await kc.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


async def start_and_ask(barrier: asyncio.Barrier) -> tuple[dict, str]:
    km = AsyncKernelManager(kernel_name="python3")
    await barrier.wait()  # both managers start their kernel at the same moment
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=120)
        reply = await run_snippet(kc, Path(os.environ["JAXBOOK_ROOT"]) / "snippets" / "pid.py")
        assert reply["content"]["status"] == "ok"
        assert isinstance(km.provisioner, BookProvisioner)
        return km.get_connection_info(), str(km.provisioner.pid)
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)


outputs: list[dict] = []


def test_two_kernels_started_at_once_bind_distinct_ports(kernel_path):
    async def both():
        barrier = asyncio.Barrier(2)
        return await asyncio.gather(start_and_ask(barrier), start_and_ask(barrier))

    outputs.clear()
    (first, pid1), (second, pid2) = run_async(both())
    ports1, ports2 = {first[p] for p in PORTS}, {second[p] for p in PORTS}
    assert len(ports1) == len(ports2) == 5 and not ports1 & ports2, (first, pid1, second, pid2)
    printed = {m["content"]["text"].strip() for m in outputs if m["msg_type"] == "stream"}
    assert printed == {pid1, pid2} and pid1 != pid2  # each kernel answered on its own ports


def test_the_kernel_binds_the_ports_itself(kernel_path):
    """The ports come from the kernel's own bind (port 0), not from a pick made earlier: a port
    that the manager would have picked and that another process holds is never used."""

    async def run():
        km = AsyncKernelManager(kernel_name="python3")
        # Occupy the ports the manager is configured with, as a racing process would.
        held = []
        for name in PORTS:
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen()
            held.append(sock)
            setattr(km, name, sock.getsockname()[1])
        km.cache_ports = False
        try:
            await km.start_kernel()
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=120)
            kc.stop_channels()
            return {km.get_connection_info()[p] for p in PORTS}, {s.getsockname()[1] for s in held}
        finally:
            await km.shutdown_kernel(now=True)
            for sock in held:
                sock.close()

    used, held = run_async(run())
    assert len(used) == 5 and not used & held


def test_the_kernel_spec_names_a_registered_provisioner():
    import json
    from importlib.metadata import entry_points

    spec = json.loads((ROOT / "jaxbook" / "kernels" / "python3" / "kernel.json").read_text())
    name = spec["metadata"]["kernel_provisioner"]["provisioner_name"]
    (entry,) = entry_points(group="jupyter_client.kernel_provisioners", name=name)
    assert entry.load() is BookProvisioner
