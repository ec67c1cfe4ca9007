"""The Jupyter kernel that executes the book's code cells at build time.

It is IPython's kernel with three changes, installed before the first cell runs:

1. JAX is configured by :func:`jaxbook.runtime.configure` (one place for the build and the tests),
   without a compilation cache, even when started by a test run that has one.
2. Every cell is a snippet file, named by the execute request's metadata (never guessed from the
   cell's text), and run by :func:`jaxbook.snippet.execute`: under the
   snippet's own file name (so tracebacks and JAX's messages name ``snippets/...``), in a fresh
   ``__main__`` namespace, with a time limit, under the error contract; JAX's configuration and
   NumPy's print options are restored afterwards, so one snippet cannot change the next one's output.
3. A declared error is shown as a trimmed traceback (the reader's frames and the error line) and
   the cell succeeds; a broken contract fails the cell with a message naming the snippet file,
   which fails the build.
4. What the snippet showed (printed text, display markers, the trimmed traceback) is normalised
   and compared with its expected output, ``<name>.out`` (:mod:`jaxbook.outputs`); a difference
   fails the cell with a diff. When the request says that more snippets follow on the page
   (``"more"``, sent by :mod:`jaxbook.nbadapter`), the cell shows its diff and the page goes on;
   the page's last snippet, or the first one that breaks its contract, then fails with every
   difference of the page, so one build reports them all. A request marked ``write`` rewrites the
   file instead (``make outputs``). Either way a build record is written (:mod:`jaxbook.records`).

The Sphinx extension points Jupyter at ``jaxbook/kernels`` so that notebooks asking for the
``python3`` kernel get this one, started by :mod:`jaxbook.provisioner`. That provisioner keeps a
kernel between the pages of one build process: at the end of a page, :class:`BookKernel` answers
the shutdown request by resetting what a page can leave behind (:func:`new_page`) instead of exiting.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import warnings
from pathlib import Path

from jaxbook import book_root, runtime

runtime.configure()  # no compilation cache: a first call compiles, as on a reader's machine
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


class _Tee:
    """Record what a snippet writes in ``shown`` (program order) and publish it on ``stream``.

    Text is held back and sent as one write at each flush: at the end of the snippet and before
    every display (IPython's display publisher flushes ``sys.stdout`` first, so the order holds).
    Without this, ipykernel's timed flushes split a line between two stream messages, and MyST-NB,
    which strips each message when it merges them, shows a line break that the program never
    printed; the page would then depend on the machine's load.
    """

    def __init__(self, stream, shown: list[str]):
        self._stream, self._shown, self._pending = stream, shown, []

    def write(self, text: str) -> int:
        self._shown.append(text)
        self._pending.append(text)
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write("".join(self._pending))
            self._pending.clear()
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _display_marker(msg: dict) -> str:
    """What a rich output contributes to the expected output: a marker naming its formats
    (``[display: image/png]``); a plain-text display contributes its text."""
    data = msg.get("content", {}).get("data", {})
    kinds = sorted(kind for kind in data if kind != "text/plain")
    if not kinds:
        return str(data.get("text/plain", "")) + "\n"
    return f"[display: {', '.join(kinds)}]\n"


def install(shell) -> None:
    """Make ``shell`` (an IPython InteractiveShell) run snippet cells under the contract.

    Every cell is a snippet: the execute request names its file in its metadata
    (``{"jaxbook": {"snippet": path}}``, sent by :mod:`jaxbook.nbadapter` in the build and by
    :class:`jaxbook.outputs.Kernel`), which IPython hands to ``pre_run_cell`` listeners. An input
    transformer replaces the cell's code by a call that runs that file, after checking that the
    cell's code is the file's text.
    """
    # Import JAX now, before IPython replaces sys.stdout: JAX decides at import whether to colour
    # printed jaxprs, and published outputs must be plain text (no ANSI colours).
    import jax  # noqa: F401

    from jaxbook import outputs, records, snippet

    current: dict = {}

    def remember_cell(info) -> None:  # IPython event: info.raw_cell, info.cell_meta
        current.clear()
        current["raw"] = info.raw_cell or ""
        current["meta"] = (info.cell_meta or {}).get(outputs.METADATA_KEY) or {}

    def run_cell() -> None:
        meta, raw = current.get("meta") or {}, current.get("raw", "")
        if "snippet" not in meta:
            raise snippet.SnippetError(
                "a cell reached the book's kernel without its snippet file: the execute request "
                "must carry {'jaxbook': {'snippet': path}} in its metadata (jaxbook.nbadapter)"
            )
        path = Path(meta["snippet"])
        name = snippet.display_path(path)
        try:
            source = snippet.source_of(path)
            if source.rstrip() != raw.rstrip():
                raise snippet.SnippetError(f"{name}: the cell's code is not the text of this file")
            problem = run_snippet(path, name, source, write=bool(meta.get("write")))
        except snippet.SnippetError as exc:
            if not _differences:
                raise
            raise snippet.SnippetError(page_differences(str(exc))) from exc.__cause__
        if meta.get("more") and problem:  # shown now, raised with the page's last snippet
            _differences.append(problem)
            shell._showtraceback(
                snippet.SnippetError, snippet.SnippetError(problem), [f"SnippetError: {problem}"]
            )
        elif not meta.get("more") and (problem or _differences):
            raise snippet.SnippetError(page_differences(problem))

    def page_differences(last: str | None) -> str:
        problems = [*_differences, *([last] if last else [])]
        _differences.clear()
        if len(problems) == 1:
            return problems[0]
        return f"{len(problems)} problems on this page:\n\n" + "\n\n".join(problems)

    def run_snippet(path: Path, name: str, source: str, write: bool) -> str | None:
        """Run the snippet; return how its output differs from the expected one (None if not)."""
        root = book_root()
        shown: list[str] = []
        seen: list[str] = []
        fields = {"declared": None, "raised": None, "contract": None}

        def on_display(msg):
            if msg.get("msg_type") in ("display_data", "execute_result"):
                shown.append(_display_marker(msg))
            return msg

        try:
            declared = snippet.parse_declaration(source, name)
            fields["declared"] = declared.raises if declared else None
        except snippet.SnippetError:
            pass  # execute() reports the malformed declaration
        stdout = sys.stdout
        # One stream, in program order: what a snippet writes to stderr (warnings, logs) is
        # published on stdout, so the page and the expected output never reorder the two.
        tee = _Tee(stdout, shown)
        hooks = getattr(shell.display_pub, "register_hook", None)
        if hooks:
            shell.display_pub.register_hook(on_display)
        try:
            with contextlib.redirect_stdout(tee), contextlib.redirect_stderr(tee), snippet.restored_state():
                declaration, error = snippet.execute(
                    source,
                    path,
                    snippet.main_namespace(path.resolve()),
                    timeout=runtime.SNIPPET_TIMEOUT,
                    observed=seen,
                )
        except snippet.SnippetError as exc:
            cause = exc.__cause__
            fields.update(raised=snippet._class_path(cause) if cause else None, contract=str(exc))
            records.write(
                path, root, **fields, warnings=seen, output=outputs.normalise("".join(shown)), expected=None
            )
            raise
        finally:
            tee.flush()
            if hooks:
                shell.display_pub.unregister_hook(on_display)
        if error is not None:
            fields["raised"] = snippet._class_path(error)
            sys.stdout.flush()
            trimmed = "".join(snippet.trimmed_traceback(error)).rstrip()
            shown.append(trimmed + "\n")
            shell._showtraceback(type(error), error, [trimmed])
        text = outputs.normalise("".join(shown))
        tolerance = snippet.parse_tolerance(source, name)
        problem = None
        if write:
            state = "written" if outputs.write_expected(path, text, tolerance) else "same"
        elif os.environ.get("JAXBOOK_EXPECTED_OUTPUTS", "1") == "0":
            state = None  # a throwaway test book that does not check outputs
        else:
            expected = outputs.read_expected(path)
            problem = outputs.difference(name, expected, text, tolerance)
            state = "same" if problem is None else ("missing" if expected is None else "differs")
        records.write(path, root, **fields, warnings=seen, output=text, expected=state)
        return problem

    def show_snippet_error(shell_, etype, value, tb, tb_offset=None):
        text = f"{etype.__name__}: {value}"
        if value.__cause__ is not None:
            text = (
                "".join(snippet.trimmed_traceback(value.__cause__))
                + "\nThe above broke the snippet contract:\n"
                + text
            )
        shell_._showtraceback(etype, value, [text])  # IPython 9 leaves displaying to the handler
        return [text]

    shell.user_ns["__jaxbook_run__"] = run_cell
    shell.user_ns_hidden["__jaxbook_run__"] = run_cell
    shell.events.register("pre_run_cell", remember_cell)
    shell.input_transformers_post.append(lambda lines: ["__jaxbook_run__()\n"])
    shell.set_custom_exc((snippet.SnippetError,), show_snippet_error)
    sys.path.insert(0, str(book_root()))
    os.chdir(book_root())
    shell.events.register("pre_execute", lambda: _busy.add(True))
    shell.events.register("post_execute", _busy.clear)
    _baseline.update(
        modules=set(sys.modules),
        environ=dict(os.environ),
        path=list(sys.path),
        cwd=os.getcwd(),
        warnings=list(warnings.filters),
        user_ns=set(shell.user_ns),
    )


_baseline: dict = {}
_busy: set = set()
_differences: list[str] = []  # of the page's earlier snippets, not yet raised


def new_page(shell) -> None:
    """Make a kept kernel what a fresh one would be for the next page.

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
            name not in _baseline["modules"]
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
    warnings.filters.extend(_baseline["warnings"])
    os.environ.clear()
    os.environ.update(_baseline["environ"])
    sys.path[:] = _baseline["path"]
    os.chdir(_baseline["cwd"])
    for name in set(shell.user_ns) - _baseline["user_ns"]:
        del shell.user_ns[name]
    shell.execution_count = 1
    _differences.clear()
    gc.collect()


def kernel_class():
    """IPython's kernel, kept between pages when the provisioner allows it."""
    from ipykernel.ipkernel import IPythonKernel

    class BookKernel(IPythonKernel):
        async def shutdown_request(self, stream, ident, parent):
            keep = (
                os.environ.get("JAXBOOK_KERNEL_REUSE") == "1"
                and not parent["content"].get("restart")
                and not _busy
            )
            if keep:
                try:
                    new_page(self.shell)
                except Exception:  # noqa: BLE001 - cannot reset: stop, a new kernel takes over
                    self.log.exception("jaxbook: could not reset the kernel for the next page")
                    keep = False
            if not keep:
                return await super().shutdown_request(stream, ident, parent)
            content = {"status": "ok", "restart": False, "jaxbook_kernel_kept": True}
            self.session.send(stream, "shutdown_reply", content, parent, ident=ident)

    return BookKernel


def main() -> None:
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance(kernel_class=kernel_class())
    app.initialize(sys.argv[1:])
    install(app.shell)
    app.start()


if __name__ == "__main__":
    main()
