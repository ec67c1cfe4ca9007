"""Fixtures for the practice problems.

Each problem folder holds ``starter.py`` (what the learner edits), ``solution.py`` (the reference),
``test_<problem>.py`` and ``wrong/<mistake>.py``: plausible wrong answers kept as test data (each
must fail at least one test). Tests never import either module directly: they take the ``impl``
fixture, which is the module selected by ``--impl`` (``solution`` unless told otherwise).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def load_impl(folder: Path, which: str):
    """Import ``folder/<which>.py`` under a unique module name and return the module.

    ``which`` is ``solution``, ``starter`` or ``wrong/<mistake>``."""
    path = folder / f"{which}.py"
    if not path.is_file():
        raise pytest.UsageError(f"--impl={which}: no file {path}")
    name = f"practice_{folder.name}_{which.replace('/', '_')}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def impl(request):
    """The implementation under test: solution.py, starter.py or wrong/<mistake>.py."""
    return load_impl(Path(request.path).parent, request.config.getoption("--impl"))
