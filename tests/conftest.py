"""Shared fixtures: the real site, built once per test session (strict, incremental).

In a full run (``make test``: no paths, ``-k`` or ``-m`` given) a worker starts the strict build
of the site right after collection, on every core (``sphinx -j auto``), and the workers go on: the
tests that do not need the site (practice problems and their wrong solutions, throwaway books,
the machinery) run first, while it builds (:func:`pytest_collection_modifyitems`). A test that
needs the site waits for that build: the site, browser and notebook tests look at its pages, and
each per-snippet test finds its page's result in the execution store instead of running it again. In any
other run, the first test that needs the site builds it; a file lock makes the other workers wait
for that build and use it too. So no test needs an xdist group to share the site.

A test that passed with the same inputs is skipped (``tests/pass_cache.py``). Every test reads the
whole book unless it says otherwise (``@pytest.mark.inputs``); a practice problem's tests read its
folder. A full run starts the site's build only when a selected test that needs the site is not
skipped: the first worker to find one after collection starts it (:func:`start_build_if_needed`).
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

from jaxbook import ROOT, layout
from jaxbook.files import write_atomic
from tests import pass_cache

HTML = ROOT / layout.HTML
RESULT = ROOT / layout.BUILD / "test-site.json"
LOCK = ROOT / layout.BUILD / "test-site.lock"
#: Set by the controller when it starts the build: the run id its result will carry.
BUILT = "JAXBOOK_TEST_SITE_RUN"
pass_cache.PER_RUN.add(BUILT)  # a run's id: never part of a key
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
    write_atomic(RESULT, json.dumps({**asdict(build), "html": str(HTML), "run": run}))


def _start() -> subprocess.Popen:
    """``make html``'s build: the store filled on every core, then the strict Sphinx build."""
    return subprocess.Popen(
        [sys.executable, "-m", "jaxbook.build"],
        cwd=ROOT,
        env=pass_cache.steady(),  # the key of the site make html built
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


_build_process: subprocess.Popen | None = None
_build_thread: threading.Thread | None = None


def start_build(run: str) -> None:
    """Start the strict build in the background; its result lands in RESULT, marked ``run``."""
    global _build_process, _build_thread
    RESULT.unlink(missing_ok=True)
    _build_process = _start()
    _build_thread = threading.Thread(
        target=_finish, args=(_build_process, run), name="site-build", daemon=True
    )
    _build_thread.start()


def wait_for_site(run: str) -> SiteBuild:
    """The build started for this run, once it has finished."""
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
    os.environ[BUILT] = f"full-{uuid.uuid4().hex}"  # the workers inherit it


def needs_site(item) -> bool:
    return bool(SITE_FIXTURES & set(getattr(item, "fixturenames", ())))


def start_build_if_needed(items) -> None:
    """In a full run: start the site's build, on every core, as soon as one process of the run
    (a worker, or the only process) has collected a test that needs the site and is not skipped
    as unchanged. The other processes collect the same tests: the first to claim the run's build
    starts it."""
    run = os.environ.get(BUILT)
    if not run or not any(needs_site(item) and not pass_cache.settled(item) for item in items):
        return
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    claim = LOCK.with_name(f"test-site-{run}.claim")
    try:
        os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    print("building the site on every core; the tests that do not need it run meanwhile", file=sys.stderr)
    start_build(run)


def pytest_unconfigure(config):
    """The process that started the build waits for it (another worker may wait for its result),
    unless the run was cut short."""
    if _build_process is None:
        return
    _build_thread.join(BUILD_TIMEOUT)
    LOCK.with_name(f"test-site-{os.environ.get(BUILT)}.claim").unlink(missing_ok=True)


def pytest_keyboard_interrupt(excinfo):
    if _build_process is not None and _build_process.poll() is None:
        _build_process.terminate()


def default_inputs(item) -> None:
    """Inputs of a test that declares none: a practice problem's tests read its folder, any
    other test the whole book."""
    if item.get_closest_marker("inputs") is None:
        under_practice = Path(item.path).is_relative_to(ROOT / "practice")
        item.add_marker(
            pytest.mark.inputs.with_args(pass_cache.problem if under_practice else pass_cache.book)
        )


def pytest_collection_modifyitems(config, items):
    """Tests that need the site last, so that the others run while it builds; in each part the
    xdist groups first (the longest work, such as the wrong solutions' run), otherwise in
    collection order (a stable sort; every worker sorts the same way, as xdist requires, and
    ``--no-loadscope-reorder`` keeps xdist from moving groups ahead by size). Then the build,
    if a test needs it."""

    def key(item):
        return needs_site(item), item.get_closest_marker("xdist_group") is None

    for item in items:
        default_inputs(item)
    items.sort(key=key)
    start_build_if_needed(items)


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
    unchanged = [
        r
        for r in terminalreporter.stats.get("skipped", [])
        if "test_wrong_solution_fails" in r.nodeid and pass_cache.SKIP_REASON in str(r.longrepr)
    ]
    if reports or unchanged:
        proven = sum(r.passed for r in reports)
        terminalreporter.write_line(
            f"practice: {proven} of {len(reports)} kept wrong solutions checked now proven to fail the tests "
            f"they name; {len(unchanged)} more unchanged since they were"
        )
