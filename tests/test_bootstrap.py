"""The set-up stops with a clear message when no Python >= 3.12 is available."""

import shutil
import subprocess

from jaxbook import ROOT


def test_bootstrap_without_a_suitable_python_says_what_to_install(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "bootstrap.sh", tmp_path / "tools")
    shutil.copy(ROOT / "requirements.lock", tmp_path)
    fake = tmp_path / "fakebin"
    fake.mkdir()
    # Every interpreter the script may try is too old (exits non-zero on the version check).
    for name in ("python3.14", "python3.13", "python3.12", "python3", "pyenv"):
        (fake / name).write_text("#!/bin/sh\nexit 1\n")
        (fake / name).chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        ["bash", "tools/bootstrap.sh"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "needs Python 3.12 or newer" in result.stderr
    assert "pyenv install 3.12" in result.stderr and "make PYTHON=" in result.stderr
    assert not (tmp_path / ".venv").exists()
