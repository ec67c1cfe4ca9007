"""``python -m tools.chip_record CHIP_JSON RECORD``: a chip's measurements (the ``chip.json`` of
:mod:`tools.chip_measure`, from the device's archive) condensed into the record the book commits
and its pages read (the figures a reader sees, with the stamp of the machine that measured them).
The CPU build renders the record and never measures again; :func:`validate` checks its shape and
fails naming the key.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

#: The stamp's fields a record keeps (tools.accelerator.stamp).
STAMP = ("device_kind", "devices", "backend", "jax", "jaxlib", "python", "platform_version", "date")
#: Each part's fields, as ``{part: {field: type}}``; lists hold dicts of the named fields.
SHAPE = {
    "roofline": {"k": int, "n": int, "rows": list, "memory": list, "best_tflops": dict, "best_gbps": float},
    "training": {"config": dict, "runs": list},
    "trace": {"steps": int, "step_seconds": float, "kinds": dict, "idle_in_step_seconds": float},
    "scan": {"steps": int, "runs": list},
    "float16": {"gradients": dict, "loss_scaling": dict},
}
ROWS = {
    ("roofline", "rows"): {"variant": str, "m": int, "intensity": float, "tflops": float, "seconds": float},
    ("roofline", "memory"): {"op": str, "dtype": str, "gbps": float},
    ("training", "runs"): {"dtype": str, "remat": bool},
    ("scan", "runs"): {"unroll": int, "per_step_us": float},
}
#: A training run's fields, when it did not fail.
TRAINED = {"step_seconds": float, "tflops": float, "temp_bytes": int, "params": int}

#: XLA's category of a device operation (``hlo_category`` in a TPU trace's events), as a reader
#: asks about it. A ``convolution fusion`` is a matrix product whatever its name says (a product
#: whose result goes straight into a scan's stacked buffer is ``bitcast_dynamic-update-slice_fusion``).
CATEGORIES = {
    "convolution fusion": "matrix products",
    "convolution": "matrix products",
    "dot": "matrix products",
    "loop fusion": "elementwise and reductions",
    "input fusion": "elementwise and reductions",
    "output fusion": "elementwise and reductions",
    "non-fusion elementwise": "elementwise and reductions",
    "broadcast": "elementwise and reductions",
    "iota": "elementwise and reductions",
    "reduce": "elementwise and reductions",
    "custom fusion": "gathers and scatters",
    "data formatting": "copies and layout",
    "copy-start": "copies and layout",
    "copy-done": "copies and layout",
    "async-start": "copies and layout",
    "async-done": "copies and layout",
    "dynamic-update-slice": "copies and layout",
    "dynamic-slice": "copies and layout",
    "all-reduce": "collectives",
    "all-gather": "collectives",
    "reduce-scatter": "collectives",
    "all-to-all": "collectives",
    "collective-permute": "collectives",
}
#: Operations that only hold others (a ``while`` loop's time is its body's operations' time):
#: counting them beside their body counts that time twice.
CONTAINERS = ("while", "conditional", "call")


def op_kind(name: str, category: str | None = None) -> str | None:
    """What a device operation does, from XLA's category when the trace has one (a TPU's does),
    else from its name; None for a container (:data:`CONTAINERS`)."""
    if category:
        low = category.lower()
        return None if low in CONTAINERS else CATEGORIES.get(low, "other")
    low = name.lower()
    if low.split(".")[0] in CONTAINERS:
        return None
    if any(w in low for w in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective")):
        return "collectives"
    if any(w in low for w in ("convolution", "dot", "matmul", "einsum")):  # before "bitcast", "slice"
        return "matrix products"
    if any(w in low for w in ("copy", "transpose", "bitcast", "slice")):
        return "copies and layout"
    if "fusion" in low:
        return "other fusions"
    return "other"


def trace_summary(path: Path) -> dict | None:
    """Where a traced training step's time went, from the Perfetto (Chrome trace event) JSON at
    ``path``: per step (the mean over the traced steps), the device's time in each kind of
    operation (:func:`op_kind`; containers left out, so nothing is counted twice) with the model
    FLOP/s of each kind where the trace gives FLOPs, the device's idle time inside the step, and
    the gap between one step's end on the device and the next one's start (the host's time: here
    it waits for the loss, then dispatches). None if the trace has no device thread of operations
    and programs (a CPU's trace has neither)."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    processes, threads = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e["args"].get("name", "")
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e.get("tid"))] = e["args"].get("name", "")
    device = [pid for pid, name in processes.items() if "/device:" in name and "CPU" not in name.upper()]
    complete = [e for e in events if e.get("ph") == "X" and "dur" in e and e["pid"] in device]

    def on(thread: str) -> list[dict]:
        found = [e for e in complete if threads.get((e["pid"], e.get("tid"))) == thread]
        return sorted(found, key=lambda e: float(e["ts"]))

    modules, ops = on("XLA Modules"), on("XLA Ops")
    if not modules or not ops:
        return None
    kinds = defaultdict(lambda: {"seconds": 0.0, "flops": 0.0})
    inside = 0.0
    for e in ops:
        start = float(e["ts"])
        if not any(float(m["ts"]) <= start < float(m["ts"]) + float(m["dur"]) for m in modules):
            continue
        args = e.get("args", {})
        kind = op_kind(e["name"], args.get("hlo_category"))
        if kind is None:
            continue
        kinds[kind]["seconds"] += float(e["dur"]) * 1e-6
        kinds[kind]["flops"] += float(args.get("model_flops", 0) or 0)
        inside += float(e["dur"]) * 1e-6
    n = len(modules)
    step = sum(float(m["dur"]) for m in modules) * 1e-6 / n
    gaps = [(float(b["ts"]) - float(a["ts"]) - float(a["dur"])) * 1e-6 for a, b in zip(modules, modules[1:])]
    summary = {
        "steps": n,
        "step_seconds": step,
        "kinds": {
            kind: {"seconds": v["seconds"] / n}
            | (
                {"tflops": v["flops"] / v["seconds"] / 1e12}
                if kind == "matrix products" and v["flops"]
                else {}
            )
            for kind, v in sorted(kinds.items(), key=lambda kv: -kv[1]["seconds"])
        },
        "idle_in_step_seconds": max(0.0, step - inside / n),
        "classified_by": "XLA's category"
        if any("hlo_category" in e.get("args", {}) for e in ops)
        else "name",
    }
    if gaps:
        summary["host_gap_seconds"] = sum(gaps) / len(gaps)
    return summary


def _round(value, digits: int = 4):
    """Floats to ``digits`` significant digits: the record holds what the pages print, not noise."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return value


#: What a datasheet's figure counts, where its name alone does not say, by chip and field.
LABELS = {
    "TPU v5e": {
        "ici_note": (
            "ici_gbit_per_chip is Google's older v5e table's 'Interchip Interconnect BW: 1600 Gbps'"
            " (200 GB/s); the current v5e page gives 400 GBps bidirectional per chip, the sum of both"
            " directions, which snippets/sharding_costs/_hardware.py uses"
        )
    }
}


def _labelled(sheet: dict | None) -> dict | None:
    """``sheet`` with the notes of :data:`LABELS` for its chip (what a figure counts)."""
    if not isinstance(sheet, dict):
        return sheet
    return sheet | LABELS.get(sheet.get("name"), {})


def condense(chip: dict, folder: Path | None = None) -> dict:
    """The record of ``chip`` (chip_measure's JSON): its stamp, the datasheet it was compared with,
    and each part that ran, without timings' raw batches. The trace part is summarised again from
    the raw trace the measurement kept (``parts.trace.kept``, in ``folder``, beside the JSON), with
    :func:`trace_summary`; without it, from the JSON's summary if that has the same shape, else
    left out."""
    if chip.get("small"):
        raise ValueError("chip.json: measured with --small (a rehearsal): not a record")
    parts = chip.get("parts", {})
    record = {
        "stamp": {k: chip["stamp"].get(k) for k in STAMP},
        "datasheet": _labelled(chip.get("datasheet")),
        "errors": sorted(chip.get("errors", {})),
    }
    if "roofline" in parts:
        r = parts["roofline"]
        record["roofline"] = {
            "k": r["matmul"][0]["k"],
            "n": r["matmul"][0]["n"],
            "rows": [
                {k: row[k] for k in ("variant", "m", "intensity", "tflops", "seconds")} for row in r["matmul"]
            ],
            "memory": [{k: row[k] for k in ("op", "dtype", "gbps")} for row in r["memory"]],
            "best_tflops": r["best_tflops"],
            "best_gbps": r["best_gbps"],
            "measured_ridge": r["measured_ridge"],
        }
    if "training" in parts:
        t = parts["training"]
        keep = ("dtype", "remat", "remat_policy", "params", "tokens_per_step", "flops_per_step")
        keep += ("compile_seconds",)
        keep += ("step_seconds", "tflops", "mfu", "temp_bytes", "loss", "error")
        record["training"] = {
            "config": t["config"],
            "runs": [{k: run[k] for k in keep if k in run} for run in t["runs"]],
        }
    if "trace" in parts:
        kept = parts["trace"].get("kept")
        raw = Path(folder) / kept if folder is not None and kept else None
        summary = trace_summary(raw) if raw is not None and raw.is_file() else parts["trace"].get("summary")
        if isinstance(summary, dict) and set(SHAPE["trace"]) <= set(summary):
            record["trace"] = {
                "run": parts["trace"].get("run", {"dtype": "bfloat16", "remat": False})
            } | summary
    if "scan" in parts:
        record["scan"] = {k: parts["scan"][k] for k in ("steps", "units", "runs")}
    if "float16" in parts:
        f = parts["float16"]
        record["float16"] = {k: f[k] for k in f if k != "part_seconds"}
    return _round(record)


def _check_fields(value: dict, fields: dict, where: str) -> None:
    for name, kind in fields.items():
        if name not in value:
            raise ValueError(f"{where}: no {name!r}")
        ok = isinstance(value[name], kind) or (kind is float and isinstance(value[name], int))
        if not ok or (kind is int and isinstance(value[name], bool)):
            raise ValueError(f"{where}.{name}: {value[name]!r} is not {kind.__name__}")


def validate(record: dict, where: str = "record") -> None:
    """Raise ValueError naming the first key of ``record`` that is missing or of the wrong type."""
    _check_fields(record, {"stamp": dict}, where)
    _check_fields(
        record["stamp"], {"device_kind": str, "devices": int, "jax": str, "date": str}, f"{where}.stamp"
    )
    if not any(part in record for part in SHAPE):
        raise ValueError(f"{where}: none of the parts {', '.join(SHAPE)}")
    for part, fields in SHAPE.items():
        if part not in record:
            continue
        _check_fields(record[part], fields, f"{where}.{part}")
        for (owner, name), row_fields in ROWS.items():
            if owner != part:
                continue
            for i, row in enumerate(record[part][name]):
                _check_fields(row, row_fields, f"{where}.{part}.{name}[{i}]")
                if part == "training" and "error" not in row:
                    _check_fields(row, TRAINED, f"{where}.{part}.{name}[{i}]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.chip_record", description=__doc__.split("\n")[0])
    parser.add_argument("chip", type=Path, help="chip.json of tools.chip_measure")
    parser.add_argument("record", type=Path, help="the record to write")
    args = parser.parse_args(argv)
    record = condense(json.loads(args.chip.read_text(encoding="utf-8")), args.chip.parent)
    validate(record, str(args.record))
    args.record.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.record}: {', '.join(k for k in SHAPE if k in record)} of {record['stamp']['device_kind']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
