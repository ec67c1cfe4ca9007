"""The chip records the pages quote (docs/records/*.json) and the extension that renders them
(jaxbook/sphinxext/chip.py): each record's shape and units, every reference on the pages resolves,
a bad reference fails the build at its page's line, a changed record renders again, and the page's
notebook shows the same figures."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import types
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.downloads import NotebookError, markdown_cells
from jaxbook.sphinxext import chip
from tests.helpers import Book
from tools import chip_record

#: The chip records; the accelerator check's reports beside them (``<chip>_check.json``,
#: tools/check_record.py) have their own test in tests/test_accelerator.py.
RECORDS = sorted(p for p in (ROOT / chip.FOLDER).glob("*.json") if not p.stem.endswith("_check"))
#: The pages that quote a record: each must keep doing so (a section lost is a failure).
QUOTING = ("docs/accelerators.md", "guide/sharding_costs.md", "guide/profiling.md")
DIRECTIVE = re.compile(r"^[`:]{3,}\{chip-table\}\s+(\S+)\s+(\S+)\s*$", re.M)


def book_pages() -> list[Path]:
    """The reader's pages (the book's folders of pages and its landing page)."""
    return [
        ROOT / "index.md",
        *(p for folder in ("guide", "docs", "practice") for p in (ROOT / folder).rglob("*.md")),
    ]


def test_there_is_a_record():
    assert [p.name for p in RECORDS] and "tpu_v5e.json" in [p.name for p in RECORDS]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_each_record_has_its_shape_its_stamp_and_consistent_units(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    chip_record.validate(record, path.name)
    chip.load(path)  # the stamp the pages show
    stamp, sheet = record["stamp"], record["datasheet"]
    assert set(chip_record.STAMP) <= set(stamp)
    assert stamp["backend"] in ("tpu", "gpu"), "a record is measured on an accelerator"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", stamp["date"]), stamp["date"]
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", stamp["jax"]), stamp["jax"]
    assert record["errors"] == [], f"{path.name}: parts that failed on the chip: {record['errors']}"
    for key in ("name", "bf16_tflops", "hbm_gbps", "source"):
        assert sheet.get(key), f"{path.name}: the datasheet has no {key!r}"
    peak, hbm = sheet["bf16_tflops"], sheet["hbm_gbps"]
    roofline = record["roofline"]
    # TFLOP/s and GB/s, not FLOP/s or bytes: nothing above the datasheet (2% of timer noise)
    assert all(0 < row["tflops"] <= 1.02 * peak for row in roofline["rows"]), "tflops not in TFLOP/s?"
    assert all(0 < row["gbps"] <= 1.02 * hbm for row in roofline["memory"]), "gbps not in GB/s?"
    assert roofline["best_tflops"]["bfloat16"] == max(
        row["tflops"] for row in roofline["rows"] if row["variant"] == "bfloat16"
    )
    assert roofline["best_gbps"] == max(row["gbps"] for row in roofline["memory"])
    ridge = roofline["best_tflops"]["bfloat16"] * 1e3 / roofline["best_gbps"]
    assert roofline["measured_ridge"] == pytest.approx(ridge, rel=2e-3)
    for row in roofline["rows"]:  # seconds, and TFLOP/s of 2mkn FLOPs
        flops = 2 * row["m"] * roofline["k"] * roofline["n"]
        assert row["tflops"] == pytest.approx(flops / row["seconds"] / 1e12, rel=2e-3), row
    for run in record["training"]["runs"]:
        if "error" in run:
            continue
        assert run["mfu"] == pytest.approx(run["tflops"] / peak, rel=2e-3), run
        assert run["tflops"] == pytest.approx(run["flops_per_step"] / run["step_seconds"] / 1e12, rel=2e-3)
        assert run["temp_bytes"] > 2**20, "temp_bytes in bytes"
    for run in record["scan"]["runs"]:  # microseconds per step of seconds over steps
        assert run["per_step_us"] == pytest.approx(run["seconds"] * 1e6 / record["scan"]["steps"], rel=3e-2)


def test_every_reference_on_the_pages_resolves_and_the_quoting_pages_keep_theirs():
    failed, counted = [], {}
    for page in book_pages():
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(ROOT).as_posix()
        for match in chip.ROLE.finditer(text):
            counted[name] = counted.get(name, 0) + 1
            try:
                chip.reference_text(ROOT, match[1], match[2])
            except chip.ChipError as exc:
                failed.append(f"{name}:{text[: match.start()].count(chr(10)) + 1}: {exc}")
        for match in DIRECTIVE.finditer(text):
            counted[name] = counted.get(name, 0) + 1
            try:
                chip.markdown_table(ROOT, match[1], match[2])
            except chip.ChipError as exc:
                failed.append(f"{name}:{text[: match.start()].count(chr(10)) + 1}: {exc}")
    assert not failed, "\n".join(failed)
    assert {page: counted.get(page, 0) > 0 for page in QUOTING} == dict.fromkeys(QUOTING, True)


def test_the_last_tpu_check_on_the_page_is_read_from_its_record():
    """docs/accelerators.md's "The last check on a TPU" quotes the check's record
    (docs/records/tpu_v5e_check.json, tools/check_record.py) through ``{chip}`` references: the
    run's stamp and every count it has, the re-judgement's commit, date and every count it has (and
    its differs, zero or not), how many it could not judge; and no figure is copied into the prose
    by hand (the only numbers left are device counts, an errno and the GPU run's date)."""
    text = (ROOT / "docs" / "accelerators.md").read_text(encoding="utf-8")
    start = text.index("\n## The last check on a TPU\n")
    section = text[start : text.index("\n## ", start + 1)]
    record = json.loads((ROOT / chip.FOLDER / "tpu_v5e_check.json").read_text(encoding="utf-8"))
    cited = {m[2].split("|")[0].strip() for m in chip.ROLE.finditer(section) if m[1] == "chip"}
    again = record["rejudged"]
    wanted = {"stamp.device_kind", "stamp.jax", "stamp.date", "check.reached", "check.not_reached"}
    wanted |= {f"counts.{status}" for status in record["counts"]}
    wanted |= {"rejudged.commit", "rejudged.date", "rejudged.not_judged", "rejudged.counts.differs"}
    wanted |= {f"rejudged.counts.{status}" for status, n in again["counts"].items() if n}
    assert {f"tpu_v5e_check:{key}" for key in wanted} <= cited, sorted(
        {f"tpu_v5e_check:{key}" for key in wanted} - cited
    )
    for reference in cited:
        chip.reference_text(ROOT, "chip", reference)  # each resolves (ChipError otherwise)
    prose = chip.ROLE.sub("", section)
    numbers = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)*(?![\w.])", prose))
    assert numbers <= {"4", "8", "97", "2026"}, f"figures copied by hand: {sorted(numbers)}"


def test_a_reference_shows_the_figure_as_stored_or_as_asked():
    root = ROOT
    assert chip.reference_text(root, "chip", "tpu_v5e:datasheet.hbm_gbps") == "819"  # 819.0 stored
    record = chip.load(ROOT / chip.FOLDER / "tpu_v5e.json")
    mfu = chip.lookup(record, "training.runs.dtype=bfloat16,remat=false.mfu")
    assert mfu == record["training"]["runs"][0]["mfu"]
    assert chip.show(mfu, "%:.0f") == f"{100 * mfu:.0f}%"
    assert chip.show(0.0726, "ms") == "72.6"
    assert chip.show(235439104, ",") == "235,439,104"
    assert chip.reference_text(root, "chip", "tpu_v5e:float16.gradients.\n  float16") == str(
        record["float16"]["gradients"]["float16"]
    )
    stamp = chip.reference_text(root, "chip-stamp", "tpu_v5e")
    assert record["stamp"]["jax"] in stamp and record["stamp"]["date"] in stamp


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("tpu_v5e:roofline.nope", r"'roofline\.nope': roofline has no 'nope'"),
        ("tpu_v5e:training.runs.dtype=bfloat16.mfu", r"2 rows match 'dtype=bfloat16', not one"),
        ("tpu_v5e:roofline", r"'roofline' is not a figure"),
        ("tpu_v9:roofline.k", r"no chip record 'tpu_v9\.json'"),
        ("tpu_v5e", r"write chip:key"),
        ("tpu_v5e:roofline.k|:.2q", r"format '\.2q'"),
    ],
)
def test_a_reference_the_record_cannot_answer_names_the_key(reference, message):
    with pytest.raises(chip.ChipError, match=message):
        chip.reference_text(ROOT, "chip", reference)


def test_a_record_is_parsed_once_and_read_again_when_it_changes(tmp_path, monkeypatch):
    """A page cites a record in many roles: it is parsed once, and again when the file changes."""
    path = tmp_path / "tpu_x.json"
    record = {"stamp": {"device_kind": "TPU x", "jax": "0.12.0", "date": "2026-12-06 05:33 UTC"}}
    path.write_text(json.dumps(record | {"roofline": {"k": 1}}))
    parsed = []
    counting = types.SimpleNamespace(JSONDecodeError=json.JSONDecodeError)
    counting.loads = lambda text: parsed.append(1) or json.loads(text)
    monkeypatch.setattr(chip, "json", counting)
    assert [chip.lookup(chip.load(path), "roofline.k") for _ in range(3)] == [1, 1, 1]
    assert len(parsed) == 1
    path.write_text(json.dumps(record | {"roofline": {"k": 22}}))  # another size
    assert chip.lookup(chip.load(path), "roofline.k") == 22
    path.write_text(json.dumps(record | {"roofline": {"k": 33}}))  # the same size, a later time
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert chip.lookup(chip.load(path), "roofline.k") == 33 and len(parsed) == 3


def test_the_notebook_shows_the_same_figures_and_fails_at_the_line(tmp_path):
    page = tmp_path / "p.md"
    text = (
        "# P\n\nPeak {chip}`tpu_v5e:datasheet.bf16_tflops` TFLOP/s.\n\n```{chip-table} tpu_v5e memory\n```\n"
    )
    page.write_text(text, encoding="utf-8")
    shown = "".join(cell["source"] for cell in markdown_cells(text, page, None))
    assert "Peak 197 TFLOP/s." in shown and "{chip}" not in shown
    assert "| operation | dtype | GB/s |" in shown and "| sum(x) | float32 |" in shown
    bad = text.replace("bf16_tflops", "bf16_tflop")
    page.write_text(bad, encoding="utf-8")
    with pytest.raises(
        NotebookError, match=r"p\.md:3: 'datasheet\.bf16_tflop': datasheet has no 'bf16_tflop'"
    ):
        markdown_cells(bad, page, None)
    bad = text.replace("tpu_v5e memory", "tpu_v5e memroy")
    page.write_text(bad, encoding="utf-8")
    with pytest.raises(NotebookError, match=r"p\.md:5: .*no table 'memroy'"):
        markdown_cells(bad, page, None)


def copy_record(book: Book) -> Path:
    """The committed TPU v5e record, copied into ``book``."""
    folder = book.root / chip.FOLDER
    folder.mkdir(parents=True)
    return shutil.copy(ROOT / chip.FOLDER / "tpu_v5e.json", folder / "tpu_v5e.json")


@pytest.mark.build
def test_a_bad_key_fails_the_build_at_the_page_line_and_names_the_key(tmp_path):
    book = Book(tmp_path)
    copy_record(book)
    book.page(
        "p", top_matter=False, body="Fine: {chip}`tpu_v5e:roofline.k`.\n\nBad: {chip}`tpu_v5e:roofline.kk`.\n"
    )
    built = book.build()
    assert built.returncode != 0, built.output[-3000:]
    assert re.search(r"guide/p\.md:5: .*'roofline\.kk': roofline has no 'kk'", built.output), built.output[
        -3000:
    ]


@pytest.mark.build
def test_a_changed_record_renders_the_page_again(tmp_path):
    book = Book(tmp_path)
    record_path = copy_record(book)
    body = "Bandwidth {chip}`tpu_v5e:roofline.best_gbps` GB/s.\n\n```{chip-table} tpu_v5e memory\n```\n"
    book.page("p", top_matter=False, body=body)
    first = book.build()
    assert first.returncode == 0, first.output[-3000:]
    assert "Bandwidth <span" in first.page("p") and ">741.9</span> GB/s" in first.page("p")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["roofline"]["best_gbps"] = 123.4
    record["roofline"]["memory"][0]["gbps"] = 432.1
    record_path.write_text(json.dumps(record), encoding="utf-8")
    again = book.build()
    assert again.returncode == 0, again.output[-3000:]
    assert ">123.4</span> GB/s" in again.page("p") and "<p>432.1</p>" in again.page("p")


def test_the_record_trace_accounts_for_the_step_once():
    """The traced step's kinds, plus its idle time, make up the step (a while loop counted beside its
    body would make them exceed it), and the matrix products are found by XLA's category."""
    record = chip.load(ROOT / chip.FOLDER / "tpu_v5e.json")
    t = record["trace"]
    total = sum(v["seconds"] for v in t["kinds"].values()) + t["idle_in_step_seconds"]
    assert total == pytest.approx(t["step_seconds"], rel=5e-3)
    assert t["classified_by"] == "XLA's category"
    products = t["kinds"]["matrix products"]
    assert (
        products["seconds"] > t["step_seconds"] / 2
        and products["tflops"] <= record["datasheet"]["bf16_tflops"]
    )
    assert 0 < t["host_gap_seconds"] < t["step_seconds"]
    shown = chip.markdown_table(ROOT, "tpu_v5e", "trace")
    assert "| matrix products |" in shown and "| between steps: the host's turn |" in shown


def fake_trace(path: Path, categories: bool = True) -> Path:
    """A TPU-like Perfetto trace: two steps of 10 us, each a while loop of 8 us holding a matrix
    product named like a copy (6 us) and a copy (2 us), then an elementwise fusion (1 us); 5 us
    between the steps."""
    meta = [
        {"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "/device:TPU:0"}},
        {"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "XLA Modules"}},
        {"ph": "M", "pid": 3, "tid": 3, "name": "thread_name", "args": {"name": "XLA Ops"}},
        {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "/host:CPU"}},
    ]
    events = []
    for start in (0.0, 15.0):
        events.append({"ph": "X", "pid": 3, "tid": 2, "ts": start, "dur": 10.0, "name": "jit_step"})
        for offset, dur, name, category, flops in (
            (0.0, 8.0, "while.1", "while", 0),
            (0.0, 6.0, "bitcast_dynamic-update-slice_fusion.2", "convolution fusion", 6e6),
            (6.0, 2.0, "copy.3", "data formatting", 0),
            (8.0, 1.0, "fusion.4", "loop fusion", 10),
        ):
            args = {"model_flops": str(flops)} | ({"hlo_category": category} if categories else {})
            events.append(
                {"ph": "X", "pid": 3, "tid": 3, "ts": start + offset, "dur": dur, "name": name, "args": args}
            )
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump({"traceEvents": meta + events}, f)
    return path


def test_a_trace_is_summarised_by_category_with_loops_counted_once(tmp_path):
    summary = chip_record.trace_summary(fake_trace(tmp_path / "t.json.gz"))
    assert summary["steps"] == 2 and summary["step_seconds"] == pytest.approx(10e-6)
    kinds = {k: v["seconds"] for k, v in summary["kinds"].items()}
    assert kinds == pytest.approx(
        {"matrix products": 6e-6, "copies and layout": 2e-6, "elementwise and reductions": 1e-6}
    )
    assert summary["kinds"]["matrix products"]["tflops"] == pytest.approx(1.0)  # 6e6 FLOPs in 6 us
    assert summary["idle_in_step_seconds"] == pytest.approx(1e-6)
    assert summary["host_gap_seconds"] == pytest.approx(5e-6)
    by_name = chip_record.trace_summary(fake_trace(tmp_path / "n.json.gz", categories=False))
    assert by_name["classified_by"] == "name" and "matrix products" not in by_name["kinds"]
    assert chip_record.op_kind("convolution_bitcast_fusion.2") == "matrix products"
    assert chip_record.op_kind("while.9") is None


def test_a_record_is_condensed_from_the_raw_trace_kept_beside_it(tmp_path):
    fake_trace(tmp_path / "perfetto_trace.json.gz")
    chip_json = {"stamp": {"device_kind": "TPU"}, "parts": {"trace": {"kept": "perfetto_trace.json.gz"}}}
    record = chip_record.condense(chip_json, tmp_path)
    assert record["trace"]["kinds"]["matrix products"]["seconds"] == pytest.approx(6e-6)
    stale = {"trace": {"kept": "perfetto_trace.json.gz", "summary": {"device_kinds_us": {}}}}
    assert "trace" not in chip_record.condense({"stamp": {}, "parts": stale})  # old shape: left out
