"""A test is skipped only while every input of its last pass is unchanged (tests/pass_cache.py).

Each test here runs pytest with the plugin on a tiny repository of its own (a page, a snippet, a
practice problem, test files) whose tests log each time they really run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.sphinxext import chip
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

#: A test of another file, which imports a tool.
OTHER = """\
import os

import pytest

from tools import other_helper


@pytest.mark.inputs()
def test_other():
    with open(os.environ["RUN_LOG"], "a") as file:
        file.write("other\\n")
    assert other_helper.VALUE == 1
"""

#: A practice problem's test: it reads its folder, without declaring it.
PROBLEM = """\
import os
from pathlib import Path


def test_problem():
    with open(os.environ["RUN_LOG"], "a") as file:
        file.write("problem\\n")
    assert Path(__file__).with_name("starter.py").read_text()
"""


class Repository:
    """A tiny git repository with the plugin on; :meth:`run` says which of its tests really ran."""

    def __init__(self, folder: Path):
        self.root, self.log = folder / "repo", folder / "ran.log"
        self.write(".gitignore", "_build/\n__pycache__/\n")
        addopts = "-p tests.pass_cache -p no:cacheprovider --import-mode=importlib -rs"
        self.write("pyproject.toml", f'[tool.pytest.ini_options]\naddopts = "{addopts}"\n')
        self.write("guide/demo.md", "# Demo\n")
        self.write("snippets/demo/hello.py", "print('hello')\n")
        self.write("_build/out.txt", "one\n")
        self.write("_build/built.txt", "one\n")
        self.write("tests/test_demo.py", TESTS)
        self.write("tests/other/test_other.py", OTHER)
        self.write("tests/other/conftest.py", "# above test_other.py only\n")
        self.write("conftest.py", "# above every test\n")
        self.write("tools/__init__.py", "")  # a package, as the book's tools/ is
        self.write("tools/other_helper.py", "VALUE = 1\n")
        self.write("tools/unused.py", "print('a tool')\n")
        self.write("README.md", "# Demo\n")
        self.write("practice/demo/starter.py", "VALUE = 1\n")
        self.write("practice/demo/test_problem.py", PROBLEM)
        self.write("docs/records/demo.json", "{}\n")
        settings = ["user.name=t", "user.email=t@t", "commit.gpgsign=false", "core.hooksPath=/dev/null"]
        git = ["git", *(f for s in settings for f in ("-c", s))]
        for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "repo"]):  # all tracked
            subprocess.run([*git, *command], cwd=self.root, check=True)
        ran, output = self.run()
        assert ran == EVERY, output

    def run(self, **env: str) -> tuple[set[str], str]:
        """The tests that ran (not skipped), and pytest's output."""
        self.log.write_text("")
        clean = {k: v for k, v in os.environ.items() if k not in (*pass_cache.PER_RUN, "PYTEST_ADDOPTS")}
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


BOOK_READERS = {"reads_the_book", "fails_while_asked"}
DEMO = {*BOOK_READERS, "reads_no_content", "reads_a_build", "opens_a_page", "visits_a_built_page"}
EVERY = {*DEMO, "other", "problem"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repository:
    """A repository after a first run, where every test passed (for tests that change nothing)."""
    return Repository(tmp_path_factory.mktemp("pass-cache"))


@pytest.fixture
def fresh(tmp_path) -> Repository:
    """A repository of the test's own, after a first run, where every test passed."""
    return Repository(tmp_path)


def test_a_passed_test_is_skipped_next_time_and_says_why(repo):
    ran, output = repo.run()
    assert ran == set(), output
    assert "7 skipped" in output and "unchanged since it passed" in output, output


def test_an_edit_rechecks_exactly_the_tests_that_can_read_the_file(fresh):
    """Content re-checks the tests that read it; code the tests whose own code it is (their file,
    the conftest.py files above it and what they import, a tool included); configuration every
    test; README.md, or a tool no test imports, none."""
    for name, rechecked in [
        ("snippets/demo/hello.py", BOOK_READERS),
        ("guide/demo.md", BOOK_READERS),
        ("practice/demo/starter.py", BOOK_READERS | {"problem"}),  # a problem's tests read its folder
        ("docs/records/demo.json", BOOK_READERS),  # a chip's record: content, as the pages quoting it
        ("tests/test_demo.py", DEMO),
        ("tests/other/test_other.py", {"other"}),
        ("tools/other_helper.py", {"other"}),
        ("tests/other/conftest.py", {"other"}),
        ("conftest.py", EVERY),
        ("pyproject.toml", EVERY),
        ("README.md", set()),
        ("tools/unused.py", set()),
    ]:
        fresh.write(name, (fresh.root / name).read_text() + "\n# edited\n")
        ran, output = fresh.run()
        assert ran == rechecked, f"{name}: {output}"
        assert fresh.run()[0] == set(), name


def test_a_page_is_made_of_the_chip_records_it_quotes(tmp_path, monkeypatch):
    """A re-recorded chip re-checks the tests of the pages that quote it, and only those."""
    monkeypatch.setattr(pass_cache, "root", tmp_path)
    (tmp_path / "docs" / "records").mkdir(parents=True)
    for name in ("quoted", "tabled", "other"):
        (tmp_path / "docs" / "records" / f"{name}.json").write_text("{}\n")
    page = tmp_path / "docs" / "chips.md"
    page.write_text(
        "# Chips\n\n{chip}`quoted:a.b|ms` on {chip-stamp}`quoted`.\n\n```{chip-table} tabled roofline\n```\n"
    )
    sources = pass_cache.page_sources(page)
    records = {p.name for p in sources if p.parent.name == "records"}
    assert records == {"quoted.json", "tabled.json"}, sources


def test_every_quote_the_chip_extension_reads_is_one_the_pass_cache_sees():
    """The pass cache reads a page's quotes with the extension's own ``quoted_records``: each role
    and directive ``chip.setup`` registers is among them, so a new one cannot be missed."""
    registered = []
    app = types.SimpleNamespace(
        add_role=lambda name, _: registered.append(name),
        add_directive=lambda name, _: registered.append(name),
    )
    chip.setup(app)
    assert registered and all(chip.quoted_records(f"{{{name}}}`rec:x`") == {"rec"} for name in registered)


@pytest.mark.inputs("tests/test_uptodate.py", "tests/helpers.py", "docs/records")  # read for their imports
def test_the_book_s_tests_are_keyed_by_the_machinery_and_their_own_code():
    """In this repository: jaxbook/ and the configuration are in every key, README.md, the tools
    and the tests in none; a test file's own code is its file, the plugin, the conftest.py files
    above it and the helpers it imports."""
    shared, tests = set(pass_cache.shared()), ROOT / "tests"
    assert {ROOT / "jaxbook" / "publish.py", ROOT / "conf.py", ROOT / "pyproject.toml"} <= shared
    assert not {ROOT / "README.md", ROOT / "tools" / "bench.py", tests / "test_store.py"} & shared
    assert pass_cache.RECORDS == chip.FOLDER
    records = set((ROOT / chip.FOLDER).glob("*.json"))
    assert records and not records & shared and records <= set(pass_cache.book())  # content
    own = set(pass_cache.own_files(tests / "test_uptodate.py"))
    code = {tests / "test_uptodate.py", tests / "pass_cache.py", tests / "conftest.py", tests / "helpers.py"}
    assert code | {ROOT / "conftest.py"} <= own, own
    assert not {tests / "test_store.py", tests / "browser" / "conftest.py"} & own, own


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
    assert fresh.run()[0] == BOOK_READERS


def test_a_test_that_reads_a_book_file_its_inputs_do_not_name_fails(fresh):
    """What the key holds is checked: reading (or listing) an undeclared page, snippet or
    practice file, or any tracked file outside its key (README.md), fails the test and names
    the file; reading a declared one does not."""
    fresh.write(
        "tests/test_reads.py",
        "from pathlib import Path\nimport os\nimport pytest\n\n\n"
        "@pytest.mark.inputs()\ndef test_undeclared():\n    Path('snippets/demo/hello.py').read_text()\n\n\n"
        "@pytest.mark.inputs()\ndef test_lists():\n    os.listdir('snippets/demo')\n\n\n"
        "@pytest.mark.inputs('snippets/demo')\ndef test_declared():\n    Path('snippets/demo/hello.py').read_text()\n\n\n"
        "@pytest.mark.inputs()\ndef test_reads_the_readme():\n    Path('README.md').read_text()\n",
    )
    ran, output = fresh.run()  # every run that records passes audits the tests it runs
    assert "3 failed" in output and "test_declared read" not in output, output
    assert "test_reads_the_readme read README.md, which its inputs do not name" in output, output
    assert "test_undeclared read snippets/demo/hello.py, which its inputs do not name" in output, output
    assert "test_lists read snippets/demo, which" in output, output
    assert "3 failed" not in fresh.run(JAXBOOK_AUDIT_INPUTS="0")[1]  # the way out, for a maintainer


def test_a_failed_test_is_checked_again_until_it_passes(fresh):
    fresh.write("guide/fail.md", "# Fail\n")
    ran, output = fresh.run()
    assert ran == BOOK_READERS and "1 failed" in output, output
    ran, output = fresh.run()
    assert ran == {"fails_while_asked"} and "1 failed" in output, output
    (fresh.root / "guide" / "fail.md").unlink()
    assert fresh.run()[0] == set()  # the book as it was when both passed


def test_recheck_runs_every_test(repo):
    assert repo.run(JAXBOOK_RECHECK="1")[0] == EVERY
    assert repo.run()[0] == set()


def test_a_half_written_record_is_not_trusted(fresh):
    records = [p for p in (fresh.root / pass_cache.FOLDER).rglob("*") if p.is_file()]
    assert len(records) == 9  # seven tests, two of them also keyed by what they read of the build
    for path in records:
        path.write_text(path.read_text()[:-1])
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


@pytest.mark.parametrize("state", ["on", "off"])
def test_a_nested_run_or_one_with_the_cache_off_checks_everything(repo, state):
    """A pytest run started by a test (the plugin is on above it), or JAXBOOK_PASS_CACHE=off."""
    assert repo.run(**{pass_cache.STATE: state})[0] == EVERY


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
    monkeypatch.setattr(pass_cache, "root", tmp_path)
    found = {
        p.relative_to(html).as_posix() for p in pass_cache.built_pages("guide/a.html", "index.html")(None)
    }
    assert found == {"guide/a.html", "index.html", "_static/bundle.css", "_static/x.js", "_images/p.png"}
    searching = {p.relative_to(html).as_posix() for p in pass_cache.built_pages("search.html")(None)}
    assert {"search.html", "searchindex.js"} <= searching and "guide/a.html" not in searching
