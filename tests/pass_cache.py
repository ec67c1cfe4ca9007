"""Tests that re-check only what changed: a pytest plugin (``-p tests.pass_cache`` in pyproject.toml).

A test that passed is recorded in ``_build/pass-cache/`` under a key of everything it can read
(:func:`key_of`): the machinery and configuration (:func:`shared`), its own code (:func:`own_files`),
the environment and its declared inputs (:func:`named`); it is skipped while that key holds. A test
that reads a repository file its key does not hold fails (:func:`undeclared`), so no pass is recorded
under a key that misses an input.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from hashlib import sha256
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
#: The id of the site build that tests/conftest.py starts for a full run.
SITE_RUN = "JAXBOOK_TEST_SITE_RUN"
#: ``JAXBOOK_AUDIT_INPUTS=0`` turns the audit of what a running test reads off (a key of its own).
AUDIT = "JAXBOOK_AUDIT_INPUTS"
#: Variables of one test run, in no key of the tests or of the site's build (:func:`steady`).
PER_RUN = frozenset({RECHECK, STATE, SITE_RUN})
FOLDER = layout.BUILD / "pass-cache"
SKIP_REASON = "unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"
BUILT_SKIP_REASON = "what it reads of the build is unchanged since it passed (JAXBOOK_RECHECK=1 re-checks)"
#: Fixtures that build the site: a test with built inputs is keyed by them right after its builder.
BUILDERS = ("site_root", "built_site")

KEY = pytest.StashKey[str | None]()
BUILT_KEY = pytest.StashKey[str | None]()
OUTCOME = pytest.StashKey[dict]()
ACTIVE = pytest.StashKey[bool]()  # on the config: whether this run skips unchanged tests


# --- files -------------------------------------------------------------------------------------


@functools.cache
def repository_files() -> tuple[Path, ...]:
    """The files of the repository its code can read (an untracked log or scratch file is none)."""
    return uptodate.book_files(root)


#: Where the chips' records are (``jaxbook.sphinxext.chip.FOLDER``, which tests/test_pass_cache.py
#: checks): content of the pages that quote them (``chip.quoted_records``).
RECORDS = "docs/records"


def is_content(path: Path) -> bool:
    """The book's content: its pages, snippets, practice problems and chip records
    (practice/conftest.py, which sets up every practice run, is machinery)."""
    relative = path.relative_to(root)
    if relative.parts[0] in ("snippets", "practice"):
        return relative.as_posix() != "practice/conftest.py"
    if relative.parent.as_posix() == RECORDS:
        return True
    return any(relative.match(pattern) for pattern in pages.PAGE_PATTERNS)


@functools.cache
def shared() -> tuple[Path, ...]:
    """Machinery and configuration, in every key: the repository's files but its content, a
    top-level Markdown file (README.md), the tests and tools/*.py (a test's code if it imports them)."""
    found = []
    for path in repository_files():
        relative = path.relative_to(root)
        top_markdown = len(relative.parts) == 1 and relative.suffix == ".md"
        script = relative.parts[0] == "tests" or (relative.parts[0] == "tools" and relative.suffix == ".py")
        if not (is_content(path) or top_markdown or script):
            found.append(path)
    return tuple(found)


@functools.cache
def book() -> tuple[Path, ...]:
    """The book's content (:func:`is_content`)."""
    return tuple(p for p in repository_files() if is_content(p))


@functools.cache
def own_files(test_file: Path) -> tuple[Path, ...]:
    """A test file's own code: itself, this plugin, the ``conftest.py`` files above it, and every
    file of the repository they import (read statically: a module of tools/ too)."""
    conftests = [f / "conftest.py" for f in test_file.parents if f.is_relative_to(root)]
    code = [test_file, Path(__file__).resolve(), *(c for c in conftests if c.is_file())]
    return tuple(sorted({d for f in code for d in project_dependencies(f, root)} | set(code)))


@functools.cache
def _digest(paths: tuple[Path, ...]) -> str:
    """:func:`jaxbook.files.files_digest` of a group of files, made once per process."""
    return files.files_digest(paths, root)


def files_under(path: Path | str) -> list[Path]:
    """``path`` itself, or the files of the folder ``path``: those the repository lists, or every
    file of a folder outside it (such as ``_build``)."""
    path = root / path  # an absolute path stays as it is
    if not path.is_dir():
        return [path]
    if not path.is_relative_to(root) or path.is_relative_to(root / layout.BUILD):
        return sorted(p for p in path.rglob("*") if p.is_file())
    return list(_listed_under(path))


@functools.cache
def _listed_under(folder: Path) -> tuple[Path, ...]:
    return tuple(p for p in repository_files() if p.is_relative_to(folder))


# --- the environment ---------------------------------------------------------------------------


def chromium() -> str:
    """The Chromium the browser tests drive, by its launcher and version, or that it is missing."""
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
    return fingerprint.environment(fingerprint.Scope.TESTS, steady(), tools)


# --- keys and records --------------------------------------------------------------------------


#: Groups of files a marker may name by their function (each hashed once per process).
GROUPS = (shared, book)


def named(item, marker: str) -> tuple[list[Callable], list[Path]]:
    """What ``item``'s ``marker`` markers name: groups of :data:`GROUPS`, and files (paths, or
    functions of the item returning paths). A test without an ``inputs`` marker reads the book,
    or its folder's problem when it is under practice/ (:func:`problem`)."""
    entries = [entry for mark in item.iter_markers(marker) for entry in mark.args]
    if marker == "inputs" and item.get_closest_marker(marker) is None:
        entries = [problem if Path(item.path).is_relative_to(root / "practice") else book]
    groups, found = [], []
    for entry in entries:
        if entry in GROUPS:
            groups.append(entry)
        else:
            for path in entry(item) if callable(entry) else [entry]:
                found.extend(files_under(path))
    return groups, found


def key_of(item, marker: str) -> str:
    """``item``'s key: its node id, the machinery and configuration, its own code, the environment,
    this run's options, and what its ``marker`` markers name."""
    groups, found = named(item, marker)
    material = [
        item.nodeid,
        marker,
        _digest(shared()),
        _digest(own_files(Path(item.path))),
        _environment(),
        json.dumps({"root": str(root), "impl": item.config.getoption("--impl", None)}),
        *sorted(f"{group.__name__}:{_digest(group())}" for group in groups),
        files.files_digest(found, root),
    ]
    return sha256("\n".join(material).encode()).hexdigest()


def source_key(item) -> str | None:
    """``item``'s key by its declared inputs, or None when the plugin is off or its inputs cannot
    be read (then it runs)."""
    if not active(item.config):
        return None
    if KEY not in item.stash:
        try:
            item.stash[KEY] = key_of(item, "inputs")
        except (OSError, ValueError, SyntaxError):
            item.stash[KEY] = None
    return item.stash[KEY]


def built_key(item) -> str | None:
    """``item``'s key by what it reads of the build (built by now), or None when it declares no
    built inputs or its sources cannot be keyed (then it runs)."""
    if not item.get_closest_marker("built_inputs") or source_key(item) is None:
        return None
    if BUILT_KEY not in item.stash:
        item.stash[BUILT_KEY] = key_of(item, "built_inputs")
    return item.stash[BUILT_KEY]


def record_path(key: str) -> Path:
    return root / FOLDER / key[:2] / key


def has_passed(key: str | None, nodeid: str) -> bool:
    """Whether the record of ``key`` says that ``nodeid`` passed (a damaged one is not trusted)."""
    if key is None or os.environ.get(RECHECK) == "1":
        return False
    try:
        return record_path(key).read_text(encoding="utf-8") == nodeid
    except (OSError, ValueError):
        return False


def settled(item) -> bool:
    """True when ``item`` passed with exactly its current inputs: it is skipped without set-up."""
    return has_passed(source_key(item), item.nodeid)


def will_run(item) -> bool:
    """False when ``item`` is skipped as unchanged, by its sources or by what it reads of the
    build (a fixture serving several tests at once checks only those that run)."""
    return not settled(item) and not has_passed(built_key(item), item.nodeid)


# --- hooks -------------------------------------------------------------------------------------


def active(config) -> bool:
    return config.stash.get(ACTIVE, False)


def pytest_configure(config):
    for marker, reads in [("inputs", "reads besides its code"), ("built_inputs", "reads of the built site")]:
        config.addinivalue_line("markers", f"{marker}(*paths_or_functions): the files a test {reads}")
    if hasattr(config, "workerinput"):
        on = os.environ.get(STATE) == "on"
    else:  # a pytest run started by a test checks everything
        on = os.environ.get(STATE) is None
        os.environ[STATE] = "on" if on else "off"
    config.stash[ACTIVE] = on
    if on and os.environ.get(AUDIT) != "0":
        _install_audit()
    global root
    root = Path(config.rootpath)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the fixtures are set up: skip a test whose inputs are those of its last pass."""
    item.stash[OUTCOME] = {}
    if settled(item):
        pytest.skip(SKIP_REASON)


def pytest_collection_modifyitems(items):
    """A test with built inputs checks them first thing in its set-up (:func:`_built_unchanged`),
    before any other fixture, even a session's (the browser): pytest sets up ``item.fixturenames``
    in their order (a pytest internal; tests/test_upstream.py checks it)."""
    for item in items:
        names = getattr(item, "fixturenames", None)
        if item.get_closest_marker("built_inputs") and names is not None:
            if "_built_unchanged" not in names:  # parametrized tests share one list of names
                names.insert(0, "_built_unchanged")


@pytest.fixture
def _built_unchanged(request):
    """The site built by the test's builder (:data:`BUILDERS`), and nothing else set up yet: skip
    the test if what it reads of the build is unchanged since it passed (before a browser page opens)."""
    for builder in BUILDERS:
        if builder in request.fixturenames:
            request.getfixturevalue(builder)
    if has_passed(built_key(request.node), request.node.nodeid):
        pytest.skip(BUILT_SKIP_REASON)


#: The paths the running test opened or listed (None between tests).
_opened: set[str] | None = None


@functools.cache
def _install_audit() -> None:
    sys.addaudithook(_audit)  # a hook lasts as long as the process: one is enough


def _audit(event: str, args: tuple) -> None:
    """Note each file a running test opens and each folder it lists."""
    if _opened is None or event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    if event != "open" and inspect.currentframe().f_back.f_code.co_filename.startswith("<frozen importlib"):
        return  # the import system looking for a module reads no content
    if isinstance(args[0], str | bytes | os.PathLike):
        _opened.add(os.path.abspath(os.fsdecode(args[0])))


def undeclared(item, opened: Iterable[str]) -> list[str]:
    """The repository's files among ``opened`` that ``item``'s key does not hold; a folder of the
    book's content counts when the key misses one of its files."""
    tracked = set(repository_files())
    paths = [Path(p) for p in opened if p.startswith(f"{root}/")]
    paths = [p for p in paths if p in tracked or (p.is_dir() and is_content(p))]
    if not paths or source_key(item) is None:  # a test that is never skipped needs no check
        return []
    groups, found = named(item, "inputs")
    allowed = set(found).union(*(group() for group in groups), shared(), own_files(Path(item.path)))
    return sorted(files.name_under(p, root) for p in paths if not set(files_under(p)) <= allowed)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Run the test, noting what it reads: a repository file outside its key fails it, since an
    edit of that file would not re-check it."""
    global _opened
    _opened = set()
    try:
        result = yield
    finally:
        opened, _opened = _opened, None
    missed = undeclared(item, opened)
    if missed:
        pytest.fail(
            f"{item.nodeid} read {', '.join(missed)}, which its inputs do not name: an edit there would "
            "not re-check it. Name them in @pytest.mark.inputs(...) (tests/pass_cache.py).",
            pytrace=False,
        )
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Once a test's set-up, call and teardown have passed, record it under its keys."""
    report = yield
    outcomes = item.stash.setdefault(OUTCOME, {})
    outcomes[report.when] = report.passed and not hasattr(report, "wasxfail")
    if report.when == "teardown" and all(outcomes.get(w) for w in ("setup", "call", "teardown")):
        for key in (source_key(item), item.stash.get(BUILT_KEY, None)):
            if key is not None:
                record_path(key).parent.mkdir(parents=True, exist_ok=True)
                write_atomic(record_path(key), item.nodeid)
    return report


# --- what the book's tests read ----------------------------------------------------------------


@functools.cache
def page_sources(page: Path) -> tuple[Path, ...]:
    """What a page's results and reader notebook are made of: the page, its snippets with every
    project module they import and their expected outputs, the chip records it quotes, and for a
    practice problem's statement the problem's folder and the files practice/ shares."""
    from jaxbook import downloads, outputs, store
    from jaxbook.sphinxext.chip import quoted_records as chip_quotes  # loads Sphinx: only when asked

    snippets = pages.read(page).snippets()
    found = [page, *(root / name for name in store.inputs(snippets, root))]
    found += [outputs.expected_path(s) for s in snippets]
    quoted = sorted(chip_quotes(page.read_text(encoding="utf-8")))
    found += [p for p in (root / RECORDS / f"{chip}.json" for chip in quoted) if p.is_file()]
    problem = downloads.practice_problem(page, root)
    if problem is not None:
        found += [problem, *shared_practice_files()]
    return tuple(found)


@functools.cache
def shared_practice_files() -> tuple[Path, ...]:
    """The files directly in practice/: every problem's tests and notebooks use them."""
    return tuple(p for p in (root / "practice").iterdir() if p.is_file())


def param_path(item, name: str) -> Path:
    value = Path(str(item.callspec.params[name]).split("?", 1)[0])
    return value if value.is_absolute() else root / value


def snippet_page(item) -> tuple[Path, ...]:
    """A per-snippet test (parameter ``path``): its page's sources (the page runs in one kernel);
    for a practice snippet also practice/, whose folders it lists to find its page."""
    path = param_path(item, "path")
    sources = page_sources(pages.page_of(path, root))
    return (*sources, root / "practice") if path.parent.name == "practice" else sources


def notebook_page(item) -> tuple[Path, ...]:
    """A per-page test (parameter ``page``, such as ``guide/jit``): that page's sources."""
    return page_sources(param_path(item, "page").with_suffix(".md"))


def problem(item) -> list[Path]:
    """A test of one practice problem (in its folder, or with a parameter under it): the problem's
    folder and the files practice/ shares."""
    params = getattr(item, "callspec", None)
    candidates = [Path(v) for v in (params.params.values() if params else ()) if isinstance(v, Path)]
    for start in [*candidates, Path(item.path)]:
        folder = next((p for p in [start, *start.parents] if (p / "starter.py").is_file()), None)
        if folder is not None:
            return [folder, *shared_practice_files()]
    raise ValueError(f"{item.nodeid}: no practice problem folder in its parameters or path")


def built_files(pages: Iterable[str]) -> list[Path]:
    """Built pages (such as ``guide/jit.html``) and every file of the site they may load: not the
    other pages, their sources for download, or the search index but for the search page."""
    html = root / layout.HTML
    pages = [Path(p.split("?", 1)[0]) for p in pages]
    searching = any(p.name == "search.html" for p in pages)
    return [*(html / p for p in pages), *_site_assets(html, searching)]


@functools.cache
def _site_assets(html: Path, searching: bool) -> tuple[Path, ...]:
    """The files of the built site any page may load, listed once per process (the site is built
    once per run, before any test keys what it reads of it; their contents are hashed every time)."""
    return tuple(
        p
        for p in files_under(html)
        if p.suffix != ".html"
        and p.relative_to(html).parts[0] != "_sources"
        and (p.name != "searchindex.js" or searching)
    )


def built_page(item) -> list[Path]:
    """A browser test of one built page (parameter ``path``, such as ``guide/jit.html``)."""
    return built_files([str(item.callspec.params["path"])])


def built_pages(*pages: str) -> Callable:
    """The built inputs of a browser test that visits ``pages`` and no other."""
    return lambda item: built_files(pages)
