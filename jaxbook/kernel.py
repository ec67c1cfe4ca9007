"""The Jupyter kernel that executes the book's code cells at build time.

It is IPython's kernel with three changes, installed before the first cell runs:

1. JAX is configured by :func:`jaxbook.runtime.configure` (one place for the build and the tests).
2. A cell whose source is a snippet file is run by :func:`jaxbook.snippet.execute`: under the
   snippet's own file name (so tracebacks and JAX's messages name ``snippets/...``), in a fresh
   ``__main__`` namespace, with a time limit, under the error contract; JAX's configuration and
   NumPy's print options are restored afterwards, so one snippet cannot change the next one's output.
3. A declared error is shown as a trimmed traceback (the reader's frames and the error line) and
   the cell succeeds; a broken contract fails the cell with a message naming the snippet file,
   which fails the build.

The Sphinx extension points Jupyter at ``jaxbook/kernels`` so that notebooks asking for the
``python3`` kernel get this one, started by :mod:`jaxbook.provisioner`. That provisioner keeps a
kernel between the pages of one build process: at the end of a page, :class:`BookKernel` answers
the shutdown request by resetting what a page can leave behind (:func:`new_page`) instead of exiting.
"""
from __future__ import annotations

import gc
import os
import sys
import warnings

from jaxbook import book_root, runtime

runtime.configure()
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def snippet_index() -> dict[str, str]:
    """Map the stripped source of every snippet file to its path."""
    index = {}
    for path in sorted((book_root() / "snippets").rglob("*.py")):
        index.setdefault(path.read_text(encoding="utf-8").strip(), str(path))
    return index


def install(shell) -> None:
    """Make ``shell`` (an IPython InteractiveShell) run snippet cells under the contract."""
    # Import JAX now, before IPython replaces sys.stdout: JAX decides at import whether to colour
    # printed jaxprs, and published outputs must be plain text (no ANSI colours).
    import jax  # noqa: F401

    from jaxbook import snippet

    index = snippet_index()
    original_transform = shell.transform_cell

    def run_snippet(path: str, source: str) -> None:
        with snippet.restored_state():
            declaration, error = snippet.execute(
                source, path, snippet.main_namespace(os.path.abspath(path)),
                timeout=runtime.SNIPPET_TIMEOUT)
        if error is not None:
            sys.stdout.flush()
            shell._showtraceback(type(error), error, ["".join(snippet.trimmed_traceback(error)).rstrip()])

    def transform_cell(raw_cell: str) -> str:
        path = index.get(raw_cell.strip())
        if path is None:
            return original_transform(raw_cell)
        key = f"_jaxbook_cell_{len(sources)}"
        sources[key] = (path, raw_cell)
        return f"__jaxbook_run__(*__jaxbook_sources__.pop({key!r}))\n"

    def show_snippet_error(shell_, etype, value, tb, tb_offset=None):
        text = f"{etype.__name__}: {value}"
        if value.__cause__ is not None:
            text = "".join(snippet.trimmed_traceback(value.__cause__)) + "\nThe above broke the snippet contract:\n" + text
        shell_._showtraceback(etype, value, [text])  # IPython 9 leaves displaying to the handler
        return [text]

    sources: dict[str, tuple[str, str]] = {}
    shell.user_ns["__jaxbook_run__"] = run_snippet
    shell.user_ns["__jaxbook_sources__"] = sources
    shell.user_ns_hidden.update({"__jaxbook_run__": run_snippet, "__jaxbook_sources__": sources})
    shell.transform_cell = transform_cell
    shell.set_custom_exc((snippet.SnippetError,), show_snippet_error)
    sys.path.insert(0, str(book_root()))
    os.chdir(book_root())
    shell.events.register("pre_execute", lambda: _busy.add(True))
    shell.events.register("post_execute", _busy.clear)
    _baseline.update(
        modules=set(sys.modules), environ=dict(os.environ), path=list(sys.path), cwd=os.getcwd(),
        warnings=list(warnings.filters), user_ns=set(shell.user_ns))


_baseline: dict = {}
_busy: set = set()


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
        if name not in _baseline["modules"] and top != "jaxbook" and (
                (root / top).is_dir() or (root / f"{top}.py").is_file()):
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
    gc.collect()


def kernel_class():
    """IPython's kernel, kept between pages when the provisioner allows it."""
    from ipykernel.ipkernel import IPythonKernel

    class BookKernel(IPythonKernel):
        async def shutdown_request(self, stream, ident, parent):
            keep = (os.environ.get("JAXBOOK_KERNEL_REUSE") == "1"
                    and not parent["content"].get("restart") and not _busy)
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
