"""A test is skipped only while every input of its last pass is unchanged (tests/pass_cache.py).

Each test here runs pytest, with the plugin on, on a tiny repository of its own: a page, a
snippet, a test file; the tests of that repository log each time they really run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxbook import ROOT
from tests import pass_cache

pytestmark = pytest.mark.inputs()  # repositories of its own, none of the book's content

TESTS = """\
import os
from pathlib import Path

import pytest


def log(name):
    with open(os.environ["RUN_LOG"], "a") as file:
        file.write(name + "\\n")


def test_reads_the_book():
    log("reads_the_book")
    assert Path("snippets/demo/hello.py").read_text()


def test_fails_while_asked():
    log("fails_while_asked")
    assert not Path("guide/fail.md").exists()


@pytest.mark.inputs()
def test_reads_no_content():
    log("reads_no_content")


@pytest.mark.inputs("_build/out.txt")
@pytest.mark.built_inputs("_build/built.txt")
def test_reads_a_build():
    log("reads_a_build")


@pytest.fixture(scope="session")
def built_site():
    return Path("_build")


@pytest.fixture
def browser_page(built_site):
    log("opens_a_page")


@pytest.mark.inputs("_build/out.txt")
@pytest.mark.built_inputs("_build/built.txt")
def test_visits_a_built_page(browser_page):
    log("visits_a_built_page")
"""


class Repository:
    """A tiny repository with the plugin on; :meth:`run` returns which of its tests really ran."""

    def __init__(self, folder: Path):
        self.root = folder / "repo"
        self.log = folder / "ran.log"
        (self.root / "snippets" / "demo").mkdir(parents=True)
        (self.root / "guide").mkdir()
        (self.root / "_build").mkdir()
        (self.root / ".gitignore").write_text("_build/\n__pycache__/\n")
        (self.root / "pyproject.toml").write_text(
            '[tool.pytest.ini_options]\naddopts = "-p tests.pass_cache -p no:cacheprovider '
            '--import-mode=importlib -rs"\n'
        )
        (self.root / "guide" / "demo.md").write_text("# Demo\n")
        (self.root / "snippets" / "demo" / "hello.py").write_text("print('hello')\n")
        (self.root / "_build" / "out.txt").write_text("one\n")
        (self.root / "_build" / "built.txt").write_text("one\n")
        (self.root / "test_demo.py").write_text(TESTS)
        settings = ["user.name=t", "user.email=t@t", "commit.gpgsign=false", "core.hooksPath=/dev/null"]
        git = ["git", *(f for s in settings for f in ("-c", s))]
        subprocess.run([*git, "init", "-q"], cwd=self.root, check=True)
        subprocess.run([*git, "add", "."], cwd=self.root, check=True)
        subprocess.run([*git, "commit", "-qm", "repo"], cwd=self.root, check=True)

    def run(self, **env: str) -> tuple[set[str], str]:
        """The tests that ran (not skipped), and pytest's output."""
        self.log.write_text("")
        clean = {
            k: v
            for k, v in os.environ.items()
            if k not in (pass_cache.STATE, pass_cache.RECHECK, "PYTEST_ADDOPTS")
        }
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist"],
            cwd=self.root,
            env={**clean, "PYTHONPATH": str(ROOT), "RUN_LOG": str(self.log), **env},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode in (0, 1), result.stdout + result.stderr
        return set(self.log.read_text().split()), result.stdout

    def write(self, name: str, text: str) -> None:
        (self.root / name).parent.mkdir(parents=True, exist_ok=True)
        (self.root / name).write_text(text)

    def commit(self) -> None:
        """Track every file, as a contributor's commit does (untracked files are nobody's input)."""
        settings = ["user.name=t", "user.email=t@t", "commit.gpgsign=false", "core.hooksPath=/dev/null"]
        git = ["git", *(f for s in settings for f in ("-c", s))]
        subprocess.run([*git, "add", "."], cwd=self.root, check=True)
        subprocess.run([*git, "commit", "-qm", "more"], cwd=self.root, check=True)


EVERY = {
    "reads_the_book",
    "fails_while_asked",
    "reads_no_content",
    "reads_a_build",
    "opens_a_page",
    "visits_a_built_page",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repository:
    """The repository after a first run, where every test passed."""
    repository = Repository(tmp_path_factory.mktemp("pass-cache"))
    ran, output = repository.run()
    assert ran == EVERY, output
    return repository


@pytest.fixture
def fresh(tmp_path) -> Repository:
    repository = Repository(tmp_path)
    ran, output = repository.run()
    assert ran == EVERY, output
    return repository


def test_a_passed_test_is_skipped_next_time_and_says_why(repo):
    ran, output = repo.run()
    assert ran == set(), output
    assert "5 skipped" in output and "unchanged since it passed" in output, output


def test_an_edited_snippet_rechecks_the_tests_that_read_the_book(fresh):
    fresh.write("snippets/demo/hello.py", "print('hello again')\n")
    ran, output = fresh.run()
    assert ran == {"reads_the_book", "fails_while_asked"}, output
    assert fresh.run()[0] == set()


def test_an_edited_page_rechecks_the_tests_that_read_the_book(fresh):
    fresh.write("guide/demo.md", "# Demo, edited\n")
    assert fresh.run()[0] == {"reads_the_book", "fails_while_asked"}


def test_an_edited_test_file_rechecks_its_tests(fresh):
    fresh.write("test_demo.py", TESTS + "\n# edited\n")
    assert fresh.run()[0] == EVERY


OTHER = """\
import os

from tools import other_helper


def test_other():
    with open(os.environ["RUN_LOG"], "a") as file:
        file.write("other\\n")
    assert other_helper.VALUE == 1
"""


def test_a_test_is_keyed_by_its_own_code_not_by_other_tests_tools_or_the_readme(fresh):
    """A test's key holds its file, the conftest.py files above it and what they import, and the
    machinery; an edit of another test file, of a tool it does not import or of README.md
    re-checks nothing of it."""
    fresh.write("README.md", "# Demo\n")
    fresh.write("tools/other_helper.py", "VALUE = 1\n")
    fresh.write("tools/unused.py", "print('a tool')\n")
    fresh.write("tests/test_other.py", OTHER)
    fresh.commit()
    assert fresh.run()[0] == {"other"}
    for name, text, rechecked in [
        ("README.md", "# Demo, edited\n", set()),
        ("tools/unused.py", "print('another tool')\n", set()),
        ("tests/test_other.py", OTHER + "\n# edited\n", {"other"}),
    ]:
        fresh.write(name, text)
        fresh.commit()
        assert fresh.run()[0] == rechecked, name
    fresh.write("tools/other_helper.py", "VALUE = 1  # edited\n")  # imported: its test's code
    fresh.commit()
    assert fresh.run()[0] == {"other"}
    fresh.write("tests/conftest.py", "# a conftest above test_other.py only\n")
    fresh.commit()
    assert fresh.run()[0] == {"other"}
    fresh.write("conftest.py", "# a conftest above every test\n")
    fresh.commit()
    assert fresh.run()[0] == EVERY | {"other"}


def test_the_book_s_tests_are_keyed_by_the_machinery_and_their_own_code():
    """In this repository: jaxbook/ and the configuration are in every key; a test file's own
    code is its file, the plugin, the conftest.py files above it and the helpers it imports."""
    shared = set(pass_cache.shared())
    assert {ROOT / "jaxbook" / "publish.py", ROOT / "conf.py", ROOT / "pyproject.toml"} <= shared
    assert not {ROOT / "README.md", ROOT / "tools" / "bench.py", ROOT / "tests" / "test_store.py"} & shared
    own = set(pass_cache.own_files(ROOT / "tests" / "test_uptodate.py"))
    assert {
        ROOT / "tests" / "test_uptodate.py",
        ROOT / "tests" / "pass_cache.py",
        ROOT / "tests" / "conftest.py",
        ROOT / "conftest.py",
        ROOT / "tests" / "helpers.py",
    } <= own, own
    assert (
        ROOT / "tests" / "test_store.py" not in own and ROOT / "tests" / "browser" / "conftest.py" not in own
    )


def test_a_changed_environment_variable_rechecks_every_test(fresh):
    assert fresh.run(JAXBOOK_AS_CPU="avx2-128")[0] == EVERY
    assert fresh.run(JAXBOOK_AS_CPU="avx2-128")[0] == set()
    assert fresh.run(XLA_FLAGS="--xla_cpu_enable_fast_math=false")[0] == EVERY


def test_a_reinstalled_distribution_rechecks_every_test(fresh, tmp_path):
    """A package rebuilt under the same name and version (its files differ: so does RECORD,
    which lists each with its hash) is another input."""
    site = tmp_path / "site"
    info = site / "demo_lib-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-lib\nVersion: 1.0\n")
    (info / "RECORD").write_text("demo_lib.py,sha256=one,10\n")
    path = os.pathsep.join([str(ROOT), str(site)])
    assert fresh.run(PYTHONPATH=path)[0] == EVERY
    assert fresh.run(PYTHONPATH=path)[0] == set()
    (info / "RECORD").write_text("demo_lib.py,sha256=two,10\n")
    assert fresh.run(PYTHONPATH=path)[0] == EVERY


def test_an_untracked_log_or_scratch_file_changes_nothing(fresh):
    """Files git does not track are none of a test's inputs, but where the book's code finds files
    by listing them (its pages, snippets/, tests/: an untracked page is read)."""
    fresh.write("test.log", "a run's output\n")
    fresh.write("notes.txt", "scratch\n")
    assert fresh.run()[0] == set()
    fresh.write("guide/draft.md", "# Draft\n")
    assert fresh.run()[0] == {"reads_the_book", "fails_while_asked"}


def test_a_test_that_reads_a_book_file_its_inputs_do_not_name_fails(fresh):
    """What the key holds is checked: reading (or listing) an undeclared page, snippet or
    practice file, or any tracked file outside its key (README.md), fails the test and names
    the file; reading a declared one does not."""
    fresh.write(
        "test_reads.py",
        "from pathlib import Path\nimport os\nimport pytest\n\n\n"
        "@pytest.mark.inputs()\ndef test_undeclared():\n    Path('snippets/demo/hello.py').read_text()\n\n\n"
        "@pytest.mark.inputs()\ndef test_lists():\n    os.listdir('snippets/demo')\n\n\n"
        "@pytest.mark.inputs('snippets/demo')\ndef test_declared():\n    Path('snippets/demo/hello.py').read_text()\n\n\n"
        "@pytest.mark.inputs()\ndef test_reads_the_readme():\n    Path('README.md').read_text()\n",
    )
    fresh.write("README.md", "# Demo\n")
    fresh.commit()  # a tracked file outside its key, as a page or snippet would be
    ran, output = fresh.run(JAXBOOK_AUDIT_INPUTS="1")  # a new environment: every test runs
    assert "3 failed" in output and "test_declared read" not in output, output
    assert "test_reads_the_readme read README.md, which its inputs do not name" in output, output
    assert "test_undeclared read snippets/demo/hello.py, which its inputs do not name" in output, output
    assert "test_lists read snippets/demo, which" in output, output


def test_a_failed_test_is_checked_again_until_it_passes(fresh):
    fresh.write("guide/fail.md", "# Fail\n")
    ran, output = fresh.run()
    assert ran == {"reads_the_book", "fails_while_asked"} and "1 failed" in output, output
    ran, output = fresh.run()
    assert ran == {"fails_while_asked"} and "1 failed" in output, output
    (fresh.root / "guide" / "fail.md").unlink()
    assert fresh.run()[0] == set()  # the book as it was when both passed


def test_recheck_runs_every_test(repo):
    assert repo.run(JAXBOOK_RECHECK="1")[0] == EVERY
    assert repo.run()[0] == set()


def test_a_half_written_record_is_not_trusted(fresh):
    files = sorted((fresh.root / pass_cache.FOLDER).rglob("*.json"))
    assert len(files) == 7  # five tests, two of them also keyed by what they read of the build
    for path in files:
        text = path.read_text()
        json.loads(text)
        path.write_text(text[: len(text) // 2])
    assert fresh.run()[0] == EVERY


def test_a_record_is_kept_only_for_the_key_it_was_made_for(fresh):
    for path in (fresh.root / pass_cache.FOLDER).rglob("*.json"):
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "key": "0" * 64}))
    assert fresh.run()[0] == EVERY


def test_a_test_reading_a_build_is_rechecked_only_when_what_it_reads_changed(fresh):
    """And a test that uses the fixture building the site (pass_cache.BUILDERS) is keyed by what
    it reads of the build right after that fixture: while unchanged, its browser page is never
    opened."""
    fresh.write("_build/out.txt", "two\n")  # its declared input changed, what it reads of the build not
    ran, output = fresh.run()
    assert ran == set() and "what it reads of the build is unchanged" in output, output
    fresh.write("_build/built.txt", "two\n")
    assert fresh.run()[0] == {"reads_a_build", "opens_a_page", "visits_a_built_page"}
    assert fresh.run()[0] == set()


def test_a_nested_run_checks_everything(repo):
    """A pytest run started by a test (its environment says the plugin is on above it)."""
    assert repo.run(**{pass_cache.STATE: "on"})[0] == EVERY


def test_a_browser_test_of_some_pages_reads_them_and_what_they_load_not_the_other_pages(
    tmp_path, monkeypatch
):
    """pass_cache.built_pages: the visited pages, the site's assets and, for the search page only,
    the search index; an edit of another page or of a download changes none of its inputs."""
    html = tmp_path / "_build" / "html"
    for name in ["index.html", "guide/a.html", "guide/b.html", "search.html", "searchindex.js",
                 "_static/bundle.css", "_static/x.js", "_sources/guide/b.ipynb", "_images/p.png"]:  # fmt: skip
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        (html / name).write_text(name)
    monkeypatch.setattr(pass_cache, "ROOT", tmp_path)
    monkeypatch.setattr(pass_cache, "root", tmp_path)
    found = {
        p.relative_to(html).as_posix() for p in pass_cache.built_pages("guide/a.html", "index.html")(None)
    }
    assert found == {"guide/a.html", "index.html", "_static/bundle.css", "_static/x.js", "_images/p.png"}
    searching = {p.relative_to(html).as_posix() for p in pass_cache.built_pages("search.html")(None)}
    assert {"search.html", "searchindex.js"} <= searching and "guide/a.html" not in searching
