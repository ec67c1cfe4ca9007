"""The book's kernel (jaxbook.kernel) as the executor starts it: kernels started at the same moment
do not collide (they talk over Unix sockets, no TCP port is picked), and the kernel process does
what a snippet needs and nothing of the build (no Sphinx)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.execute import Kernel, without_user_settings

# Starts real kernels on pages of its own: none of the book's content is read (tests/pass_cache.py).
pytestmark = [pytest.mark.build, pytest.mark.inputs()]


@pytest.fixture
def book(tmp_path):
    """A throwaway book whose snippets print what the kernel process is."""
    (tmp_path / "snippets" / "probe").mkdir(parents=True)
    (tmp_path / "snippets" / "probe" / "pid.py").write_text("import os\n\nprint(os.getpid())\n")
    (tmp_path / "snippets" / "probe" / "modules.py").write_text(  # the kernel reads its header
        "# tolerance: rtol=1e-3 -- a header the kernel reads\n"
        "import json\nimport sys\n\nprint(json.dumps(sorted(sys.modules)))\n"
    )
    return tmp_path


def test_two_kernels_started_at_once_both_run(book):
    def start_and_run(_):
        kernel = Kernel(book)
        try:
            (cell,) = kernel.run_page([book / "snippets" / "probe" / "pid.py"])
            return cell, kernel.km.connection_file
        finally:
            kernel.close()

    with ThreadPoolExecutor(2) as pool:
        (first, one), (second, two) = pool.map(start_and_run, range(2))
    assert first.contract is None and second.contract is None, (first, second)
    assert first.text != second.text  # two processes
    assert one != two


def test_the_kernel_process_imports_no_sphinx_and_no_build_code(book):
    kernel = Kernel(book)
    try:
        (cell,) = kernel.run_page([book / "snippets" / "probe" / "modules.py"])
    finally:
        kernel.close()
    modules = json.loads(cell.text)
    assert "jax" in modules and "jaxbook.snippet" in modules  # the kernel itself is __main__
    for name in ("sphinx", "myst_nb", "jaxbook.sphinxext", "jaxbook.verdict", "jaxbook.compare"):
        assert name not in modules, name


def test_the_kernel_spec_starts_the_books_kernel():
    spec = json.loads((ROOT / "jaxbook" / "kernels" / "python3" / "kernel.json").read_text())
    assert spec["argv"][1:3] == ["-m", "jaxbook.kernel"]
    assert "kernel_provisioner" not in spec["metadata"]  # jupyter_client's own local provisioner


def test_the_users_ipython_and_matplotlib_settings_do_not_reach_the_kernel(book, tmp_path, monkeypatch):
    """No key holds a user's settings, so the kernel reads none: a start-up file of the user's
    IPython profile does not run, and a matplotlibrc of the user's is not read."""
    user = tmp_path / "user"
    startup = user / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-user.py").write_text("import builtins\n\nbuiltins.user_startup_ran = True\n")
    (user / "matplotlib").mkdir()
    (user / "matplotlib" / "matplotlibrc").write_text("figure.dpi: 17\n")
    monkeypatch.setenv("IPYTHONDIR", str(user / "ipython"))
    monkeypatch.setenv("MPLCONFIGDIR", str(user / "matplotlib"))
    probe = book / "snippets" / "probe" / "settings.py"
    probe.write_text(
        "import builtins\n\nimport matplotlib\n\n"
        "print(matplotlib.rcParams['figure.dpi'], hasattr(builtins, 'user_startup_ran'))\n"
    )
    kernel = Kernel(book)
    try:
        (cell,) = kernel.run_page([probe])
    finally:
        kernel.close()
    assert cell.contract is None and cell.text.split() == ["100.0", "False"], cell


def test_the_users_python_variables_and_the_machines_ipython_folders_do_not_reach_the_kernel(
    book, tmp_path, monkeypatch
):
    """No key holds them: a module on the user's ``PYTHONPATH`` is not importable, the user's
    ``PYTHONOPTIMIZE`` does not strip asserts, and IPython reads its configuration and start-up
    files from the kernel's own empty profile only (not /etc/ipython, /usr/local/etc/ipython or
    the environment's etc/ipython)."""
    user = tmp_path / "user-path"
    user.mkdir()
    (user / "user_module.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(user))
    monkeypatch.setenv("PYTHONOPTIMIZE", "1")
    probe = book / "snippets" / "probe" / "python.py"
    probe.write_text(
        "import importlib.util\nimport json\n\n"
        "from IPython.core import application\nfrom ipykernel.kernelapp import IPKernelApp\n\n"
        "print(json.dumps([importlib.util.find_spec('user_module') is not None, __debug__,\n"
        "    application.SYSTEM_CONFIG_DIRS + application.ENV_CONFIG_DIRS,\n"
        "    IPKernelApp.instance().config_file_paths]))\n"
    )
    kernel = Kernel(book)
    try:
        (cell,) = kernel.run_page([probe])
        home = kernel._dir.name
    finally:
        kernel.close()
    assert cell.contract is None, cell
    found, debug, machine, paths = json.loads(cell.text)
    assert (found, debug, machine) == (False, True, []), cell.text
    assert paths and all(Path(p).is_relative_to(home) for p in paths), (paths, home)


def test_a_readers_kernel_gets_none_of_the_users_python_variables_either(tmp_path):
    """The rule is applied in one place (``without_user_settings``), which the book's kernel and
    the test of a reader's download both call: the user's ``PYTHON*`` variables are dropped, the
    rest kept, and IPython and matplotlib read the kernel's own empty settings."""
    user = {"PYTHONPATH": "/src/jax", "PYTHONOPTIMIZE": "1", "PYTHONWARNINGS": "ignore"}
    env = without_user_settings({**user, "HOME": "/home/a", "LANG": "C.UTF-8"}, tmp_path)
    assert not [name for name in env if name.startswith("PYTHON")], env
    assert env["HOME"] == "/home/a" and env["LANG"] == "C.UTF-8"
    assert env["IPYTHONDIR"] == str(tmp_path / "ipython")
    assert (tmp_path / "matplotlibrc").read_text() == ""
