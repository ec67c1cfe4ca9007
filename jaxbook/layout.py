"""Where the tools write: every path under ``_build/`` (never committed). The first names are
relative to a build folder (``_build``, or ``python -m jaxbook.build --out DIR``), the others to
the book's root."""

from pathlib import Path

BUILD = Path("_build")
SITE = Path("html")
DOCTREES = Path("doctrees")
SITE_INPUTS = Path("site.json")  # the inputs the site was built from (jaxbook.uptodate)
REPORTS = Path("reports")  # each failing page's diffs and tracebacks
FAILURES = Path("failures.json")  # the snippets whose output differed or was missing

HTML = BUILD / SITE
PAGE = BUILD / "page"  # make page's preview
STORE = BUILD / "store"  # each page's results (jaxbook.store)
MATCHED = BUILD / "matched"  # each snippet's inputs when its output last matched (jaxbook.verdict)
JAX_CACHE = BUILD / "jax-cache"  # JAX's compilation cache for tests and make check
ACCELERATOR = BUILD / "accelerator"
UPGRADE = BUILD / "upgrade"
LOCKER = BUILD / "locker"  # the uv that writes every lock
