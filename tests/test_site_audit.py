"""tools/site_audit.py (``make audit``) without Lighthouse: which pages it audits, how many runs a
page gets, and what it concludes. Lighthouse's reports are replaced by made-up scores."""

from __future__ import annotations

import types

import pytest

from jaxbook import ROOT
from jaxbook.pages import NOT_FOUND_PAGE, published_pages
from tests import pass_cache
from tools import site_audit

#: The tool it tests (outside jaxbook/) and the book's pages it lists.
pytestmark = pytest.mark.inputs(pass_cache.book, "tools/site_audit.py")


def report(performance: int, seo: int = 100) -> dict:
    """A Lighthouse report with these scores (the others 100) and nothing failing."""
    scores = {"performance": performance, "accessibility": 100, "best-practices": 100, "seo": seo}
    return {
        "categories": {c: {"score": v / 100, "auditRefs": []} for c, v in scores.items()},
        "audits": {"dom-size": {"numericValue": 1000}},
    }


@pytest.fixture
def lighthouse(monkeypatch, tmp_path):
    """Replace Lighthouse with a list of scores per page (one per run) and record the runs."""
    runs: list[str] = []
    planned: dict[str, list[dict]] = {}

    def fake(url):
        page = url.split("/", 3)[3].removesuffix(".html")
        runs.append(page)
        return planned[page].pop(0)

    server = types.SimpleNamespace(shutdown=lambda: None)
    monkeypatch.setattr(site_audit, "serve", lambda site, compress=True: (server, "http://site/"))
    monkeypatch.setattr(site_audit, "lighthouse", fake)
    (tmp_path / "index.html").write_text("<p>site</p>", encoding="utf-8")
    return runs, planned, tmp_path


def test_a_page_is_audited_again_only_while_a_category_is_below_100(lighthouse, capsys):
    runs, planned, site = lighthouse
    planned["a"] = [report(100), report(97)]
    planned["b"] = [report(96), report(99), report(100), report(100)]
    planned["c"] = [report(98), report(99), report(97)]
    results = site_audit.audit([site], ["a", "b", "c"], runs=3)[str(site)]
    assert runs == ["a", "b", "b", "b", "c", "c", "c"]  # b stops at its first 100, c gets 3 runs
    assert [results[p]["scores"]["performance"] for p in "abc"] == [100, 100, 99]
    assert results["c"]["performance_runs"] == [98, 99, 97]


def test_two_sites_get_every_run_interleaved(lighthouse, tmp_path):
    runs, planned, site = lighthouse
    planned["a"] = [report(100)] * 4
    site_audit.audit([site, site], ["a"], runs=2)
    assert runs == ["a"] * 4  # no early stop when two builds are compared run by run


def test_the_verdict_names_each_page_below_100_with_its_low_categories():
    results = {
        "index": {"scores": dict.fromkeys(site_audit.CATEGORIES, 100)},
        "guide/grad": {"scores": {**dict.fromkeys(site_audit.CATEGORIES, 100), "performance": 99}},
        "search": {"scores": {**dict.fromkeys(site_audit.CATEGORIES, 100), "seo": 90, "performance": 98}},
    }
    assert site_audit.below(results) == {
        "guide/grad": {"performance": 99},
        "search": {"performance": 98, "seo": 90},
    }
    assert site_audit.one_line(results) == (
        "1 of 3 pages score 100 in all four categories; below: guide/grad (performance 99); "
        "search (performance 98, seo 90)"
    )
    assert site_audit.below(results, 98) == {"search": {"seo": 90}}


def test_all_audits_every_published_page_and_require_sets_the_exit_status(lighthouse, capsys):
    runs, planned, site = lighthouse
    pages = [p.removesuffix(".html") for p in [*published_pages(ROOT), NOT_FOUND_PAGE]]
    assert {"guide/grad", "search", "404"} <= set(pages) and len(pages) > 60
    for page in pages:
        planned[page] = [report(100)]
    planned["guide/jit"] = [report(99)] * 3
    status = site_audit.main(["--site", str(site), "--all", "--require", "100"])
    assert sorted(set(runs)) == sorted(pages) and runs.count("guide/jit") == 3
    assert status == 1
    out = capsys.readouterr().out
    assert (
        f"{len(pages) - 1} of {len(pages)} pages score 100 in all four categories; below: guide/jit (performance 99)"
        in out
    )
    planned["guide/jit"] = [report(99)] * 3
    assert site_audit.main(["--site", str(site), "--require", "99", "guide/jit"]) == 0
    with pytest.raises(SystemExit):
        site_audit.main(["--site", str(site), "--all", "guide/jit"])
