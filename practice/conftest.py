"""Fixtures for the practice problems.

Each problem folder holds ``starter.py`` (what the learner edits), ``solution.py`` (the reference),
``test_<problem>.py`` and ``wrong/<mistake>.diff``: plausible wrong answers kept as test data, each
the smallest change to ``solution.py`` as a unified diff, below a header of two lines: the mistake,
then the requirements it breaks and the tests that catch it (``Breaks: 2, 5. Caught by: test_a,
test_b``, wrapped onto indented lines when long); each must fail the tests it names. Tests never
import either module directly: they take the ``impl`` fixture, which is the module selected by
``--impl`` (``solution`` unless told otherwise).
``--impl=wrong`` runs every test once per ``wrong/*.diff`` of its problem whose header names it
after its ``Caught by:`` (the test id ends in the mistake's name, and the junit XML records
``impl`` as a property of each test case); ``--impl=wrong/<mistake>`` runs every test.
"""

from __future__ import annotations

import importlib.util
import linecache
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from practice._check import REQUIREMENT_MARKER, use_profiles

# Hypothesis's examples: the large profile in the suite; ``make check`` and the wrong-solution
# run choose theirs with --hypothesis-profile (practice/_check.py: PROFILES).
use_profiles("large")


def pytest_configure(config):
    config.addinivalue_line("markers", REQUIREMENT_MARKER)


def patched_solution(diff: Path) -> str:
    """The text of ``solution.py`` beside ``diff``'s folder with the patch ``diff`` applied.

    ``git apply`` (a maintained patch tool that every clone has) applies it in a scratch folder and
    refuses a patch whose context no longer matches: then the error names the patch and says why."""
    solution = diff.parent.parent / "solution.py"
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "solution.py"
        copy.write_bytes(solution.read_bytes())
        done = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(diff.resolve())],
            cwd=scratch,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise pytest.UsageError(
                f"{diff}: the patch no longer applies to {solution} (edit the patch to the "
                f"solution's new text):\n{done.stderr.strip()}"
            )
        return copy.read_text(encoding="utf-8")


def module_name(folder: Path, which: str) -> str:
    """The name under which :func:`load_impl` caches ``folder/<which>``'s module."""
    return f"practice_{folder.name}_{which.replace('/', '_')}"


def forget(folder: Path, which: str) -> None:
    """Drop ``folder/<which>``'s cached module: the next :func:`load_impl` imports the file again."""
    sys.modules.pop(module_name(folder, which), None)


def load_impl(folder: Path, which: str):
    """Import ``folder/<which>.py`` under a unique module name and return the module.

    ``which`` is ``solution``, ``starter`` or ``wrong/<mistake>`` (``solution.py`` patched with
    ``wrong/<mistake>.diff``; tracebacks name the patch). A module that fails to import is not
    cached: the next call raises the same error again (never a half-imported module)."""
    wrong = which.startswith("wrong/")
    path = folder / (f"{which}.diff" if wrong else f"{which}.py")
    if not path.is_file():
        raise pytest.UsageError(f"--impl={which}: no file {path}")
    name = module_name(folder, which)
    if name in sys.modules:
        return sys.modules[name]
    if wrong:  # tracebacks and inspect show the patched text, under the name wrong/<mistake>.py
        filename = str(folder / f"{which}.py")
        source = patched_solution(path)
        linecache.cache[filename] = (
            len(source),
            None,
            source.splitlines(True),
            filename,
        )
        spec = importlib.util.spec_from_loader(
            name, loader=None, origin=filename
        )
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        if wrong:
            module.__file__ = filename
            exec(compile(source, filename, "exec"), module.__dict__)
        else:
            spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def header(path: Path) -> str:
    """A wrong solution's header: the text of ``wrong/<mistake>.diff`` before its patch."""
    text = path.read_text(encoding="utf-8")
    return text[: text.find("\n--- ") + 1] if "\n--- " in text else text


def caught_by(path: Path) -> tuple[str, list[str]]:
    """A wrong solution's mistake (its header's first line) and the test names after its
    ``Caught by:`` (which may wrap onto indented lines)."""
    doc = header(path)
    match = re.search(r"Caught by:(.+(?:\n[ \t]+.+)*)", doc)
    return doc.split("\n", 1)[0].strip(), re.findall(
        r"\w+", match[1]
    ) if match else []


def breaks(path: Path) -> list[int]:
    """The numbers of the statement's requirements that a wrong solution breaks (its header's
    ``Breaks:``, up to the full stop before ``Caught by:``)."""
    match = re.search(r"^Breaks:([^.\n]+)", header(path), re.MULTILINE)
    return [int(n) for n in re.findall(r"\d+", match[1])] if match else []


def pytest_generate_tests(metafunc):
    """``--impl=wrong``: run each test against the wrong solutions whose docstring names it."""
    if (
        "impl" in metafunc.fixturenames
        and metafunc.config.getoption("--impl") == "wrong"
    ):
        folder = Path(metafunc.definition.path).parent
        names = [
            f"wrong/{p.stem}"
            for p in sorted((folder / "wrong").glob("*.diff"))
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
    """The implementation under test: solution.py, starter.py or wrong/<mistake>.diff applied."""
    which = getattr(request, "param", None) or request.config.getoption(
        "--impl"
    )
    request.node.user_properties.append(("impl", which))
    return load_impl(Path(request.path).parent, which)
