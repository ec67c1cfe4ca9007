"""Every use of a dependency's internals, one module per dependency (the seams).

The rest of the machinery calls these functions and never reaches into a dependency itself;
``tests/test_upstream.py`` runs each seam's contract against the installed version and fails
naming the upstream change that broke it, and fails when an internal is used outside its seam.
docs/upstream.md ("The seams") says what public interface each one waits on.

- :mod:`.mystnb`       -- MyST-NB: its client factory, its record of executed pages, its cell nodes.
- :mod:`.myst_parser`  -- myst-parser: the Markdown parser and the directive option parser.
- :mod:`.sphinx`       -- Sphinx: pages read again in a preview, an image's size.
- :mod:`.theme`        -- sphinx-book-theme and pydata-sphinx-theme: the download menu, the names
  the book's CSS, scripts and browser tests select.
- :mod:`.opengraph`    -- sphinxext-opengraph: the page description it reads.
- :mod:`.hypothesis`   -- Hypothesis: examples drawn from a test's strategies alone.

Three seams live where their dependency's code runs, so that moving them would re-execute every
page: ``jaxbook/kernel.py`` (IPython: the configuration folders it reads; ipykernel: its output
thread's TCP pipe and its display hooks), ``jaxbook/snippet.py`` (JAX: the public module of
``jax.errors``' classes, the private classes snippets declare, the list of its configuration options) and
``jaxbook/runtime.py`` (XLA: the flags JAX starts with). The pytest seam is ``tests/pass_cache.py``,
the cosmic-ray seam ``tools/mutation.py``.
"""
