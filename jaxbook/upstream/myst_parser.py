"""myst-parser's internals (5.2): the parser it builds on markdown-it
(``myst_parser.parsers.mdit.create_md_parser``) and its directive parser
(``myst_parser.parsers.directives.parse_directive_text``, whose form changed across majors)."""

from __future__ import annotations

import functools
from typing import NamedTuple

#: Its routine INFO lines, by logger (Sphinx's name for it): the configuration dump.
ROUTINE_LINES = {"sphinx.myst_parser.sphinx_ext.main": ("myst v%s:",)}


class Directive(NamedTuple):
    """A directive's parts as MyST reads them: ``body_offset`` is the line of ``body``'s first line
    within the content; ``warning`` the first problem with the options (None if none)."""

    arguments: list[str]
    options: dict
    body: list[str]
    body_offset: int
    warning: str | None


@functools.cache
def markdown_parser(extensions: frozenset[str], inline: bool = False):
    """A markdown-it parser that reads block syntax as MyST does with ``extensions`` (inline syntax
    left unparsed unless ``inline``)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions=set(extensions), disable_syntax=[] if inline else ["inline"])
    return create_md_parser(config, RendererHTML)


class _Spec:
    """What ``parse_directive_text`` asks of a directive class: its argument (the opening line's
    text after the name, spaces kept), its options and its body."""

    option_spec = {"options": True}
    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True


class _NoArgument(_Spec):
    optional_arguments = 0


def directive(first_line: str, content: str, argument: bool = True) -> Directive:
    """Read a directive block as MyST does, options not validated; ``argument=False``: the opening
    line's text is the body's first line (an admonition such as ``{note}``)."""
    from myst_parser.parsers.directives import parse_directive_text

    spec = _Spec if argument else _NoArgument
    result = parse_directive_text(spec, first_line, content, validate_options=False)
    warning = str(result.warnings[0].msg) if result.warnings else None
    return Directive(result.arguments, result.options or {}, result.body, result.body_offset, warning)
