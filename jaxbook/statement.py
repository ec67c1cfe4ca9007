"""A practice statement's numbered requirements, read from its page (Markdown only: the Sphinx
extensions read them without importing pytest, and each problem's notebook carries this file)."""

from __future__ import annotations

import re
from pathlib import Path

#: The words that end the paragraph before a statement's numbered requirements, on its page.
REQUIREMENTS_INTRO = "check each requirement below"


def requirements(page: Path) -> dict[int, str]:
    """A statement's numbered requirements, {number: sentence}: the ordered list (items may wrap
    onto indented lines) right after the paragraph holding REQUIREMENTS_INTRO."""
    text = page.read_text(encoding="utf-8")
    start = text.find(REQUIREMENTS_INTRO)
    if start < 0:
        return {}
    found: dict[int, str] = {}
    for line in text[start:].split("\n\n", 1)[-1].splitlines():
        item = re.match(r"^(\d+)\. (.*)$", line)
        if item:
            found[int(item[1])] = item[2].strip()
        elif found and line.startswith("   ") and line.strip():
            found[list(found)[-1]] += " " + line.strip()
        else:
            break
    return found
