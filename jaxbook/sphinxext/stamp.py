"""Each snippet cell captioned with its file; each page stamped with the environment (JAX, backend,
devices, CPU) that produced its outputs, measured once per build that reads a page."""

from __future__ import annotations

import json
import subprocess
import sys
from html import escape
from pathlib import Path

from docutils import nodes

from jaxbook import book_root, pages
from jaxbook.snippet import display_path


def on_env_before_read_docs(app, env, docnames: list[str]) -> None:
    if docnames or not getattr(env, "jaxbook_stamp", None):
        command = [sys.executable, "-m", "jaxbook.runtime"]
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=book_root())
        env.jaxbook_stamp = json.loads(done.stdout)


def on_doctree_read(app, doctree) -> None:
    page = Path(app.env.doc2path(app.env.docname))
    for cell in doctree.findall(nodes.container):
        load = cell.get("nb_element") == "cell_code" and cell.get("cell_metadata", {}).get("load")
        if not load:
            continue
        name = display_path(pages.loaded(page, load))
        html = (
            f'<div class="jaxbook-snippet"><span class="jaxbook-snippet-file">{escape(name)}</span>'
            f'<span class="jaxbook-snippet-test">tested by '
            f"<code>test_snippet[{escape(name.removeprefix('snippets/'))}]</code></span></div>"
        )
        cell.insert(0, nodes.raw("", html, format="html"))
        cell["classes"].append("jaxbook-cell")


def stamp_text(stamp: dict) -> str:
    backend = f"{stamp['backend']} backend"
    if stamp["backend"] != "cpu":  # an accelerator's kind and matmul precision decide its last digits
        backend += f" ({stamp['device_kind']}, matmul precision {stamp['matmul_precision']})"
    return (
        f"Outputs on this page were produced when the site was built, by JAX {stamp['jax']} "
        f"on the {backend} with {stamp['devices']} devices "
        f"(CPU: {stamp['cpu']}; Python {stamp['python']}); on another CPU, printed floats "
        "can differ in their last digits."
    )


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    """Put the stamp right under the page's title (at the top of a page without one)."""
    stamp = getattr(app.env, "jaxbook_stamp", None)
    if not stamp or "body" not in context:
        return
    html = f'<p class="jaxbook-stamp">{escape(stamp_text(stamp))}</p>\n'
    body = context["body"]
    end = body.find("</h1>") + len("</h1>") if "</h1>" in body else 0
    context["body"] = body[:end] + ("\n" if end else "") + html + body[end:]


def setup(app):
    app.connect("env-before-read-docs", on_env_before_read_docs)
    app.connect("doctree-read", on_doctree_read)
    app.connect("html-page-context", on_html_page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
