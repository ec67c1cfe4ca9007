"""Tests that re-check only what changed: a pytest plugin (``-p tests.pass_cache`` in pyproject.toml).

A test that passed is recorded in ``_build/pass-cache/`` under a key of everything it can read
(:func:`key_of`): the machinery and configuration (:func:`shared`), its own code (:func:`own_files`)
and its declared inputs; it is skipped while that key holds. While it runs, the repository's files
it opens must be in its key (:func:`pytest_runtest_call`, an audit run), so that a key never misses one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from jaxbook import ROOT, files, fingerprint, layout, pages, uptodate
from jaxbook.deps import project_dependencies
from jaxbook.files import file_digest, write_atomic

#: The repository whose tests run (the run's root folder; the book, unless a test of this plugin).
root = ROOT
RECHECK = "JAXBOOK_RECHECK"
#: "on" in the process that enabled the plugin and its xdist workers, "off" in a nested run.
STATE = "JAXBOOK_PASS_CACHE"
#: Where the passes are recorded, under the book's root.
FOLDER = layout.BUILD / "pass-cache"
#: Set (``JAXBOOK_AUDIT_INPUTS=1 make test``) to fail each test that reads a book file its inputs
#: do not name; an audit run, not the default, until the reads it finds in the suite are settled.
AUDIT = "JAXBOOK_AUDIT_INPUTS"
#: Variables of one test run, never part of a key: this plugin's switches and tests/conftest.py's
#: run id (it adds it), left out of the environment of the site's build too (:func:`steady`).
PER_RUN = {RECHECK, STATE}
SKIP_REASON = "unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"
BUILT_SKIP_REASON = "what it reads of the build is unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"

#: Fixtures that make the files ``built_inputs`` name (the site, built once per run): a test
#: that uses one is keyed by its built inputs right after it, before its other fixtures (a
#: browser page, a served notebook) are set up, so that an unchanged one costs nothing.
BUILDERS = ("site_root", "built_site")
BUILT_UNCHANGED_FIXTURE = "_built_unchanged"

KEY = pytest.StashKey[str | None]()
BUILT_KEY = pytest.StashKey[str | None]()
OUTCOME = pytest.StashKey[dict]()


# --- files -------------------------------------------------------------------------------------


@functools.cache
def repository_files() -> tuple[Path, ...]:
    """The files of the repository its code can read (:func:`jaxbook.uptodate.book_files`: an
    untracked log or scratch file is none of them)."""
    return uptodate.book_files(root)


def is_content(path: Path) -> bool:
    """The book's content: its pages, snippets and practice problems (practice/conftest.py, which
    sets up every practice run, is machinery)."""
    relative = path.relative_to(root)
    if relative.parts[0] in ("snippets", "practice"):
        return relative.as_posix() != "practice/conftest.py"
    return any(relative.match(pattern) for pattern in pages.PAGE_PATTERNS)


def is_shared(path: Path) -> bool:
    """Machinery and configuration any test may read (jaxbook/, conf.py, the Makefile, pyproject.toml,
    the locks, tools/bootstrap.sh, _static/ ...); not the book's content, a top-level Markdown file
    (README.md), the tests or the tools' Python scripts: code a test reads only when it imports it
    (:func:`own_files`) or names it in its inputs."""
    relative = path.relative_to(root)
    top_markdown = len(relative.parts) == 1 and relative.suffix == ".md"
    script = relative.parts[0] == "tests" or (relative.parts[0] == "tools" and relative.suffix == ".py")
    return not (is_content(path) or top_markdown or script)


@functools.cache
def shared() -> tuple[Path, ...]:
    """The files :func:`is_shared` names."""
    return tuple(p for p in repository_files() if is_shared(p))


@functools.cache
def own_files(test_file: Path) -> tuple[Path, ...]:
    """The code a test file runs besides the machinery: itself, this plugin, the ``conftest.py``
    files above it, and every file of the repository they import (their imports, read statically)."""
    conftests = [f / "conftest.py" for f in test_file.parents if f.is_relative_to(root)]
    code = [test_file, Path(__file__).resolve(), *(c for c in conftests if c.is_file())]
    return tuple(sorted({d for f in code for d in project_dependencies(f, root)} | set(code)))


@functools.cache
def _own_digest(test_file: Path) -> str:
    return files_digest(own_files(test_file))


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
    if name(path).startswith((f"{layout.BUILD}/", "/")):
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
    """The Chromium the browser tests drive (a launcher script: its version too), or that it is missing."""
    from tests.browser.support import CHROMIUM

    if not CHROMIUM.is_file():
        return "missing"
    try:
        run = subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=60)
        version = run.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        version = "no version"
    return f"{CHROMIUM.resolve()} {version} {file_digest(CHROMIUM.resolve())}"


def steady(environ=None) -> dict[str, str]:
    """``environ`` (default ``os.environ``) without the variables of this run (:data:`PER_RUN`)."""
    return {n: v for n, v in (os.environ if environ is None else environ).items() if n not in PER_RUN}


@functools.cache
def _environment() -> str:
    """The tests' environment (:func:`jaxbook.fingerprint.environment`) with the programs they run."""
    java = os.path.realpath(shutil.which("java") or "/missing/java")
    modules = root / "node_modules"
    tools = {
        "chromium": chromium(),
        "java": f"{java} {file_digest(Path(java))}",  # a new JDK is a new program; none is started
        "axe": file_digest(modules / "axe-core" / "package.json"),
        "vnu": file_digest(modules / "vnu-jar" / "package.json"),
    }
    return fingerprint.environment("tests", steady(), tools)


def environment(config) -> str:
    """What of the environment can change a test's outcome, with the options of this run."""
    return _environment() + json.dumps({"root": str(root), "impl": config.getoption("--impl", None)})


# --- keys --------------------------------------------------------------------------------------


#: Groups of files a marker may name by their function (hashed together once per process).
GROUPS = (shared, book)


def named(item, marker: str) -> tuple[list[Callable], list[Path]]:
    """What ``item``'s ``marker`` markers name: groups of :data:`GROUPS`, and files (paths, or
    functions of the item returning paths). A test without an ``inputs`` marker reads the book."""
    groups, found = [], []
    marks = list(item.iter_markers(marker))
    if marker == "inputs" and not marks:
        marks = [pytest.mark.inputs.with_args(book).mark]
    for mark in marks:
        for entry in mark.args:
            if entry in GROUPS:
                groups.append(entry)
            else:
                for path in entry(item) if callable(entry) else [entry]:
                    found.extend(files_under(path))
    return groups, found


def declared(item, marker: str) -> list[str]:
    """Digests of what ``item``'s ``marker`` markers name (:func:`named`)."""
    groups, found = named(item, marker)
    return [*sorted(f"{g.__name__}:{_group_digest(g)}" for g in groups), files_digest(found)]


def key_of(item, own: list[str], stage: str) -> str:
    """The key of ``item``: its node id, the machinery and configuration, its own code, the
    environment, ``own``."""
    code = _own_digest(Path(item.path))
    material = [item.nodeid, stage, _group_digest(shared), code, environment(item.config), *own]
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
    return root / FOLDER / key[:2] / f"{key}.json"


def has_passed(key: str | None, nodeid: str) -> bool:
    """A complete record for ``key`` says the test passed (a half-written or foreign one
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
    """Write that the test of ``key`` passed, in one step: a reader sees all of it or nothing."""
    path = path_of(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"key": key, "test": nodeid, "passed": True}))


def settled(item) -> bool:
    """True when ``item`` passed with exactly its current inputs: it is skipped without set-up."""
    return has_passed(source_key(item), item.nodeid)


# --- hooks -------------------------------------------------------------------------------------


def active(config) -> bool:
    return getattr(config, "_jaxbook_pass_cache", False)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "inputs(*paths_or_functions): the files this test reads besides the machinery (tests/pass_cache.py)",
    )
    config.addinivalue_line(
        "markers",
        "built_inputs(*paths_or_functions): files it reads once its fixtures are set up (tests/pass_cache.py)",
    )
    if hasattr(config, "workerinput"):
        on = os.environ.get(STATE) == "on"
    else:  # a pytest run started by a test checks everything
        on = os.environ.get(STATE) is None
        os.environ[STATE] = "on" if on else "off"
    config._jaxbook_pass_cache = on
    if on and not _audited:
        sys.addaudithook(_audit)  # hooks stay for the process's life: one is enough
        _audited.append(True)
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
    in its set-up (:func:`_built_unchanged`), not after every fixture."""
    for item in items:
        names = getattr(item, "fixturenames", None)
        if item.get_closest_marker("built_inputs") and names and set(BUILDERS) & set(names):
            if BUILT_UNCHANGED_FIXTURE not in names:  # parametrized tests share one list of names
                names.insert(0, BUILT_UNCHANGED_FIXTURE)


@pytest.fixture
def _built_unchanged(request):
    """The site built, and nothing else set up yet: skip the test if what it reads of the build
    is unchanged since it passed (a browser test would otherwise open its page first)."""
    request.getfixturevalue(next(b for b in BUILDERS if b in request.fixturenames))
    skip_if_built_inputs_unchanged(request.node)


#: Where the running test's opened files are collected (None: no test is running).
_opened: set[str] | None = None
_audited: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    """Note each file or folder of the repository a running test opens or lists."""
    if _opened is not None and event in ("open", "os.listdir", "os.scandir") and args:
        if event != "open" and sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
            return  # the import system listing a folder to find a module reads no content
        if isinstance(args[0], str | bytes | os.PathLike):
            _opened.add(os.path.abspath(os.fsdecode(args[0])))


def undeclared(item, opened: Iterable[str]) -> list[str]:
    """The repository's files among ``opened`` that ``item``'s key does not hold (its inputs, its
    own code, the shared files); a folder of the book's content counts when the key misses one
    of its files."""
    paths = [Path(p) for p in opened if p.startswith(f"{root}/") and layout.BUILD.name not in Path(p).parts]
    tracked = set(repository_files())
    paths = [p for p in paths if p in tracked or (p.is_dir() and is_content(p))]
    if not paths or source_key(item) is None:  # a test that is never skipped needs no check
        return []
    groups, found = named(item, "inputs")
    allowed = set(found).union(*(g() for g in groups), shared(), own_files(Path(item.path)))
    return sorted(name(p) for p in paths if not set(files_under(p)) <= allowed)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """With its fixtures set up: skip a test whose built inputs are those of its last pass (a
    test that no fixture of :data:`BUILDERS` sets up; the others were checked by
    :func:`_built_unchanged`); run it, noting what of the book it reads: a file its inputs do not
    name fails it, since an edit of that file would not re-check it."""
    global _opened
    if BUILT_UNCHANGED_FIXTURE not in getattr(item, "fixturenames", ()):
        skip_if_built_inputs_unchanged(item)
    _opened = set()
    try:
        result = yield
    finally:
        opened, _opened = _opened, None
    missed = undeclared(item, opened) if active(item.config) and os.environ.get(AUDIT) else []
    if missed:
        pytest.fail(
            f"{item.nodeid} read {', '.join(missed)}, which its inputs do not name: an edit there would "
            "not re-check it. Name them in @pytest.mark.inputs(...) (tests/pass_cache.py).",
            pytrace=False,
        )
    return result


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
    html = ROOT / layout.HTML
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
