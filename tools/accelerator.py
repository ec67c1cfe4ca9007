"""``make accelerator``: every snippet run on this machine's own devices, compared with its ``.out``.

Each snippet runs as the build runs it, on the devices JAX finds (``JAXBOOK_DEVICES=own``), and gets
one of the verdicts :data:`STATUSES` (docs/contributing.md); the report, stamped with the devices
and versions, goes to ``--out``. A snippet that differs or broke runs again on the same machine's
CPU, on the book's 8 emulated devices and on as many as the machine has: what differs there too is
the machine's JAX (a version difference) or its device count, not its platform. Exits 1 when a
snippet differs or broke.
"""

import argparse
import hashlib
import inspect
import json
import os
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

from jaxbook import book_root, compare, layout, outputs, pages, runtime
from jaxbook.execute import Kernel
from jaxbook.results import CellResult
from jaxbook.snippet import (
    DECLARATION,
    PlatformDifference,
    SnippetError,
    parse_platforms,
    parse_tolerance,
    source_of,
)

#: The check's verdicts, in its report's order (and a record's, tools/check_record.py); the last two fail.
NEEDS_DEVICES = f"needs {runtime.DEVICE_COUNT} devices"
STATUSES = (
    "same",
    "within tolerance",
    "accelerator output",
    "declared difference",
    "version difference",
    NEEDS_DEVICES,
    "differs",
    "broke",
)
FAILING = ("differs", "broke")
#: Characters of a verdict's detail in the text report (the JSON report keeps all of it).
DETAIL = 200

# A device's repr (TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)) and str (cuda:0).
_DEVICE_REPR = re.compile(r"\b(?:Cpu|Cuda|Rocm|Gpu|Tpu)Device\(id=(\d+)(?:[^()]|\([^()]*\))*\)")
_DEVICE_STR = re.compile(r"\b(?:cpu|cuda|rocm|gpu|tpu):(\d+)\b")
#: What the check writes as it goes: one line of JSON per page run ({"devices", "cells"}), so that a
#: run stopped early still leaves its outputs (``--classify`` judges them later).
PROGRESS = "progress.jsonl"
#: Every output of the machine's own devices, with the stamp (``--classify`` reads it).
OUTPUTS = "outputs.json"
#: The distributions that run JAX on an accelerator (names normalised), listed in the stamp.
PLUGINS = ("jax-cuda", "jax-rocm", "libtpu", "nvidia-cuda-runtime", "nvidia-cudnn")


def device_names(text: str) -> str:
    """``text`` with each device's platform left out of its name (``CudaDevice(id=2)`` ->
    ``Device(id=2)``, ``cuda:2`` -> ``device:2``): the ids stay, so another device is another text."""
    return _DEVICE_STR.sub(r"device:\1", _DEVICE_REPR.sub(r"Device(id=\1)", text))


@dataclass
class Verdict:
    """One snippet's result: ``status``, one of :data:`STATUSES`, and why."""

    snippet: str
    status: str
    detail: str = ""


def _why(want: str, got: str, tolerance: compare.Tolerance) -> str:
    return "; ".join(compare.explain(want, got, tolerance))


def classify(
    expected: str,
    actual: str,
    tolerance: compare.Tolerance,
    declared: PlatformDifference | None = None,
    variant: str | None = None,
    broke: str | None = None,
) -> tuple[str, str]:
    """``(status, detail)`` of ``actual`` against the ``.out`` file's ``expected`` under the
    snippet's ``tolerance``, then under what it declares for this platform (``declared``) and
    against its reviewed accelerator output (``variant``); ``broke``: how it broke its contract."""
    if broke is not None:
        return "broke", (broke.strip().splitlines() or ["broke its contract"])[0]
    want, got = device_names(expected), device_names(actual)
    if compare.matches(want, got, tolerance):
        return "same", ""
    if declared is None:
        return "differs", _why(want, got, tolerance)
    if not declared.differs:
        platform_tolerance = compare.Tolerance(declared.rtol, declared.atol, tolerance.varies)
        if compare.matches(want, got, platform_tolerance):
            return "within tolerance", declared.reason
        return "differs", _why(want, got, platform_tolerance)
    if variant is None:
        return "declared difference", declared.reason
    if compare.matches(device_names(variant), got, tolerance):
        return "accelerator output", declared.reason
    return "differs", f"from its .{declared.platform}.out: " + _why(device_names(variant), got, tolerance)


def code_hash(source: str) -> str:
    """A short hash of a snippet's code: every line but its ``# platform:`` declarations, which a
    re-judgement may add without changing what the snippet runs (``check_record --rejudge``)."""
    code = "\n".join(
        line
        for line in source.splitlines()
        if (declared := DECLARATION.match(line.strip())) is None or declared[1] != "platform"
    )
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:16]


def stamp() -> dict:
    """What runs the snippets (call it in their process): :func:`jaxbook.runtime.stamp`, the
    platform's runtime (CUDA, ROCm or TPU), the accelerator plugins installed, and the date."""
    from importlib.metadata import distributions

    import jax

    backend = jax.default_backend()
    versions = {re.sub(r"[-_.]+", "-", d.metadata["Name"] or "").lower(): d.version for d in distributions()}
    plugins = {name: version for name, version in versions.items() if name.startswith(PLUGINS)}
    return {
        **runtime.stamp(),
        "platform": None if backend == "cpu" else backend,  # whose ``# platform:`` lines apply
        "platform_version": str(getattr(jax.devices()[0].client, "platform_version", "")).strip(),
        "plugins": dict(sorted(plugins.items())),
        "jax_platforms": os.environ.get("JAX_PLATFORMS") or None,  # as the kernel saw it
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


#: What the kernel runs to say what it runs on: :func:`stamp`'s own code, so that the book's kernel
#: loads the machinery it imports (``jaxbook.runtime``) and no tool (tests/test_layers.py's rule).
STAMP = "\n".join(
    [
        "import json, os, re",
        "from datetime import UTC, datetime",
        "from jaxbook import runtime",
        f"PLUGINS = {PLUGINS!r}",
        inspect.getsource(stamp),
        "__jaxbook_stamp__ = json.dumps(stamp())",
    ]
)


def run(
    groups: dict[str, list[Path]], devices: str, root: Path, progress: Path | None = None
) -> tuple[dict, dict]:
    """Run each page's snippets (``{page: [paths]}``) in the book's kernel on ``devices``
    (``JAXBOOK_DEVICES``): ``(stamp, {snippet name: CellResult})``. Nothing is stored but, with
    ``progress``, one line of JSON per page appended to that file as it ends, with the hash of each
    snippet's code that ran (``sources``: ``check_record --rejudge`` judges only code unchanged)."""
    with mock.patch.dict(os.environ, JAXBOOK_DEVICES=devices):
        kernel = Kernel(root)
    results = {}
    try:
        found = json.loads(kernel.request(STAMP, "__jaxbook_stamp__"))
        if progress is not None:
            with progress.open("a", encoding="utf-8") as log:
                log.write(json.dumps({"devices": devices, "stamp": found}) + "\n")
        for paths in groups.values():
            cells = kernel.run_page(paths)
            results.update((cell.snippet, cell) for cell in cells)
            if progress is not None:
                with progress.open("a", encoding="utf-8") as log:
                    sources = {
                        c.snippet: code_hash((root / c.snippet).read_text(encoding="utf-8")) for c in cells
                    }
                    page = {"devices": devices, "cells": [asdict(c) for c in cells], "sources": sources}
                    log.write(json.dumps(page) + "\n")
    finally:
        kernel.close()
    return found, results


def judge(path: Path, cell, platform: str | None, root: Path) -> Verdict:
    """The :class:`Verdict` of ``cell``, the result of the snippet at ``path``, on ``platform``
    (``gpu``, ``tpu``; None on a CPU, where no ``# platform:`` line applies)."""
    name = path.relative_to(root).as_posix()
    try:
        tolerance = parse_tolerance(source_of(path), name)
        declared = parse_platforms(source_of(path), name).get(platform)
    except SnippetError as exc:
        return Verdict(name, "broke", str(exc))
    expected = outputs.read_expected(path)
    if expected is None:
        return Verdict(name, "broke", f"{name}: no .out file (make outputs SNIPPET={name})")
    variant = outputs.expected_path(path, platform) if platform else None
    variant_text = variant.read_text(encoding="utf-8") if variant and variant.is_file() else None
    return Verdict(name, *classify(expected, cell.text, tolerance, declared, variant_text, cell.contract))


def _same_output(first, second, path: Path, root: Path) -> bool:
    """Whether two results of the snippet at ``path`` print the same (device names aside, within its
    tolerance), or broke the same way."""
    if first.contract or second.contract:
        lines = [
            device_names((c.contract or "").strip().splitlines()[0] if c.contract else "")
            for c in (first, second)
        ]
        return lines[0] == lines[1]
    name = path.relative_to(root).as_posix()
    try:
        tolerance = parse_tolerance(source_of(path), name)
    except SnippetError:
        return False
    return compare.matches(device_names(first.text), device_names(second.text), tolerance)


def on_cpu(
    found: dict, verdicts: list, results: dict, groups: dict[str, list[Path]], root: Path, progress=None
) -> dict | None:
    """Run the snippets that differ or broke on ``found``'s devices again on this machine's CPU (the
    book's 8 emulated devices, and as many as ``found`` has when fewer) and relabel them: what
    prints its ``.out`` there but not with ``found``'s count needs the book's devices; what the CPU
    prints otherwise too, the same way, is a version difference (this machine's JAX, not its
    platform). Returns the CPU run's stamp (None when nothing ran again)."""
    count = found["devices"]
    suspects = {root / v.snippet: v for v in verdicts if v.status in FAILING}
    if not suspects or (found["platform"] is None and count >= runtime.DEVICE_COUNT):
        return None
    again = {page: [path for path in group if path in suspects] for page, group in groups.items()}
    again = {page: paths for page, paths in again.items() if paths}
    cpu_found, on_book = run(again, f"cpu:{runtime.DEVICE_COUNT}", root, progress)
    on_count = run(again, f"cpu:{count}", root, progress)[1] if count < runtime.DEVICE_COUNT else on_book
    for path, verdict in suspects.items():
        own, book, counted = results[verdict.snippet], on_book[verdict.snippet], on_count[verdict.snippet]
        book_verdict = judge(path, book, None, root)
        counted_verdict = judge(path, counted, None, root)
        if book_verdict.status == "same":
            if counted_verdict.status != "same":
                verdict.status = NEEDS_DEVICES
                verdict.detail = (
                    f"{counted_verdict.status} on {count} emulated CPU device(s) too (the outputs are "
                    f"those of {runtime.DEVICE_COUNT}): {verdict.detail}"
                )
            else:
                verdict.detail = f"prints its .out on this machine's CPU: {verdict.detail}"
        elif _same_output(own, book, path, root):
            verdict.status = "version difference"
            verdict.detail = f"prints the same on this machine's CPU ({runtime.DEVICE_COUNT} devices): {book_verdict.detail}"
        elif (
            count < runtime.DEVICE_COUNT
            and counted_verdict.status != "same"
            and _same_output(own, counted, path, root)
        ):
            verdict.status = NEEDS_DEVICES
            verdict.detail = (
                f"{counted_verdict.status} on {count} emulated CPU device(s) too; on "
                f"{runtime.DEVICE_COUNT}: {book_verdict.status} ({book_verdict.detail})"
            )
        else:
            verdict.detail = f"{book_verdict.status} on this machine's CPU too, otherwise: {verdict.detail}"
    return cpu_found


def run_and_judge(
    groups: dict[str, list[Path]], devices: str, root: Path, out: Path | None = None, again: bool = True
) -> tuple[dict, list, dict]:
    """Run and judge the snippets of ``groups`` on ``devices``; those that differ or broke run again
    on this machine's CPU (:func:`on_cpu`; not with ``again=False``). With ``out``, the progress and
    every output are written there as they come (:data:`PROGRESS`, :data:`OUTPUTS`). Returns the
    stamp (with ``cpu_rerun``, the CPU's stamp), the verdicts and the results (by snippet name)."""
    progress = out / PROGRESS if out else None
    if progress is not None:
        out.mkdir(parents=True, exist_ok=True)
        progress.write_text("", encoding="utf-8")
    found, results = run(groups, devices, root, progress)
    if out is not None:
        write_outputs(out, found, results)
    return judge_all(found, results, groups, root, progress if again else False)


def write_outputs(out: Path, found: dict, results: dict) -> None:
    data = {"stamp": found, "results": {name: asdict(cell) for name, cell in results.items()}}
    (out / OUTPUTS).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def judge_all(found: dict, results: dict, groups: dict[str, list[Path]], root: Path, progress=None):
    """The verdicts of ``results`` (run on ``found``'s devices), relabelled by :func:`on_cpu` unless
    ``progress`` is False."""
    verdicts = [judge(root / name, cell, found["platform"], root) for name, cell in results.items()]
    if progress is not False:
        found = dict(found, cpu_rerun=on_cpu(found, verdicts, results, groups, root, progress))
    return found, verdicts, results


def load_outputs(path: Path) -> tuple[dict, dict]:
    """The stamp and results of an :data:`OUTPUTS` file, or of a :data:`PROGRESS` file (its first
    devices' pages: a run stopped early)."""
    if path.name.endswith(".jsonl"):
        found, results, first = None, {}, None
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            first = first or entry["devices"]
            if entry["devices"] != first:
                break
            if "stamp" in entry:
                found = entry["stamp"]
            results.update((c["snippet"], CellResult(**c)) for c in entry.get("cells", []))
        return found, results
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["stamp"], {name: CellResult(**cell) for name, cell in data["results"].items()}


def accept(verdicts: list[Verdict], results: dict, platform: str | None, root: Path) -> list[str]:
    """Write ``<name>.<platform>.out`` of each snippet that declares it ``differs`` on ``platform``
    and printed another output than its reviewed one; returns the files written."""
    written = []
    for verdict in verdicts:
        if verdict.status not in ("declared difference", "differs"):
            continue
        path = root / verdict.snippet
        declared = parse_platforms(source_of(path), verdict.snippet).get(platform)
        if not (declared and declared.differs):
            continue
        tolerance = parse_tolerance(source_of(path), verdict.snippet)
        if outputs.write_expected(path, results[verdict.snippet].text, tolerance, platform):
            written.append(outputs.expected_path(path, platform).relative_to(root).as_posix())
    return written


def report(found: dict, verdicts: list[Verdict]) -> tuple[dict, str]:
    """The report as JSON data and as text: the stamp, the count of each verdict, one line per
    snippet that is not ``same``."""
    ranked = sorted(verdicts, key=lambda v: (STATUSES.index(v.status), v.snippet))
    counts = dict(Counter(v.status for v in ranked))  # in the order of STATUSES
    data = {"stamp": found, "counts": counts, "snippets": [asdict(v) for v in verdicts]}
    runtime_version = f", {found['platform_version']}" if found.get("platform_version") else ""
    lines = [
        "The book's snippets on this machine's own devices (make accelerator)",
        f"  devices:  {found['devices']} x {found['device_kind']} ({found['backend']}{runtime_version})",
        f"  JAX {found['jax']}, jaxlib {found['jaxlib']}, Python {found['python']}, CPU {found['cpu']}",
        f"  plugins:  {', '.join(f'{k} {v}' for k, v in found['plugins'].items()) or 'none'}",
        f"  date:     {found['date']}",
        *([f"  JAX_PLATFORMS={found['jax_platforms']}"] if found.get("jax_platforms") else []),
        *(
            [
                f"  again on: this machine's CPU, JAX {again['jax']}, {again['cpu']}, "
                f"for what differs or broke (a version difference: the CPU prints the same)"
            ]
            if (again := found.get("cpu_rerun"))
            else []
        ),
        "",
        f"{len(verdicts)} snippets: " + ", ".join(f"{n} {status}" for status, n in counts.items()),
    ]
    for verdict in ranked:
        if verdict.status != "same":
            detail = verdict.detail if len(verdict.detail) <= DETAIL else verdict.detail[: DETAIL - 3] + "..."
            lines.append(f"  {verdict.status:20} {verdict.snippet}" + (f": {detail}" if detail else ""))
    return data, "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.accelerator", description=__doc__.split("\n")[0])
    parser.add_argument("--snippet", action="append", default=[], help="a snippet to check (repeatable)")
    parser.add_argument("--page", action="append", default=[], help="every snippet of a page (repeatable)")
    parser.add_argument("--devices", default="own", help="own (default) or cpu:N, as JAXBOOK_DEVICES")
    parser.add_argument("--accept", action="store_true", help="write <name>.<platform>.out where declared")
    parser.add_argument("--out", default=layout.ACCELERATOR, type=Path, help="the report's folder")
    parser.add_argument(
        "--skip",
        type=Path,
        action="append",
        default=[],
        help="an outputs.json or progress.jsonl of an earlier run: its snippets are not run again",
    )
    parser.add_argument("--no-cpu", action="store_true", help="do not run what differs again on the CPU")
    parser.add_argument(
        "--classify",
        type=Path,
        help="judge the outputs.json (or progress.jsonl) of an earlier run instead of running, "
        "the snippets that differ run again on this machine's CPU",
    )
    args = parser.parse_args(argv)
    root = book_root()
    try:
        groups = pages.selection(root, args.page, args.snippet)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    done = {name for path in args.skip if path.is_file() for name in load_outputs(path)[1]}
    groups = {
        page: [p for p in paths if p.relative_to(root).as_posix() not in done]
        for page, paths in groups.items()
    }
    groups = {page: paths for page, paths in groups.items() if paths}
    if args.classify:
        found, results = load_outputs(args.classify)
        groups = {
            page: [p for p in paths if p.relative_to(root).as_posix() in results]
            for page, paths in groups.items()
        }
        args.out.mkdir(parents=True, exist_ok=True)
        progress = False if args.no_cpu else args.out / PROGRESS
        found, verdicts, results = judge_all(found, results, groups, root, progress)
    else:
        found, verdicts, results = run_and_judge(groups, args.devices, root, args.out, not args.no_cpu)
    data, text = report(found, verdicts)
    if args.accept:
        data["written"] = accept(verdicts, results, found["platform"], root)
        text += "".join(f"wrote {name}: review it with git diff\n" for name in data["written"])
    args.out.mkdir(parents=True, exist_ok=True)
    report_json = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    (args.out / "report.json").write_text(report_json, encoding="utf-8")
    (args.out / "report.txt").write_text(text, encoding="utf-8")
    print(text + f"report: {args.out / 'report.txt'} and {args.out / 'report.json'}")
    return 1 if any(v.status in FAILING for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
