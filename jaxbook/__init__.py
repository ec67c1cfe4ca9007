"""Build and test machinery of the executable JAX book.

Data flows one way: page -> snippet paths -> execution -> result -> verdict -> rendered page.

Execution (lowest first):
- :mod:`jaxbook.layout`   -- every path the tools write under ``_build/``.
- :mod:`jaxbook.files`    -- atomic writes, files known by their content.
- :mod:`jaxbook.runtime`  -- the one place that configures JAX (CPU, 8 emulated devices, other CPUs).
- :mod:`jaxbook.snippet`  -- the snippet contract: declarations, execution, trimmed tracebacks.
- :mod:`jaxbook.outputs`  -- expected outputs (``snippets/**/*.out``): the normaliser and the files.
- :mod:`jaxbook.results`  -- what a snippet and a page gave when they ran.
- :mod:`jaxbook.kernel`   -- the Jupyter kernel that executes snippets.
- :mod:`jaxbook.deps`     -- which project files a snippet imports.
- :mod:`jaxbook.fingerprint` -- what every key holds besides the book's files: environment, machinery.
- :mod:`jaxbook.store`    -- the execution store: each page's results, keyed by everything they depend on.
- :mod:`jaxbook.execute`  -- results from the store, the missing pages executed in kernels.

Verdicts and the site:
- :mod:`jaxbook.pages`    -- the pages, read with MyST's parser; the rule from a snippet to its page.
- :mod:`jaxbook.reader`   -- what readers see of a snippet: its shown text (:func:`jaxbook.snippet.shown`)
  and what its declarations mean for them.
- :mod:`jaxbook.statement` -- a practice problem's numbered requirements, read from its statement.
- :mod:`jaxbook.upstream` -- the seams: every use of a dependency's internals (Sphinx, MyST-NB, MyST's
  parser, the theme, Hypothesis, OpenGraph), one module per dependency.
- :mod:`jaxbook.compare`  -- outputs compared as numbers: text exactly, floats within a tolerance.
- :mod:`jaxbook.verdict`  -- whether a result holds its contract and matches its ``.out`` file.
- :mod:`jaxbook.sphinxext` -- the Sphinx extensions: cells, outputs from the store, findings, stamps.
- :mod:`jaxbook.downloads` -- each page as a notebook a reader runs; practice pages check themselves.
- :mod:`jaxbook.removed`, :mod:`jaxbook.mathml`, :mod:`jaxbook.seo` -- stale files removed,
  server-side MathML, canonical links and the sitemap.
- :mod:`jaxbook.a11y`     -- alt text and image sizes checked on the doctree.
- :mod:`jaxbook.publish`  -- the publishing stage on the rendered HTML of any theme: accessible
  names, deferred scripts, one purged stylesheet per page, subset fonts, WebP figures.
- :mod:`jaxbook.uptodate` -- whether the last successful build is still the site.

Commands (``make`` targets):
- :mod:`jaxbook.build`    -- ``make html`` and ``make page``.
- :mod:`jaxbook.run`      -- ``python -m jaxbook.run FILE`` runs one snippet the way the build does.
- :mod:`jaxbook.accept`   -- ``make outputs``: write expected outputs from the results.
- :mod:`jaxbook.check`    -- ``make check PROBLEM=...``: a practice problem's tests run and reported
  (by :mod:`jaxbook.practice`, which notebooks, practice/conftest.py and ``make practice`` use too).
- :mod:`jaxbook.study`    -- ``make practice``: the study loop, every save of a starter checked.

The maintainers' commands (``make upgrade``, ``make lock``, ``make accelerator``, ``make mutation``)
are in ``tools/``: they import this package; it never imports them.
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
