"""``make store [PAGE=guide/jit.md] [PRUNE=1]``: what the execution store holds for each page with
code cells, and why a page without a stored result would run again (``jaxbook.store.explain``);
``--prune`` deletes the results no page of the book can reach now (each page's current key), after
saying which; it refuses when the store holds none of the current keys, or when it would delete
more than half of what the store holds, unless ``--force`` (``PRUNE=force``): the keys are this
shell's, and one extra ``JAX_*`` variable or a package not yet built with changes every key."""

import argparse
import json
import sys

from jaxbook import ROOT, pages, store
from jaxbook.execute import book_pages_with_cells


class Refused(Exception):
    """A prune that would delete what this shell cannot tell is stale (the report's lines so far)."""


def report(names: list[str], prune: bool, force: bool = False) -> list[str]:
    """The lines of the report for the pages ``names`` (every page with cells when empty);
    :class:`Refused`, holding them, for a prune that needs ``force``."""
    everything = book_pages_with_cells(ROOT)
    chosen = [ROOT / name for name in names] if names else everything
    lines, keep, entries = [], set(), None
    for page in everything if prune else chosen:
        snippets = pages.read(page).snippets(existing=True)
        key, files = store.page_key(snippets, ROOT)
        keep.add(key)
        if page not in chosen:
            continue
        name = page.relative_to(ROOT).as_posix()
        stored = store.load(key, ROOT)
        if stored is not None:
            lines.append(f"{name}: stored ({len(stored.cells)} cells, executed in {stored.seconds:.1f} s)")
            continue
        order = [s.resolve().relative_to(ROOT).as_posix() for s in snippets]
        lines.append(f"{name}: not stored, runs at the next build:")
        entries = store.by_page(ROOT) if entries is None else entries  # read once for every page
        lines += [f"  {reason}" for reason in store.explain(name, key, order, files, ROOT, entries)]
    if prune:
        count = len(store.entries(ROOT))
        doomed = store.unreachable(keep, ROOT)
        lines.append(f"would delete {len(doomed)} of {count} stored results{of_pages(doomed)}")
        refusal = None
        if doomed and len(doomed) == count:
            refusal = "the store holds none of the pages' current keys: this shell's environment or packages differ from the builds' (see why above)"
        elif len(doomed) * 2 > count:
            refusal = "that is more than half of the store"
        if refusal and not force:
            raise Refused(
                [*lines, f"not pruned: {refusal}; make store PRUNE=force deletes them all the same"]
            )
        gone, size = store.prune(keep, {p.relative_to(ROOT).as_posix() for p in everything}, ROOT)
        lines.append(f"pruned {gone} of {count} stored results ({size / 1e6:.1f} MB); {count - gone} kept")
    return lines


def of_pages(paths) -> str:
    """``, of pages a, b`` for the stored results ``paths``: the pages they were kept for."""
    names = set()
    for path in paths:
        try:
            names.add(json.loads(path.read_text(encoding="utf-8")).get("page") or "?")
        except (OSError, ValueError):
            names.add(f"? ({path.name}, unreadable)")
    return f", of pages {', '.join(sorted(names))}" if names else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", nargs="*", help="pages under the book's root (default: every page with cells)"
    )
    parser.add_argument("--prune", action="store_true", help="delete what no page can reach now")
    parser.add_argument(
        "--force", action="store_true", help="prune even all of the store, or more than half of it"
    )
    args = parser.parse_args(argv)
    for name in args.pages:
        if not (ROOT / name).is_file() or not pages.read(ROOT / name).snippets():
            parser.error(f"{name}: not a page of the book with code cells")
    try:
        print("\n".join(report(args.pages, args.prune, args.force)))
    except Refused as refused:
        print("\n".join(refused.args[0]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
