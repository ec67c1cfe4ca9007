"""What a reader sees around the cells (jaxbook/sphinxext/stamp.py, jaxbook/downloads.py): the
snippet without the contract's declaration lines, a declared error or platform difference said in
words, one note under the page's title, and on practice pages how to get the code
(jaxbook/sphinxext/getcode.py). Unit tests on small sources and doctrees; one
throwaway book checks the built page and its notebook."""

from __future__ import annotations

import json
import re
import types

import pytest
from docutils import nodes

from jaxbook import ROOT
from jaxbook.downloads import on_html_page_context
from jaxbook.reader import reader_view, varies_note
from jaxbook.snippet import SnippetError, shown
from jaxbook.sphinxext import getcode, mystnb, stamp
from jaxbook.upstream import theme
from tests.helpers import Book

pytestmark = pytest.mark.inputs()

RAISES = "# raises: jax.errors.TracerBoolConversionError\n# match: boolean\n\nimport jax\n\nx = 1\n"
PLATFORM = (
    "# platform: gpu,tpu differs -- names the accelerator's devices\n"
    "# tolerance: rtol=1e-3 -- float16 rounds otherwise\n"
    "print(1)\n"
)
STAMP = {"jax": "0.12.0", "backend": "cpu", "devices": 8, "cpu": "x86_64 with AVX2", "python": "3.12.1"}


def test_the_reader_sees_no_declaration_line_and_line_numbers_follow():
    view = reader_view(RAISES, "snippets/a/x.py")
    assert view.source == "import jax\n\nx = 1\n"
    assert view.hidden == (1, 2, 3)  # the two declarations and the blank line they leave on top
    assert view.raises == "jax.errors.TracerBoolConversionError"
    lines = shown(RAISES)  # what the kernel runs: the same text
    assert (lines.text, lines.hidden) == (view.source, view.hidden)
    assert (lines.line(4), lines.line(6)) == (1, 3)
    assert (lines.file_line(1), lines.file_line(3), lines.file_line("?")) == (4, 6, "?")


def test_a_snippet_without_declarations_is_shown_whole():
    source = "\n# A comment.\nimport jax\n"
    view = reader_view(source, "snippets/a/x.py")
    assert (view.source, view.hidden, view.raises, view.platforms) == (source, (), None, ())


def test_a_comment_above_the_declarations_stays():
    view = reader_view("# Why this fails.\n# raises: ValueError\nraise ValueError\n", "x.py")
    assert view.source == "# Why this fails.\nraise ValueError\n"
    lines = shown("# Why this fails.\n# raises: ValueError\nraise ValueError\n")
    assert (lines.line(3), lines.file_line(1), lines.file_line(2)) == (2, 1, 3)


def test_a_malformed_declaration_still_fails_naming_its_line():
    with pytest.raises(SnippetError, match=r"x\.py:1: malformed platform declaration"):
        reader_view("# platform: cpu differs -- no\nprint(1)\n", "x.py")


def test_the_labels_say_what_the_declarations_mean():
    assert stamp.declared_label("jax._src.core.ShardingTypeError", None) == (
        "This cell raises `ShardingTypeError` on purpose."
    )
    assert (
        stamp.declared_label(None, "DeprecationWarning")
        == "This cell shows a `DeprecationWarning` on purpose."
    )
    assert stamp.declared_label(None, None) is None
    view = reader_view(PLATFORM, "x.py")
    assert stamp.platform_notes(view.platforms) == [
        ("On a GPU or TPU, this output differs.", "names the accelerator's devices.")
    ]
    tolerance = reader_view("# platform: gpu rtol=1e-5 -- XLA's tanh (an approximation)\nx = 1\n", "x.py")
    assert stamp.platform_notes(tolerance.platforms) == [
        ("On a GPU, the last digits of this output can differ.", "XLA's tanh (an approximation).")
    ]
    varies = reader_view("# varies: (?<= -> ).+ -- the model trained in bfloat16\nx = 1\n", "x.py")
    assert varies.source == "x = 1\n" and varies.varies == "the model trained in bfloat16"
    assert varies_note(varies.varies) == (
        "Part of this output can differ on your machine: the model trained in bfloat16."
    )
    assert varies_note(None) is None


def cell(source: str) -> nodes.container:
    """A code cell as MyST-NB puts it in the doctree."""
    code = nodes.container(nb_element="cell_code_source")
    code += nodes.literal_block(source, source)
    output = nodes.container(nb_element="cell_code_output")
    output += nodes.literal_block("1\n", "1\n")
    found = nodes.container(
        nb_element="cell_code", cell_metadata={"load": "../snippets/a/x.py"}, classes=["cell"]
    )
    found += [code, output]
    return found


def test_a_cell_with_hidden_input_folds_its_caption_with_its_code():
    """MyST-NB folds a ``hide-input`` cell's code only when it is the cell's first child."""
    hidden, shown = cell("print(1)\n"), cell("print(1)\n")
    hidden["hide_mode"] = "input"
    stamp.show_as_reader(hidden, "snippets/a/x.py")
    stamp.show_as_reader(shown, "snippets/a/x.py")
    assert hidden[0]["nb_element"] == "cell_code_source"
    assert "jaxbook-snippet" in hidden[0][0]["classes"]  # the file name, folded with the code
    assert "jaxbook-snippet" in shown[0]["classes"]


def test_a_cell_shows_its_caption_its_code_and_its_platform_note():
    raising, differing = cell(RAISES), cell(PLATFORM)
    stamp.show_as_reader(raising, "snippets/a/x.py")
    stamp.show_as_reader(differing, "snippets/a/y.py")
    caption = raising[0]
    assert "jaxbook-snippet" in caption["classes"] and "no-search" in caption["classes"]
    assert [p.astext() for p in caption] == [
        "This cell raises TracerBoolConversionError on purpose.",
        "snippets/a/x.py",
    ]
    assert caption[0][1].tagname == "literal"  # the class name as code
    assert next(raising.findall(nodes.literal_block)).astext() == "import jax\n\nx = 1\n"
    assert next(differing.findall(nodes.literal_block)).astext() == "print(1)\n"
    assert [p.astext() for p in differing[0]] == ["snippets/a/y.py"]
    note = differing[-1]  # folded: the summary shown, the reason opened
    assert note.tagname == "details" and "jaxbook-platform-note" in note["classes"]
    assert [child.astext() for child in note] == [
        "On a GPU or TPU, this output differs.",
        "names the accelerator's devices.",
    ]
    varying = cell("# varies: (?<= -> ).+ -- sampled from a trained model\nprint(1)\n")
    stamp.show_as_reader(varying, "snippets/a/z.py")
    assert next(varying.findall(nodes.literal_block)).astext() == "print(1)\n"
    assert (
        varying[-1].astext()
        == "Part of this output can differ on your machine: sampled from a trained model."
    )


def test_the_stamp_is_one_short_sentence():
    assert stamp.stamp_text(STAMP) == (
        "Outputs computed with JAX 0.12.0 on 8 emulated CPU devices; on your machine, "
        "printed floats can differ in their last digits."
    )  # the build's CPU and Python are the stamp's, not the reader's sentence
    gpu = dict(STAMP, backend="gpu", devices=1, device_kind="NVIDIA H200", matmul_precision="default")
    assert stamp.stamp_text(gpu).startswith("Outputs computed with JAX 0.12.0 on 1 GPU device (NVIDIA H200);")


def page(*body: nodes.Node, title: bool = True) -> nodes.document:
    doctree = nodes.document(None, None)
    section = nodes.section()
    if title:
        section += nodes.title("Page", "Page")
    section += nodes.paragraph("Prose.", "Prose.")
    section += body
    doctree += section
    return doctree


def resolve(doctree) -> None:
    doctree[mystnb.STAMP] = STAMP  # what the page's stored result gave it when it was read
    app = types.SimpleNamespace(builder=types.SimpleNamespace(format="html"))
    stamp.on_doctree_resolved(app, doctree, "guide/a")


def test_the_note_goes_right_under_the_title_of_a_page_with_cells_only():
    with_cells = page(cell("print(1)\n"))
    resolve(with_cells)
    note = with_cells[0][1]
    assert "jaxbook-page-note" in note["classes"] and "no-search" in note["classes"]
    assert isinstance(note[0], stamp.download)
    assert note[1].astext() == stamp.stamp_text(STAMP)
    untitled = page(cell("print(1)\n"), title=False)
    resolve(untitled)
    assert "jaxbook-page-note" in untitled[0][0]["classes"]
    prose = page()
    resolve(prose)
    assert not [n for n in prose.findall(nodes.container) if "jaxbook-page-note" in n["classes"]]


def test_the_theme_is_offered_the_notebook_only_when_the_note_wrote_it(tmp_path):
    (tmp_path / "_sources" / "guide").mkdir(parents=True)
    written = tmp_path / "_sources" / "guide" / "a.ipynb"
    written.write_text("{}")
    app = types.SimpleNamespace(outdir=str(tmp_path))
    with_note = page(cell("print(1)\n"))
    resolve(with_note)
    context = {}
    on_html_page_context(app, "guide/a", "page.html", context, with_note)
    offered = {}
    theme.offer_notebook(offered, "guide/a.ipynb")
    assert context == offered
    context = {}
    on_html_page_context(app, "guide/a", "page.html", context, page())  # no longer a notebook
    assert context == {} and not written.exists()


@pytest.mark.build
def test_a_built_page_and_its_notebook_show_the_snippets_as_readers_read_them(tmp_path):
    book = Book(tmp_path)
    book.snippet("a/fails.py", "# raises: ValueError\n# match: no\n\nraise ValueError('no')\n")
    book.snippet("a/differs.py", "# platform: gpu differs -- the GPU's own digits\nprint(1)\n")
    book.page("a", "a/fails.py", "a/differs.py")
    built = book.build()
    assert built.returncode == 0, built.output[-3000:]
    html = built.page("a")
    assert "# raises" not in html and "# platform" not in html and "tested by" not in html
    assert re.search(
        r'</h1>\s*<div class="jaxbook-page-note[^"]*">\s*<p class="jaxbook-download">Run this page yourself: '
        r'download <a [^>]*href="../_sources/guide/a.ipynb"[^>]*>a.ipynb</a>.*?</p>\s*'
        r'<p class="jaxbook-stamp">Outputs computed with JAX',
        html,
        re.S,
    ), html[html.find("<h1") :][:1500]
    assert html.count("jaxbook-stamp") == 1 and html.count("jaxbook-download") == 1
    assert "This cell raises <code" in html and ">ValueError</span></code> on purpose." in html
    assert re.search(
        r'<details class="jaxbook-platform-note">\s*<summary>On a GPU, this output differs.</summary>\s*'
        r"<p>the GPU(’|&#8217;|'|&#x27;)s own digits.</p>\s*</details>",
        html,
    )
    notebook = json.loads((built.html / "_sources" / "guide" / "a.ipynb").read_text(encoding="utf-8"))
    loaded = [c for c in notebook["cells"] if c["metadata"].get("load")]
    assert [c["source"] for c in loaded] == ["raise ValueError('no')\n", "print(1)\n"]
    assert 'File "Cell In[2]", line 1, in <module>' in loaded[0]["outputs"][0]["traceback"][0]  # not 4


def test_a_practice_page_says_how_to_get_the_code_with_and_without_an_address():
    cloned = getcode.how_to_get_the_code("https://example.org/book.git")
    assert cloned.startswith("Get the code with `git clone https://example.org/book.git`")
    alone = getcode.how_to_get_the_code("")
    assert "clone" in alone and "git clone" not in alone
    for text in (cloned, alone):  # either way, the notebook and its self-check
        assert "download this page's notebook" in text and "checks your attempt" in text


@pytest.mark.parametrize(
    ("variables", "repository"),
    [
        ({}, ""),
        ({"JAXBOOK_REPOSITORY_URL": "https://example.org/a.git"}, "https://example.org/a.git"),
        (
            {
                "JAXBOOK_REPOSITORY_URL": "https://example.org/a.git",
                "READTHEDOCS_GIT_CLONE_URL": "https://rtd/b.git",
            },
            "https://rtd/b.git",
        ),
    ],
    ids=["no address", "JAXBOOK_REPOSITORY_URL", "Read the Docs first"],
)
def test_the_repository_comes_from_the_host_or_jaxbook_repository_url(monkeypatch, variables, repository):
    for name in ("READTHEDOCS_GIT_CLONE_URL", "JAXBOOK_REPOSITORY_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    conf = {"__file__": str(ROOT / "conf.py")}
    exec((ROOT / "conf.py").read_text(encoding="utf-8"), conf)
    assert conf["jaxbook_repository"] == repository


@pytest.mark.build
def test_another_repository_address_rebuilds_the_page_that_names_it(tmp_path, monkeypatch):
    monkeypatch.delenv("READTHEDOCS_GIT_CLONE_URL", raising=False)
    monkeypatch.delenv("JAXBOOK_REPOSITORY_URL", raising=False)
    book = Book(tmp_path)
    book.page("p", top_matter=False, body="```{get-the-code}\n```\n")
    first = book.build()
    assert first.returncode == 0, first.output[-3000:]
    assert "The commands below run in a clone" in first.page("p")
    monkeypatch.setenv("JAXBOOK_REPOSITORY_URL", "https://example.org/book.git")
    again = book.build()
    assert again.returncode == 0, again.output[-3000:]
    assert "git clone https://example.org/book.git" in again.page("p")
