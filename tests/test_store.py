"""The execution store (jaxbook.store): a page's result is reused only while everything it depends
on is unchanged, a write is atomic, and a build killed while it executes leaves nothing that the
next build trusts wrongly."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from jaxbook import fingerprint, store
from jaxbook.build import strict_command
from jaxbook.store import CellResult, PageResult
from tests.helpers import Book

# Throwaway books of the tests' own: none of the book's content is read (tests/pass_cache.py).
pytestmark = pytest.mark.inputs()


@pytest.fixture
def book(tmp_path):
    (tmp_path / "snippets" / "a").mkdir(parents=True)
    (tmp_path / "snippets" / "a" / "_helper.py").write_text("X = 1\n")
    (tmp_path / "snippets" / "a" / "one.py").write_text(
        "from snippets.a import _helper\n\nprint(_helper.X)\n"
    )
    (tmp_path / "snippets" / "a" / "two.py").write_text("print(2)\n")
    return tmp_path


def key(book: Path, *names: str) -> str:
    return store.page_key([book / "snippets" / "a" / name for name in names], book)[0]


def test_the_key_holds_every_input(book, monkeypatch):
    first = key(book, "one.py", "two.py")
    assert key(book, "one.py", "two.py") == first  # the same files: the same key
    assert key(book, "two.py", "one.py") != first  # another order is another page

    def edited(path: Path, text: str) -> str:
        old = path.read_text()
        path.write_text(text)
        try:
            return key(book, "one.py", "two.py")
        finally:
            path.write_text(old)

    assert edited(book / "snippets" / "a" / "two.py", "print(3)\n") != first  # a snippet
    assert edited(book / "snippets" / "a" / "_helper.py", "X = 2\n") != first  # a helper it imports
    with monkeypatch.context() as patch:
        patch.setattr(fingerprint, "machinery", lambda: "another kernel")
        assert key(book, "one.py", "two.py") != first  # the execution machinery
    with monkeypatch.context() as patch:
        patch.setenv("JAXBOOK_AS_CPU", "avx2")
        assert key(book, "one.py", "two.py") != first  # the environment: the CPU compiled as
    with monkeypatch.context() as patch:
        patch.setattr(fingerprint.runtime, "execution_key", lambda: "jax==0.0.0")
        assert key(book, "one.py", "two.py") != first  # the environment: JAX
    with monkeypatch.context() as patch:
        patch.setattr(fingerprint, "packages", lambda paths: "another package")
        assert key(book, "one.py", "two.py") != first  # the environment: the installed packages
    for name, value in [("JAX_ENABLE_X64", "1"), ("XLA_CPU_DEVICES", "4"), ("MPLBACKEND", "agg")]:
        with monkeypatch.context() as patch:
            patch.setenv(name, value)
            assert key(book, "one.py", "two.py") != first, name  # another variable the kernel reads
    with monkeypatch.context() as patch:
        patch.setattr(fingerprint.runtime, "cpu", lambda: "aarch64 with SVE")
        assert key(book, "one.py", "two.py") != first  # the environment: the processor
    with monkeypatch.context() as patch:  # what configure() sets or removes in the kernel
        patch.setenv("JAX_PLATFORMS", "gpu")
        patch.setenv("JAX_COMPILATION_CACHE_DIR", "/elsewhere")
        assert key(book, "one.py", "two.py") == first
    assert key(book, "one.py", "two.py") == first


def test_the_installed_packages_are_known_by_their_files(tmp_path, monkeypatch):
    """A package reinstalled from another build of the same version (pip replaces its metadata
    folder, whose RECORD lists each file with its hash) is another environment."""
    monkeypatch.setattr(fingerprint.sysconfig, "get_path", lambda name: str(tmp_path))
    info = tmp_path / "optax-0.2.5.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("optax/__init__.py,sha256=one,10\n")
    first = fingerprint.environment()
    assert fingerprint.environment() == first
    shutil.rmtree(info)
    info.mkdir()
    (info / "RECORD").write_text("optax/__init__.py,sha256=two,10\n")
    os.utime(tmp_path, ns=(1, 1))  # whatever the folder's clock says, it changed
    assert fingerprint.environment() != first


@pytest.mark.build
def test_every_module_the_kernel_runs_is_in_its_machinery_hash(tmp_path):
    """The jaxbook modules loaded in a real kernel after a page ran (a declared error, then a
    print) are all among the files the store's machinery hash is made of."""
    from jaxbook.execute import Kernel

    (tmp_path / "snippets" / "k").mkdir(parents=True)
    (tmp_path / "snippets" / "k" / "raises.py").write_text("# raises: ValueError\nraise ValueError('x')\n")
    (tmp_path / "snippets" / "k" / "modules.py").write_text(
        "import json\nimport os\nimport sys\n\nimport jaxbook\n\nhere = os.path.dirname(jaxbook.__file__)\n"
        "files = {getattr(m, '__file__', None) or '' for m in list(sys.modules.values())}\n"
        "print(json.dumps(sorted(f for f in files if f.startswith(here))))\n"
    )
    kernel = Kernel(tmp_path)
    try:
        cells = kernel.run_page([tmp_path / "snippets" / "k" / n for n in ("raises.py", "modules.py")])
    finally:
        kernel.close()
    assert [c.contract for c in cells] == [None, None], cells
    loaded = {Path(f) for f in json.loads(cells[1].text)}
    assert fingerprint.PACKAGE / "snippet.py" in loaded, loaded  # (the kernel itself runs as __main__)
    assert loaded <= set(fingerprint.code()), loaded - set(fingerprint.code())


def test_the_machinery_hash_changes_with_the_code_the_kernel_runs_only(tmp_path):
    """An edit to any module the kernel imports, or to its specification, executes every page
    again; an edit to the extension or the publishing code renders again and executes nothing."""
    package = tmp_path / "jaxbook"
    shutil.copytree(fingerprint.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    kernel, extension = (
        fingerprint.machinery(e, package) for e in (fingerprint.KERNEL, fingerprint.EXTENSION)
    )
    for edited in ("publish.py", "sphinxext/stamp.py"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) == kernel, edited
    assert fingerprint.machinery(fingerprint.EXTENSION, package) != extension
    for edited in ("kernel.py", "snippet.py", "files.py", "kernels/python3/kernel.json"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) != kernel, edited
        kernel = fingerprint.machinery(fingerprint.KERNEL, package)


def test_a_result_is_written_atomically_and_an_incomplete_one_is_not_trusted(book):
    result = PageResult(
        "guide/a.md", "ab" * 32, {"snippets/a/two.py": "x"}, [CellResult("snippets/a/two.py")], "env"
    )
    path = store.save(result, book)
    assert store.load(result.key, book) == result
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    path.write_text(path.read_text()[:-10])  # what a write cut short would leave, were it not atomic
    assert store.load(result.key, book) is None


def page_bodies(html: Path) -> dict[str, str]:
    """Each page's main content, without what differs between two builds of the same sources."""
    import re

    found = {}
    for page in sorted((html / "guide").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        main = text[text.index("<main") : text.index("</main>")]
        found[page.name] = re.sub(r'<p class="jaxbook-stamp">.*?</p>', "", main, flags=re.S)
    return found


@pytest.mark.build
def test_a_build_killed_while_executing_then_rebuilt_gives_the_clean_builds_site(tmp_path, monkeypatch):
    """Kill a build in the middle of a page's execution, build again: the site is the one a clean
    build gives (the killed page ran again; no half result was trusted). The slow snippet says
    when it has started, then waits for a file that the killed build never gets."""
    waits = (
        "from pathlib import Path\nimport time\n\nprint('started')\nPath('started').touch()\n"
        "while not Path('go').exists():\n    time.sleep(0.05)\nprint('went on')\n"
    )
    sites = {}
    for name in ("killed", "clean"):
        (tmp_path / name).mkdir()
        book = Book(tmp_path / name)
        book.snippet("a/quick.py", "print('quick', 1 + 1)\n")
        book.snippet("b/waits.py", waits)
        book.page("a", "a/quick.py")
        book.page("b", "b/waits.py")
        if name == "killed":
            monkeypatch.setenv("JAXBOOK_JOBS", "1")  # one process reads a, then b
            env = {**os.environ, "PYTHONPATH": str(fingerprint.PACKAGE.parent)}
            process = subprocess.Popen(
                strict_command(book.root, None), cwd=book.root, env=env, stdout=subprocess.DEVNULL
            )
            deadline = time.monotonic() + 300
            while not (book.root / "started").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            process.send_signal(signal.SIGKILL)  # while guide/b executes, after guide/a's result
            process.wait()
            assert (book.root / "started").exists(), "the slow page never started"
            stored = [p for p in (book.root / store.STORE).rglob("*.json") if p.name != "durations.json"]
            assert [store.load(p.stem, book.root).page for p in stored] == ["guide/a.md"]
        (book.root / "go").touch()
        build = book.build()
        assert build.returncode == 0, build.output
        if name == "killed":
            assert "jaxbook: executed guide/b.md" in build.output
            assert "jaxbook: executed guide/a.md" not in build.output  # its result was complete
        sites[name] = page_bodies(build.html)
    assert sites["killed"] == sites["clean"]
    assert "went on" in sites["clean"]["b.html"]


def test_page_results_name_their_cells(book):
    result = PageResult("p", "k", {}, [CellResult("snippets/a/one.py", text="1\n")], "env")
    assert result.cell("snippets/a/one.py").text == "1\n" and result.cell("nope") is None


def test_a_write_cut_short_leaves_the_old_file_and_no_temporary_one(tmp_path):
    """jaxbook.files.write_atomic, which every file the build or the tests reuse is written with."""
    from jaxbook.files import write_atomic

    path = tmp_path / "result.json"
    write_atomic(path, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "new \udc80")  # fails half way, after the temporary file is opened
    assert path.read_text() == "old"
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_a_file_already_holding_the_bytes_is_not_written_again(tmp_path):
    """jaxbook.files.write_changed, which the build's font subsets and WebP copies are written with."""
    import os

    from jaxbook.files import write_changed

    path = tmp_path / "font.woff2"
    write_changed(path, b"glyphs")
    os.utime(path, ns=(1, 1))
    write_changed(path, b"glyphs")
    assert path.stat().st_mtime_ns == 1  # untouched
    write_changed(path, b"other glyphs")
    assert path.read_bytes() == b"other glyphs" and path.stat().st_mtime_ns != 1
    assert [p.name for p in tmp_path.iterdir()] == ["font.woff2"]
