"""``make html`` with nothing changed does nothing, and anything changed builds (jaxbook/uptodate.py)."""

from __future__ import annotations

import importlib.util
import os
import runpy
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxbook import ROOT, fingerprint, layout, uptodate
from jaxbook.fingerprint import installed_files
from tests import pass_cache
from tests.helpers import Book

pytestmark = pytest.mark.inputs()  # throwaway books and folders of its own

NOTHING_TO_DO = "nothing to do"


def small_book(root):
    """A tiny book in a git checkout: a page and a snippet committed, a generated file ignored."""
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "a.md").write_text("# A\n", encoding="utf-8")
    (root / "snippets").mkdir()
    (root / "snippets" / "a.py").write_text("print(1)\n", encoding="utf-8")
    (root / "conf.py").write_text('extensions = ["myst_nb", "jaxbook.seo"]\n', encoding="utf-8")
    (root / "_build").mkdir()
    (root / "_build" / "out.txt").write_text("built\n", encoding="utf-8")
    (root / ".gitignore").write_text("_build/\n*.log\n", encoding="utf-8")
    settings = ["user.name=t", "user.email=t@t", "commit.gpgsign=false", "core.hooksPath=/dev/null"]
    git = ["git", *(f for s in settings for f in ("-c", s)), "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "book"], check=True)
    return root


def later(path, text):
    """Write ``text`` to ``path`` with a modification time surely not its old one."""
    old = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(old + 10**9, old + 10**9))


def test_the_key_holds_every_input_and_nothing_else(tmp_path, monkeypatch):
    root = small_book(tmp_path)
    command = ["sphinx", "-b", "html", str(root)]
    environ = {"HOME": "/home/a", "JAXBOOK_JOBS": "2"}

    def key(**changes):
        return uptodate.inputs_key(root, changes.get("command", command), changes.get("environ", environ))

    before = key()
    assert key() == before
    with monkeypatch.context() as patch:
        patch.setattr(fingerprint, "packages", lambda paths: "another build of a package")
        assert key() != before
    # What the build reads: each changes the key.
    later(root / "snippets" / "a.py", "print(2)\n")
    assert key() != before
    later(root / "snippets" / "a.py", "print(1)\n")
    assert key() == before  # the content decides, not the time
    (root / "figures").mkdir()  # a new folder: its files count before they are committed
    (root / "figures" / "b.svg").write_text("<svg/>", encoding="utf-8")
    new_file = key()
    assert new_file != before
    (root / "figures" / "b.svg").rename(root / "figures" / "c.svg")
    assert key() not in (before, new_file)  # a name is an input too
    shutil.rmtree(root / "figures")
    assert key(command=[*command, "-E"]) != before
    for name, value in [
        ("JAXBOOK_JOBS", "1"),
        ("JAXBOOK_BASE_URL", "https://example.org/"),
        ("READTHEDOCS_CANONICAL_URL", "https://example.org/"),
        ("READTHEDOCS_GIT_CLONE_URL", "https://example.org/book.git"),  # {get-the-code}
        ("JAXBOOK_REPOSITORY_URL", "https://example.org/book.git"),
        ("JAX_ENABLE_X64", "1"),  # the kernel's settings
    ]:
        assert key(environ={**environ, name: value}) != before, name
    monkeypatch.setattr(sys, "path", [*sys.path, "/src/checkout"])
    assert key() != before  # code outside any distribution
    monkeypatch.undo()
    # What it does not read: generated, ignored or untracked files outside the book's folders,
    # another shell, one test run's switches.
    later(root / "_build" / "out.txt", "built again\n")
    (root / "guide" / "build.log").write_text("a log\n", encoding="utf-8")
    (root / "notes.txt").write_text("scratch\n", encoding="utf-8")
    (root / "test.log").write_text("a run's output\n", encoding="utf-8")
    assert key(environ={**environ, "HOME": "/home/b", "SHLVL": "3"}) == before
    # The tests' switches and run id are in the key of no build they start (tests/pass_cache.py).
    run = {"JAXBOOK_RECHECK": "1", "JAXBOOK_PASS_CACHE": "off", "JAXBOOK_TEST_SITE_RUN": "full-1"}
    assert key(environ={**environ, **run}) != before
    assert key(environ=pass_cache.steady({**environ, **run})) == before


def test_the_site_key_holds_every_extension_conf_py_loads(tmp_path):
    """An edit to any module of the package that the book's conf.py loads builds the site again,
    read from the list Sphinx reads (a book elsewhere tracks no copy of the package)."""
    loaded = [n for n in runpy.run_path(str(ROOT / "conf.py"))["extensions"] if n.startswith("jaxbook.")]
    assert "jaxbook.publish" in loaded, loaded
    package = tmp_path / "jaxbook"
    shutil.copytree(fingerprint.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "conf.py", tmp_path / "conf.py")
    entries = fingerprint.site_entries(tmp_path, package)
    for name in loaded:
        module = package / Path(importlib.util.find_spec(name).origin).relative_to(fingerprint.PACKAGE)
        before = fingerprint.machinery(entries, package)
        module.write_text(module.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert fingerprint.machinery(entries, package) != before, name
    (tmp_path / "conf.py").write_text("extensions = ['jaxbook.seo']\nextensions += ['jaxbook.a11y']\n")
    assert fingerprint.site_entries(tmp_path, package)[-2:] == (
        "seo.py",
        "a11y.py",
    )  # computed, as Sphinx runs it


def test_the_makefile_writes_where_the_tools_do():
    """``make clean`` and ``make serve`` name the build folder the tools write to (layout.BUILD)."""
    rule = "layout-build: ; @echo $(BUILD)"
    result = subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), f"--eval={rule}", "layout-build"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == str(layout.BUILD), result.stdout + result.stderr


def test_distributions_are_known_by_their_installed_files(tmp_path):
    """Another build of the same version changes its RECORD (each file's hash); an editable
    install, whose code lives elsewhere, never looks the same twice."""
    record = tmp_path / "numpy-2.0.0.dist-info" / "RECORD"
    record.parent.mkdir()
    record.write_text("numpy/__init__.py,sha256=aaa,10\n", encoding="utf-8")
    paths = [str(tmp_path), str(tmp_path / "gone")]
    first = fingerprint.packages(paths)
    assert fingerprint.packages(paths) == first
    record.write_text("numpy/__init__.py,sha256=bbb,10\n", encoding="utf-8")
    os.utime(tmp_path, ns=(1, 1))  # whatever the folder's clock says, it changed
    assert fingerprint.packages(paths) != first
    direct = tmp_path / "mine-0.1.dist-info" / "direct_url.json"
    direct.parent.mkdir()
    direct.write_text('{"url": "file:///src/mine", "dir_info": {"editable": true}}', encoding="utf-8")
    assert installed_files(direct.parent) != installed_files(direct.parent)


def test_outside_git_generated_and_dot_folders_are_not_the_books(tmp_path):
    for name in ("guide/a.md", ".ci/run", "_build/x.html", ".pytest_cache/v", "snippets/__pycache__/a.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / ".readthedocs.yaml").write_text("", encoding="utf-8")
    listed = [p.relative_to(tmp_path).as_posix() for p in uptodate.book_files(tmp_path)]
    assert listed == [".readthedocs.yaml", "guide/a.md"]


def test_the_record_holds_only_for_its_key_and_the_site_it_saw(tmp_path):
    build = tmp_path / "_build"
    page = build / "html" / "guide" / "a.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>a</p>", encoding="utf-8")
    assert not uptodate.holds(build, "k")  # no record yet
    for spoil in [
        lambda: later(page, "<p>b</p>"),  # edited by hand: same size, another time
        lambda: (build / "html" / "extra.html").write_text(""),
        page.unlink,
        lambda: (build / layout.SITE_INPUTS).write_text("{not json"),
        lambda: uptodate.forget(build),
    ]:
        uptodate.record(build, "k")
        assert uptodate.holds(build, "k") and not uptodate.holds(build, "other")
        spoil()
        assert not uptodate.holds(build, "k")


@pytest.mark.build
def test_make_html_does_nothing_only_while_nothing_changed(tmp_path):
    """The store is filled, Sphinx runs and the record is kept; then nothing changed: nothing runs.
    An edit, a site file deleted by hand and a failure each run Sphinx, and a failure again on the
    next build: a failure is never taken for a good build."""
    book = Book(tmp_path)
    snippet = book.snippet("a/show.py", "print('first output')\n")
    book.page("a", "a/show.py")
    first = book.make_html()
    assert first.returncode == 0 and NOTHING_TO_DO not in first.output, first.output
    assert "build succeeded" in first.output and "first output" in first.page("a")

    start = time.perf_counter()
    again = book.make_html()
    assert again.returncode == 0 and NOTHING_TO_DO in again.output, again.output
    assert "reading sources" not in again.output and "executing" not in again.output
    assert time.perf_counter() - start < 10  # no kernel, no Sphinx

    os.utime(snippet)  # touched, not changed
    assert NOTHING_TO_DO in book.make_html().output

    later(snippet, "print('second output')\n")
    edited = book.make_html()
    assert edited.returncode == 0 and NOTHING_TO_DO not in edited.output, edited.output
    assert "second output" in edited.page("a") and "first output" not in edited.page("a")

    (edited.html / "guide" / "a.html").unlink()
    restored = book.make_html()
    assert restored.returncode == 0 and NOTHING_TO_DO not in restored.output, restored.output
    assert "second output" in restored.page("a")

    later(snippet, "raise ValueError('broken on purpose')\n")
    for attempt in range(2):
        failed = book.make_html()
        assert failed.returncode != 0 and NOTHING_TO_DO not in failed.output, (attempt, failed.output)
        assert "ValueError" in failed.output
        assert not (tmp_path / layout.BUILD / layout.SITE_INPUTS).exists()
