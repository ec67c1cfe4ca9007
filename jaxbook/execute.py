"""Executing pages: each page's result from the store (:mod:`jaxbook.store`), the missing ones run
in the book's kernel (:mod:`jaxbook.kernel`) and kept. :class:`Executor` serves one process and
keeps its kernel for the next page; :func:`execute_book` fills the store before Sphinx reads a
page (``make html``), one kernel per core, the longest pages first.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jaxbook import ROOT, book_root, pages, store
from jaxbook.results import CellResult, PageResult

#: What the kernel evaluates for :meth:`Kernel.stamp` (one name in its namespace, which the next
#: page's reset removes).
STAMP = "__jaxbook_stamp__ = __import__('json').dumps(__import__('jaxbook.runtime').runtime.stamp())"
#: Seconds to wait for a kernel to start, and for one snippet (its own limit is shorter).
START_TIMEOUT = 120
RUN_TIMEOUT = 900


def without_user_settings(env: dict, home: Path) -> dict:
    """``env`` for a Jupyter kernel that reads none of the user's settings, which no key holds: no
    ``PYTHON*`` variable (another JAX on ``PYTHONPATH``, asserts stripped by ``PYTHONOPTIMIZE``);
    IPython's profile and matplotlib's ``matplotlibrc`` are empty ones in ``home``."""
    (home / "ipython").mkdir(parents=True, exist_ok=True)
    (home / "matplotlibrc").write_text("", encoding="utf-8")
    kept = {name: value for name, value in env.items() if not name.startswith("PYTHON")}
    return {**kept, "IPYTHONDIR": str(home / "ipython"), "MATPLOTLIBRC": str(home / "matplotlibrc")}


class Kernel:
    """The book's kernel (``jaxbook/kernels/python3``), started for the book at ``root``."""

    def __init__(self, root: Path):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager

        self._dir = tempfile.TemporaryDirectory(prefix="jaxbook-kernel-")
        specs = KernelSpecManager(kernel_dirs=[str(ROOT / "jaxbook" / "kernels")])
        self.km = KernelManager(
            kernel_name="python3",
            kernel_spec_manager=specs,
            transport="ipc",  # a socket file of its own: kernels started at once never race for a port
            ip=os.path.join(self._dir.name, "k"),
        )
        env = without_user_settings(dict(os.environ), Path(self._dir.name))
        self.km.start_kernel(env={**env, "JAXBOOK_ROOT": str(root), "PYTHONPATH": str(ROOT)}, cwd=str(root))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=START_TIMEOUT)
        self._stamp: dict | None = None

    def request(self, code: str, result: str | None = None) -> str | None:
        """Execute ``code``; return the value of the variable ``result`` afterwards (a str)."""
        reply = self.kc.execute_interactive(
            code,
            store_history=False,
            user_expressions={"result": result} if result else {},
            allow_stdin=False,
            stop_on_error=False,
            timeout=RUN_TIMEOUT,
            output_hook=lambda message: None,  # what it published: the result holds it
        )
        content = reply["content"]
        if content.get("status") != "ok":
            raise RuntimeError(f"the book's kernel failed on {code!r}: {content.get('evalue')}")
        if not result:
            return None
        value = content["user_expressions"]["result"]
        return ast.literal_eval(value["data"]["text/plain"])

    def run_page(self, snippets: list[Path]) -> list[CellResult]:
        """Run ``snippets`` in order, as one page, in a fresh state."""
        self.stamp()  # before the first page can change a setting the stamp reads
        self.request("__jaxbook_page__()")
        cells = []
        for snippet in snippets:
            data = json.loads(self.request(f"__jaxbook_run__({str(snippet)!r})", "__jaxbook_result__"))
            cells.append(CellResult(**data))
        return cells

    def stamp(self) -> dict:
        """The environment this kernel runs the snippets in (:func:`jaxbook.runtime.stamp`), read
        once, before it runs a page."""
        if self._stamp is None:
            self._stamp = json.loads(self.request(STAMP, "__jaxbook_stamp__"))
        return self._stamp

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self._dir.cleanup()


class Executor:
    """Page results for one process: from the store, or executed in a kernel kept for the next."""

    def __init__(self, root: Path | None = None):
        self.root = (root or book_root()).resolve()
        self._kernel: Kernel | None = None
        self.executed: list[str] = []  # pages this executor ran (the others came from the store)

    def kernel(self) -> Kernel:
        if self._kernel is None:
            self._kernel = Kernel(self.root)
        return self._kernel

    def cached(self, page: Path) -> PageResult | None:
        """The stored result of ``page`` as its files are now, or None."""
        key, _ = store.page_key(pages.read(page).snippets(existing=True), self.root)
        return store.load(key, self.root)

    def page(self, page: Path) -> PageResult:
        """The result of ``page`` (a path under the root): stored, or executed now and stored."""
        snippets = pages.read(page).snippets(existing=True)
        key, inputs = store.page_key(snippets, self.root)
        stored = store.load(key, self.root)
        if stored is None:
            return self._execute(page, snippets, key, inputs)
        return stored

    def execute_again(self, page: Path) -> PageResult:
        """Execute ``page`` now, whatever the store holds, and keep its result."""
        snippets = pages.read(page).snippets(existing=True)
        return self._execute(page, snippets, *store.page_key(snippets, self.root))

    def _execute(self, page: Path, snippets: list[Path], key: str, inputs: dict) -> PageResult:
        start = time.perf_counter()
        cells = self.kernel().run_page(snippets)
        seconds = round(time.perf_counter() - start, 3)
        name = page.resolve().relative_to(self.root).as_posix()
        result = PageResult(name, key, inputs, cells, seconds, self.kernel().stamp())
        self.executed.append(name)
        # Kept unless a file was edited while it ran, or a snippet broke its contract: a failure
        # is executed again by the next build (it may have been a timeout under load).
        if all(cell.contract is None for cell in cells) and store.page_key(snippets, self.root)[0] == key:
            store.save(result, self.root)
            store.record_duration(name, seconds, self.root)
        return result

    def close(self) -> None:
        if self._kernel is not None:
            self._kernel.close()
            self._kernel = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def executed_line(result: PageResult) -> str:
    """The line a build prints for a page it executed (``tools/bench.py`` counts them)."""
    return f"jaxbook: executed {result.page} ({len(result.cells)} snippets, {result.seconds:.1f} s)"


def book_pages_with_cells(root: Path) -> list[Path]:
    """Every page of the book that loads a snippet."""
    return [page for page in pages.book_pages(root) if pages.read(page).snippets()]


def execute_book(root: Path | None = None, jobs: int | None = None) -> list[str]:
    """Fill the store for every page of the book: the missing pages run on ``jobs`` kernels
    (default: one per core), the longest first by their last duration. Returns the pages run."""
    root = (root or book_root()).resolve()
    probe = Executor(root)
    missing = [page for page in book_pages_with_cells(root) if probe.cached(page) is None]
    if not missing:
        return []
    known = store.durations(root)
    missing.sort(key=lambda p: -known.get(p.relative_to(root).as_posix(), 60.0))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(missing)))
    print(f"executing {len(missing)} page(s) on {jobs} kernel(s)", flush=True)
    work: queue.SimpleQueue = queue.SimpleQueue()
    for page in missing:
        work.put(page)

    def worker(_) -> list[str]:
        """Run pages from ``work`` in one kernel until none is left; the pages it ran."""
        with Executor(root) as executor:
            while True:
                try:
                    page = work.get_nowait()
                except queue.Empty:
                    return executor.executed
                result = executor.page(page)
                if result.page in executor.executed:
                    print(executed_line(result), flush=True)

    with ThreadPoolExecutor(jobs, thread_name_prefix="kernel") as pool:
        return [page for ran in pool.map(worker, range(jobs)) for page in ran]
