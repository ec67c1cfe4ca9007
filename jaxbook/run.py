"""Run snippets the way the build runs them: ``python -m jaxbook.run snippets/arrays/at_methods.py``.

Configures JAX (see :mod:`jaxbook.runtime`), executes each file in a fresh ``__main__`` namespace
under the snippet contract, prints a declared error's trimmed traceback to stderr, and exits
non-zero with a message naming the file and line when a snippet breaks its contract.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from jaxbook import book_root, runtime


def helper_message(path: Path) -> str:
    """What running a helper module means: nothing to show; the snippets that import it."""
    from jaxbook.deps import importers
    from jaxbook.snippet import display_path

    users = [display_path(s) for s in importers(path, book_root())]
    name = display_path(path)
    listed = "".join(f"\n  {user}" for user in users) or " none"
    return (
        f"{name} is a helper (its name starts with _): readers never see it as a cell and it has "
        f"no output of its own. The snippets that import it:{listed}\n"
        f"Run those, or accept their outputs at once: make outputs HELPER={name}"
    )


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runtime.configure()
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, str(book_root()))
    os.chdir(book_root())
    from jaxbook import snippet

    status = 0
    for arg in argv:
        path = Path(arg).resolve()
        if not path.is_file():
            print(f"{arg}: no such snippet file", file=sys.stderr)
            status = 1
            continue
        if path.name.startswith("_"):
            print(helper_message(path), file=sys.stderr)
            status = 2
            continue
        for name in snippet.book_modules():  # each file imports the book's modules afresh, as
            del sys.modules[name]  # a page does (and as `python FILE` would)
        try:
            with snippet.restored_state():  # as the build does, so files cannot affect each other
                _, error = snippet.execute(
                    snippet.source_of(path),
                    path,
                    snippet.main_namespace(path),
                    timeout=runtime.SNIPPET_TIMEOUT,
                )
        except snippet.SnippetError as exc:
            sys.stdout.flush()
            print(f"SnippetError: {exc}", file=sys.stderr)
            status = 1
            continue
        sys.stdout.flush()
        if error is not None:
            print("".join(snippet.trimmed_traceback(error)), end="", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
