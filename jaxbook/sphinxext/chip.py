"""A chip's measurements on the page, read from its committed record and never measured again.

A record is ``docs/records/<chip>.json`` (:data:`FOLDER`), written on the chip by
``tools/chip_measure.py`` and ``tools/chip_record.py`` (``<chip>_check.json``, the accelerator
check's, by ``tools/check_record.py``). The CPU build renders it:

- ``{chip}`tpu_v5e:roofline.best_tflops.bfloat16``` -- one figure, printed as the record stores it.
  A key is a dotted path; a list's row is its number or ``field=value,...`` (the one row that
  matches: ``training.runs.dtype=bfloat16,remat=false.mfu``). After ``|``, a scale (``ms``, ``us``,
  ``GB``, ``GiB``, ``%``) and/or a Python format spec: ``...mfu|%:.0f``, ``...params|,``.
- ``{chip-stamp}`tpu_v5e``` -- what measured it: the chip, the JAX version, the date.
- ``{chip-table} tpu_v5e roofline`` -- one of :data:`TABLES`, a small table of a part of the record.

The page depends on the record (a new record renders it again). A missing key, chip or table is a
finding at the page's line that names it, and fails the build like a failing cell. The page's
notebook shows the same figures (:func:`notebook_markdown`, :func:`markdown_table`).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective, SphinxRole

from jaxbook.sphinxext.findings import source_finding

#: The records' folder, from the book's root.
FOLDER = "docs/records"
#: The roles that quote a record inline, and the directive that quotes a table of it.
ROLES = ("chip", "chip-stamp")
TABLE = "chip-table"
#: An inline reference in a page's Markdown: ``{chip}`...``` or ``{chip-stamp}`...```.
ROLE = re.compile(r"\{(" + "|".join(map(re.escape, ROLES)) + r")\}`([^`]+)`")
#: Any quote of a record, role or directive; its group is the chip (what precedes ``:`` or a space).
QUOTE = re.compile(r"\{(?:" + "|".join(map(re.escape, (*ROLES, TABLE))) + r")\}\W*(\w+)")
#: Scales a figure may be shown in: the factor from the record's unit (seconds, bytes, a fraction).
SCALES = {"ms": 1e3, "us": 1e6, "GB": 1e-9, "GiB": 2.0**-30, "%": 100.0}
#: The stamp's fields a page shows.
STAMP = ("device_kind", "jax", "date")


def quoted_records(text: str) -> set[str]:
    """The chips whose records the page Markdown ``text`` quotes, by any role or directive of this
    module (what the page depends on besides its own files)."""
    return set(QUOTE.findall(text))


class ChipError(ValueError):
    """A reference the record cannot answer; the message names the key."""


def record_path(srcdir: str | Path, folder: str, chip: str) -> Path:
    """The record of ``chip`` (its name, ``tpu_v5e``) in ``folder`` of the book at ``srcdir``."""
    return Path(srcdir) / folder / f"{chip}.json"


def load(path: Path) -> dict:
    """The record at ``path`` (read again only when the file changes: a page cites it in many
    roles; shared, so never modified); ChipError if there is none or it is not a record."""
    try:
        status = path.stat()
    except OSError:
        raise ChipError(f"no chip record {path.name!r} in {path.parent.name}/") from None
    return _parse(path.resolve(), status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, mtime_ns: int, size: int) -> dict:
    """The record at ``path`` as it was at ``mtime_ns`` with ``size`` bytes (the cache's key)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ChipError(f"{path.name}: not JSON ({exc})") from exc
    stamp = record.get("stamp") if isinstance(record, dict) else None
    missing = [k for k in STAMP if not isinstance(stamp, dict) or not stamp.get(k)]
    if missing:
        raise ChipError(f"{path.name}: the stamp has no {', '.join(missing)}")
    return record


def _row(rows: list, part: str, where: str):
    """The row of ``rows`` named by ``part``: its number, or ``field=value,...``."""
    if part.isdigit() and int(part) < len(rows):
        return rows[int(part)]
    if "=" in part:
        wanted = dict(pair.split("=", 1) for pair in part.split(","))
        found = [
            row
            for row in rows
            if isinstance(row, dict) and all(str(row.get(k)).lower() == v.lower() for k, v in wanted.items())
        ]
        if len(found) == 1:
            return found[0]
        raise ChipError(f"{where}: {len(found)} rows match {part!r}, not one")
    raise ChipError(f"{where}: no row {part!r}")


def lookup(record: dict, key: str):
    """The value of ``record`` at the dotted ``key``; ChipError naming the key if there is none."""
    value, walked = record, []
    for part in key.split("."):
        where = ".".join(walked) or "the record"
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list):
            value = _row(value, part, f"{key!r}: {where}")
        else:
            raise ChipError(f"{key!r}: {where} has no {part!r}")
        walked.append(part)
    if isinstance(value, (dict, list)) or value is None:
        raise ChipError(f"{key!r} is not a figure")
    return value


def show(value, spec: str = "") -> str:
    """``value`` as the record stores it, or scaled and formatted by ``spec`` (``scale``, ``:format``,
    ``scale:format`` or a bare format)."""
    scale, sep, form = spec.partition(":")
    if scale not in SCALES:
        scale, form = "", form if sep and not scale else spec
    if scale:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ChipError(f"{value!r} is not a number to show in {scale}")
        value = value * SCALES[scale]
        text = format(value, form or ".4g")
        return text + ("%" if scale == "%" else "")
    if form:
        try:
            return format(value, form)
        except (ValueError, TypeError) as exc:
            raise ChipError(f"format {form!r} does not apply to {value!r}: {exc}") from exc
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def resolve(srcdir: str | Path, folder: str, reference: str) -> tuple[Path, str]:
    """The record file and the text of ``chip:key|spec``."""
    chip, sep, rest = reference.partition(":")
    if not sep or not rest:
        raise ChipError(f"{reference!r}: write chip:key, e.g. tpu_v5e:roofline.best_gbps")
    key, _, spec = rest.partition("|")
    path = record_path(srcdir, folder, chip.strip())
    return path, show(lookup(load(path), key.strip()), spec.strip())


def stamp_text(record: dict) -> str:
    s = record["stamp"]
    devices = s.get("devices", 1)
    chips = f", {devices} chips" if devices != 1 else ""
    return f"{s['device_kind']}{chips}, JAX {s['jax']}, measured {s['date']}"


def _finding(env, lineno: int, message: str, rawtext: str) -> list[nodes.Node]:
    source_finding(env, env.docname, f"{message} (in {rawtext})", lineno)
    return [nodes.problematic(rawtext, rawtext)]


class ChipRole(SphinxRole):
    """``{chip}`` and ``{chip-stamp}``: the text of :func:`reference_text`."""

    def run(self):
        chip = self.text.split(":")[0].strip()
        self.env.note_dependency(str(record_path(self.env.srcdir, FOLDER, chip)))
        try:
            text = reference_text(self.env.srcdir, self.name, self.text)
        except ChipError as exc:
            return _finding(self.env, self.lineno, str(exc), self.rawtext), []
        return [nodes.inline(self.rawtext, text, classes=["jaxbook-chip"])], []


def _pct(value: float, of: float) -> str:
    """``value`` as a share of ``of``: two significant digits below 10%, whole percents above."""
    share = 100 * value / of
    return f"{share:.2g}%" if share < 10 else f"{share:.0f}%"


def roofline(record: dict) -> tuple[list[str], list[list[str]]]:
    """Achieved TFLOP/s of each precision against arithmetic intensity (k = n, m rows)."""
    r, peak = record["roofline"], record["datasheet"]["bf16_tflops"]
    variants = list(dict.fromkeys(row["variant"] for row in r["rows"]))
    by = {(row["variant"], row["m"]): row for row in r["rows"]}
    head = [
        "rows m",
        "FLOP per byte (bfloat16)",
        *(f"{v} TFLOP/s" for v in variants),
        f"bfloat16, of the {show(peak)} TFLOP/s peak",
    ]
    body = []
    for m in dict.fromkeys(row["m"] for row in r["rows"]):
        bf16 = by.get((variants[0], m))
        cells = [show(by[(v, m)]["tflops"]) if (v, m) in by else "" for v in variants]
        body.append(
            [
                str(m),
                show(bf16["intensity"]) if bf16 else "",
                *cells,
                _pct(bf16["tflops"], peak) if bf16 else "",
            ]
        )
    return head, body


def prediction(record: dict) -> tuple[list[str], list[list[str]]]:
    """The roofline model from the datasheet (``min(1, intensity / (peak / bandwidth))`` of the
    peak) against what the chip did, for each bfloat16 product."""
    sheet = record["datasheet"]
    peak, critical = sheet["bf16_tflops"], sheet["bf16_tflops"] * 1e12 / (sheet["hbm_gbps"] * 1e9)
    rows = [
        [
            str(row["m"]),
            show(row["intensity"]),
            _pct(min(1.0, row["intensity"] / critical), 1.0),
            show(row["tflops"]),
            _pct(row["tflops"], peak),
        ]
        for row in record["roofline"]["rows"]
        if row["variant"] == "bfloat16"
    ]
    head = ["rows m", "FLOP per byte", "roofline's bound, of peak", "measured TFLOP/s", "measured, of peak"]
    return head, rows


def memory(record: dict) -> tuple[list[str], list[list[str]]]:
    hbm = record["datasheet"]["hbm_gbps"]
    rows = [
        [m["op"], m["dtype"], show(m["gbps"]), _pct(m["gbps"], hbm)] for m in record["roofline"]["memory"]
    ]
    return ["operation", "dtype", "GB/s", f"of the {show(hbm)} GB/s of HBM"], rows


#: How each training run's dtype computed its matrix products: float32 at JAX's default precision,
#: which on a TPU is one bfloat16 pass per product (the roofline's "float32 default").
COMPUTE = {"float32": "float32 storage, default precision (bfloat16 products)"}


def training(record: dict) -> tuple[list[str], list[list[str]]]:
    head = ["compute", "jax.checkpoint", "step (ms)", "model TFLOP/s", "MFU", "temporaries (GB)"]
    rows = []
    for run in record["training"]["runs"]:
        name = COMPUTE.get(run["dtype"], run["dtype"])
        remat = "yes, products saved" if run["remat"] else "no"
        if "error" in run:
            rows.append([name, remat, run["error"], "", "", ""])
            continue
        rows.append(
            [
                name,
                remat,
                show(run["step_seconds"], "ms"),
                show(run["tflops"]),
                show(run["mfu"], "%:.0f"),
                show(run["temp_bytes"], "GB:.2f"),
            ]
        )
    return head, rows


def scan(record: dict) -> tuple[list[str], list[list[str]]]:
    s = record["scan"]
    rows = [
        [str(run["unroll"]), show(run["per_step_us"]), show(run["seconds"], "ms:.3f")] for run in s["runs"]
    ]
    return ["unroll", "µs per step", f"{s['steps']} steps (ms)"], rows


def float16(record: dict) -> tuple[list[str], list[list[str]]]:
    rows = [[dtype, show(value)] for dtype, value in record["float16"]["gradients"].items()]
    return ["the loss computed in", "gradient"], rows


def trace(record: dict) -> tuple[list[str], list[list[str]]]:
    """Where one traced training step's time went: the device's time in each kind of operation,
    its idle time inside the step, and the gap between steps (the host's turn), per step."""
    t = record["trace"]
    step = t["step_seconds"]
    rows = [
        [kind, show(v["seconds"], "ms:.2f"), _pct(v["seconds"], step)]
        for kind, v in t["kinds"].items()
        if v["seconds"] >= 1e-6
    ]
    rows.append(
        [
            "idle inside the step",
            show(t["idle_in_step_seconds"], "ms:.2f"),
            _pct(t["idle_in_step_seconds"], step),
        ]
    )
    rows.append(["the whole step on the chip", show(step, "ms:.2f"), "100%"])
    if "host_gap_seconds" in t:
        gap = t["host_gap_seconds"]
        rows.append(["between steps: the host's turn", show(gap, "ms:.2f"), _pct(gap, step)])
    return ["per training step", "ms", "of the step"], rows


#: The tables ``{chip-table}`` makes, by name.
TABLES = {
    "roofline": roofline,
    "prediction": prediction,
    "memory": memory,
    "training": training,
    "scan": scan,
    "float16": float16,
    "trace": trace,
}


def table_node(head: list[str], rows: list[list[str]]) -> nodes.table:
    table = nodes.table(classes=["jaxbook-chip-table"])
    group = nodes.tgroup(cols=len(head))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in head]
    for section, lines in ((nodes.thead(), [head]), (nodes.tbody(), rows)):
        for line in lines:
            row = nodes.row()
            for text in line:
                row += nodes.entry("", nodes.paragraph(text=text))
            section += row
        group += section
    return table


class ChipTable(SphinxDirective):
    required_arguments = 2  # chip, table
    has_content = False

    def run(self) -> list[nodes.Node]:
        chip, name = self.arguments
        path = record_path(self.env.srcdir, FOLDER, chip)
        self.env.note_dependency(str(path))
        try:
            if name not in TABLES:
                raise ChipError(f"no table {name!r}: one of {', '.join(TABLES)}")
            head, rows = TABLES[name](load(path))
        except KeyError as exc:
            message = f"{path.name} has no {exc.args[0]!r}, which the {name!r} table needs"
            return _finding(self.env, self.lineno, message, self.block_text.strip())
        except ChipError as exc:
            return _finding(self.env, self.lineno, str(exc), self.block_text.strip())
        return [table_node(head, rows)]


def reference_text(root: str | Path, role: str, reference: str) -> str:
    """What ``{role}`reference``` shows (ChipError naming the key if the record cannot say)."""
    reference = re.sub(r"\s*\.\s*", ".", " ".join(reference.split()))  # one broken over two lines
    if role == "chip-stamp":
        return stamp_text(load(record_path(root, FOLDER, reference)))
    return resolve(root, FOLDER, reference)[1]


def notebook_markdown(text: str, root: str | Path) -> tuple[str, list[tuple[int, str]]]:
    """``text`` with each reference replaced by its figure, as the site shows it, and the (line in
    ``text`` from 0, message) of each that fails. A reference over two lines keeps the line break."""
    failed = []

    def figure(match: re.Match) -> str:
        try:
            shown = reference_text(root, match[1], match[2])
        except ChipError as exc:
            failed.append((text[: match.start()].count("\n"), f"{exc} (in {match[0]})"))
            return match[0]
        return shown + "\n" * match[0].count("\n")

    return ROLE.sub(figure, text), failed


def markdown_table(root: str | Path, chip: str, name: str) -> str:
    """``{chip-table} chip name`` as a Markdown table, for the page's notebook."""
    if name not in TABLES:
        raise ChipError(f"no table {name!r}: one of {', '.join(TABLES)}")
    path = record_path(root, FOLDER, chip)
    try:
        head, rows = TABLES[name](load(path))
    except KeyError as exc:
        raise ChipError(f"{path.name} has no {exc.args[0]!r}, which the {name!r} table needs") from exc
    lines = [head, ["---"] * len(head), *rows]
    return "\n".join("| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |" for line in lines)


def setup(app):
    for name in ROLES:
        app.add_role(name, ChipRole())
    app.add_directive(TABLE, ChipTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
