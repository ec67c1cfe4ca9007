"""How long the book takes to read, so that the ramp stays honest: ``make reading [CHECK=1]``.

For each reader page (the landing page, guide/, docs/ but the contributors' pages, the practice
pages), the words and minutes of its core and of its optional layer, read with MyST's parser
(:func:`jaxbook.pages.tokens`):

- prose at :data:`PROSE_WPM` words a minute: the text of paragraphs, headings, lists, tables and
  footnotes, link text without its target, inline code as words; directives' text counts as prose
  (an admonition's, a figure's caption, ``{only} html``), but not ``{only} notebook`` (not on the
  page), ``{toctree}`` or a fence's options;
- code at :data:`CODE_WPM` (half speed): the words of each loaded snippet as the page shows it
  (:func:`jaxbook.reader.reader_view`: the contract's lines hidden), of a ``{literalinclude}``
  and of a plain code block; printed outputs are not counted (a reader glances at them);
- optional: text inside a ``{dropdown}``, the code of a cell whose tags fold it away
  (:data:`HIDDEN_INPUT`, e.g. ``:tags: [hide-input]``; its output stays on the page), and every
  page listed under :data:`OPTIONAL_CAPTION` in index.md (with the pages under it); everything
  else is core.

A step is an entry of :data:`STEPS_CAPTION` in index.md, with the pages its toctrees list (its
parts) but the optional ones; its number is its title's (``Step 9: ...``; the capstone has none).
Targets (:data:`TARGETS`): core of steps 1-8 at most 25 minutes, of steps 9 and 10 at most 40.
``--check`` exits 1 naming each step over its target.

Each page's count of maintainers' voice (:data:`VOICE`) is reported beside it: phrases in its
source and the contract's lines its cells would show (:func:`shown_contract_lines`).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from jaxbook import ROOT, pages
from jaxbook.reader import reader_view
from jaxbook.snippet import DECLARATION
from jaxbook.upstream import myst_parser

PROSE_WPM = 200
CODE_WPM = 100
STEPS_CAPTION = "The ten steps"
OPTIONAL_CAPTION = "Under the hood"
#: The largest core reading time of a step, in minutes, by step number.
TARGETS = {**dict.fromkeys(range(1, 9), 25), 9: 40, 10: 40}
#: Pages written for contributors, not readers.
CONTRIBUTORS = ("docs/contributing.md", "docs/maintainers.md", "docs/upstream.md")
#: Phrases of the maintainers' voice, counted in a page's source (case-insensitive).
VOICE = {
    "tested by": re.compile(r"\btested by\b", re.I),
    "the build": re.compile(r"\bthe builds?\b", re.I),  # not "the building blocks"
    "jax/_src": re.compile(r"jax/_src"),
}
STEP_TITLE = re.compile(r"^#\s+Step\s+(\d+)", re.M)


@dataclass
class Count:
    """Words of prose and of code in one layer of a page."""

    prose: int = 0
    code: int = 0

    @property
    def minutes(self) -> float:
        return self.prose / PROSE_WPM + self.code / CODE_WPM

    def __iadd__(self, other: Count) -> Count:
        self.prose += other.prose
        self.code += other.code
        return self


@dataclass
class PageCount:
    path: str
    core: Count = field(default_factory=Count)
    optional: Count = field(default_factory=Count)
    voice: dict[str, int] = field(default_factory=dict)


def words(text: str) -> int:
    return len(text.split())


def inline_words(token) -> int:
    """The words a reader reads in an ``inline`` token: its text, inline code and roles' text."""
    count = 0
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            count += words(child.content)
        elif child.type == "myst_role":  # {ref}`text <target>`: the text
            count += words(re.sub(r"\s*<[^<>]*>\s*$", "", child.content))
        elif child.type == "math_inline":
            count += words(child.content)
    return count


def directive(token) -> tuple[str, str, dict, str]:
    """``(name, argument, options, body)`` of a ``{name} argument`` fence."""
    name, _, argument = token.info[1:].partition("}")
    parsed = myst_parser.directive(argument.strip(), token.content)
    return name, " ".join(parsed.arguments), parsed.options, "\n".join(parsed.body)


#: A code cell's tags that fold its code away (MyST-NB): its code counts as optional.
HIDDEN_INPUT = {"hide-input", "remove-input", "hide-cell", "remove-cell"}


#: Directives whose argument is a path or a condition, not words a reader reads.
NOT_PROSE_ARGUMENT = ("only", "figure", "image", "literalinclude", "include", "toctree", "code-cell")


def count_text(text: str, page: Path, core: Count, optional: Count, in_dropdown: bool = False) -> None:
    """Add the words of the Markdown ``text`` of ``page`` to ``core`` or ``optional``."""
    for token in pages.tokens(text, inline=True):
        layer = optional if in_dropdown else core
        if token.type == "inline":
            layer.prose += inline_words(token)
        elif token.type == "math_block":
            layer.prose += words(token.content)
        elif token.type in ("fence", "colon_fence", "code_block"):
            if not token.info.startswith("{"):  # a plain code block
                layer.code += words(token.content)
                continue
            name, argument, options, body = directive(token)
            if name == "code-cell":
                snippet = pages.loaded(page, str(options["load"]).strip()) if options.get("load") else None
                if snippet and snippet.is_file():
                    folded = HIDDEN_INPUT & set(pages.cell_tags(options))  # the reader opens it or not
                    (optional if folded else layer).code += words(
                        reader_view(snippet.read_text(encoding="utf-8"), str(snippet)).source
                    )
            elif name == "literalinclude":
                included = (page.parent / argument).resolve()
                if included.is_file():
                    layer.code += words(included.read_text(encoding="utf-8"))
            elif name != "toctree" and (name, argument) != ("only", "notebook"):
                layer.prose += 0 if name in NOT_PROSE_ARGUMENT else words(argument)
                count_text(body, page, core, optional, in_dropdown or name == "dropdown")


def shown_contract_lines(page: Path) -> int:
    """The contract's declaration lines the page's cells show (0 when the machinery hides them)."""
    shown = 0
    for snippet in pages.read(page).snippets():
        if snippet.is_file():
            source = reader_view(snippet.read_text(encoding="utf-8"), str(snippet)).source
            shown += sum(1 for line in source.splitlines() if DECLARATION.match(line.strip()))
    return shown


def voice(page: Path, text: str) -> dict[str, int]:
    found = {name: len(pattern.findall(text)) for name, pattern in VOICE.items()}
    found["header lines"] = shown_contract_lines(page)
    return found


def reader_pages(root: Path) -> list[Path]:
    """The pages written for readers: every page of the book but the contributors'."""
    return [p for p in pages.book_pages(root) if p.relative_to(root).as_posix() not in CONTRIBUTORS]


def captions(root: Path) -> dict[str, list[Path]]:
    """``{caption: [page]}`` of index.md's toctrees: the menu's sections."""
    found: dict[str, list[Path]] = {}
    for caption, listed in pages.captioned_toctrees(root / "index.md"):
        found.setdefault(caption, []).extend(listed)
    return found


def below(page: Path, seen: set[Path] | None = None) -> list[Path]:
    """The pages ``page``'s toctrees list, and theirs, in order."""
    seen = set() if seen is None else seen
    found = []
    for child in pages.read(page).children():
        if child not in seen:
            seen.add(child)
            found += [child, *below(child, seen)]
    return found


def optional_pages(root: Path) -> set[Path]:
    listed = captions(root).get(OPTIONAL_CAPTION, [])
    return {p for page in listed for p in [page, *below(page)]}


def count_page(page: Path, root: Path, optional: bool) -> PageCount:
    text = page.read_text(encoding="utf-8")
    counted = PageCount(page.relative_to(root).as_posix(), voice=voice(page, text))
    core, extra = Count(), Count()
    count_text(text, page, core, extra)
    if optional:
        counted.optional = Count(core.prose + extra.prose, core.code + extra.code)
    else:
        counted.core, counted.optional = core, extra
    return counted


@dataclass
class Step:
    page: str
    number: int | None
    parts: list[str]
    core: Count

    @property
    def target(self) -> int | None:
        return TARGETS.get(self.number)


def report(root: Path) -> tuple[list[PageCount], list[Step]]:
    root = root.resolve()
    optional = optional_pages(root)
    counts = {p: count_page(p, root, p in optional) for p in reader_pages(root)}
    steps = []
    for page in captions(root).get(STEPS_CAPTION, []):
        parts = [p for p in below(page) if p not in optional and p in counts]
        core = Count()
        for member in [page, *parts]:
            if member in counts:
                core += counts[member].core
        title = STEP_TITLE.search(page.read_text(encoding="utf-8"))
        steps.append(
            Step(
                page.relative_to(root).as_posix(),
                int(title[1]) if title else None,
                [p.relative_to(root).as_posix() for p in parts],
                core,
            )
        )
    return list(counts.values()), steps


def over_target(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s.target is not None and s.core.minutes > s.target]


def render(counts: list[PageCount], steps: list[Step]) -> str:
    """The report: a line per reader page, then a line per step."""
    voices = list(VOICE) + ["header lines"]
    width = max(len(c.path) for c in counts)
    head = (
        f"{'page':{width}}  {'core: prose':>11} {'code':>6} {'min':>5}   {'optional: prose':>15} {'code':>6} "
        f"{'min':>5}   voice: " + ", ".join(voices)
    )
    lines = [head, "-" * len(head)]
    for c in counts:
        lines.append(
            f"{c.path:{width}}  {c.core.prose:>11,} {c.core.code:>6,} {c.core.minutes:>5.1f}   "
            f"{c.optional.prose:>15,} {c.optional.code:>6,} {c.optional.minutes:>5.1f}   "
            + ", ".join(str(c.voice[v]) for v in voices)
        )
    core, optional = sum(c.core.minutes for c in counts), sum(c.optional.minutes for c in counts)
    lines.append(
        f"{'every reader page':{width}}  {'':>11} {'':>6} {core:>5.0f}   {'':>15} {'':>6} {optional:>5.0f}"
    )
    lines += [
        "",
        f"Steps: minutes of core reading, the step's page and its parts ({PROSE_WPM} words a minute of "
        f"prose, {CODE_WPM} of code; outputs not counted)",
    ]
    for step in steps:
        name = f"Step {step.number}" if step.number else "no number"
        verdict = "" if step.target is None else ("ok" if step.core.minutes <= step.target else "OVER")
        target = f"target {step.target}" if step.target else "no target"
        parts = f" + {', '.join(step.parts)}" if step.parts else ""
        lines.append(f"{name:10} {step.core.minutes:>6.1f}  {target:10} {verdict:4}  {step.page}{parts}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a step's core is over its target")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book to measure (default: this one)")
    args = parser.parse_args(argv)
    counts, steps = report(args.root)
    print(render(counts, steps))
    over = over_target(steps)
    if args.check and over:
        for step in over:
            print(
                f"{step.page}: Step {step.number}'s core takes {step.core.minutes:.1f} minutes, over its "
                f"target of {step.target}: move depth to an optional page or a dropdown",
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
