"""Record ``make practice`` for practice/index.md: practice/make_practice.svg, from a real run.

The program runs in a pseudo-terminal (:class:`Terminal`, which tests/test_study.py drives too) on a
copy of the practice tree: it starts at masked-mean, the starter is saved with an attempt that
divides by a zero count (the problem's kept wrong solution ``divides_by_zero_count``), and ``h``
asks for a hint. The screen it then shows is written as an SVG of monospace text lines (no fonts,
scripts or requests of its own). Run it again when the screen changes:

    .venv/bin/python -m tools.record_study
"""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from html import escape
from pathlib import Path

from jaxbook import ROOT, study
from jaxbook.practice import patched_solution

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: The verdict line with no test passed, or with some but not all (the count of tests is the
#: problem's own: a test added to masked-mean changes it).
NONE_PASS = re.compile(r"\b0/\d+ tests pass")


def practice_copy(tmp_path):
    """The practice tree and the root conftest.py, copied into a git repository under tmp_path."""
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis")
    shutil.copytree(ROOT / "practice", tmp_path / "practice", ignore=ignore)
    git = ["git", "-c", "user.name=study", "-c", "user.email=study@example.org", "-C", str(tmp_path)]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "practice"]):
        subprocess.run(git + command, check=True)
    return tmp_path / "practice"


class Terminal:
    """A program in a pseudo-terminal; ``until`` waits for text to appear on it."""

    def __init__(self, command, cwd, columns=120):
        self.raw, self.text, self.seen = "", "", 0
        # subprocess starts the child without os.fork (unsafe in a process where JAX runs threads)
        self.fd, child = pty.openpty()
        env = {**os.environ, "COLUMNS": str(columns), "LINES": "60", "TERM": "xterm"}
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=child, stdout=child, stderr=child, start_new_session=True
        )
        os.close(child)
        self.process = process
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return
            if not data:
                return
            self.raw += data.decode(errors="replace")
            self.text = ANSI.sub("", self.raw)

    def until(self, *wanted, timeout=120):
        """Wait until every string (or pattern) of ``wanted`` has appeared since the last call;
        return that text."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            new = self.text[self.seen :]
            if all(w.search(new) if isinstance(w, re.Pattern) else w in new for w in wanted):
                self.seen = len(self.text)
                return new
            time.sleep(0.05)
        raise AssertionError(f"not shown within {timeout} s: {wanted}\n--- the terminal since:\n{new}")

    def press(self, key):
        os.write(self.fd, key.encode())

    def exit_code(self, timeout=60):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError("the program did not quit") from None

    def close(self):
        """Stop the program if it still runs (its worker ends with it: its stdin closes)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.fd)


OUT = ROOT / "practice" / "make_practice.svg"
COLUMNS, FONT, LINE = 100, 13, 17  # characters per line, font size and line height in pixels
COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e"}  # with the background below, above 4.5:1 contrast


def record() -> str:
    """The screen after a save of a wrong attempt and one hint, as plain text."""
    with tempfile.TemporaryDirectory() as scratch:
        practice = practice_copy(Path(scratch))
        command = [
            sys.executable,
            "-m",
            "jaxbook.study",
            "--practice",
            str(practice),
            "--problem",
            "masked-mean",
        ]
        term = Terminal(command, ROOT, columns=COLUMNS)
        try:
            term.until(NONE_PASS)
            folder = practice / "arrays" / "masked_mean"
            (folder / "starter.py").write_text(
                patched_solution(folder / "wrong" / "divides_by_zero_count.diff")
            )
            term.until("tests pass: not yet")
            term.press("h")
            term.until("(1/2)", study.KEYS)
            screen = term.raw.rsplit(study.CLEAR, 1)[-1]
            term.press("q")
            term.exit_code()
        finally:
            term.close()
    return ANSI.sub("", screen).replace("\r", "").rstrip("\n")


def line(text: str, y: int) -> str:
    """One line of the screen, PASS and FAIL in colour."""
    parts = []
    for word in text.split(" "):
        colour = COLOURS.get(word)
        parts.append(f'<tspan fill="{colour}" font-weight="bold">{word}</tspan>' if colour else escape(word))
    return f'<text x="12" y="{y}">{" ".join(parts)}</text>'


def svg(screen: str) -> str:
    """The screen as an SVG image of a dark-on-light terminal."""
    lines = screen.split("\n")
    width, height = 24 + COLUMNS * FONT * 0.6, 16 + LINE * len(lines)
    body = "\n".join(line(text, 12 + LINE * (i + 1) - 4) for i, text in enumerate(lines) if text)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" role="img">\n'
        "<title>make practice in a terminal</title>\n"
        f'<rect width="100%" height="100%" rx="6" fill="#f6f8fa" stroke="#d0d7de"/>\n'
        f'<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="{FONT}" '
        f'fill="#1f2328" xml:space="preserve">\n{body}\n</g>\n</svg>\n'
    )


if __name__ == "__main__":
    OUT.write_text(svg(record()), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
