"""What readers see of a snippet, on its page and in its notebook: its source without the snippet
contract's declaration lines (the maintainers' business) and the blank lines they leave at its
top, and what the declarations mean for a reader. Which lines are shown is
:func:`jaxbook.snippet.shown`, the text the kernel runs (so tracebacks count the lines on screen);
the declarations are read, and validated, by the contract's one parser. The kernel does not import
this module, so an edit here re-executes nothing."""

from __future__ import annotations

from dataclasses import dataclass

from jaxbook.snippet import PlatformDifference, parse_declaration, parse_platforms, parse_varies, shown


@dataclass(frozen=True)
class ReaderView:
    source: str
    hidden: tuple[int, ...]  # the 1-based lines of the file left out
    raises: str | None  # the declared error's class, as the declaration names it
    warns: str | None  # the declared warning's class
    platforms: tuple[PlatformDifference, ...]
    varies: str | None = None  # why part of the output varies ('# varies:'), for readers


def reader_view(source: str, name: str) -> ReaderView:
    """What readers see of the snippet ``source`` (``name``: its display path, for errors). A
    malformed declaration raises :class:`jaxbook.snippet.SnippetError` naming its line."""
    raises = parse_declaration(source, name)  # validates the whole header: every declaration is
    warns = parse_declaration(source, name, "warns")  # then in the top comment block
    platforms = parse_platforms(source, name)
    varies = parse_varies(source, name)
    view = shown(source)
    return ReaderView(
        view.text,
        view.hidden,
        raises.raises if raises else None,
        warns.raises if warns else None,
        tuple(platforms.values()),
        varies.reason if varies else None,
    )


def varies_note(reason: str | None) -> str | None:
    """The sentence under a cell whose output varies in part (``# varies:``), or None."""
    if not reason:
        return None
    reason = reason if reason.endswith((".", "!", "?")) else reason + "."
    return f"Part of this output can differ on your machine: {reason}"
