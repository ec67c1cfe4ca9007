"""No stale output: an edit re-executes exactly the pages that depend on it."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from jaxbook import ROOT, layout
from tests.helpers import Book

# Builds run side by side: their kernels talk over Unix sockets (tests/test_kernel_start.py).
# Throwaway books of the tests' own: none of the book's content is read (tests/pass_cache.py).
pytestmark = [pytest.mark.build, pytest.mark.inputs()]
#: The tests of one book: on one worker, so that its first build is made once.
same_book = pytest.mark.xdist_group("rebuild-book")

# Each snippet prints a fresh token, so a page's output changes exactly when it is re-executed.
TOKEN = "import uuid\n\nprint('run', uuid.uuid4().hex)\n"


def tokens(build, docname):
    return re.findall(r"run [0-9a-f]{32}", build.page(docname))


@pytest.fixture(scope="module")
def first_build(tmp_path_factory):
    """Two pages, one importing helpers, built once; :func:`book` gives each test this book as
    the build left it."""
    folder = tmp_path_factory.mktemp("rebuild")
    (folder / "book").mkdir()
    book = Book(folder / "book")
    book.snippet("shared/_helper.py", "GREETING = 'hello'\n")
    book.snippet("shared/_indirect.py", "from snippets.shared._helper import GREETING\n")
    book.snippet(
        "a/uses_helper.py",
        "from snippets.shared import _indirect\n\n" + TOKEN + "print(_indirect.GREETING)\n",
        output="",  # not compared; a page whose .out is missing is read by every build
    )
    book.snippet("b/standalone.py", TOKEN, output="")
    book.page("a", "a/uses_helper.py")
    book.page("b", "b/standalone.py")
    first = book.build()
    assert first.returncode == 0, first.output
    book.before = {page: tokens(first, page) for page in ("a", "b")}
    assert all(len(found) == 1 for found in book.before.values())
    pristine = folder / "pristine"
    shutil.copytree(book.root, pristine, symlinks=True)  # copy2: modification times kept
    return book, pristine


@pytest.fixture
def book(first_build):
    """The first build's book, restored file by file (times included) at the path it was built
    in, since Sphinx refuses an environment whose source folder moved: what each test edits or
    rebuilds is gone before the next test."""
    book, pristine = first_build
    shutil.rmtree(book.root)
    shutil.copytree(pristine, book.root, symlinks=True)
    return book


@same_book
@pytest.mark.parametrize(
    "touched",
    [(), ("snippets/a/uses_helper.py", "snippets/shared/_helper.py", "guide/b.md")],
    ids=["none", "three"],
)
def test_a_rebuild_with_no_content_changed_executes_and_compiles_nothing(book, touched):
    """Files touched, not edited, are read again by Sphinx, with their results from the store; nor
    is a template compiled again (Jinja's bytecode cache, jaxbook/sphinxext/quiet.py)."""
    from jaxbook.sphinxext.quiet import compiled_templates

    compiled = compiled_templates(book.root / layout.BUILD / layout.DOCTREES)
    kept = {path.name: path.stat().st_mtime_ns for path in compiled.iterdir()}
    assert len(kept) > 10, kept
    for path in touched:
        os.utime(book.root / path)
    again = book.build()
    assert again.returncode == 0, again.output
    assert "jaxbook: executed" not in again.output
    assert {page: tokens(again, page) for page in "ab"} == book.before
    assert {path.name: path.stat().st_mtime_ns for path in compiled.iterdir()} == kept


@same_book
@pytest.mark.parametrize(
    ("edited", "text", "page"),
    [
        ("b/standalone.py", TOKEN + "print('edited')\n", "b"),
        # imported through _indirect: the dependency is followed transitively
        ("shared/_helper.py", "GREETING = 'edited'\n", "a"),
    ],
    ids=["its snippet", "a helper it imports"],
)
def test_an_edit_reexecutes_only_the_page_that_runs_it(book, edited, text, page):
    book.snippet(edited, text)
    again = book.build()
    assert again.returncode == 0, again.output
    assert "edited" in again.page(page)
    other = "ab".replace(page, "")
    assert tokens(again, page) != book.before[page] and tokens(again, other) == book.before[other]


@same_book
@pytest.mark.parametrize(
    ("variable", "value"),
    [("JAXBOOK_AS_CPU", "avx2"), ("JAX_ENABLE_X64", "1"), ("MPLBACKEND", "agg")],
    ids=["another CPU", "a JAX setting", "a matplotlib backend"],
)
def test_changing_the_environment_reexecutes_and_renders_every_page(book, monkeypatch, variable, value):
    """The store's key holds the environment (JAX, its settings and the other variables the
    kernel reads, the packages, the processor, the CPU compiled as), and so does the build's
    configuration: in another environment every page is executed and rendered again."""
    monkeypatch.setenv(variable, value)
    again = book.build()
    assert again.returncode == 0, again.output
    assert tokens(again, "a") != book.before["a"]
    assert tokens(again, "b") != book.before["b"]


@same_book
@pytest.mark.parametrize(("edited", "executes"), [("layout.py", False), ("snippet.py", True)])
def test_an_edit_to_the_machinery_executes_again_only_if_the_kernel_runs_it(book, tmp_path, edited, executes):
    """Every page shows an edit to the extension (its stamp, here); with it, an edit to a part the
    kernel does not run (the layout of _build) executes nothing, one to the kernel's executes
    every page again."""
    shutil.copytree(ROOT / "jaxbook", tmp_path / "jaxbook", ignore=shutil.ignore_patterns("__pycache__"))
    stamp = tmp_path / "jaxbook" / "sphinxext" / "stamp.py"
    stamp.write_text(
        stamp.read_text(encoding="utf-8").replace("Outputs computed with", "Outputs here computed with")
    )
    with open(tmp_path / "jaxbook" / edited, "a", encoding="utf-8") as edit:
        edit.write("\n# an edit\n")
    again = book.build(machinery=tmp_path)
    assert again.returncode == 0, again.output
    for page in "ab":
        assert "Outputs here computed with" in again.page(page), page
        assert (tokens(again, page) != book.before[page]) == executes, page


@same_book
def test_an_edit_to_an_extension_outside_sphinxext_renders_every_page_again(book, tmp_path):
    """Every module of the package that Sphinx loads is in the configuration's hash, not only
    jaxbook/sphinxext: an edit to jaxbook/downloads.py (another extension in conf.py) writes every
    page and reader's notebook again, and executes nothing."""
    shutil.copytree(ROOT / "jaxbook", tmp_path / "jaxbook", ignore=shutil.ignore_patterns("__pycache__"))
    downloads = tmp_path / "jaxbook" / "downloads.py"
    text = downloads.read_text(encoding="utf-8")
    assert "Run this page yourself" in text
    downloads.write_text(
        text.replace("Run this page yourself", "Run this page here yourself"), encoding="utf-8"
    )
    notebooks = {page: book.root / layout.HTML / "_sources" / "guide" / f"{page}.ipynb" for page in "ab"}
    written = {page: path.stat().st_mtime_ns for page, path in notebooks.items()}
    again = book.build(machinery=tmp_path)
    assert again.returncode == 0, again.output
    assert "jaxbook: executed" not in again.output
    for page in "ab":
        assert "Run this page here yourself" in again.page(page), page
        assert notebooks[page].stat().st_mtime_ns != written[page], page
        assert tokens(again, page) == book.before[page], page


def published_files(html: Path, needle: str) -> list[str]:
    """The files under ``html`` whose bytes contain ``needle``."""
    return [
        str(p.relative_to(html)) for p in html.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()
    ]


def test_a_fixed_page_leaves_nothing_of_its_failure_in_the_site(tmp_path):
    """Three pages fail (an undeclared exception, a snippet that does not exist yet, a snippet with
    a syntax error) and are fixed; the incremental build that follows publishes each page as
    fixed and keeps no report, traceback or stale cell of the failed build."""
    book = Book(tmp_path)
    book.snippet("demo/boom.py", "raise ValueError('failure-token-boom')\n")
    book.page("boom", "demo/boom.py")
    book.page("later", "demo/later.py")  # not written yet
    book.snippet("demo/syntax.py", "print('failure-token-syntax'\n")
    book.page("syntax", "demo/syntax.py")
    failed = book.build()
    assert failed.returncode != 0, failed.output
    html = failed.html
    assert published_files(html, "failure-token-boom"), "the failed build published the page"
    assert (html.parent / "reports" / "guide" / "boom.txt").is_file()

    book.snippet("demo/boom.py", "print('fixed-boom')\n")
    book.snippet("demo/later.py", "print('fixed-later')\n")
    book.snippet("demo/syntax.py", "print('fixed-syntax')\n")
    fixed = book.build()
    assert fixed.returncode == 0, fixed.output
    for page in ("boom", "later", "syntax"):
        assert f"fixed-{page}" in fixed.page(page), page
    assert not published_files(html, "failure-token")
    assert not [p for p in ("boom", "later", "syntax") if ":load:" in fixed.page(p)]
    assert not (html / "reports").exists()
    assert not list((html.parent / "reports").rglob("*.*")), "no report of a page that builds"


#: What a page leaves behind in its kernel (CHANGE) and what the next page finds (OBSERVE).
IMPORTS = """\
    import os
    import random
    import sys
    import warnings

    import matplotlib
    import numpy as np

    from snippets.state import _counter

"""
CHANGE = (
    IMPORTS
    + """\
    _counter.CALLS.append(1)
    matplotlib.rcParams["lines.linewidth"] = 7.0
    np.random.seed(0)
    random.seed(0)
    warnings.simplefilter("ignore")
    os.environ["JAXBOOK_LEFTOVER"] = "1"
    sys.path.append("/leftover")
    os.chdir("snippets")
    leftover = "global"
    print("pid", os.getpid())
    """
)
OBSERVE = (
    IMPORTS
    + """\
    print("pid", os.getpid())
    print("calls", len(_counter.CALLS))
    print("linewidth", matplotlib.rcParams["lines.linewidth"])
    print("leftovers", os.environ.get("JAXBOOK_LEFTOVER"), "/leftover" in sys.path,
          "leftover" in globals(),
          warnings.filters[0] == ("ignore", None, Warning, None, 0))
    print("cwd", os.path.basename(os.getcwd()))
    print("numpy", *np.random.randint(2**31, size=3), "random", random.getrandbits(64))
    """
)


def test_each_page_runs_as_in_a_fresh_kernel_on_eight_devices(tmp_path, monkeypatch):
    """One build process keeps its kernel between pages (jaxbook.execute.Executor), on the book's 8
    emulated devices. Within a page, one snippet cannot change the next one's output ("within":
    JAX's configuration, NumPy's print options); whatever a page leaves behind ("change"), the
    next page in the same kernel ("observe") starts as in a fresh kernel (jaxbook.kernel.new_page)."""
    book = Book(tmp_path)
    book.snippet(
        "dev/count.py", "import jax\n\nprint('device_count', jax.device_count(), jax.default_backend())\n"
    )
    book.page("dev", "dev/count.py")
    book.snippet(
        "within/change.py",
        "import jax\nimport numpy as np\n\njax.config.update('jax_enable_x64', True)\nnp.set_printoptions(precision=2)\n",
    )
    book.snippet(
        "within/observe.py",
        "import jax.numpy as jnp\nimport numpy as np\n\n"
        "print('dtype', jnp.ones(1).dtype, 'precision', np.get_printoptions()['precision'])\n",
    )
    book.page("within", "within/change.py", "within/observe.py")
    book.snippet("state/_counter.py", "CALLS = []\n")
    book.snippet("state/change.py", CHANGE)
    book.snippet("state/observe.py", OBSERVE)
    book.page("change", "state/change.py")
    book.page("observe", "state/observe.py")
    monkeypatch.setenv("JAXBOOK_JOBS", "1")  # one process reads the pages, in order
    build = book.build()
    assert build.returncode == 0, build.output
    order = re.findall(r"jaxbook: executed guide/(\w+)\.md", build.output)
    assert order.index("change") < order.index("observe"), build.output
    assert "device_count 8 cpu" in build.page("dev")
    assert "on 8 emulated CPU devices" in build.page("dev")  # the environment stamp
    assert "dtype float32 precision 8" in build.page("within")
    first = re.search(r"pid (\d+)", build.page("change")).group(1)
    page = re.sub(r"<[^>]+>", "", build.page("observe"))
    assert f"pid {first}" in page, "the second page did not run in the first page's kernel"
    assert "calls 0" in page  # the helper module was imported afresh
    assert "linewidth 1.5" in page  # Matplotlib's default
    assert "leftovers None False False False" in page
    assert f"cwd {book.root.name}" in page
    seeded = np.random.RandomState(0).randint(2**31, size=3)
    drawn = re.search(r"numpy (\d+) (\d+) (\d+) random (\d+)", page).groups()
    assert [int(x) for x in drawn[:3]] != list(seeded)  # reseeded, as in a new process
    assert int(drawn[3]) != random.Random(0).getrandbits(64)
    # the executed notebook: the reader's download numbers its cells as a run from the top
    notebook = json.loads((build.html.parent / "jupyter_execute" / "guide" / "observe.ipynb").read_text())
    assert [c["execution_count"] for c in notebook["cells"] if c["cell_type"] == "code"] == [1]


def test_a_removed_page_leaves_the_site(tmp_path):
    """Sphinx keeps what it wrote for a removed source; an incremental build must not publish it,
    nor the files a stopped build left, nor the download of a page that is no longer a notebook."""
    from jaxbook.removed import PUBLISHED, written_for

    book = Book(tmp_path)
    book.snippet("kept/a.py", "print('a')\n")
    book.snippet("gone/b.py", "print('b')\n")
    book.page("kept", "kept/a.py")
    book.page("gone", "gone/b.py")
    first = book.build()
    assert first.returncode == 0, first.output[-3000:]
    written = {p.relative_to(first.html).as_posix() for p in written_for(first.html, "guide/gone")}
    assert {"guide/gone.html", "_sources/guide/gone.md", "_sources/guide/gone.ipynb"} <= written
    left_behind = {name: (first.html / name).read_bytes() for name in written}
    record = (book.root / layout.BUILD / layout.DOCTREES / PUBLISHED).read_bytes()
    (book.root / "guide" / "gone.md").unlink()
    book.pages.remove("gone")
    book._index()
    second = book.build()
    assert second.returncode == 0, second.output[-3000:]
    assert written_for(second.html, "guide/gone") == []
    assert {"kept.html", "kept.md"} <= {p.name for p in written_for(second.html, "guide/kept")}
    assert "gone" not in (second.html / "index.html").read_text(encoding="utf-8")
    # A build stopped in its write phase leaves the files and the record of the build before it
    # (it never finished); the environment it stored already forgot the page.
    for name, data in left_behind.items():
        (first.html / name).write_bytes(data)
    (book.root / layout.BUILD / layout.DOCTREES / PUBLISHED).write_bytes(record)
    # And a page that is no longer a notebook (no code cell, no top matter) has no download.
    book.page("kept", top_matter=False, body="Plain prose now.")
    third = book.build()
    assert third.returncode == 0, third.output[-3000:]
    assert written_for(third.html, "guide/gone") == []
    assert (third.html / "404.html").is_file()  # sphinx-notfound-page's own page (no 404.md here) stays
    assert not (third.html / "_sources" / "guide" / "kept.ipynb").exists()
    kept = third.page("kept")
    assert "Plain prose now." in kept and "kept.ipynb" not in kept and "jaxbook-download" not in kept
