"""Shared fixtures: the real site, built once per test session (strict, incremental).

In a full run (``make test``: no paths, ``-k`` or ``-m`` given) the xdist controller starts the
strict build of the site, on every core (``sphinx -j auto``), and the workers start at once: the
tests that do not need the site (practice problems and their wrong solutions, throwaway books,
the machinery) run first, while it builds (:func:`pytest_collection_modifyitems`). A test that
needs the site waits for that build: the site, browser and notebook tests look at its pages, and
each per-snippet test finds its page's result in the execution store instead of running it again. In any
other run, the first test that needs the site builds it; a file lock makes the other workers wait
for that build and use it too. So no test needs an xdist group to share the site.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from jaxbook import ROOT

HTML = ROOT / "_build" / "html"
RESULT = ROOT / "_build" / "test-site.json"
LOCK = ROOT / "_build" / "test-site.lock"
#: Set by the controller when it starts the build: the run id its result will carry.
BUILT = "JAXBOOK_TEST_SITE_RUN"
#: Seconds a test waits for the controller's build (the build's own limit).
BUILD_TIMEOUT = 3600
#: Fixtures that need the built site: tests using them run after the others.
SITE_FIXTURES = {"site", "built_site", "site_root", "site_url", "filled_store", "visitor"}


@dataclass
class SiteBuild:
    returncode: int
    stdout: str
    stderr: str
    html: Path


def save_site(build: SiteBuild, run: str | None) -> None:
    """Keep a build's result in RESULT, in one write (a waiting worker never reads half)."""
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULT.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps({**asdict(build), "html": str(HTML), "run": run}), encoding="utf-8")
    tmp.replace(RESULT)


def _start() -> subprocess.Popen:
    """``make html``'s build: the store filled on every core, then the strict Sphinx build."""
    return subprocess.Popen(
        [sys.executable, "-m", "jaxbook.build"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen, run: str | None) -> SiteBuild:
    """Wait for the build (at most BUILD_TIMEOUT) and keep its result in RESULT."""
    try:
        stdout, stderr = process.communicate(timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        stderr += f"\nthe build did not finish within {BUILD_TIMEOUT} s and was stopped"
    build = SiteBuild(process.returncode, stdout, stderr, HTML)
    save_site(build, run)
    return build


def build_site(run: str | None = None) -> SiteBuild:
    """Run the strict build of the book and keep its result in RESULT."""
    return _finish(_start(), run)


def load_site(path: Path = RESULT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def as_build(data: dict) -> SiteBuild:
    return SiteBuild(data["returncode"], data["stdout"], data["stderr"], Path(data["html"]))


def is_full_run(config) -> bool:
    """`make test` and CI: every test, nothing selected away."""
    return (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not config.option.collectonly
    )


_controller_build: subprocess.Popen | None = None


def start_build(run: str) -> None:
    """Start the strict build in the background; its result lands in RESULT, marked ``run``."""
    global _controller_build
    RESULT.unlink(missing_ok=True)
    _controller_build = _start()
    threading.Thread(target=_finish, args=(_controller_build, run), name="site-build", daemon=True).start()


def wait_for_site(run: str) -> SiteBuild:
    """The controller's build, once it has finished."""
    deadline = time.monotonic() + BUILD_TIMEOUT
    while time.monotonic() < deadline:
        try:
            data = load_site()
        except (OSError, ValueError):
            data = {}
        if data.get("run") == run:
            return as_build(data)
        time.sleep(0.5)
    pytest.fail(f"the site build started by the test run did not finish within {BUILD_TIMEOUT} s")


def pytest_configure(config):
    if hasattr(config, "workerinput") or not is_full_run(config) or os.environ.get(BUILT):
        return
    print(
        "building the site on every core; the tests that do not need it run meanwhile",
        file=sys.stderr,
        flush=True,
    )
    run = f"controller-{uuid.uuid4().hex}"
    start_build(run)
    os.environ[BUILT] = run  # the workers inherit it


def pytest_unconfigure(config):
    if _controller_build is not None and _controller_build.poll() is None:
        _controller_build.terminate()  # the run was cut short


def pytest_collection_modifyitems(config, items):
    """Tests that need the site last, so that the others run while it builds; in each part the
    xdist groups first (the longest work, such as the wrong solutions' run), otherwise in
    collection order (a stable sort; every worker sorts the same way, as xdist requires, and
    ``--no-loadscope-reorder`` keeps xdist from moving groups ahead by size)."""

    def key(item):
        needs_site = bool(SITE_FIXTURES & set(getattr(item, "fixturenames", ())))
        return needs_site, item.get_closest_marker("xdist_group") is None

    items.sort(key=key)


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    """The strict build of the whole book, built once for the whole test run."""
    if os.environ.get(BUILT):
        return wait_for_site(os.environ[BUILT])
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the others wait and use its build
        if run and RESULT.is_file():
            data = load_site()
            if data.get("run") == run:
                return as_build(data)
        return build_site(run)


@pytest.fixture(scope="session")
def filled_store() -> None:
    """The execution store holds the build's results: in a full run, once the controller's build
    has finished (a snippet test then reads its page's result). In other runs there is no build to
    wait for: a snippet test whose page has no result runs the page itself."""
    if os.environ.get(BUILT):
        wait_for_site(os.environ[BUILT])


@pytest.fixture(scope="session")
def built_site(site) -> Path:
    """The built HTML folder; fails (never skips) when the build failed."""
    assert site.returncode == 0, site.stdout[-3000:] + site.stderr[-20000:]
    return site.html


def pytest_terminal_summary(terminalreporter):
    """The study plan's figure: how many kept wrong solutions were proven to fail their tests."""
    reports = [
        r
        for key in ("passed", "failed")
        for r in terminalreporter.stats.get(key, [])
        if getattr(r, "when", None) == "call" and "test_wrong_solution_fails" in r.nodeid
    ]
    if reports:
        proven = sum(r.passed for r in reports)
        terminalreporter.write_line(
            f"practice: {proven} of {len(reports)} kept wrong solutions proven to fail the tests they name"
        )
