"""Build and test machinery of the executable JAX book.

- :mod:`jaxbook.runtime`  -- the one place that configures JAX (CPU, 8 emulated devices).
- :mod:`jaxbook.snippet`  -- the snippet contract: error declarations, execution, trimmed tracebacks.
- :mod:`jaxbook.deps`     -- which project files a snippet imports (for rebuild tracking).
- :mod:`jaxbook.kernel`   -- the Jupyter kernel that executes snippets at build time.
- :mod:`jaxbook.run`      -- ``python -m jaxbook.run FILE`` runs one snippet the way the build does.
- :mod:`jaxbook.sphinxext` -- the Sphinx extension that ties it together.
- :mod:`jaxbook.outputs`  -- expected outputs (``snippets/**/*.out``): normaliser, diff, ``make outputs``.
- :mod:`jaxbook.records`  -- build records of executed snippets, reused by the tests.
- :mod:`jaxbook.pages`    -- the rule from a snippet to its page, and a page's snippets.
- :mod:`jaxbook.nbadapter` -- the one use of MyST-NB/nbclient internals: each cell's snippet path.
- :mod:`jaxbook.upgrade`  -- ``make upgrade``: new lock, new outputs, per-page summary.
"""

import hashlib
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


def machinery_version() -> int:
    """A number that changes with any file of this package (the extensions, the kernel, its
    kernelspec and every module they use). The book's extension declares it as its ``env_version``:
    Sphinx starts from a fresh environment when it differs from the last build's, so an edit to
    the machinery re-executes and rewrites every page, as an edit to a snippet does for the pages
    that load it. (Hashing every file takes 3 ms; following the imports instead took 0.1 s, on every build.)"""
    package, digest = Path(__file__).resolve().parent, hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return int(digest.hexdigest()[:15], 16)
