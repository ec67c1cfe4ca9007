"""Expected outputs: what a reader sees under each cell, committed beside its snippet.

Every snippet ``snippets/<folder>/<name>.py`` has a sibling ``<name>.out`` holding what the page
shows under its code: the text it prints (stdout and stderr, in the order printed), a marker line
such as ``[display: image/png]`` for each rich output (a figure, an HTML table: produced and
published, never snapshotted), and the trimmed traceback of a declared error. The kernel
(:mod:`jaxbook.kernel`) compares the real output with that file right after the snippet ran; a
difference or a missing file fails the cell, and so the build, with a unified diff and the one
command that accepts the change. The page always shows the real output.

Volatile parts are replaced before comparing and writing, by :data:`RULES` and nothing else:

- ``duration``: a time with its unit (``38.09 ms``, ``1.2 s``, ``350 µs``) becomes ``<duration>``;
- ``timing-table``: in a table whose header names a time unit in brackets (``loop [s]``), each
  decimal number of its rows becomes ``<duration>`` (up to the first blank line);
- ``address``: a memory address (``0x7f3a2c1b9e80``) becomes ``0x<address>``;
- ``temporary``: a temporary file or directory name (``tmpa1b2c3d4``) becomes ``<tmp>``;
- ``whitespace``: trailing spaces are dropped and the text ends with one newline.

Anything else that varies between two runs on one machine is a bug of the snippet or of the
machinery, fixed at its source rather than hidden here.

``python -m jaxbook.outputs`` (``make outputs``) (re)writes the expected files by running the
snippets in this same kernel, through :func:`run_snippets`: every snippet, the snippets of one
page (``--page guide/jit.md``) or one snippet (``--snippet snippets/jit/jit_basic.py``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, book_root, compare
from jaxbook.compare import Tolerance

#: The metadata key of an execute request that carries the snippet's identity (see
#: :mod:`jaxbook.nbadapter`): ``{"snippet": "<absolute path>", "write": bool}``.
METADATA_KEY = "jaxbook"


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


def expected_path(snippet: Path | str) -> Path:
    """The committed expected output of ``snippet``: its sibling ``.out`` file."""
    return Path(snippet).with_suffix(".out")


def accept_command(name: str) -> str:
    """The one command that accepts ``name``'s real output (``name``: ``snippets/...py``)."""
    return f"make outputs SNIPPET={name}"


def difference(
    name: str, expected: str | None, actual: str, tolerance: Tolerance = compare.DEFAULT
) -> str | None:
    """``None`` when ``actual`` matches ``expected`` (:func:`jaxbook.compare.matches`: text
    exactly, floats within ``tolerance``), else the message that fails the build: it names the
    snippet, says which numbers or lines differ, shows a unified diff and gives the command that
    accepts it."""
    out = Path(name).with_suffix(".out").as_posix()
    if expected is None:
        return (
            f"{name}: no expected output: {out} does not exist. Run `{accept_command(name)}`, "
            "read the new file, and commit it."
        )
    reasons = compare.explain(expected, actual, tolerance)
    if not reasons:
        return None
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{out} (expected)",
            tofile=f"{out} (this build)",
        )
    )
    why = "".join(f"  {reason}\n" for reason in reasons)
    return (
        f"{name}: output differs from {out} (floats compared with {tolerance}):\n{why}{diff}"
        f"If the new output is right, run `{accept_command(name)}`, read `git diff`, and "
        "commit it."
    )


def read_expected(snippet: Path) -> str | None:
    path = expected_path(snippet)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def write_expected(snippet: Path, text: str, tolerance: Tolerance = compare.DEFAULT) -> bool:
    """Write ``text`` as ``snippet``'s expected output unless the file already matches it
    (within ``tolerance``: a run on another CPU leaves the reviewed file as it is); True if the
    file changed."""
    path = expected_path(snippet)
    if path.is_file() and compare.matches(path.read_text(encoding="utf-8"), text, tolerance):
        return False
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # atomic: an interrupted run leaves the old file or the new one
    return True


# --- Running snippets in the book's kernel, outside Sphinx --------------------------------------


def kernel_environment(root: Path | None = None) -> dict:
    """The environment in which the build starts the book's kernel (see jaxbook.sphinxext)."""
    root = (root or book_root()).resolve()
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(
        [str(ROOT / "jaxbook")] + [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    )
    env["JAXBOOK_ROOT"] = str(root)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


def execute_request(session, snippet: Path, **meta) -> dict:
    """The execute request for ``snippet`` (its code, and its absolute path in the metadata under
    :data:`METADATA_KEY`, as :mod:`jaxbook.nbadapter` sends it in the build), made by a client's
    ``session``; ``meta``: more of that metadata, such as ``write=True``."""
    content = {
        "code": snippet.read_text(encoding="utf-8"),
        "silent": False,
        "store_history": True,
        "user_expressions": {},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    metadata = {METADATA_KEY: {"snippet": str(snippet.resolve()), **meta}}
    return session.msg("execute_request", content, metadata=metadata)


class Kernel:
    """The book's kernel (``jaxbook/kernels/python3``) started for a few snippets.

    It talks over Unix sockets (``transport="ipc"``), so kernels started at the same time never
    race for a TCP port. :meth:`run` sends the same execute request as the build does.
    """

    def __init__(self, root: Path | None = None):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager

        self.root = (root or book_root()).resolve()
        env = kernel_environment(self.root)
        self._dir = tempfile.TemporaryDirectory(prefix="jaxbook-kernel-")
        specs = KernelSpecManager(kernel_dirs=[str(ROOT / "jaxbook" / "kernels")])
        self.km = KernelManager(
            kernel_name="python3",
            kernel_spec_manager=specs,
            transport="ipc",
            ip=os.path.join(self._dir.name, "k"),
        )
        self.km.start_kernel(env=env, cwd=str(self.root))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def run(self, snippet: Path, write: bool = False, timeout: float = 900) -> dict:
        """Execute ``snippet`` as a build cell does; return the execute reply's content."""
        msg = execute_request(self.kc.session, snippet, write=write)
        self.kc.shell_channel.send(msg)
        while True:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                break
        # Drain the published outputs of this request (the kernel already checked them).
        while True:
            try:
                message = self.kc.get_iopub_msg(timeout=10)
            except Exception:  # queue.Empty: nothing more came
                break
            if (
                message["parent_header"].get("msg_id") == msg["header"]["msg_id"]
                and message["msg_type"] == "status"
                and message["content"].get("execution_state") == "idle"
            ):
                break
        return reply["content"]

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self._dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def run_snippets(snippets: list[Path], write: bool, root: Path | None = None) -> dict[Path, str]:
    """Run ``snippets`` in one kernel, in order; return ``{snippet: error message}`` for the
    ones that failed (broken contract, or output that differs when ``write`` is false)."""
    failures = {}
    with Kernel(root) as kernel:
        for snippet in snippets:
            reply = kernel.run(snippet, write=write)
            if reply.get("status") != "ok":
                failures[snippet] = reply.get("evalue") or reply.get("ename") or "failed"
    return failures


def main(argv: list[str] | None = None) -> int:
    from jaxbook import pages

    parser = argparse.ArgumentParser(
        prog="python -m jaxbook.outputs",
        description="Rewrite expected outputs (snippets/**/*.out) from a real execution in the "
        "book's kernel. Without options: every snippet.",
    )
    parser.add_argument(
        "--page", action="append", default=[], help="only the snippets this page loads (e.g. guide/jit.md)"
    )
    parser.add_argument(
        "--snippet", action="append", default=[], help="only this snippet (e.g. snippets/jit/jit_basic.py)"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare instead of writing (what the build does)"
    )
    args = parser.parse_args(argv)
    root = book_root()
    try:
        groups = pages.selection(root, args.page, args.snippet)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status, written = 0, 0
    for page, snippets in groups.items():
        before = {s: read_expected(s) for s in snippets}
        print(f"{page}: {len(snippets)} snippet(s)", flush=True)
        failures = run_snippets(snippets, write=not args.check, root=root)
        for snippet in snippets:
            name = snippet.relative_to(root).as_posix()
            if snippet in failures:
                status = 1
                print(f"  FAILED {name}\n" + _indent(failures[snippet]), flush=True)
            elif not args.check and read_expected(snippet) != before[snippet]:
                written += 1
                print(f"  wrote {expected_path(snippet).relative_to(root).as_posix()}")
    if not args.check:
        print(f"{written} expected output(s) changed; review them with `git diff -- '*.out'`.")
    return status


def _indent(text: str) -> str:
    return "".join("    " + line for line in text.splitlines(keepends=True))


if __name__ == "__main__":
    sys.exit(main())
