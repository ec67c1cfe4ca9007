"""The book's kernel (jaxbook.kernel) as the executor starts it: kernels started at the same moment
do not collide (they talk over Unix sockets, no TCP port is picked; it runs on a machine with no
TCP/IP at all), it runs only the machinery its
key holds, and none of the user's settings reach it."""

from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jaxbook import fingerprint
from jaxbook.execute import Kernel, without_user_settings

# Starts real kernels on pages of its own: none of the book's content is read (tests/pass_cache.py).
pytestmark = [pytest.mark.build, pytest.mark.inputs()]


def run_page(root: Path, *sources: str) -> tuple[list, str]:
    """Run snippets of these ``sources`` as one page in a new kernel: their results and its home."""
    paths = []
    for number, source in enumerate(sources):
        paths.append(root / "snippets" / "probe" / f"s{number}.py")
        paths[-1].parent.mkdir(parents=True, exist_ok=True)
        paths[-1].write_text(source)
    kernel = Kernel(root)
    try:
        return kernel.run_page(paths), kernel._dir.name
    finally:
        kernel.close()


def test_two_kernels_started_at_once_both_run(tmp_path):
    with ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda n: run_page(tmp_path / str(n), "import os\n\nprint(os.getpid())\n"), range(2))
        ((first,), _), ((second,), _) = runs
    assert first.contract is None and second.contract is None, (first, second)
    assert first.text != second.text  # two processes


def test_the_kernel_runs_no_build_code_and_none_its_machinery_hash_misses(tmp_path):
    """After a page ran (a declared error, then a snippet with a tolerance the kernel reads),
    the kernel has loaded no Sphinx and no comparison, and every jaxbook module it loaded is
    among the files of its machinery hash."""
    modules = (
        "# tolerance: rtol=1e-3 -- a header the kernel reads\nimport json\nimport sys\n\n"
        "print(json.dumps({n: getattr(m, '__file__', None) for n, m in list(sys.modules.items())}))\n"
    )
    cells, _ = run_page(tmp_path, "# raises: ValueError\nraise ValueError('x')\n", modules)
    assert [c.contract for c in cells] == [None, None], cells
    loaded = json.loads(cells[1].text)
    assert "jax" in loaded and "jaxbook.snippet" in loaded  # the kernel itself is __main__
    for name in ("sphinx", "myst_nb", "jaxbook.sphinxext", "jaxbook.verdict", "jaxbook.store"):
        assert name not in loaded, name
    ours = {Path(f) for f in loaded.values() if f and Path(f).is_relative_to(fingerprint.PACKAGE)}
    assert ours <= set(fingerprint.code()), ours - set(fingerprint.code())


def test_none_of_the_users_settings_reach_the_kernel(tmp_path, monkeypatch):
    """No key holds them: a module on the user's ``PYTHONPATH`` is not importable, the user's
    ``PYTHONOPTIMIZE`` does not strip asserts, IPython reads its configuration and start-up files
    from the kernel's own empty profile only (not the user's, /etc/ipython or the environment's),
    and matplotlib reads no matplotlibrc of the user's."""
    user = tmp_path / "user"
    startup = user / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-user.py").write_text("import builtins\n\nbuiltins.user_startup_ran = True\n")
    (user / "matplotlib").mkdir()
    (user / "matplotlib" / "matplotlibrc").write_text("figure.dpi: 17\n")
    (user / "user_module.py").write_text("")
    monkeypatch.setenv("IPYTHONDIR", str(user / "ipython"))
    monkeypatch.setenv("MPLCONFIGDIR", str(user / "matplotlib"))
    monkeypatch.setenv("PYTHONPATH", str(user))
    monkeypatch.setenv("PYTHONOPTIMIZE", "1")
    probe = (
        "import builtins\nimport importlib.util\nimport json\n\nimport matplotlib\n"
        "from IPython.core import application\nfrom ipykernel.kernelapp import IPKernelApp\n\n"
        "print(json.dumps([matplotlib.rcParams['figure.dpi'], hasattr(builtins, 'user_startup_ran'),\n"
        "    importlib.util.find_spec('user_module') is not None, __debug__,\n"
        "    application.SYSTEM_CONFIG_DIRS + application.ENV_CONFIG_DIRS,\n"
        "    IPKernelApp.instance().config_file_paths]))\n"
    )
    (cell,), home = run_page(tmp_path / "book", probe)
    assert cell.contract is None, cell
    *seen, paths = json.loads(cell.text)
    assert seen == [100.0, False, False, True, []], cell.text
    assert paths and all(Path(p).is_relative_to(home) for p in paths), (paths, home)


def test_a_readers_kernel_gets_none_of_the_users_python_variables_either(tmp_path):
    """The rule is one function, which the test of a reader's download calls too: the user's
    ``PYTHON*`` variables go, the rest stays, IPython and matplotlib read empty settings."""
    user = {"PYTHONPATH": "/src/jax", "PYTHONOPTIMIZE": "1", "PYTHONWARNINGS": "ignore"}
    env = without_user_settings({**user, "HOME": "/home/a", "LANG": "C.UTF-8"}, tmp_path)
    assert not [name for name in env if name.startswith("PYTHON")], env
    assert env["HOME"] == "/home/a" and env["LANG"] == "C.UTF-8"
    assert env["IPYTHONDIR"] == str(tmp_path / "ipython")
    assert (tmp_path / "matplotlibrc").read_text() == ""


#: A machine with no TCP/IP (the TPU host lent to the book has none): every IPv4 and IPv6 socket and
#: the list of network interfaces fail as they fail there, which made libzmq abort the kernel.
NO_TCP = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ifaddrs.h>
#include <sys/socket.h>
int getifaddrs(struct ifaddrs **found) { errno = EAFNOSUPPORT; return -1; }
int socket(int domain, int type, int protocol) {
  static int (*real)(int, int, int);
  if (domain == AF_INET || domain == AF_INET6) { errno = EAFNOSUPPORT; return -1; }
  if (!real) real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
  return real(domain, type, protocol);
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to take TCP/IP away")
def test_the_kernel_runs_on_a_machine_without_tcp(tmp_path, monkeypatch):
    (tmp_path / "no_tcp.c").write_text(NO_TCP)
    library = tmp_path / "no_tcp.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", library, tmp_path / "no_tcp.c", "-ldl"], check=True)
    monkeypatch.setenv("LD_PRELOAD", str(library))  # the kernel's process only: this one is running
    probe = "import socket\n\ntry:\n    socket.socket()\nexcept OSError as exc:\n    print(exc.strerror)\nprint(6 * 7)\n"
    (cell,), _ = run_page(tmp_path / "book", probe)
    assert cell.contract is None, cell
    assert cell.text == "Address family not supported by protocol\n42\n"  # no TCP there, and it ran
