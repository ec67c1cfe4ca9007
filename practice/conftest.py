"""The practice problems' ``impl`` fixture: the module ``--impl`` selects (``solution`` unless
told otherwise, ``starter``, or ``wrong/<mistake>``); ``--impl=wrong`` runs each test against the
wrong solutions whose header names it after ``Caught by:`` (jaxbook/practice.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxbook.practice import (
    REQUIREMENT_MARKER,
    caught_by,
    load_impl,
    use_profiles,
)

# make check and the wrong-solution run choose their profile with --hypothesis-profile
use_profiles("large")


def pytest_configure(config):
    config.addinivalue_line("markers", REQUIREMENT_MARKER)


def pytest_generate_tests(metafunc):
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
    """The implementation under test (the junit XML records which as the property ``impl``)."""
    which = getattr(request, "param", None) or request.config.getoption(
        "--impl"
    )
    request.node.user_properties.append(("impl", which))
    return load_impl(Path(request.path).parent, which)
