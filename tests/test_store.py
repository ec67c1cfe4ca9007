"""The execution store (jaxbook.store): a page's result is reused only while everything it depends
on is unchanged, a write is atomic, and a build killed while it executes leaves nothing that the
next build trusts wrongly."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from jaxbook import fingerprint, layout, store
from jaxbook.build import strict_command
from jaxbook.files import write_atomic, write_changed
from jaxbook.results import CellResult, PageResult
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


def test_the_key_holds_every_file_the_page_runs(book, monkeypatch):
    first = key(book, "one.py", "two.py")
    assert key(book, "one.py", "two.py") == first  # the same files: the same key
    assert key(book, "two.py", "one.py") != first  # another order is another page
    for name, text in [("two.py", "print(3)\n"), ("_helper.py", "X = 2\n")]:  # a snippet, a helper it imports
        path = book / "snippets" / "a" / name
        old = path.read_text()
        path.write_text(text)
        assert key(book, "one.py", "two.py") != first, name
        path.write_text(old)
    monkeypatch.setenv("JAX_PLATFORMS", "gpu")  # what configure() sets or removes in the kernel
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/elsewhere")
    assert key(book, "one.py", "two.py") == first


@pytest.mark.parametrize(
    "change",
    [
        ("setattr", fingerprint, "machinery", lambda: "another kernel"),
        ("setattr", fingerprint.runtime, "execution_key", lambda: "jax==0.0.0"),
        ("setattr", fingerprint, "packages", lambda paths: "another package"),
        ("setattr", fingerprint.runtime, "cpu", lambda: "aarch64 with SVE"),
        ("setenv", "JAXBOOK_AS_CPU", "avx2"),
        ("setenv", "JAX_ENABLE_X64", "1"),
        ("setenv", "XLA_CPU_DEVICES", "4"),
        ("setenv", "MPLBACKEND", "agg"),
    ],
    ids=["kernel code", "JAX", "packages", "processor", "CPU compiled as", "JAX_", "XLA_", "MPLBACKEND"],
)
def test_the_key_holds_the_kernels_code_and_environment(book, monkeypatch, change):
    first = key(book, "one.py")
    getattr(monkeypatch, change[0])(*change[1:])
    assert key(book, "one.py") != first


def test_the_machinery_hash_changes_with_the_code_the_kernel_runs_only(tmp_path):
    """An edit to any module the kernel imports, or to its specification, executes every page
    again; an edit to the extension, the keys' own code or the layout of _build renders again
    and executes nothing (tests/test_rebuild.py builds both)."""
    package = tmp_path / "jaxbook"
    shutil.copytree(fingerprint.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    kernel, extension = (
        fingerprint.machinery(e, package) for e in (fingerprint.KERNEL, fingerprint.EXTENSION)
    )
    for edited in ("publish.py", "sphinxext/stamp.py", "layout.py", "fingerprint.py", "store.py", "deps.py"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) == kernel, edited
    assert fingerprint.machinery(fingerprint.EXTENSION, package) != extension
    for edited in ("kernel.py", "snippet.py", "results.py", "files.py", "kernels/python3/kernel.json"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) != kernel, edited
        kernel = fingerprint.machinery(fingerprint.KERNEL, package)


def test_a_result_is_kept_whole_and_an_incomplete_one_is_not_trusted(book):
    cells = [CellResult("snippets/a/two.py", text="2\n")]
    result = PageResult("guide/a.md", "ab" * 32, {"snippets/a/two.py": "x"}, cells, seconds=1.5)
    path = store.save(result, book)
    assert store.load(result.key, book) == result
    path.write_text(path.read_text()[:-10])  # what a write cut short would leave, were it not atomic
    assert store.load(result.key, book) is None


@pytest.mark.build
def test_a_build_killed_while_executing_leaves_no_result_the_next_build_trusts(tmp_path, monkeypatch):
    """Kill a build while a page executes, after the page before it was kept; build again: only
    the killed page runs again, and the site shows both pages' whole outputs. The slow snippet
    says when it has started, then waits for a file that the killed build never gets."""
    book = Book(tmp_path)
    book.snippet("a/quick.py", "print('quick', 1 + 1)\n")
    book.snippet(
        "b/waits.py",
        "from pathlib import Path\nimport time\n\nprint('started')\nPath('started').touch()\n"
        "while not Path('go').exists():\n    time.sleep(0.05)\nprint('went on')\n",
    )
    book.page("a", "a/quick.py")
    book.page("b", "b/waits.py")
    monkeypatch.setenv("JAXBOOK_JOBS", "1")  # one process reads a, then b
    env = {**os.environ, "PYTHONPATH": str(fingerprint.PACKAGE.parent)}
    process = subprocess.Popen(
        strict_command(tmp_path, None), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 300
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)  # while guide/b executes, after guide/a's result
    process.wait()
    assert (tmp_path / "started").exists(), "the slow page never started"
    stored = [p for p in (tmp_path / layout.STORE).rglob("*.json") if p.name != "durations.json"]
    assert [store.load(p.stem, tmp_path).page for p in stored] == ["guide/a.md"]
    (tmp_path / "go").touch()
    build = book.build()
    assert build.returncode == 0, build.output
    assert "jaxbook: executed guide/b.md" in build.output
    assert "jaxbook: executed guide/a.md" not in build.output  # its result was complete
    assert "quick 2" in build.page("a") and "started\nwent on" in build.page("b")


def test_a_write_cut_short_leaves_the_old_file_and_no_temporary_one(tmp_path):
    """jaxbook.files.write_atomic, which every file the build or the tests reuse is written with."""
    path = tmp_path / "result.json"
    write_atomic(path, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "new \udc80")  # fails half way, after the temporary file is opened
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["result.json"]
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_a_file_already_holding_the_bytes_is_not_written_again(tmp_path):
    """jaxbook.files.write_changed, which the build's font subsets and WebP copies are written with."""
    path = tmp_path / "font.woff2"
    write_changed(path, b"glyphs")
    os.utime(path, ns=(1, 1))
    write_changed(path, b"glyphs")
    assert path.stat().st_mtime_ns == 1  # untouched
    write_changed(path, b"other glyphs")
    assert path.read_bytes() == b"other glyphs" and path.stat().st_mtime_ns != 1
    assert [p.name for p in tmp_path.iterdir()] == ["font.woff2"]
