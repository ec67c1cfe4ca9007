"""Where the tools write: every path under ``_build/`` (never committed), relative to the book's root."""

from pathlib import Path

BUILD = Path("_build")
HTML = BUILD / "html"
DOCTREES = BUILD / "doctrees"
PAGE = BUILD / "page"  # make page's preview
STORE = BUILD / "store"  # each page's results (jaxbook.store)
MATCHED = BUILD / "matched"  # each snippet's inputs when its output last matched (jaxbook.verdict)
REPORTS = "reports"  # beside the site: each failing page's diffs and tracebacks
FAILURES = "failures.json"  # beside the site: the snippets whose output differed or was missing
JAX_CACHE = BUILD / "jax-cache"  # JAX's compilation cache for tests and make check
ACCELERATOR = BUILD / "accelerator"
UPGRADE = BUILD / "upgrade"
LOCKER = BUILD / "locker"  # the uv that writes every lock
