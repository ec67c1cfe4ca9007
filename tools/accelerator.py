"""``make accelerator``: every snippet run on this machine's own devices, compared with its ``.out``.

Each snippet runs as the build runs it, on the devices JAX finds (``JAXBOOK_DEVICES=own``), and gets
one of the verdicts :data:`STATUSES` (docs/contributing.md); the report, stamped with the devices
and versions, goes to ``--out``. Exits 1 when a snippet differs or broke.
"""

import argparse
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
from jaxbook.snippet import PlatformDifference, SnippetError, parse_platforms, parse_tolerance, source_of

#: The verdicts, in the report's order; the last two fail the check.
NEEDS_DEVICES = f"needs {runtime.DEVICE_COUNT} devices"
STATUSES = (
    "same",
    "within tolerance",
    "accelerator output",
    "declared difference",
    NEEDS_DEVICES,
    "differs",
    "broke",
)
FAILING = ("differs", "broke")
#: Characters of a verdict's detail in the text report (the JSON report keeps all of it).
DETAIL = 200
#: What the kernel runs to say what it runs on (:func:`stamp`).
STAMP = "import json\nfrom tools import accelerator\n__jaxbook_stamp__ = json.dumps(accelerator.stamp())"

# A device's repr (TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)) and str (cuda:0).
_DEVICE_REPR = re.compile(r"\b(?:Cpu|Cuda|Rocm|Gpu|Tpu)Device\(id=(\d+)(?:[^()]|\([^()]*\))*\)")
_DEVICE_STR = re.compile(r"\b(?:cpu|cuda|rocm|gpu|tpu):(\d+)\b")
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
        platform_tolerance = compare.Tolerance(declared.rtol, declared.atol)
        if compare.matches(want, got, platform_tolerance):
            return "within tolerance", declared.reason
        return "differs", _why(want, got, platform_tolerance)
    if variant is None:
        return "declared difference", declared.reason
    if compare.matches(device_names(variant), got, tolerance):
        return "accelerator output", declared.reason
    return "differs", f"from its .{declared.platform}.out: " + _why(device_names(variant), got, tolerance)


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
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def run(groups: dict[str, list[Path]], devices: str, root: Path) -> tuple[dict, dict]:
    """Run each page's snippets (``{page: [paths]}``) in the book's kernel on ``devices``
    (``JAXBOOK_DEVICES``): ``(stamp, {snippet name: CellResult})``. Nothing is stored."""
    with mock.patch.dict(os.environ, JAXBOOK_DEVICES=devices):
        kernel = Kernel(root)
    try:
        found = json.loads(kernel.request(STAMP, "__jaxbook_stamp__"))
        results = {cell.snippet: cell for paths in groups.values() for cell in kernel.run_page(paths)}
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


def run_and_judge(groups: dict[str, list[Path]], devices: str, root: Path) -> tuple[dict, list, dict]:
    """Run and judge the snippets of ``groups`` on ``devices``; with fewer than the book's devices,
    those that differ or broke run again on as many emulated CPU devices, and need the book's
    devices if they fail there too. Returns the stamp, the verdicts and the results (by snippet name)."""
    found, results = run(groups, devices, root)
    verdicts = [judge(root / name, cell, found["platform"], root) for name, cell in results.items()]
    count = found["devices"]
    suspects = {root / v.snippet: v for v in verdicts if v.status in FAILING}
    if count < runtime.DEVICE_COUNT and suspects:
        again = {page: [path for path in group if path in suspects] for page, group in groups.items()}
        _, on_cpu = run(again, f"cpu:{count}", root)
        for path, verdict in suspects.items():
            cpu_verdict = judge(path, on_cpu[verdict.snippet], None, root)
            if cpu_verdict.status != "same":
                verdict.status = NEEDS_DEVICES
                verdict.detail = (
                    f"{cpu_verdict.status} on {count} emulated CPU device(s) too (the outputs are "
                    f"those of {runtime.DEVICE_COUNT}): {verdict.detail}"
                )
    return found, verdicts, results


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
    args = parser.parse_args(argv)
    root = book_root()
    try:
        groups = pages.selection(root, args.page, args.snippet)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    found, verdicts, results = run_and_judge(groups, args.devices, root)
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
