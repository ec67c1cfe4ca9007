"""Fixtures for the practice problems.

Each problem folder holds ``starter.py`` (what the learner edits), ``solution.py`` (the reference),
``test_<problem>.py`` and ``wrong/<mistake>.py``: plausible wrong answers kept as test data (each
must fail at least one test). Tests never import either module directly: they take the ``impl``
fixture, which is the module selected by ``--impl`` (``solution`` unless told otherwise).
``--impl=wrong`` runs every test once per ``wrong/*.py`` of its problem (the test id ends in the
mistake's name, and the junit XML records ``impl`` as a property of each test case).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def load_impl(folder: Path, which: str):
    """Import ``folder/<which>.py`` under a unique module name and return the module.

    ``which`` is ``solution``, ``starter`` or ``wrong/<mistake>``. A module that fails to import
    is not cached: the next call raises the same error again (never a half-imported module)."""
    path = folder / f"{which}.py"
    if not path.is_file():
        raise pytest.UsageError(f"--impl={which}: no file {path}")
    name = f"practice_{folder.name}_{which.replace('/', '_')}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def wrong_solutions(folder: Path) -> list[str]:
    """The kept wrong answers of the problem in ``folder``, as ``wrong/<mistake>``."""
    return sorted(f"wrong/{p.stem}" for p in (folder / "wrong").glob("*.py"))


def pytest_generate_tests(metafunc):
    if "impl" in metafunc.fixturenames and metafunc.config.getoption("--impl") == "wrong":
        names = wrong_solutions(Path(metafunc.definition.path).parent)
        metafunc.parametrize("impl", names, indirect=True,
                             ids=[n.removeprefix("wrong/") for n in names])


@pytest.fixture
def impl(request):
    """The implementation under test: solution.py, starter.py or wrong/<mistake>.py."""
    which = getattr(request, "param", None) or request.config.getoption("--impl")
    request.node.user_properties.append(("impl", which))
    return load_impl(Path(request.path).parent, which)
