"""Shared fixtures: the real site, built once per test session (strict, incremental).

In a full run (``make test``: no paths, ``-k`` or ``-m``) the first process to collect a test that
needs the site and is not skipped as unchanged starts its build on every core, and the tests that
do not need it run first, meanwhile (:func:`pytest_collection_modifyitems`). In any other run the
first test that needs the site builds it, under a file lock: the other workers wait and use it.
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
    run: str | None  # the run it was built for


def save_site(build: SiteBuild) -> None:
    """Keep a build's result in RESULT, in one write (a waiting worker never reads half)."""
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(RESULT, json.dumps({**asdict(build), "html": str(build.html)}))


def load_site() -> SiteBuild | None:
    """The last build's result in RESULT, if there is one."""
    try:
        data = json.loads(RESULT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return SiteBuild(**{**data, "html": Path(data["html"])})


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
    build = SiteBuild(process.returncode, stdout, stderr, HTML, run)
    save_site(build)
    return build


def build_site(run: str | None = None) -> SiteBuild:
    """Run the strict build of the book and keep its result in RESULT."""
    return _finish(_start(), run)


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
        build = load_site()
        if build is not None and build.run == run:
            return build
        time.sleep(0.5)
    pytest.fail(f"the site build started by the test run did not finish within {BUILD_TIMEOUT} s")


def pytest_configure(config):
    if hasattr(config, "workerinput") or not is_full_run(config) or os.environ.get(pass_cache.SITE_RUN):
        return
    os.environ[pass_cache.SITE_RUN] = f"full-{uuid.uuid4().hex}"  # the workers inherit it


def needs_site(item) -> bool:
    return bool(SITE_FIXTURES & set(getattr(item, "fixturenames", ())))


def start_build_if_needed(items) -> None:
    """In a full run: start the site's build if a collected test needs it and is not skipped as
    unchanged; every process collects the same tests, and the first to claim the run's build starts it."""
    run = os.environ.get(pass_cache.SITE_RUN)
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
    LOCK.with_name(f"test-site-{os.environ.get(pass_cache.SITE_RUN)}.claim").unlink(missing_ok=True)


def pytest_keyboard_interrupt(excinfo):
    if _build_process is not None and _build_process.poll() is None:
        _build_process.terminate()


def pytest_collection_modifyitems(config, items):
    """Tests that need the site last, so that the others run while it builds; in each part the
    xdist groups (the longest work) first, otherwise in collection order: a stable sort, the same
    in every worker, as xdist requires (``--no-loadscope-reorder`` keeps it). Then the build."""

    def key(item):
        return needs_site(item), item.get_closest_marker("xdist_group") is None

    items.sort(key=key)
    start_build_if_needed(items)


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    """The strict build of the whole book, built once for the whole test run."""
    if os.environ.get(pass_cache.SITE_RUN):
        return wait_for_site(os.environ[pass_cache.SITE_RUN])
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the others wait and use its build
        build = load_site()
        if run and build is not None and build.run == run:
            return build
        return build_site(run)


@pytest.fixture(scope="session")
def filled_store() -> None:
    """In a full run, the build's results in the execution store (a snippet test reads its page's);
    in another, a snippet test whose page has no result runs the page itself."""
    if os.environ.get(pass_cache.SITE_RUN):
        wait_for_site(os.environ[pass_cache.SITE_RUN])


@pytest.fixture(scope="session")
def built_site(site) -> Path:
    """The built HTML folder; fails (never skips) when the build failed."""
    assert site.returncode == 0, site.stdout[-3000:] + site.stderr[-20000:]
    return site.html


_started = time.time()


def pytest_terminal_summary(terminalreporter):
    """The study plan's figure: how many kept wrong solutions were proven to fail their tests; and
    the heaviest pages tests/browser/test_weight.py measured in this session."""
    from tests.browser.support import print_page_weights

    print_page_weights(terminalreporter, _started)
    stats = terminalreporter.stats
    wrong = "test_wrong_solution_fails"
    checked = stats.get("passed", []) + stats.get("failed", [])
    reports = [r for r in checked if getattr(r, "when", None) == "call" and wrong in r.nodeid]
    unchanged = [
        r for r in stats.get("skipped", []) if wrong in r.nodeid and pass_cache.SKIP_REASON in str(r.longrepr)
    ]
    if reports or unchanged:
        proven = sum(r.passed for r in reports)
        terminalreporter.write_line(
            f"practice: {proven} of {len(reports)} kept wrong solutions checked now proven to fail the tests "
            f"they name; {len(unchanged)} more unchanged since they were"
        )
