"""Build and test machinery of the executable JAX book.

Data flows one way: page -> snippet paths -> execution -> result -> verdict -> rendered page.

- :mod:`jaxbook.runtime`  -- the one place that configures JAX (CPU, 8 emulated devices, other CPUs).
- :mod:`jaxbook.pages`    -- the pages, read with MyST's parser; the rule from a snippet to its page.
- :mod:`jaxbook.snippet`  -- the snippet contract: declarations, execution, trimmed tracebacks.
- :mod:`jaxbook.deps`     -- which project files a snippet imports.
- :mod:`jaxbook.kernel`   -- the Jupyter kernel that executes snippets.
- :mod:`jaxbook.store`    -- the execution store: each page's results, keyed by everything they depend on.
- :mod:`jaxbook.execute`  -- results from the store, the missing pages executed in kernels.
- :mod:`jaxbook.outputs`  -- expected outputs (``snippets/**/*.out``): the normaliser and the files.
- :mod:`jaxbook.compare`  -- outputs compared as numbers: text exactly, floats within a tolerance.
- :mod:`jaxbook.verdict`  -- whether a result holds its contract and matches its ``.out`` file.
- :mod:`jaxbook.sphinxext` -- the Sphinx extension: cells, execution through the store, verdicts.
- :mod:`jaxbook.accept`   -- ``make outputs``: write expected outputs from the results.
- :mod:`jaxbook.run`      -- ``python -m jaxbook.run FILE`` runs one snippet the way the build does.
- :mod:`jaxbook.upgrade`  -- ``make upgrade``: new lock, new outputs, per-page summary.
"""

import os
from pathlib import Path

#: The repository root (where this package lives).
ROOT = Path(__file__).resolve().parent.parent


def book_root() -> Path:
    """The root of the book being built or tested: every path shown to readers is relative to it.

    It is this repository unless ``JAXBOOK_ROOT`` names another one (the build sets it to the
    Sphinx source directory, so the tests can build small throwaway books with this machinery).
    """
    return Path(os.environ.get("JAXBOOK_ROOT", ROOT)).resolve()
