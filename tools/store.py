"""``make store [PAGE=guide/jit.md] [PRUNE=1]``: what the execution store holds for each page with
code cells, and why a page without a stored result would run again (``jaxbook.store.explain``);
``--prune`` deletes the results no page of the book can reach now (each page's current key)."""

import argparse
import sys

from jaxbook import ROOT, pages, store
from jaxbook.execute import book_pages_with_cells


def report(names: list[str], prune: bool) -> list[str]:
    """The lines of the report for the pages ``names`` (every page with cells when empty)."""
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
        gone, size = store.prune(keep, {p.relative_to(ROOT).as_posix() for p in everything}, ROOT)
        lines.append(f"pruned {gone} of {count} stored results ({size / 1e6:.1f} MB); {count - gone} kept")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", nargs="*", help="pages under the book's root (default: every page with cells)"
    )
    parser.add_argument("--prune", action="store_true", help="delete what no page can reach now")
    args = parser.parse_args(argv)
    for name in args.pages:
        if not (ROOT / name).is_file() or not pages.read(ROOT / name).snippets():
            parser.error(f"{name}: not a page of the book with code cells")
    print("\n".join(report(args.pages, args.prune)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
