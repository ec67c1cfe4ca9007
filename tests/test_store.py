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
    loaded = fingerprint.extension_entries(["jaxbook.sphinxext"], package)
    kernel, extension = (fingerprint.machinery(e, package) for e in (fingerprint.KERNEL, loaded))
    for edited in ("publish.py", "sphinxext/stamp.py", "layout.py", "fingerprint.py", "store.py", "deps.py"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) == kernel, edited
    assert fingerprint.machinery(loaded, package) != extension
    for edited in ("kernel.py", "snippet.py", "results.py", "files.py", "kernels/python3/kernel.json"):
        (package / edited).write_text((package / edited).read_text() + "\n")
        assert fingerprint.machinery(fingerprint.KERNEL, package) != kernel, edited
        kernel = fingerprint.machinery(fingerprint.KERNEL, package)


def test_a_result_is_kept_whole_and_an_incomplete_one_is_not_trusted(book):
    cells = [CellResult("snippets/a/two.py", text="2\n")]
    stamp = {"jax": "0.12.0", "backend": "cpu", "devices": 8}
    result = PageResult("guide/a.md", "ab" * 32, {"snippets/a/two.py": "x"}, cells, 1.5, stamp)
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


def stored(book: Path, page: str, *names: str) -> PageResult:
    """Keep a result for ``page`` running ``names`` as they are now, as a build would."""
    snippets = [book / "snippets" / "a" / name for name in names]
    key, files = store.page_key(snippets, book)
    cells = [CellResult(f"snippets/a/{name}", text="x\n") for name in names]
    result = PageResult(page, key, files, cells)
    store.save(result, book)
    return result


def why(book: Path, page: str, *names: str) -> list[str]:
    snippets = [book / "snippets" / "a" / name for name in names]
    key, files = store.page_key(snippets, book)
    return store.explain(page, key, [f"snippets/a/{n}" for n in names], files, book)


def test_the_store_says_why_a_page_runs_again(book, monkeypatch):
    """Each input of the key, changed after the page's result was kept, is named; the reasons
    come from the nearest result of that page (the fewest differences), not from another page's."""
    assert why(book, "guide/a.md", "one.py") == ["no result of this page is stored"]
    stored(book, "guide/a.md", "one.py")
    stored(book, "guide/b.md", "one.py", "two.py")  # newer, and another page's
    assert why(book, "guide/a.md", "one.py") == []
    assert store.load(key(book, "one.py"), book).page == "guide/a.md"  # made_of is not a field
    (book / "snippets" / "a" / "_helper.py").write_text("X = 2\n")
    assert why(book, "guide/a.md", "one.py") == ["snippets/a/_helper.py changed"]
    assert why(book, "guide/a.md", "one.py", "two.py") == [
        "its cells changed: added snippets/a/two.py",
        "snippets/a/_helper.py changed",
        "snippets/a/two.py is run now, and was not",
    ]
    assert why(book, "guide/a.md", "two.py") == [
        "its cells changed: added snippets/a/two.py; removed snippets/a/one.py",
        "snippets/a/_helper.py is no longer run",
        "snippets/a/one.py is no longer run",
        "snippets/a/two.py is run now, and was not",
    ]
    stored(book, "guide/a.md", "one.py", "two.py")  # the nearest result is the one compared
    assert why(book, "guide/a.md", "two.py", "one.py") == [
        "its cells changed: the same snippets in another order"
    ]
    monkeypatch.setenv("JAX_ENABLE_X64", "1")
    monkeypatch.setattr(fingerprint, "machinery", lambda *a: "another kernel")
    assert why(book, "guide/a.md", "one.py", "two.py") == [
        "the kernel's code changed (jaxbook/kernel.py or a module it imports)",
        "the kernel's variables changed: JAX_ENABLE_X64",
    ]
    monkeypatch.setattr(fingerprint.runtime, "execution_key", lambda: "jax==0.0.0")
    assert why(book, "guide/a.md", "one.py", "two.py")[1].startswith(
        "the kernel's environment changed: jax ("
    )


def test_a_copied_store_says_why_as_the_original_does(book, tmp_path_factory):
    """``cp -r`` gives every file of the copy the time it was copied at, in any order: the
    reasons come from the stored results' content, never from their files' times."""
    first = stored(book, "guide/a.md", "one.py")
    (book / "snippets" / "a" / "_helper.py").write_text("X = 2\n")
    stored(book, "guide/a.md", "one.py")
    (book / "snippets" / "a" / "one.py").write_text(
        "from snippets.a import _helper\n\nprint(_helper.X + 1)\n"
    )
    assert why(book, "guide/a.md", "one.py") == ["snippets/a/one.py changed"]
    copy = tmp_path_factory.mktemp("copy") / "book"
    subprocess.run(["cp", "-r", str(book), str(copy)], check=True)
    later = time.time() + 60
    os.utime(store.path_of(first.key, copy), (later, later))  # copied last: the newest file
    assert why(copy, "guide/a.md", "one.py") == ["snippets/a/one.py changed"]


def test_the_store_is_read_once_to_say_why_many_pages_run_again(book, monkeypatch):
    stored(book, "guide/a.md", "one.py")
    stored(book, "guide/b.md", "two.py")
    (book / "snippets" / "a" / "two.py").write_text("print(22)\n")
    entries = store.by_page(book)
    assert sorted(entries) == ["guide/a.md", "guide/b.md"]
    monkeypatch.setattr(store, "entries", lambda root: pytest.fail("the store was read again"))
    key, files = store.page_key([book / "snippets" / "a" / "two.py"], book)
    assert store.explain("guide/b.md", key, ["snippets/a/two.py"], files, book, entries) == [
        "snippets/a/two.py changed"
    ]


def test_pruning_keeps_what_the_pages_reach_now_and_nothing_else(book):
    old = stored(book, "guide/a.md", "one.py")
    (book / "snippets" / "a" / "one.py").write_text("print(1)\n")
    new = stored(book, "guide/a.md", "one.py")
    gone = stored(book, "guide/gone.md", "two.py")
    store.record_duration("guide/a.md", 1.0, book)
    store.record_duration("guide/gone.md", 2.0, book)
    count, size = store.prune({new.key}, {"guide/a.md"}, book)
    assert count == 2 and size > 0
    assert [p.stem for p in store.entries(book)] == [new.key]
    assert store.load(old.key, book) is None and store.load(gone.key, book) is None
    assert store.durations(book) == {"guide/a.md": 1.0}
    assert store.prune({new.key}, {"guide/a.md"}, book) == (0, 0)


def test_make_store_reports_each_page_and_prunes(tmp_path, monkeypatch, capsys):
    """``make store``: a page without a stored result names why; ``--prune`` keeps what the book's
    pages reach now (tools/store.py)."""
    from tools import store as command

    book = Book(tmp_path)
    book.snippet("a/one.py", "print(1)\n")
    book.snippet("b/two.py", "print(2)\n")
    book.page("a", "a/one.py")
    book.page("b", "b/two.py")
    monkeypatch.setattr(command, "ROOT", tmp_path)
    assert command.main(["guide/a.md"]) == 0
    assert capsys.readouterr().out == (
        "guide/a.md: not stored, runs at the next build:\n  no result of this page is stored\n"
    )
    snippets = [tmp_path / "snippets" / "a" / "one.py"]
    key, files = store.page_key(snippets, tmp_path)
    store.save(PageResult("guide/a.md", key, files, [CellResult("snippets/a/one.py")], 2.0), tmp_path)
    store.save(PageResult("guide/a.md", "cd" * 32, files, []), tmp_path)  # an older edit's result
    assert command.main(["--prune"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "guide/a.md: stored (1 cells, executed in 2.0 s)"
    assert out[1] == "guide/b.md: not stored, runs at the next build:"
    assert out[-1].startswith("pruned 1 of 2 stored results (") and out[-1].endswith("; 1 kept")
    assert [p.stem for p in store.entries(tmp_path)] == [key]
    with pytest.raises(SystemExit):
        command.main(["guide/missing.md"])
    assert "guide/missing.md: not a page of the book with code cells" in capsys.readouterr().err


def test_make_store_refuses_to_prune_what_this_shell_cannot_tell_is_stale(tmp_path, monkeypatch, capsys):
    """``make store PRUNE=1`` keeps what the pages' keys in this shell reach: a shell whose keys
    match nothing stored (one extra ``JAX_*`` variable) would delete the whole store, so it
    refuses, as it does for more than half of it; it first says what it would delete, and
    ``PRUNE=force`` deletes it all the same."""
    from tools import store as command

    book = Book(tmp_path)
    book.snippet("a/one.py", "print(1)\n")
    book.page("a", "a/one.py")
    monkeypatch.setattr(command, "ROOT", tmp_path)
    key, files = store.page_key([tmp_path / "snippets" / "a" / "one.py"], tmp_path)
    for other in ("ab", "cd"):  # another shell's key, and an older edit's
        store.save(PageResult("guide/a.md", other * 32, files, []), tmp_path)
    assert command.main(["--prune"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "would delete 2 of 2 stored results, of pages guide/a.md" in err
    assert err[-1].startswith("not pruned: the store holds none of the pages' current keys")
    assert err[-1].endswith("make store PRUNE=force deletes them all the same")
    assert len(store.entries(tmp_path)) == 2

    store.save(PageResult("guide/a.md", key, files, []), tmp_path)  # 2 of 3 would go
    assert command.main(["--prune"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "would delete 2 of 3 stored results, of pages guide/a.md" in err
    assert err[-1].startswith("not pruned: that is more than half of the store")
    assert len(store.entries(tmp_path)) == 3

    assert command.main(["--prune", "--force"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "would delete 2 of 3 stored results, of pages guide/a.md"
    assert out[-1].startswith("pruned 2 of 3 stored results (")
    assert [p.stem for p in store.entries(tmp_path)] == [key]
