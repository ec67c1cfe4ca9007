"""What a reader sees around the cells: each snippet cell as a reader reads it, and each page with
outputs opening with one note, right under its title.

- A cell shows its snippet without the contract's declaration lines (:func:`jaxbook.reader.reader_view`,
  the contract's one parser); above it, a caption with the snippet's file (tracebacks on the page
  name it, with its line numbers) and, for a declared error, "This cell raises X on purpose."; under
  it, for a declared platform difference, a folded note: what another machine prints, opened for why.
- The page's note (:func:`page_note`, a node after the title, built when the page is written):
  the reader's notebook to download (:mod:`jaxbook.downloads` writes it when the node is rendered)
  and the environment that produced the outputs: the stamp of the page's stored result, which
  :mod:`.mystnb` keeps in the page's doctree.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

from jaxbook import pages
from jaxbook.reader import reader_view, varies_note
from jaxbook.snippet import PlatformDifference, display_path
from jaxbook.sphinxext import code_paragraph
from jaxbook.sphinxext.mystnb import STAMP
from jaxbook.upstream import mystnb

#: What a reader calls each platform a ``# platform:`` line may name.
PLATFORM_NAMES = {"gpu": "GPU", "tpu": "TPU"}


def class_name(path: str) -> str:
    """The name a reader knows a declared class by: ``jax.errors.KeyReuseError`` -> ``KeyReuseError``."""
    return path.rpartition(".")[2]


def declared_label(raises: str | None, warns: str | None) -> str | None:
    """The caption of a cell that fails or warns on purpose, or None."""
    if raises:
        return f"This cell raises `{class_name(raises)}` on purpose."
    if warns:
        return f"This cell shows a `{class_name(warns)}` on purpose."
    return None


def platform_notes(differences: tuple[PlatformDifference, ...]) -> list[tuple[str, str]]:
    """One note per declared difference (platforms with the same one share it): what a GPU or TPU
    prints instead, as a summary the reader sees and the reason they can open."""
    grouped: dict[tuple[bool, str], list[str]] = {}
    for difference in differences:
        grouped.setdefault((difference.differs, difference.reason), []).append(difference.platform)
    notes = []
    for (differs, reason), names in grouped.items():
        where = " or ".join(PLATFORM_NAMES.get(name, name) for name in names)
        what = "this output differs" if differs else "the last digits of this output can differ"
        notes.append((f"On a {where}, {what}.", reason if reason.endswith((".", "!", "?")) else reason + "."))
    return notes


class details(nodes.General, nodes.Element):
    """A note the reader opens (HTML ``<details>``); its first child is the :class:`summary`."""


class summary(nodes.TextElement):
    """What a closed :class:`details` shows."""


def _open(tag: str):
    return lambda self, node: self.body.append(self.starttag(node, tag, ""))


def _close(tag: str):
    return lambda self, node: self.body.append(f"</{tag}>")


def _nothing(translator, node) -> None:
    """A :class:`details` outside HTML: its summary and reason are written as they come."""


def _visit_paragraph(translator, node) -> None:
    translator.visit_paragraph(node)


def _depart_paragraph(translator, node) -> None:
    translator.depart_paragraph(node)


#: Builders that write no HTML, and how each writes a platform note: a paragraph per part.
OTHER_BUILDERS = ("text", "latex", "man", "texinfo")


def platform_note(text: str, reason: str) -> details:
    """A declared platform difference under its cell: the summary shown, the reason folded."""
    note = details(classes=["jaxbook-platform-note"])
    note += summary(text, text)
    note += code_paragraph(reason, [])
    return note


#: MyST-NB's hide modes (from ``:tags: [hide-input]``, ``[hide-cell]``) that fold a cell's code.
FOLDED_INPUT = ("input", "input+output", "all")


def show_as_reader(cell: nodes.container, name: str) -> None:
    """Show the snippet ``name`` of ``cell`` (a MyST-NB code cell) as a reader reads it."""
    source = next(cell.findall(nodes.literal_block), None)
    if source is None:
        return
    view = reader_view(source.astext(), name)
    if view.hidden:
        source.children = [nodes.Text(view.source)]
        source.rawsource = view.source
    caption = nodes.container(classes=["jaxbook-snippet", "no-search"])
    label = declared_label(view.raises, view.warns)
    if label:
        caption += code_paragraph(label, ["jaxbook-snippet-label"])
    caption += nodes.paragraph(name, name, classes=["jaxbook-snippet-file"])
    source_box = mystnb.code_cell_source(cell)
    if cell.get("hide_mode") in FOLDED_INPUT and source_box is not None:
        source_box.insert(0, caption)  # folded with the code it names: MyST-NB folds the first child
    else:
        cell.insert(0, caption)
    for text, reason in platform_notes(view.platforms):
        cell += platform_note(text, reason)
    varies = varies_note(view.varies)
    if varies:
        cell += code_paragraph(varies, ["jaxbook-platform-note"])
    cell["classes"].append("jaxbook-cell")


def on_doctree_read(app, doctree) -> None:
    page = Path(app.env.doc2path(app.env.docname))
    for cell in list(doctree.findall(nodes.container)):
        load = (mystnb.code_cell_options(cell) or {}).get("load")
        if load:
            show_as_reader(cell, display_path(pages.loaded(page, load)))


def stamp_text(stamp: dict) -> str:
    """The environment of a page's outputs, in one sentence a reader reads at a glance: JAX and
    the devices. The build's details (the CPU's instructions, Python, the matmul precision) stay
    in the stored stamp, for contributors, not in the reader's sentence."""
    if stamp["backend"] == "cpu":
        devices = f"{stamp['devices']} emulated CPU devices" if stamp["devices"] > 1 else "one CPU"
    else:  # an accelerator: its kind, which a reader compares with their own
        kind = stamp["backend"].upper()
        devices = (
            f"{stamp['devices']} {kind} device{'s' if stamp['devices'] > 1 else ''} ({stamp['device_kind']})"
        )
    return (
        f"Outputs computed with JAX {stamp['jax']} on {devices}; on your machine, "
        "printed floats can differ in their last digits."
    )


class download(nodes.General, nodes.Element):
    """Where the page's note offers the reader's notebook: rendered by :mod:`jaxbook.downloads`
    (which writes the notebook then), or as nothing."""


def _skip(translator, node) -> None:
    raise nodes.SkipNode


def page_note(stamp: dict | None) -> nodes.container:
    """The note under a page's title: the download (when offered), then the environment."""
    note = nodes.container(classes=["jaxbook-page-note", "no-search"])  # Sphinx's search skips it
    note += download()
    if stamp:
        note += nodes.paragraph("", stamp_text(stamp), classes=["jaxbook-stamp"])
    return note


def on_doctree_resolved(app, doctree, docname: str) -> None:
    """Put the page's note right under its title (at the top of a page without one), on a page
    with code cells: the only pages with outputs to describe or a notebook to offer."""
    if app.builder.format != "html":
        return
    cells = any(mystnb.code_cell_options(cell) is not None for cell in doctree.findall(nodes.container))
    if not cells:
        return
    section = next((child for child in doctree.children if isinstance(child, nodes.section)), None)
    parent = section if section is not None else doctree
    title = parent.first_child_matching_class(nodes.title) if section is not None else None
    parent.insert(0 if title is None else title + 1, page_note(doctree.get(STAMP)))


def setup(app):
    app.add_node(download, html=(_skip, None), text=(_skip, None), latex=(_skip, None))
    # a platform note is in every builder's doctree (added when a page is read): each writes it
    unfolded = {builder: (_nothing, _nothing) for builder in OTHER_BUILDERS}
    app.add_node(details, html=(_open("details"), _close("details")), **unfolded)
    as_paragraph = {builder: (_visit_paragraph, _depart_paragraph) for builder in OTHER_BUILDERS}
    app.add_node(summary, html=(_open("summary"), _close("summary")), **as_paragraph)
    app.connect("doctree-read", on_doctree_read)
    app.connect("doctree-resolved", on_doctree_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
