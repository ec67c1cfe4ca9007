"""``python -m tools.check_record TPU_PROGRESS VERDICTS RECORD``: a run of the accelerator check on a
chip, condensed into the record the book commits (``docs/records/<chip>_check.json``, and a text
summary beside it with the suffix ``.txt``).

``TPU_PROGRESS`` is the ``progress.jsonl`` the check wrote on the chip (``--no-cpu``: its outputs
only); ``VERDICTS`` the ``report.json`` of ``python -m tools.accelerator --classify TPU_PROGRESS``
on another machine, which ran what differs or broke again on its CPU with the chip's JAX (a version
difference prints the same there; a snippet that prints its ``.out`` on the book's 8 emulated
devices but not on the chip's count needs the book's devices). The record keeps the stamp, the
count of each verdict, why each snippet that broke broke, every verdict with the chip's output where
it differs, and the snippets the run did not reach in its time. :func:`check` validates its shape.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

#: The verdicts (tools.accelerator.STATUSES), kept here so that the record's check needs no JAX.
STATUSES = (
    "same",
    "within tolerance",
    "accelerator output",
    "declared difference",
    "version difference",
    "needs 8 devices",
    "differs",
    "broke",
)
#: The stamp's fields a record keeps (tools.accelerator.stamp).
STAMP = (
    "device_kind",
    "devices",
    "backend",
    "jax",
    "jaxlib",
    "python",
    "platform_version",
    "plugins",
    "date",
)
#: Why a snippet that did not print its output on the chip could not, read from its verdict's detail.
REASONS = {
    "no TCP/IP on the host": ("Address family not supported", "Errno 97"),
    "needs 8 devices": ("Number of devices", "needs 8 devices", "emulated CPU device"),
}
OTHER = "other"
#: A record's fields and their types; each snippet's, and the check's.
SHAPE = {
    "stamp": dict,
    "cpu_rerun": dict,
    "check": dict,
    "counts": dict,
    "reasons": dict,
    "snippets": list,
    "not_reached": list,
}
CHECK = {"limit_seconds": int, "order": str, "reached": int, "not_reached": int}
SNIPPET = {"snippet": str, "status": str, "detail": str}


def reason(status: str, detail: str) -> str | None:
    """Why a snippet with this verdict did not print its output (None when it did, or differs)."""
    if status not in ("needs 8 devices", "broke"):
        return None
    for name, marks in REASONS.items():
        if any(mark in detail for mark in marks):
            return name
    return OTHER


def condense(progress: Path, verdicts: dict, book: list[str], limit: int, order: str) -> dict:
    """The record of a run: ``progress`` (the chip's outputs), ``verdicts`` (the classified report),
    ``book`` (every snippet the check would run, in its order)."""
    from tools import accelerator

    found, results = accelerator.load_outputs(progress)
    judged = {v["snippet"]: v for v in verdicts["snippets"]}
    missing = sorted(set(results) - set(judged))
    if missing:
        raise SystemExit(f"{len(missing)} outputs have no verdict, e.g. {missing[0]}")
    snippets = []
    for name in book:
        if name not in results:
            continue
        verdict = judged[name]
        entry = {"snippet": name, "status": verdict["status"], "detail": verdict["detail"]}
        if why := reason(verdict["status"], verdict["detail"]):
            entry["reason"] = why
        if verdict["status"] == "differs":
            entry["printed"] = results[name].text
        snippets.append(entry)
    not_reached = [name for name in book if name not in results]
    counts = Counter(entry["status"] for entry in snippets)
    again = verdicts["stamp"].get("cpu_rerun") or {}
    return {
        "stamp": {key: found.get(key) for key in STAMP},
        "cpu_rerun": {key: again.get(key) for key in ("jax", "jaxlib", "python", "cpu", "date")},
        "check": {
            "limit_seconds": limit,
            "order": order,
            "reached": len(snippets),
            "not_reached": len(not_reached),
        },
        "counts": {status: counts[status] for status in STATUSES if counts[status]},
        "reasons": dict(sorted(Counter(e["reason"] for e in snippets if "reason" in e).items())),
        "snippets": snippets,
        "not_reached": not_reached,
    }


def check(record: dict) -> None:
    """Raise ValueError naming the first field of ``record`` that is missing, of another type, or
    inconsistent (counts that are not the tally of the verdicts, a snippet both run and not reached)."""

    def fields(where: str, data: dict, shape: dict) -> None:
        for key, kind in shape.items():
            if not isinstance(data.get(key), kind):
                raise ValueError(f"{where}{key}: expected {kind.__name__}, got {data.get(key)!r:.80}")

    fields("", record, SHAPE)
    fields(
        "stamp.",
        record["stamp"],
        {"device_kind": str, "devices": int, "backend": str, "jax": str, "date": str},
    )
    fields("check.", record["check"], CHECK)
    names = set()
    for number, entry in enumerate(record["snippets"]):
        fields(f"snippets[{number}].", entry, SNIPPET)
        if entry["status"] not in STATUSES:
            raise ValueError(f"snippets[{number}].status: {entry['status']!r} is not one of {STATUSES}")
        if entry.get("reason") != reason(entry["status"], entry["detail"]):
            raise ValueError(
                f"snippets[{number}].reason: {entry.get('reason')!r} does not follow its verdict"
            )
        if entry["status"] == "differs" and not isinstance(entry.get("printed"), str):
            raise ValueError(
                f"snippets[{number}].printed: a snippet that differs keeps what the chip printed"
            )
        names.add(entry["snippet"])
    if len(names) != len(record["snippets"]):
        raise ValueError("snippets: a snippet is listed twice")
    if both := names & set(record["not_reached"]):
        raise ValueError(f"not_reached: {sorted(both)[0]} was reached")
    tally = Counter(entry["status"] for entry in record["snippets"])
    if record["counts"] != {status: tally[status] for status in STATUSES if tally[status]}:
        raise ValueError(f"counts: {record['counts']} is not the tally of the verdicts {dict(tally)}")
    reasons = Counter(entry["reason"] for entry in record["snippets"] if "reason" in entry)
    if record["reasons"] != dict(reasons):
        raise ValueError(f"reasons: {record['reasons']} is not the tally of the reasons {dict(reasons)}")
    run = record["check"]
    if run["reached"] != len(names) or run["not_reached"] != len(record["not_reached"]):
        raise ValueError("check: reached and not_reached are not the lengths of the lists")


def text(record: dict, expected: dict[str, str]) -> str:
    """The record as a short text: stamp, counts, every verdict that is not ``same``, what the chip
    printed where it differs (beside its ``.out``, from ``expected``), what was not reached."""
    stamp, run = record["stamp"], record["check"]
    again = record["cpu_rerun"]
    lines = [
        f"The book's snippets on one {stamp['device_kind']} ({stamp['backend']}, {stamp['devices']} device)",
        f"  JAX {stamp['jax']}, jaxlib {stamp['jaxlib']}, Python {stamp['python']}, {stamp['date']}",
        f"  again on a CPU for what differs or broke: JAX {again['jax']}, Python {again['python']}, {again['date']}",
        f"  {run['reached']} snippets reached in {run['limit_seconds']} s ({run['order']}); "
        f"{run['not_reached']} not reached",
        "",
        "counts: " + ", ".join(f"{n} {status}" for status, n in record["counts"].items()),
        "broke or needs devices, by reason: "
        + ", ".join(f"{n} {why}" for why, n in record["reasons"].items()),
        "",
    ]
    ranked = sorted(record["snippets"], key=lambda e: (STATUSES.index(e["status"]), e["snippet"]))
    for entry in ranked:
        if entry["status"] != "same":
            detail = entry["detail"] if len(entry["detail"]) <= 160 else entry["detail"][:157] + "..."
            lines.append(f"  {entry['status']:20} {entry['snippet']}: {detail}")
    differs = [e for e in ranked if e["status"] == "differs"]
    if differs:
        lines += ["", "Undeclared platform differences: what the chip printed, then the .out"]
        for entry in differs:
            lines += ["", f"--- {entry['snippet']} (chip)", entry["printed"].rstrip()]
            lines += [f"--- {entry['snippet']} (.out)", expected.get(entry["snippet"], "").rstrip()]
    if record["not_reached"]:
        lines += ["", "Not reached in the time: " + ", ".join(record["not_reached"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.check_record", description=__doc__.split("\n")[0])
    parser.add_argument("progress", type=Path, help="the chip's progress.jsonl (or outputs.json)")
    parser.add_argument("verdicts", type=Path, help="report.json of tools.accelerator --classify")
    parser.add_argument("record", type=Path, help="the record to write (.json; the text beside it)")
    parser.add_argument("--limit", type=int, required=True, help="the check's time limit on the chip (s)")
    parser.add_argument("--order", default="the book's order", help="in which order the pages ran")
    parser.add_argument("--page", action="append", default=[], help="the pages in the order they ran")
    args = parser.parse_args(argv)
    from jaxbook import book_root, outputs, pages

    root = book_root()
    groups = pages.selection(root, args.page, [])
    if args.page:  # then every other page, as the check ran them
        groups |= {p: s for p, s in pages.selection(root, [], []).items() if p not in groups}
    book = [path.relative_to(root).as_posix() for paths in groups.values() for path in paths]
    verdicts = json.loads(args.verdicts.read_text(encoding="utf-8"))
    record = condense(args.progress, verdicts, book, args.limit, args.order)
    check(record)
    expected = {
        e["snippet"]: outputs.read_expected(root / e["snippet"]) or ""
        for e in record["snippets"]
        if e["status"] == "differs"
    }
    args.record.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    args.record.with_suffix(".txt").write_text(text(record, expected), encoding="utf-8")
    print(f"{args.record}: " + ", ".join(f"{n} {s}" for s, n in record["counts"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
