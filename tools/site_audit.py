"""Lighthouse's four scores (mobile) and DOM sizes of pages of a built site, served with gzip as a
host serves it: ``python -m tools.site_audit [--site _build/html [--site other]] [--runs 3] [--all | PAGE ...]``
(``--all``: every page a reader opens, and the 404 page; two sites: their runs interleaved, to
compare two builds under the same load).

Lighthouse is not a dependency of the book: install it where you like (``npm install --no-save
lighthouse@13.5.0``) and point ``$LIGHTHOUSE`` at its ``lighthouse`` command (default:
``node_modules/.bin/lighthouse``). Chromium is Debian's (``tools/install_browser.sh``), or
``$CHROME_PATH``. Scores move with the machine's load (Lighthouse simulates a slow phone from
what it measures): the best score of each category over ``--runs`` runs is kept, as Lighthouse's
documentation advises (https://github.com/GoogleChrome/lighthouse/blob/main/docs/variability.md).
With one site, a page is audited again only while a category is below 100 (no further run can
raise its best), which makes ``--all`` affordable; two sites get ``--runs`` runs each. The audit
ends with the pages whose best is below 100, and ``--require 100`` makes it exit with status 1
when there is one. No test depends on these figures (they move with the machine); they are for
the developers and the issue tracker.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from jaxbook import ROOT
from jaxbook.pages import NOT_FOUND_PAGE, published_pages

#: The pages audited by default: the landing page, the three heaviest guide pages of issue 29, the
#: search page and a practice page.
PAGES = ["index", "guide/sharding", "guide/training", "guide/grad", "search", "practice/arrays/masked_mean"]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
#: What a host compresses (every text format the site serves).
COMPRESSED = {".html", ".css", ".js", ".svg", ".json", ".txt", ".xml", ".ipynb", ".md", ".map"}


class GzipHandler(SimpleHTTPRequestHandler):
    """Serves files as a static host does: text compressed with gzip when the browser accepts it
    (and ``compress`` is true), the rest as it is."""

    compress = True

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = self.compress and "gzip" in self.headers.get("Accept-Encoding", "")
        if path.suffix not in COMPRESSED or not accepts or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format, *args):
        pass


def serve(site: Path, compress: bool = True) -> tuple[ThreadingHTTPServer, str]:
    """``site`` served (with gzip unless ``compress`` is false) on a free local port, from a
    thread; returns (server, base URL)."""
    handler = type("Handler", (GzipHandler,), {"compress": compress})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def lighthouse(url: str) -> dict:
    """One Lighthouse run (mobile, simulated throttling: its defaults) of ``url``: its JSON report."""
    command = os.environ.get("LIGHTHOUSE", str(ROOT / "node_modules" / ".bin" / "lighthouse"))
    env = dict(os.environ, CHROME_PATH=os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
    result = subprocess.run(
        [
            command, url, "--output=json", "--output-path=stdout", "--quiet",
            "--only-categories=" + ",".join(CATEGORIES),
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        ],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def dom_size(audits: dict) -> int | None:
    """The page's element count: the ``dom-size`` audit (Lighthouse 12) or the "Total elements"
    row of the ``dom-size-insight`` (Lighthouse 13)."""
    if "dom-size" in audits:
        return int(audits["dom-size"].get("numericValue", 0))
    rows = audits.get("dom-size-insight", {}).get("details", {}).get("items", [])
    return next((int(r["value"]["value"]) for r in rows if r.get("statistic") == "Total elements"), None)


def summary(report: dict) -> dict:
    """The four scores (0-100), the DOM size and the failing audits of a Lighthouse report."""
    audits = report["audits"]
    failing = sorted(
        key
        for category in report["categories"].values()
        for ref in category["auditRefs"]
        if ref["weight"] > 0
        for key in [ref["id"]]
        if audits[key].get("score") is not None and audits[key]["score"] < 0.9
    )
    return {
        "scores": {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES},
        "dom": dom_size(audits),
        "failing": failing,
    }


def perfect(summaries: list[dict]) -> bool:
    """Every category's best score over ``summaries`` is 100: no further run can raise it."""
    return all(max(s["scores"][c] for s in summaries) == 100 for c in CATEGORIES)


def audit(sites: list[Path], pages: list[str], runs: int, compress: bool = True) -> dict[str, dict]:
    """The best of up to ``runs`` summaries for each page of each site: each category's best
    score, the DOM size and the audits failing in the best performance run. With one site, a page
    whose best is 100 in every category is not audited again. With several, each page gets
    ``runs`` runs on every site, interleaved (page by page, run by run), so that comparing two
    builds compares them under the same load of the machine."""
    served = [serve(site, compress) for site in sites]
    results: dict[str, dict] = {str(site): {} for site in sites}
    try:
        for page in pages:
            found: dict[str, list] = {str(site): [] for site in sites}
            for _ in range(runs):
                for site, (_server, base) in zip(sites, served):
                    found[str(site)].append(summary(lighthouse(f"{base}{page}.html")))
                if len(sites) == 1 and perfect(found[str(sites[0])]):
                    break
            for site in sites:
                runs_of_site = found[str(site)]
                best = max(runs_of_site, key=lambda s: s["scores"]["performance"])
                best["scores"] = {c: max(s["scores"][c] for s in runs_of_site) for c in CATEGORIES}
                best["performance_runs"] = [s["scores"]["performance"] for s in runs_of_site]
                results[str(site)][page] = best
                label = page if len(sites) == 1 else f"{page} [{sites.index(site) + 1}]"
                print(format_row(label, best), flush=True)
    finally:
        for server, _base in served:
            server.shutdown()
    return results


def below(results: dict[str, dict], score: int = 100) -> dict[str, dict[str, int]]:
    """{page: {category: best score}} of the pages of one site's ``results`` whose best score in
    some category is below ``score``; only those categories are listed."""
    found = {}
    for page, result in results.items():
        low = {c: result["scores"][c] for c in CATEGORIES if result["scores"][c] < score}
        if low:
            found[page] = low
    return found


def one_line(results: dict[str, dict], score: int = 100) -> str:
    """One line: how many pages have ``score`` in every category, and the others' low scores."""
    low = below(results, score)
    line = f"{len(results) - len(low)} of {len(results)} pages score {score} in all four categories"
    if low:
        listed = "; ".join(
            f"{page} ({', '.join(f'{c} {v}' for c, v in scores.items())})" for page, scores in low.items()
        )
        line += f"; below: {listed}"
    return line


def format_row(page: str, result: dict) -> str:
    scores = " ".join(f"{result['scores'][c]:>4}" for c in CATEGORIES)
    failing = ", ".join(result["failing"]) or "-"
    runs = "/".join(map(str, result["performance_runs"]))
    return f"{page:<32} {scores} {result['dom'] or '-':>6}  runs {runs}; {failing}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--site",
        type=Path,
        action="append",
        help="a built site (default _build/html); give two to compare them",
    )
    parser.add_argument("--runs", type=int, default=3, help="at most this many runs per page (default 3)")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every page a reader sees: those they open (jaxbook.pages.published_pages) and the 404 page",
    )
    parser.add_argument(
        "--require",
        type=int,
        metavar="SCORE",
        help="exit with status 1 if a page's best is below SCORE in a category",
    )
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--no-gzip", action="store_true", help="serve without compression")
    parser.add_argument(
        "pages", nargs="*", help=f"pages of the site without .html (default: {' '.join(PAGES)})"
    )
    args = parser.parse_args(argv)
    if args.all and args.pages:
        parser.error("give --all or pages, not both")
    every = [*published_pages(ROOT), NOT_FOUND_PAGE]
    pages = [p.removesuffix(".html") for p in every] if args.all else args.pages or PAGES
    sites = args.site or [ROOT / "_build" / "html"]
    for number, site in enumerate(sites, 1):
        if not (site / "index.html").is_file():
            print(f"no built site in {site}: run make html first", file=sys.stderr)
            return 2
        if len(sites) > 1:
            print(f"[{number}] {site}")
    print(f"{'page (best of up to ' + str(args.runs) + ')':<32} perf a11y  b-p  seo    dom  audits below 90")
    results = audit(sites, pages, args.runs, compress=not args.no_gzip)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    for number, site in enumerate(sites, 1):
        print(("" if len(sites) == 1 else f"[{number}] ") + one_line(results[str(site)]))
    failing = args.require is not None and any(below(results[str(site)], args.require) for site in sites)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
