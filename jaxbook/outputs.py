"""Expected outputs: ``snippets/<folder>/<name>.out`` holds what the page shows under the cell
(the printed text, a ``[display: image/png]`` line per rich output, a declared error's trimmed
traceback), normalised by :func:`normalise` and nothing else: a time with its unit becomes
``<duration>``, and so does each decimal in the rows of a table whose header names a time unit in
brackets (``loop [s]``, up to a blank line); an address becomes ``0x<address>``, a temporary
file's name ``<tmp>``; no trailing spaces, one final newline. A span the snippet declares to
vary (``# varies:``) is written as ``<varies>``. Anything else that varies between
runs is a bug, fixed at its source.
"""

from __future__ import annotations

import re
from pathlib import Path

from jaxbook.files import write_atomic

_NUMBER = r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_TIME_UNIT = r"(?:ns|µs|us|ms|s|sec|seconds|min)"
#: ``(pattern, replacement)``: a duration (one space kept of the padding before it), an address
#: (``at 0x7f3a2c1b9e80``), a temporary name (``/tmp/tmpa1b2c3d4/ckpt``).
RULES = (
    (
        re.compile(rf"(?<![\w.])([ \t]*){_NUMBER}[ \t]?{_TIME_UNIT}(?![\w])"),
        lambda found: " <duration>" if found[1] else "<duration>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x<address>"),
    (re.compile(r"\btmp[a-z0-9_]{8}\b"), "<tmp>"),
)
_TIMING_HEADER = re.compile(rf"\[{_TIME_UNIT}\]")
_DECIMAL = re.compile(r"[ \t]*\b\d+\.\d+(?:[eE][-+]?\d+)?\b")


def _timing_tables(text: str) -> str:
    """``text`` with each decimal in the rows of a timing table as ``<duration>``."""
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
    """``text`` as an expected output holds it (the module docstring gives the rules)."""
    text = text.replace("\r\n", "\n")
    for pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    text = "\n".join(line.rstrip() for line in _timing_tables(text).split("\n")).strip("\n")
    return text + "\n" if text else ""


def expected_path(snippet: Path | str, platform: str | None = None) -> Path:
    """The committed expected output of ``snippet``: its sibling ``.out`` file, or on
    ``platform`` (``gpu``, ``tpu``) the reviewed ``.<platform>.out`` that a ``# platform: ...
    differs`` declaration compares with (:mod:`jaxbook.snippet`)."""
    return Path(snippet).with_suffix(f".{platform}.out" if platform else ".out")


def read_expected(snippet: Path) -> str | None:
    path = expected_path(snippet)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def write_expected(snippet: Path, text: str, tolerance=None, platform: str | None = None) -> bool:
    """Write ``text`` as ``snippet``'s expected output (on ``platform``: :func:`expected_path`),
    each span that ``tolerance`` declares to vary as ``<varies>``, unless the file already matches it within ``tolerance`` (default
    :data:`jaxbook.compare.DEFAULT`: a run on another CPU leaves the reviewed file as it is);
    True if the file changed."""
    from jaxbook import compare  # not in the kernel, which only normalises

    path = expected_path(snippet, platform)
    text = tolerance.hide(text) if tolerance else text
    if path.is_file() and compare.matches(
        path.read_text(encoding="utf-8"), text, tolerance or compare.DEFAULT
    ):
        return False
    write_atomic(path, text)  # an interrupted run leaves the old file or the new one
    return True
