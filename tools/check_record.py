"""``python -m tools.check_record TPU_PROGRESS VERDICTS RECORD``: a run of the accelerator check on a
chip, condensed into the record the book commits (``docs/records/<chip>_check.json``, and a text
summary beside it with the suffix ``.txt``).

``TPU_PROGRESS`` is the ``progress.jsonl`` the check wrote on the chip (``--no-cpu``: its outputs
only); ``VERDICTS`` the ``report.json`` of ``python -m tools.accelerator --classify TPU_PROGRESS``
on another machine, which ran what differs or broke again on its CPU with the chip's JAX (a version
difference prints the same there; a snippet that prints its ``.out`` on the book's 8 emulated
devices but not on the chip's count needs the book's devices). The record keeps the stamp, the
count of each verdict, why each snippet that broke broke, every verdict with the chip's output where
it differs, and the snippets the run did not reach in its time. :func:`validate` checks its shape.

``--rejudge RECORD``: the same outputs judged again against the declarations the snippets hold now
(``# platform:`` lines and ``.<platform>.out`` files reviewed since the run). The run's stamp, counts
and verdicts stay as they were; a ``rejudged`` part is added with the commit of the declarations, the
date, the new counts and verdicts, and the snippets it could not judge again: deleted since the run,
or whose code (every line but its ``# platform:`` lines) is not the code the chip ran. The code at
the run is the hash the run recorded (``sources`` in its progress file) where it did, otherwise the
file at the last commit before the run's date that touched it (``git log --before``). A verdict the
run's CPU re-run gave (a version difference, needs 8 devices) stays where the chip's output still
differs under the new declarations: the CPU's outputs did not change either.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tools import accelerator
from tools.accelerator import STATUSES, code_hash

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
#: The re-judgement's fields (``record["rejudged"]``), each verdict's and each snippet's left out.
REJUDGED = {
    "commit": str,
    "date": str,
    "method": str,
    "counts": dict,
    "reasons": dict,
    "judged": int,
    "not_judged": int,
    "why_not": dict,
    "snippets": list,
    "not_rejudged": list,
}
REJUDGED_SNIPPET = SNIPPET | {"code_at_run": str, "code_now": str}
NOT_REJUDGED = {"snippet": str, "why": str, "code_at_run": str}
#: Why a snippet is not judged again.
DELETED, EDITED, UNKNOWN = "deleted since the run", "its code changed since the run", "no code at the run"
#: The verdicts that only the CPU re-run gives; they stand where the chip's output still fails.
FROM_CPU = ("version difference", "needs 8 devices")


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
        "counts": {status: counts[status] for status in STATUSES},  # zeros too: a page cites them
        "reasons": dict(sorted(Counter(e["reason"] for e in snippets if "reason" in e).items())),
        "snippets": snippets,
        "not_reached": not_reached,
    }


def _git(root: Path, *args: str) -> str | None:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def code_at_run(root: Path, name: str, date: str) -> str | None:
    """The :func:`code_hash` of snippet ``name`` as committed last before ``date`` (the run's), or
    None when git holds no version of it from before then."""
    commit = (_git(root, "log", "-1", f"--before={date}", "--format=%H", "HEAD", "--", name) or "").strip()
    source = _git(root, "show", f"{commit}:{name}") if commit else None
    return code_hash(source) if source is not None else None


def rejudge(
    record: dict, progress: Path, root: Path, commit: str, date: str, platform: str | None = None
) -> dict:
    """``record`` with a ``rejudged`` part: its run's outputs (``progress``) judged against the
    declarations of ``root`` now (``commit``), except those of snippets deleted or edited since."""
    found, results = accelerator.load_outputs(progress)
    platform = platform or found.get("platform") or record["stamp"]["backend"]
    recorded = {}  # the hashes a run wrote beside its outputs (none before this tool)
    for line in progress.read_text(encoding="utf-8").splitlines():
        recorded.update(json.loads(line).get("sources") or {})
    method = (
        "the code hashes the run recorded"
        if recorded
        else "the run recorded no hash of its sources: each snippet's code at the run is its last "
        f"commit before {record['stamp']['date']} (git log --before), compared with the commit judged "
        "against, its '# platform:' lines aside"
    )
    run = {entry["snippet"]: entry for entry in record["snippets"]}
    verdicts, left = [], []
    for name, entry in run.items():
        before = recorded.get(name) or code_at_run(root, name, record["stamp"]["date"])
        path = root / name
        if not path.is_file():
            left.append({"snippet": name, "why": DELETED, "code_at_run": before or ""})
            continue
        now = code_hash(path.read_text(encoding="utf-8"))
        if before != now:
            why = EDITED if before else UNKNOWN
            left.append({"snippet": name, "why": why, "code_at_run": before or "", "code_now": now})
            continue
        verdict = accelerator.judge(path, results[name], platform, root)
        status, detail = verdict.status, verdict.detail
        if status in accelerator.FAILING and entry["status"] in FROM_CPU:
            status, detail = entry["status"], entry["detail"]
        new = {"snippet": name, "status": status, "detail": detail, "code_at_run": before, "code_now": now}
        if why := reason(status, detail):
            new["reason"] = why
        if status == "differs":
            new["printed"] = results[name].text
        verdicts.append(new)
    counts = Counter(v["status"] for v in verdicts)
    return record | {
        "rejudged": {
            "commit": commit,
            "date": date,
            "method": method,
            "counts": {status: counts[status] for status in STATUSES},  # zeros too: a page cites them
            "reasons": dict(sorted(Counter(v["reason"] for v in verdicts if "reason" in v).items())),
            "judged": len(verdicts),
            "not_judged": len(left),
            "why_not": dict(sorted(Counter(entry["why"] for entry in left).items())),
            "snippets": verdicts,
            "not_rejudged": left,
        }
    }


def validate(record: dict) -> None:
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
    if record["counts"] != {status: tally[status] for status in STATUSES}:
        raise ValueError(f"counts: {record['counts']} is not the tally of the verdicts {dict(tally)}")
    reasons = Counter(entry["reason"] for entry in record["snippets"] if "reason" in entry)
    if record["reasons"] != dict(reasons):
        raise ValueError(f"reasons: {record['reasons']} is not the tally of the reasons {dict(reasons)}")
    run = record["check"]
    if run["reached"] != len(names) or run["not_reached"] != len(record["not_reached"]):
        raise ValueError("check: reached and not_reached are not the lengths of the lists")
    if "rejudged" in record:
        _check_rejudged(record["rejudged"], names, fields)


def _check_rejudged(again, names: set, fields) -> None:
    """The ``rejudged`` part: every snippet the run reached either judged again (its code the same
    at the run and now) or listed with why not (its code changed, or the snippet is gone), its
    counts and reasons the tally of its verdicts."""
    if not isinstance(again, dict):
        raise ValueError(f"rejudged: expected dict, got {again!r:.80}")
    fields("rejudged.", again, REJUDGED)
    if not re.fullmatch(r"[0-9a-f]{40}", again["commit"]):
        raise ValueError(f"rejudged.commit: {again['commit']!r} is not a commit's full hash")
    seen = []
    for number, entry in enumerate(again["snippets"]):
        where = f"rejudged.snippets[{number}]."
        fields(where, entry, REJUDGED_SNIPPET)
        if entry["status"] not in STATUSES:
            raise ValueError(f"{where}status: {entry['status']!r} is not one of {STATUSES}")
        if entry["code_at_run"] != entry["code_now"]:
            raise ValueError(
                f"{where}code_now: {entry['snippet']} changed since the run; its output cannot be judged again"
            )
        if entry.get("reason") != reason(entry["status"], entry["detail"]):
            raise ValueError(f"{where}reason: {entry.get('reason')!r} does not follow its verdict")
        if entry["status"] == "differs" and not isinstance(entry.get("printed"), str):
            raise ValueError(f"{where}printed: a snippet that differs keeps what the chip printed")
        seen.append(entry["snippet"])
    for number, entry in enumerate(again["not_rejudged"]):
        where = f"rejudged.not_rejudged[{number}]."
        fields(where, entry, NOT_REJUDGED)
        if entry["why"] not in (DELETED, EDITED, UNKNOWN):
            raise ValueError(f"{where}why: {entry['why']!r} is not one of {(DELETED, EDITED, UNKNOWN)}")
        if entry["why"] == EDITED and entry.get("code_now") in (None, entry["code_at_run"]):
            raise ValueError(
                f"{where}code_now: {entry['snippet']} is listed as edited but its code is the same"
            )
        seen.append(entry["snippet"])
    if len(seen) != len(set(seen)) or set(seen) != names:
        raise ValueError("rejudged: each snippet the run reached is judged again or listed as not, once")
    tally = Counter(entry["status"] for entry in again["snippets"])
    if again["counts"] != {status: tally[status] for status in STATUSES}:
        raise ValueError(f"rejudged.counts: {again['counts']} is not the tally of the verdicts {dict(tally)}")
    reasons = Counter(entry["reason"] for entry in again["snippets"] if "reason" in entry)
    if again["reasons"] != dict(reasons):
        raise ValueError(f"rejudged.reasons: {again['reasons']} is not the tally of the reasons")
    why_not = Counter(entry["why"] for entry in again["not_rejudged"])
    if again["why_not"] != dict(why_not):
        raise ValueError(f"rejudged.why_not: {again['why_not']} is not the tally of why not")
    if again["judged"] != len(again["snippets"]) or again["not_judged"] != len(again["not_rejudged"]):
        raise ValueError("rejudged: judged and not_judged are not the lengths of the lists")


def text(record: dict, expected: dict[str, str]) -> str:
    """The record as a short text: stamp, counts, every verdict that is not ``same``, what the chip
    printed where it differs (beside its ``.out``, from ``expected``), what was not reached."""
    stamp, run = record["stamp"], record["check"]
    again = record["cpu_rerun"]
    lines = [
        f"The book's snippets on one {stamp['device_kind']} ({stamp['backend']}, {stamp['devices']} device)",
        f"  JAX {stamp['jax']}, jaxlib {stamp['jaxlib']}, Python {stamp['python']}, {stamp['date']}",
        f"  again on a CPU for what differs or broke: JAX {again['jax']}, Python {again['python']}, {again['date']}",
        f"  {run['reached']} snippets reached within a limit of {run['limit_seconds']} s ({run['order']}); "
        f"{run['not_reached']} not reached",
        "",
        f"the run, {stamp['date']}: " + ", ".join(f"{n} {status}" for status, n in record["counts"].items()),
        "  broke or needs devices, by reason: "
        + ", ".join(f"{n} {why}" for why, n in record["reasons"].items()),
    ]
    again = record.get("rejudged")
    if again:
        left = Counter(entry["why"] for entry in again["not_rejudged"])
        lines += [
            f"the same outputs judged against the declarations of {again['commit'][:12]} "
            f"({again['date']}): "
            + ", ".join(f"{n} {status}" for status, n in again["counts"].items() if n or status == "differs"),
            "  broke or needs devices, by reason: "
            + ", ".join(f"{n} {why}" for why, n in again["reasons"].items()),
            f"  not judged again: {len(again['not_rejudged'])}"
            + "".join(f", {n} {why}" for why, n in sorted(left.items())),
            f"  code at the run: {again['method']}",
        ]
    lines.append("")
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
    if again:
        lines += ["", f"Judged again against the declarations of {again['commit']}: every verdict but same"]
        ranked = sorted(again["snippets"], key=lambda e: (STATUSES.index(e["status"]), e["snippet"]))
        for entry in ranked:
            if entry["status"] != "same":
                detail = entry["detail"] if len(entry["detail"]) <= 160 else entry["detail"][:157] + "..."
                lines.append(f"  {entry['status']:20} {entry['snippet']}: {detail}")
        lines += ["", "Not judged again:"]
        lines += [f"  {entry['snippet']}: {entry['why']}" for entry in again["not_rejudged"]]
    return "\n".join(lines) + "\n"


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _declarations(root: Path, commit: str | None) -> str:
    """The commit whose snippets a re-judgement reads: ``commit`` (HEAD by default), refused when
    the snippets on disk are not that commit's."""
    commit = (_git(root, "rev-parse", "--verify", f"{commit or 'HEAD'}^{{commit}}") or "").strip()
    if not commit:
        raise SystemExit("--rejudge: no such commit (git rev-parse)")
    changed = _git(root, "status", "--porcelain", "--", "snippets")
    differs = _git(root, "diff", "--name-only", commit, "--", "snippets")
    if changed is None or differs is None or changed.strip() or differs.strip():
        first = ((changed or "") + (differs or "")).strip().splitlines()[:1]
        raise SystemExit(
            f"--rejudge: the snippets on disk are not those of {commit[:12]} ({', '.join(first)}): "
            "commit the declarations first, so that the record names what it judged against"
        )
    return commit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.check_record", description=__doc__.split("\n")[0])
    parser.add_argument("progress", type=Path, help="the chip's progress.jsonl (or outputs.json)")
    parser.add_argument("verdicts", type=Path, nargs="?", help="report.json of tools.accelerator --classify")
    parser.add_argument(
        "record", type=Path, nargs="?", help="the record to write (.json; the text beside it)"
    )
    parser.add_argument("--limit", type=int, help="the check's time limit on the chip (s)")
    parser.add_argument("--order", default="the book's order", help="in which order the pages ran")
    parser.add_argument("--page", action="append", default=[], help="the pages in the order they ran")
    parser.add_argument(
        "--rejudge",
        type=Path,
        metavar="RECORD",
        help="judge the run's outputs (PROGRESS) again against the declarations committed now and "
        "add them to RECORD as its 'rejudged' part (the run's part stays as it is)",
    )
    parser.add_argument("--commit", help="with --rejudge: the commit of the declarations (default HEAD)")
    parser.add_argument("--date", help="with --rejudge: the re-judgement's date (default now, UTC)")
    args = parser.parse_args(argv)
    from jaxbook import book_root, outputs, pages

    root = book_root()
    if args.rejudge:
        if args.verdicts or args.record:
            parser.error("--rejudge RECORD takes the progress file only")
        record = json.loads(args.rejudge.read_text(encoding="utf-8"))
        record.pop("rejudged", None)
        validate(record)
        commit = _declarations(root, args.commit)
        record = rejudge(record, args.progress, root, commit, args.date or _now())
        args.record = args.rejudge
    else:
        if args.verdicts is None or args.record is None or args.limit is None:
            parser.error("a record needs PROGRESS VERDICTS RECORD and --limit")
        groups = pages.selection(root, args.page, [])
        if args.page:  # then every other page, as the check ran them
            groups |= {p: s for p, s in pages.selection(root, [], []).items() if p not in groups}
        book = [path.relative_to(root).as_posix() for paths in groups.values() for path in paths]
        verdicts = json.loads(args.verdicts.read_text(encoding="utf-8"))
        record = condense(args.progress, verdicts, book, args.limit, args.order)
    validate(record)
    expected = {
        e["snippet"]: outputs.read_expected(root / e["snippet"]) or ""
        for e in record["snippets"]
        if e["status"] == "differs" and (root / e["snippet"]).is_file()
    }
    args.record.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    args.record.with_suffix(".txt").write_text(text(record, expected), encoding="utf-8")
    print(f"{args.record}: " + ", ".join(f"{n} {s}" for s, n in record["counts"].items()))
    if "rejudged" in record:
        again = record["rejudged"]
        print(
            f"judged again against {again['commit'][:12]}: "
            + ", ".join(f"{n} {s}" for s, n in again["counts"].items())
            + f"; not judged again: {len(again['not_rejudged'])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
