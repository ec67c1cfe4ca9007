"""Fixtures for the practice problems.

Each problem folder holds ``starter.py`` (what the learner edits), ``solution.py`` (the reference),
``test_<problem>.py`` and ``wrong/<mistake>.py``: plausible wrong answers kept as test data (each
must fail at least one test). Tests never import either module directly: they take the ``impl``
fixture, which is the module selected by ``--impl`` (``solution`` unless told otherwise).
``--impl=wrong`` runs every test once per ``wrong/*.py`` of its problem whose docstring names it
on its ``Caught by:`` line (the test id ends in the mistake's name, and the junit XML records
``impl`` as a property of each test case); ``--impl=wrong/<mistake>`` runs every test.
"""

from __future__ import annotations

import ast
import importlib.util
import re
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


def caught_by(path: Path) -> tuple[str, list[str]]:
    """A wrong solution's mistake (its docstring's first line) and the test names on its
    ``Caught by:`` line (which may wrap onto indented lines)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    match = re.search(r"^Caught by:(.+(?:\n[ \t]+.+)*)", doc, re.MULTILINE)
    return doc.split("\n", 1)[0].strip(), re.findall(
        r"\w+", match[1]
    ) if match else []


def pytest_generate_tests(metafunc):
    """``--impl=wrong``: run each test against the wrong solutions whose docstring names it."""
    if (
        "impl" in metafunc.fixturenames
        and metafunc.config.getoption("--impl") == "wrong"
    ):
        folder = Path(metafunc.definition.path).parent
        names = [
            f"wrong/{p.stem}"
            for p in sorted((folder / "wrong").glob("*.py"))
            if metafunc.function.__name__ in caught_by(p)[1]
        ]
        metafunc.parametrize(
            "impl",
            names,
            indirect=True,
            ids=[n.removeprefix("wrong/") for n in names],
        )


@pytest.fixture
def impl(request):
    """The implementation under test: solution.py, starter.py or wrong/<mistake>.py."""
    which = getattr(request, "param", None) or request.config.getoption(
        "--impl"
    )
    request.node.user_properties.append(("impl", which))
    return load_impl(Path(request.path).parent, which)
