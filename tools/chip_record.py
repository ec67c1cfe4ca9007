"""``python -m tools.chip_record CHIP_JSON RECORD``: a chip's measurements (the ``chip.json`` of
:mod:`tools.chip_measure`, from the device's archive) condensed into the record the book commits
and its pages read (the figures a reader sees, with the stamp of the machine that measured them).
The CPU build renders the record and never measures again; :func:`check` validates its shape and
fails naming the key.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: The stamp's fields a record keeps (tools.accelerator.stamp).
STAMP = ("device_kind", "devices", "backend", "jax", "jaxlib", "python", "platform_version", "date")
#: Each part's fields, as ``{part: {field: type}}``; lists hold dicts of the named fields.
SHAPE = {
    "roofline": {"k": int, "n": int, "rows": list, "memory": list, "best_tflops": dict, "best_gbps": float},
    "training": {"config": dict, "runs": list},
    "trace": {"device_kinds_us": dict, "device_busy_us": float, "device_span_us": float, "top_ops_us": dict},
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


def _round(value, digits: int = 4):
    """Floats to ``digits`` significant digits: the record holds what the pages print, not noise."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return value


def condense(chip: dict) -> dict:
    """The record of ``chip`` (chip_measure's JSON): its stamp, the datasheet it was compared with,
    and each part that ran, without timings' raw batches or the trace's thread lists."""
    if chip.get("small"):
        raise ValueError("chip.json: measured with --small (a rehearsal): not a record")
    parts = chip.get("parts", {})
    record = {
        "stamp": {k: chip["stamp"].get(k) for k in STAMP},
        "datasheet": chip.get("datasheet"),
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
        keep = ("dtype", "remat", "params", "tokens_per_step", "flops_per_step", "compile_seconds")
        keep += ("step_seconds", "tflops", "mfu", "temp_bytes", "loss", "error")
        record["training"] = {
            "config": t["config"],
            "runs": [{k: run[k] for k in keep if k in run} for run in t["runs"]],
        }
    if "trace" in parts and "summary" in parts["trace"]:
        s = parts["trace"]["summary"]
        fields = ("ops_thread", "device_kinds_us", "device_busy_us", "device_span_us", "device_idle_us")
        record["trace"] = {k: s[k] for k in fields} | {"top_ops_us": s["top_ops_us"], "steps": s["steps"]}
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


def check(record: dict, where: str = "record") -> None:
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
    record = condense(json.loads(args.chip.read_text(encoding="utf-8")))
    check(record, str(args.record))
    args.record.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.record}: {', '.join(k for k in SHAPE if k in record)} of {record['stamp']['device_kind']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
