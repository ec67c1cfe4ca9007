"""Expected outputs: ``snippets/<folder>/<name>.out`` holds what the page shows under the cell
(the printed text, a ``[display: image/png]`` line per rich output, a declared error's trimmed
traceback), normalised by :func:`normalise` with these rules and no others: ``duration`` (a time
with its unit becomes ``<duration>``), ``timing-table`` (so does each decimal in the rows of a
table whose header names a time unit in brackets, ``loop [s]``, up to a blank line), ``address``
(``0x<address>``), ``temporary`` (a temporary file's name becomes ``<tmp>``) and ``whitespace``
(no trailing spaces, one final newline). Anything else that varies between runs is a bug, fixed at
its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from jaxbook.files import write_atomic


@dataclass(frozen=True)
class Rule:
    """One normalisation rule: ``pattern`` (a regex) is replaced by ``replacement``."""

    name: str
    pattern: re.Pattern
    replacement: str
    example: str  # what it replaces, for the documentation and the tests


_NUMBER = r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_TIME_UNIT = r"(?:ns|µs|us|ms|s|sec|seconds|min)"

RULES: tuple[Rule, ...] = (
    Rule(
        "duration",
        re.compile(rf"(?<![\w.])[ \t]*{_NUMBER}[ \t]?{_TIME_UNIT}(?![\w])"),
        " <duration>",
        "first call 88.1 ms",
    ),
    Rule("address", re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x<address>", "at 0x7f3a2c1b9e80"),
    Rule("temporary", re.compile(r"\btmp[a-z0-9_]{8}\b"), "<tmp>", "/tmp/tmpa1b2c3d4/ckpt"),
)
_TIMING_HEADER = re.compile(rf"\[{_TIME_UNIT}\]")
_DECIMAL = re.compile(r"[ \t]*\b\d+\.\d+(?:[eE][-+]?\d+)?\b")


def _timing_tables(text: str) -> str:
    """The ``timing-table`` rule (see the module docstring)."""
    lines, in_table = text.split("\n"), False
    for i, line in enumerate(lines):
        if not line.strip():
            in_table = False
        elif in_table:
            lines[i] = _DECIMAL.sub(" <duration>", line)
        elif _TIMING_HEADER.search(line):
            in_table = True
    return "\n".join(lines)


def normalise(text: str) -> str:
    """Apply :data:`RULES` (and the timing-table and whitespace rules) to ``text``."""
    text = text.replace("\r\n", "\n")
    for rule in RULES:
        if rule.name == "duration":
            text = rule.pattern.sub(
                lambda m: rule.replacement if m.group(0)[:1] in " \t" else rule.replacement.strip(), text
            )
        else:
            text = rule.pattern.sub(rule.replacement, text)
    text = _timing_tables(text)
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines).strip("\n")
    return text + "\n" if text else ""


def expected_path(snippet: Path | str, platform: str | None = None) -> Path:
    """The committed expected output of ``snippet``: its sibling ``.out`` file, or on
    ``platform`` (``gpu``, ``tpu``) the reviewed ``.<platform>.out`` that a ``# platform: ...
    differs`` declaration compares with (:mod:`jaxbook.snippet`)."""
    suffix = f".{platform}.out" if platform else ".out"
    return Path(snippet).with_suffix(suffix)


def snippet_of(expected: Path) -> tuple[Path, str | None]:
    """The snippet whose expected output is the file ``expected`` (``x.out`` or ``x.gpu.out``:
    ``x.py``), and the platform of an accelerator's output (None for the CPU's ``.out``)."""
    from jaxbook.snippet import PLATFORMS

    stem, _, platform = Path(expected.stem).name.rpartition(".")
    if stem and platform in PLATFORMS:
        return expected.with_name(f"{stem}.py"), platform
    return expected.with_suffix(".py"), None


def read_expected(snippet: Path) -> str | None:
    path = expected_path(snippet)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def write_expected(snippet: Path, text: str, tolerance=None, platform: str | None = None) -> bool:
    """Write ``text`` as ``snippet``'s expected output (on ``platform``: :func:`expected_path`)
    unless the file already matches it (within ``tolerance``, default
    :data:`jaxbook.compare.DEFAULT`: a run on another CPU leaves the reviewed file as it is);
    True if the file changed."""
    from jaxbook import compare  # not in the kernel, which only normalises

    path = expected_path(snippet, platform)
    if path.is_file() and compare.matches(
        path.read_text(encoding="utf-8"), text, tolerance or compare.DEFAULT
    ):
        return False
    write_atomic(path, text)  # an interrupted run leaves the old file or the new one
    return True
