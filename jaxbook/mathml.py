"""Math rendered at build time as MathML (the default renderer ``mathml``), which browsers draw
natively: no page ships math JavaScript. Each ``<math>`` keeps its LaTeX as ``alttext`` (for
screen readers that do not speak MathML) and takes the page's text colour; LaTeX that the pinned
latex2mathml cannot convert is a build warning at the page's line."""

from __future__ import annotations

from html import escape

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.util import logging

logger = logging.getLogger(__name__)


def to_mathml(latex: str, display: str, node) -> str:
    """``latex`` as a ``<math>`` element (display "inline" or "block"); on failure, a warning at
    ``node``'s source line and the LaTeX as code."""
    try:
        markup = convert(latex, display=display)
    except Exception as error:  # latex2mathml raises several exception types
        logger.warning(
            "math %r cannot be converted to MathML: %s",
            latex,
            error,
            location=node,
            type="jaxbook",
            subtype="math",
        )
        return f"<code>{escape(latex)}</code>"
    return markup.replace("<math ", f'<math alttext="{escape(latex, quote=True)}" ', 1)


def visit_math(self, node) -> None:
    self.body.append(to_mathml(node.astext(), "inline", node))
    raise nodes.SkipNode


def visit_displaymath(self, node) -> None:
    label = f'<span class="eqno">({node["number"]})</span>' if node.get("number") else ""
    latex = node.astext() if node.get("nowrap") else node.astext().strip()
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight jaxbook-math"))
    self.body.append(label + to_mathml(latex, "block", node) + "</div>\n")
    raise nodes.SkipNode


def on_config_inited(app, config) -> None:
    if not config.html_math_renderer:
        config.html_math_renderer = "mathml"


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("config-inited", on_config_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
