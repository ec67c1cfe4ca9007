"""Tests that re-check only what changed: a pytest plugin (``-p tests.verdicts`` in pyproject.toml).

A test that passed is recorded in ``_build/verdicts/`` under a key made of everything it reads:

- its node id;
- the files every test may read (:func:`always`: the machinery, the tests, the configuration,
  the lock, the theme's files; every file of the repository that is not the book's content);
- its own inputs, declared with ``@pytest.mark.inputs(...)`` (``.with_args(f)`` for one function): paths (files or folders, under the
  repository) or functions of the test item returning paths. ``tests/conftest.py`` gives every
  test without one the whole book (:func:`book`); a test that builds a throwaway book declares
  ``inputs()`` (no content of the book), a per-page test its page's own sources;
- the environment (:func:`environment`): Python, the platform and CPU, the installed packages (by their
  ``RECORD``: each installed file with its hash; an editable install never repeats),
  JAX's settings and every ``JAXBOOK_``/``JAX_``/``XLA_`` variable, Chromium, Java and the HTML checker, ``--impl``.

On the next run a test whose key holds a passed verdict is skipped, "unchanged since it passed".
A test may also declare inputs only known once its fixtures are set up (``@pytest.mark.built_inputs``,
such as the built page a browser test visits): when its first key misses, it is keyed again by
those once they exist (right after the fixture that builds the site, :data:`BUILDERS`, or after
set-up), and skipped if that key holds a passed verdict.

Failures, errors and skips are never recorded. ``JAXBOOK_RECHECK=1`` re-checks every test (and
records the passes); a clean clone has no ``_build`` and checks everything. A pytest run started
by a test (a nested run) checks everything and records nothing. Each input file is hashed once
per process (the cache holds its path, modification time and size).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from jaxbook import ROOT, files, pages, runtime, uptodate
from jaxbook.files import file_digest, write_atomic

#: The repository whose tests run (the run's root folder; the book, unless a test of this plugin).
root = ROOT
RECHECK = "JAXBOOK_RECHECK"
#: "on" in the process that enabled the plugin and its xdist workers, "off" in a nested run.
STATE = "JAXBOOK_VERDICTS"
#: Environment variables that can change what a test sees (besides the ones below, by prefix):
#: the build's, the kernel's, and the programs found on the PATH.
VARIABLES = ("PATH", *uptodate.VARIABLES, *runtime.KERNEL_VARIABLES)
PREFIXES = ("JAXBOOK_", *runtime.KERNEL_PREFIXES)
#: Variables of one run only (a run id, this switch itself): never part of a key.
PER_RUN = uptodate.PER_RUN
assert {RECHECK, STATE} <= PER_RUN
SKIP_REASON = "unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"
BUILT_SKIP_REASON = "what it reads of the build is unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"

#: Fixtures that make the files ``built_inputs`` name (the site, built once per run): a test
#: that uses one is keyed by its built inputs right after it, before its other fixtures (a
#: browser page, a served notebook) are set up, so that an unchanged one costs nothing.
BUILDERS = ("site_root", "built_site")
CHECK_FIXTURE = "_built_verdict"

Inputs = Iterable[str | Path | Callable]
KEY = pytest.StashKey[str | None]()
BUILT_KEY = pytest.StashKey[str | None]()
OUTCOME = pytest.StashKey[dict]()


# --- files -------------------------------------------------------------------------------------


@functools.cache
def repository_files() -> tuple[Path, ...]:
    """Every file of the repository that git does not ignore (tracked or not), sorted."""
    return files.repository_files(root)


def is_content(path: Path) -> bool:
    """The book's content: its pages, snippets and practice problems (practice/conftest.py, which
    sets up every practice run, is machinery)."""
    relative = path.relative_to(root)
    if relative.parts[0] in ("snippets", "practice"):
        return relative.as_posix() != "practice/conftest.py"
    return any(relative.match(pattern) for pattern in pages.PAGE_PATTERNS)


@functools.cache
def always() -> tuple[Path, ...]:
    """Files any test may read: every file of the repository but the book's content."""
    return tuple(p for p in repository_files() if not is_content(p))


@functools.cache
def book() -> tuple[Path, ...]:
    """The book's content: pages, snippets with their expected outputs, practice problems."""
    return tuple(p for p in repository_files() if is_content(p))


def files_under(path: Path | str) -> list[Path]:
    """``path`` itself, or the files of the folder ``path`` (those git does not ignore, inside the
    repository; every file elsewhere, such as in ``_build``)."""
    path = Path(path) if Path(path).is_absolute() else root / path
    if not path.is_dir():
        return [path]
    if name(path).startswith(("_build/", "/")):
        return sorted(p for p in path.rglob("*") if p.is_file())
    return list(_listed_under(f"{path}/"))


@functools.cache
def _listed_under(prefix: str) -> tuple[Path, ...]:
    return tuple(p for p in repository_files() if str(p).startswith(prefix))


def name(path: Path) -> str:
    """``path`` under the repository, or in full when it is elsewhere."""
    return files.name_under(path, root)


def files_digest(paths: Iterable[Path]) -> str:
    """One hash of the names and contents of ``paths``."""
    return files.files_digest(paths, root)


@functools.cache
def _group_digest(group: Callable[[], tuple[Path, ...]]) -> str:
    return files_digest(group())


# --- the environment ---------------------------------------------------------------------------


def chromium() -> str:
    """The Chromium the browser tests drive: its version, or that it is missing."""
    from tests.browser.support import CHROMIUM

    if not CHROMIUM.is_file():
        return f"{CHROMIUM}: missing"
    real = CHROMIUM.resolve()
    try:
        version = subprocess.run(
            [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        version = "no version"
    return f"{CHROMIUM} {version} {file_digest(real)}"


def java() -> str:
    """The Java that runs the HTML checker: its program and that program's hash (a new JDK is a
    new program; no Java is started), or that it is missing."""
    found = shutil.which("java")
    if not found:
        return "missing"
    real = Path(os.path.realpath(found))
    return f"{real} {file_digest(real)}"


@functools.cache
def _environment() -> str:
    variables = uptodate.build_variables(os.environ, VARIABLES, PREFIXES)
    return json.dumps(
        {
            "python": sys.version,
            "executable": sys.executable,
            "platform": platform.platform(),
            "cpu": runtime.cpu(),
            "cores": os.cpu_count(),
            "root": str(root),
            "variables": sorted(variables.items()),
            "packages": uptodate.distributions(),  # by content: never the same for an editable one
            "axe": file_digest(root / "node_modules" / "axe-core" / "package.json"),
            "vnu": file_digest(root / "node_modules" / "vnu-jar" / "package.json"),
            "java": java(),
            "chromium": chromium(),
        }
    )


def environment(config) -> str:
    """What of the environment can change a test's outcome, with the options of this run."""
    return _environment() + json.dumps({"impl": config.getoption("--impl", None)})


# --- keys --------------------------------------------------------------------------------------


#: Groups of files a marker may name by their function (hashed together once per process).
GROUPS = (always, book)


def declared(item, marker: str) -> list[str]:
    """Digests of what ``item``'s ``marker`` markers name: groups of :data:`GROUPS`, paths, or
    functions of the item returning paths. A test without an ``inputs`` marker reads the whole
    book."""
    groups, found = [], []
    marks = list(item.iter_markers(marker))
    if marker == "inputs" and not marks:
        marks = [pytest.mark.inputs.with_args(book).mark]
    for mark in marks:
        for entry in mark.args:
            if entry in GROUPS:
                groups.append(f"{entry.__name__}:{_group_digest(entry)}")
            else:
                for path in entry(item) if callable(entry) else [entry]:
                    found.extend(files_under(path))
    return [*sorted(groups), files_digest(found)]


def key_of(item, own: list[str], stage: str) -> str:
    material = [item.nodeid, stage, _group_digest(always), environment(item.config), *own]
    return hashlib.sha256("\n".join(material).encode()).hexdigest()


def source_key(item) -> str | None:
    """The key of ``item`` from the files it declares, or None when the plugin is off or its
    inputs cannot be read (then it is checked)."""
    if not active(item.config):
        return None
    if KEY not in item.stash:
        try:
            item.stash[KEY] = key_of(item, declared(item, "inputs"), "sources")
        except (OSError, ValueError, SyntaxError):
            item.stash[KEY] = None
    return item.stash[KEY]


def path_of(key: str) -> Path:
    return root / "_build" / "verdicts" / key[:2] / f"{key}.json"


def has_passed(key: str | None, nodeid: str) -> bool:
    """A complete verdict file for ``key`` says the test passed (a half-written or foreign one
    is not trusted)."""
    if key is None or os.environ.get(RECHECK) == "1":
        return False
    try:
        data = json.loads(path_of(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("key") == key
        and data.get("test") == nodeid
        and data.get("passed")
    )


def record(key: str, nodeid: str) -> None:
    """Write the passed verdict for ``key`` in one step: a reader sees all of it or nothing."""
    path = path_of(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"key": key, "test": nodeid, "passed": True}))


def settled(item) -> bool:
    """True when ``item`` passed with exactly its current inputs: it is skipped without set-up."""
    return has_passed(source_key(item), item.nodeid)


# --- hooks -------------------------------------------------------------------------------------


def active(config) -> bool:
    return getattr(config, "_jaxbook_verdicts", False)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "inputs(*paths_or_functions): the files this test reads besides the machinery (tests/verdicts.py)",
    )
    config.addinivalue_line(
        "markers",
        "built_inputs(*paths_or_functions): files it reads once its fixtures are set up (tests/verdicts.py)",
    )
    if hasattr(config, "workerinput"):
        on = os.environ.get(STATE) == "on"
    else:  # a pytest run started by a test checks everything
        on = os.environ.get(STATE) is None
        os.environ[STATE] = "on" if on else "off"
    config._jaxbook_verdicts = on
    global root
    root = Path(config.rootpath)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the fixtures are set up: skip a test whose inputs are those of its last pass."""
    item.stash[OUTCOME] = {}
    if settled(item):
        pytest.skip(SKIP_REASON)


def built_key(item) -> str | None:
    """``item``'s key by what it reads of the build (which must be built by now), made once per
    run; None when it declares no built inputs or its sources cannot be keyed (then it runs)."""
    if not item.get_closest_marker("built_inputs") or source_key(item) is None:
        return None
    if BUILT_KEY not in item.stash:
        item.stash[BUILT_KEY] = key_of(item, declared(item, "built_inputs"), "built")
    return item.stash[BUILT_KEY]


def will_run(item) -> bool:
    """False when ``item`` is skipped as unchanged: its sources, or what it reads of the build,
    are those of its last pass. A fixture serving several tests at once (one Java run of the
    HTML checker) uses it to check only the tests that run."""
    return not settled(item) and not has_passed(built_key(item), item.nodeid)


def skip_if_built_inputs_unchanged(item) -> None:
    """Skip ``item`` when its built inputs are those of its last pass."""
    if has_passed(built_key(item), item.nodeid):
        pytest.skip(BUILT_SKIP_REASON)


def pytest_collection_modifyitems(items):
    """A test with built inputs that uses a fixture of :data:`BUILDERS` checks them first thing
    in its set-up (:func:`_built_verdict`), not after every fixture."""
    for item in items:
        names = getattr(item, "fixturenames", None)
        if item.get_closest_marker("built_inputs") and names and set(BUILDERS) & set(names):
            if CHECK_FIXTURE not in names:  # parametrized tests share one list of names
                names.insert(0, CHECK_FIXTURE)


@pytest.fixture
def _built_verdict(request):
    """The site built, and nothing else set up yet: skip the test if what it reads of the build
    is unchanged since it passed (a browser test would otherwise open its page first)."""
    request.getfixturevalue(next(b for b in BUILDERS if b in request.fixturenames))
    skip_if_built_inputs_unchanged(request.node)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """With its fixtures set up: skip a test whose built inputs are those of its last pass (a
    test that no fixture of :data:`BUILDERS` sets up; the others were checked by
    :func:`_built_verdict`)."""
    if CHECK_FIXTURE not in getattr(item, "fixturenames", ()):
        skip_if_built_inputs_unchanged(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    outcomes = item.stash.setdefault(OUTCOME, {})
    outcomes[report.when] = report.passed and not hasattr(report, "wasxfail")
    if report.when == "teardown" and all(outcomes.get(w) for w in ("setup", "call", "teardown")):
        for key in (source_key(item), item.stash.get(BUILT_KEY, None)):
            if key is not None:
                record(key, item.nodeid)
    return report


# --- what the book's tests read ----------------------------------------------------------------


@functools.cache
def page_sources(page: Path) -> tuple[Path, ...]:
    """What one page's results and reader notebook are made of: the page, the snippets it loads
    with every project module they import and their expected outputs, and for a practice problem's
    statement, the problem's folder and the files practice/ shares (its notebook writes them)."""
    from jaxbook import downloads, outputs, store

    snippets = pages.loaded_snippets(page)
    found = [page, *(ROOT / name for name in store.inputs(snippets, ROOT))]
    found += [outputs.expected_path(s) for s in snippets]
    problem = downloads.practice_problem(page, ROOT)
    if problem is not None:
        found += [problem, *shared_practice_files()]
    return tuple(found)


@functools.cache
def shared_practice_files() -> tuple[Path, ...]:
    """The files directly in practice/: every problem's tests and notebooks use them."""
    return tuple(p for p in (ROOT / "practice").iterdir() if p.is_file())


def param_path(item, name: str) -> Path:
    value = Path(str(item.callspec.params[name]).split("?", 1)[0])
    return value if value.is_absolute() else ROOT / value


def snippet_page(item) -> list[Path]:
    """A per-snippet test (parameter ``path``): its page's sources (its page runs in one kernel)."""
    return page_sources(pages.page_of(param_path(item, "path"), ROOT))


def notebook_page(item) -> list[Path]:
    """A per-page test (parameter ``page``, such as ``guide/jit``): that page's sources."""
    return page_sources(param_path(item, "page").with_suffix(".md"))


def problem(item) -> list[Path]:
    """A practice problem's test, or a test of one problem (a parameter under its folder): the
    problem's folder and the files practice/ shares."""
    params = getattr(item, "callspec", None)
    candidates = [Path(v) for v in (params.params.values() if params else ()) if isinstance(v, Path)]
    for start in [*candidates, Path(item.path)]:
        folder = next((p for p in [start, *start.parents] if (p / "starter.py").is_file()), None)
        if folder is not None:
            return [folder, *shared_practice_files()]
    raise ValueError(f"{item.nodeid}: no practice problem folder in its parameters or path")


def built_files(pages: Iterable[str]) -> list[Path]:
    """Built pages (paths under the site, such as ``guide/jit.html``) and every file they may
    load: the site's files but its other pages, their sources for download, and the search
    index, which only the search page loads."""
    html = ROOT / "_build" / "html"
    pages = [Path(p.split("?", 1)[0]) for p in pages]
    searching = any(p.name == "search.html" for p in pages)
    return [*(html / p for p in pages), *_site_assets(html, searching)]


@functools.cache
def _site_assets(html: Path, searching: bool) -> tuple[Path, ...]:
    """The files of the built site that any page may load, listed once per process: the site is
    built once per run, before any test keys what it reads of it (its content is still hashed
    for every key, :func:`file_digest`)."""
    return tuple(
        p
        for p in files_under(html)
        if p.suffix != ".html"
        and p.relative_to(html).parts[0] != "_sources"
        and (p.name != "searchindex.js" or searching)
    )


def built_page(item) -> list[Path]:
    """A browser test of one built page (parameter ``path``, such as ``guide/jit.html``): that
    page and every file it may load (:func:`built_files`)."""
    return built_files([str(item.callspec.params["path"])])


def built_pages(*pages: str) -> Callable:
    """The built inputs of a browser test that visits ``pages`` (paths under the site) and no
    other: those pages and every file they may load (:func:`built_files`)."""

    def inputs(item) -> list[Path]:
        return built_files(pages)

    return inputs
