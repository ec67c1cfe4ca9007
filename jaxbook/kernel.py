"""The Jupyter kernel that executes the book's snippets: IPython's kernel with two functions that
:mod:`jaxbook.execute` calls: ``__jaxbook_page__()`` makes it a fresh kernel for the next page
(:func:`new_page`); ``__jaxbook_run__(path)`` runs a snippet under the contract and keeps its
:class:`jaxbook.results.CellResult` in ``__jaxbook_result__``. It compares nothing: a broken
contract is recorded like any other result, with why in ``contract``.
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
from jaxbook.results import CellResult

runtime.configure()  # no compilation cache: a first call compiles, as on a reader's machine
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


class _Tee:
    """Record what a snippet writes in ``outputs`` (Jupyter's, in program order: consecutive text
    as one stdout stream); any other use of the stream goes to ``stream`` (its encoding, isatty)."""

    def __init__(self, stream, outputs: list):
        self._stream, self._outputs = stream, outputs

    def write(self, text: str) -> int:
        if self._outputs and self._outputs[-1]["output_type"] == "stream":
            self._outputs[-1]["text"] += text
        elif text:
            self._outputs.append({"output_type": "stream", "name": "stdout", "text": text})
        return len(text)

    def flush(self) -> None:
        pass  # nothing held back: the result is all the executor reads

    def __getattr__(self, name):
        return getattr(self._stream, name)


def run(path: Path, shell=None) -> CellResult:
    """Run the snippet at ``path`` under the contract; return its :class:`CellResult`."""
    from jaxbook import snippet
    from jaxbook.outputs import normalise

    name = snippet.display_path(path)
    outputs: list = []  # Jupyter outputs (nbformat 4), in order
    result = CellResult(snippet=name)
    start = time.perf_counter()

    def on_display(msg):
        if msg.get("msg_type") in ("display_data", "execute_result"):
            content = msg.get("content", {})
            shown = {"data": content.get("data", {}), "metadata": content.get("metadata", {})}
            outputs.append({"output_type": "display_data", **shown})
        return msg

    def error(ename: str, evalue: str, traceback: str) -> None:
        shown = {"ename": ename, "evalue": evalue, "traceback": [traceback]}
        outputs.append({"output_type": "error", **shown})

    hooks = shell is not None
    if hooks and not callable(getattr(getattr(shell, "display_pub", None), "register_hook", None)):
        raise RuntimeError(
            "ipykernel's display publisher has no register_hook: the kernel cannot record a "
            "snippet's rich outputs (figures, HTML). Pin the ipykernel that has it, or adapt "
            "jaxbook/kernel.py's run(), which registers its hook there."
        )
    tee = _Tee(sys.stdout, outputs)
    if hooks:
        shell.display_pub.register_hook(on_display)
    try:
        source = snippet.source_of(path)
        try:
            declared = snippet.parse_declaration(source, name)
            result.declared = declared.raises if declared else None
        except snippet.SnippetError:
            pass  # execute() reports the malformed declaration
        # One stream, in program order: what a snippet writes to stderr (warnings, logs) is
        # recorded with what it prints, so the page and the expected output never reorder them.
        with contextlib.redirect_stdout(tee), contextlib.redirect_stderr(tee), snippet.restored_state():
            namespace = snippet.main_namespace(path.resolve())
            _, raised = snippet.execute(
                source, path, namespace, timeout=runtime.SNIPPET_TIMEOUT, observed=result.warnings
            )
        if raised is not None:
            result.raised = snippet.class_path(raised)
            trimmed = "".join(snippet.trimmed_traceback(raised)).rstrip()
            error(type(raised).__name__, snippet.scrub(str(raised)), trimmed)
    except snippet.SnippetError as exc:
        cause = exc.__cause__
        result.raised = snippet.class_path(cause) if cause else None
        result.contract = str(exc)
        text = f"SnippetError: {exc}"
        if cause is not None:
            trimmed = "".join(snippet.trimmed_traceback(cause))
            text = f"{trimmed}\nThe above broke the snippet contract:\n{text}"
        error("SnippetError", str(exc), text)
    except OSError as exc:
        result.contract = f"{name}: cannot be read: {exc}"
    finally:
        if hooks:
            shell.display_pub.unregister_hook(on_display)
    result.jupyter_outputs = outputs
    result.text = normalise("".join(map(_shown, outputs)))
    result.seconds = round(time.perf_counter() - start, 3)
    return result


def _shown(output: dict) -> str:
    """What an output adds to the compared text: a stream's text, an error's traceback; a rich
    display's marker naming its formats (``[display: image/png]``), a plain-text display's text."""
    if output["output_type"] == "stream":
        return output["text"]
    if output["output_type"] == "error":
        return "".join(output["traceback"]).rstrip() + "\n"
    kinds = sorted(kind for kind in output["data"] if kind != "text/plain")
    return f"[display: {', '.join(kinds)}]\n" if kinds else f"{output['data'].get('text/plain', '')}\n"


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
    """Make the kernel what a fresh one would be for the next page: the book's modules imported
    afresh, JAX's caches cleared (a first call compiles), figures, Matplotlib settings, random
    states, warning filters, the environment, ``sys.path``, the working directory, the user
    namespace and the execution count as a new process has them."""
    import random

    import jax
    import numpy

    from jaxbook import snippet

    root = book_root()
    by_file = set(snippet.book_modules())  # by location: a helper imported by its bare name too
    for name in list(sys.modules):
        top = name.partition(".")[0]
        if name not in baseline.modules and (
            name in by_file
            or (top != "jaxbook" and ((root / top).is_dir() or (root / f"{top}.py").is_file()))
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


def without_tcp() -> None:
    """Start IPython's kernel with no TCP socket at all. It talks over Unix sockets
    (:class:`jaxbook.execute.Kernel`), but ipykernel also binds a pipe for the output of forked
    processes to a TCP port of 127.0.0.1, and on a machine with no TCP/IP (a TPU host) libzmq aborts
    the kernel there ("Address family not supported by protocol"). The book records what a snippet
    prints in this process (:class:`_Tee`), never a forked child's output: the pipe goes."""
    from ipykernel import iostream, kernelapp

    class IOPubThread(iostream.IOPubThread):
        def __init__(self, socket, pipe=False, **kwargs):
            super().__init__(socket, pipe=False, **kwargs)

    kernelapp.IOPubThread = IOPubThread


def main() -> None:
    from ipykernel.kernelapp import IPKernelApp
    from IPython.core import application

    without_tcp()

    # No configuration but the kernel's own empty profile: not the machine's or the Python
    # environment's (/etc/ipython, ...), whose exec_lines no key holds.
    application.SYSTEM_CONFIG_DIRS.clear()
    application.ENV_CONFIG_DIRS.clear()
    app = IPKernelApp.instance()
    app.initialize(sys.argv[1:])
    install(app.shell)
    app.start()


if __name__ == "__main__":
    main()
