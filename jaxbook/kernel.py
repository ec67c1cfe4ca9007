"""The Jupyter kernel that executes the book's snippets: IPython's kernel with two functions,
called by :mod:`jaxbook.execute` with plain code: ``__jaxbook_page__()`` makes it a fresh kernel
for the next page (:func:`new_page`), and ``__jaxbook_run__(path)`` runs a snippet under the
contract (:func:`jaxbook.snippet.execute`) and keeps what the reader sees as a
:class:`jaxbook.store.CellResult` in ``__jaxbook_result__``. The kernel compares nothing: a snippet
that breaks its contract is recorded like any other, with why in ``contract``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from jaxbook import book_root, runtime

runtime.configure()  # no compilation cache: a first call compiles, as on a reader's machine
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


class _Tee:
    """Record what a snippet writes in ``events`` (program order) and publish it on ``stream``.

    Text is held back and sent as one write at each flush: at the end of the snippet and before
    every display (IPython's display publisher flushes ``sys.stdout`` first, so the order holds).
    """

    def __init__(self, stream, events: list):
        self._stream, self._events, self._pending = stream, events, []

    def write(self, text: str) -> int:
        self._events.append(("text", text))
        self._pending.append(text)
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write("".join(self._pending))
            self._pending.clear()
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def display_marker(data: dict) -> str:
    """What a rich output contributes to the compared text: a marker naming its formats
    (``[display: image/png]``); a plain-text display contributes its text."""
    kinds = sorted(kind for kind in data if kind != "text/plain")
    if not kinds:
        return str(data.get("text/plain", "")) + "\n"
    return f"[display: {', '.join(kinds)}]\n"


def jupyter_outputs(events: list) -> list[dict]:
    """The Jupyter outputs (nbformat 4) of ``events`` (``("text", str)`` or ``(kind, output)``):
    consecutive text as one stdout stream, each other output as it is."""
    found: list[dict] = []
    for kind, value in events:
        if kind == "text":
            if found and found[-1]["output_type"] == "stream":
                found[-1]["text"] += value
            else:
                found.append({"output_type": "stream", "name": "stdout", "text": value})
        else:
            found.append(value)
    return [o for o in found if o["output_type"] != "stream" or o["text"]]


def run(path: Path, shell=None):
    """Run the snippet at ``path`` under the contract; return its :class:`CellResult`."""
    from jaxbook import outputs, snippet
    from jaxbook.store import CellResult

    name = snippet.display_path(path)
    events: list = []
    result = CellResult(snippet=name)
    start = time.perf_counter()

    def on_display(msg):
        if msg.get("msg_type") in ("display_data", "execute_result"):
            content = msg.get("content", {})
            events.append(
                (
                    "display",
                    {
                        "output_type": "display_data",
                        "data": content.get("data", {}),
                        "metadata": content.get("metadata", {}),
                    },
                )
            )
        return msg

    hooks = getattr(getattr(shell, "display_pub", None), "register_hook", None)
    stdout = sys.stdout
    tee = _Tee(stdout, events)
    if hooks:
        shell.display_pub.register_hook(on_display)
    try:
        source = snippet.source_of(path)
        try:
            declared = snippet.parse_declaration(source, name)
            result.declared = declared.raises if declared else None
        except snippet.SnippetError:
            pass  # execute() reports the malformed declaration
        seen: list[str] = []
        # One stream, in program order: what a snippet writes to stderr (warnings, logs) is
        # recorded with what it prints, so the page and the expected output never reorder them.
        with contextlib.redirect_stdout(tee), contextlib.redirect_stderr(tee), snippet.restored_state():
            try:
                _, error = snippet.execute(
                    source,
                    path,
                    snippet.main_namespace(path.resolve()),
                    timeout=runtime.SNIPPET_TIMEOUT,
                    observed=seen,
                )
            finally:
                result.warnings = seen
        if error is not None:
            result.raised = snippet._class_path(error)
            trimmed = "".join(snippet.trimmed_traceback(error)).rstrip()
            events.append(
                (
                    "error",
                    {
                        "output_type": "error",
                        "ename": type(error).__name__,
                        "evalue": snippet.scrub(str(error)),
                        "traceback": [trimmed],
                    },
                )
            )
    except snippet.SnippetError as exc:
        cause = exc.__cause__
        result.raised = snippet._class_path(cause) if cause else None
        result.contract = str(exc)
        text = f"SnippetError: {exc}"
        if cause is not None:
            text = (
                "".join(snippet.trimmed_traceback(cause)) + "\nThe above broke the snippet contract:\n" + text
            )
        events.append(
            (
                "error",
                {"output_type": "error", "ename": "SnippetError", "evalue": str(exc), "traceback": [text]},
            )
        )
    except OSError as exc:
        result.contract = f"{name}: cannot be read: {exc}"
    finally:
        tee.flush()
        if hooks:
            shell.display_pub.unregister_hook(on_display)
    result.outputs = jupyter_outputs(events)
    shown = "".join(value if kind == "text" else _shown(value) for kind, value in events)
    result.text = outputs.normalise(shown)
    result.seconds = round(time.perf_counter() - start, 3)
    return result


def _shown(output: dict) -> str:
    """What an output adds to the compared text: a display's marker, an error's traceback."""
    if output["output_type"] == "error":
        return "".join(output["traceback"]).rstrip() + "\n"
    return display_marker(output["data"])


def install(shell) -> None:
    """Give ``shell`` (an IPython InteractiveShell) the two functions of the module docstring."""
    # Import JAX now, before IPython replaces sys.stdout. Printed jaxprs are plain text because of
    # JAX_PPRINT_USE_COLOR in runtime.JAX_ENV, which the reader's notebook sets too.
    import jax  # noqa: F401

    def run_snippet(path: str) -> None:
        result = run(Path(path), shell)
        shell.user_ns["__jaxbook_result__"] = json.dumps(asdict(result), ensure_ascii=False)

    def page() -> None:
        new_page(shell, baseline)

    for name, function in (("__jaxbook_run__", run_snippet), ("__jaxbook_page__", page)):
        shell.user_ns[name] = function
        shell.user_ns_hidden[name] = function
    shell.user_ns_hidden["__jaxbook_result__"] = None
    sys.path.insert(0, str(book_root()))
    os.chdir(book_root())
    baseline = Baseline(
        modules=frozenset(sys.modules),
        environ=dict(os.environ),
        path=list(sys.path),
        cwd=os.getcwd(),
        warnings=list(warnings.filters),
        user_ns=frozenset(shell.user_ns),
    )


@dataclass(frozen=True)
class Baseline:
    """The kernel as :func:`install` left it, before any page: what :func:`new_page` restores."""

    modules: frozenset
    environ: dict
    path: list
    cwd: str
    warnings: list
    user_ns: frozenset


def new_page(shell, baseline: Baseline) -> None:
    """Make the kernel what a fresh one would be for the next page.

    Snippets already run in fresh namespaces with JAX's configuration and NumPy's print options
    restored (:func:`jaxbook.snippet.restored_state`); between pages this also drops the book's own
    modules (snippet helpers are imported afresh), JAX's compilation caches (a "first call
    compiles" example compiles), open figures and Matplotlib settings, the global random state of
    ``random`` and NumPy (seeded afresh, as in a new process), warning filters, environment
    variables, ``sys.path``, the working directory, the user namespace and the execution count.
    """
    import random

    import jax
    import numpy

    root = book_root()
    for name in list(sys.modules):
        top = name.partition(".")[0]
        if (
            name not in baseline.modules
            and top != "jaxbook"
            and ((root / top).is_dir() or (root / f"{top}.py").is_file())
        ):
            del sys.modules[name]
    jax.clear_caches()
    if "matplotlib" in sys.modules:
        import matplotlib
        import matplotlib.pyplot as plt

        plt.close("all")
        matplotlib.rc_file_defaults()
    random.seed()
    numpy.random.seed()
    warnings.resetwarnings()
    warnings.filters.extend(baseline.warnings)
    os.environ.clear()
    os.environ.update(baseline.environ)
    sys.path[:] = baseline.path
    os.chdir(baseline.cwd)
    for name in set(shell.user_ns) - baseline.user_ns:
        del shell.user_ns[name]
    shell.execution_count = 1
    gc.collect()


def main() -> None:
    from ipykernel.kernelapp import IPKernelApp
    from IPython.core import application

    # IPython reads configuration from its profile (an empty folder of the kernel's own,
    # jaxbook.execute.without_user_settings) and from folders of the machine and of the Python
    # environment (/etc/ipython, /usr/local/etc/ipython, sys.prefix/etc/ipython), whose files
    # could run code before every snippet (exec_lines) and which no key holds: not those.
    application.SYSTEM_CONFIG_DIRS.clear()
    application.ENV_CONFIG_DIRS.clear()
    app = IPKernelApp.instance()
    app.initialize(sys.argv[1:])
    install(app.shell)
    app.start()


if __name__ == "__main__":
    main()
