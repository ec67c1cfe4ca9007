"""``make accelerator``: every snippet run on this machine's own devices, compared with its ``.out``.

Each snippet runs as the build runs it, in the book's kernel and under the snippet contract, but
on the devices JAX finds (``JAXBOOK_DEVICES=own``: a GPU or TPU when there is one), and gets one
of the verdicts docs/contributing.md lists (same, within tolerance, accelerator output, declared
difference, differs, needs N devices, broke). Device names are compared as one
(:func:`device_names`). The report (``report.json``, ``report.txt`` in ``--out``, default
``_build/accelerator``) is stamped with the devices, JAX, the platform's runtime and the plugins.
Exits 1 when a snippet differs or broke (not for the device count), else 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from jaxbook import book_root, compare, layout, outputs, pages, runtime
from jaxbook.snippet import PlatformDifference, SnippetError, parse_platforms, parse_tolerance, source_of

#: The verdicts, in the report's order; the last two fail the check.
STATUSES = (
    "same",
    "within tolerance",
    "accelerator output",
    "declared difference",
    "needs devices",
    "differs",
    "broke",
)
FAILING = ("differs", "broke")
OUT = layout.ACCELERATOR
#: Characters of a verdict's detail in the text report (the JSON report keeps all of it).
DETAIL = 200

# A device's repr (TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)) and str (cuda:0).
_DEVICE_REPR = re.compile(r"\b(?:Cpu|Cuda|Rocm|Gpu|Tpu)Device\(id=(\d+)(?:[^()]|\([^()]*\))*\)")
_DEVICE_STR = re.compile(r"\b(?:cpu|cuda|rocm|gpu|tpu):(\d+)\b")
#: jax.make_mesh's error when the machine has too few devices (jax/_src/mesh_utils.py).
MESH_ERROR = re.compile(r"Number of devices (\d+) must be >= the product of mesh_shape \(([\d, ]*)\)")


def device_names(text: str) -> str:
    """``text`` with every device's platform left out of its name (``CudaDevice(id=2)`` ->
    ``Device(id=2)``, ``cuda:2`` -> ``device:2``): the ids stay, so another device is another text."""
    return _DEVICE_STR.sub(r"device:\1", _DEVICE_REPR.sub(r"Device(id=\1)", text))


def needed_devices(text: str) -> int | None:
    """The device count a mesh asked for, from JAX's error in ``text``, or None."""
    found = MESH_ERROR.search(text)
    if not found:
        return None
    return math.prod(int(n) for n in found.group(2).split(",") if n.strip())


@dataclass
class Verdict:
    """One snippet's result: ``status`` (one of :data:`STATUSES`), why, and the devices it needs."""

    snippet: str
    status: str
    detail: str = ""
    needed: int | None = None

    def label(self) -> str:
        if self.status == "needs devices":
            return f"needs {self.needed or runtime.DEVICE_COUNT} devices"
        return self.status


def classify(
    expected: str,
    actual: str,
    tolerance: compare.Tolerance,
    declared: PlatformDifference | None = None,
    variant: str | None = None,
    broke: str | None = None,
) -> tuple[str, str]:
    """``(status, detail)`` of one output: ``actual`` against the ``.out`` file's ``expected``
    under the snippet's ``tolerance``, then what the snippet declares for this platform
    (``declared``) and its reviewed accelerator output (``variant``); ``broke``: why the
    snippet broke its contract, if it did."""
    if broke is not None:
        return "broke", broke.strip().splitlines()[0] if broke.strip() else "broke its contract"
    want, got = device_names(expected), device_names(actual)
    if compare.matches(want, got, tolerance):
        return "same", ""
    if declared is not None and not declared.differs:
        if compare.matches(want, got, compare.Tolerance(rtol=declared.rtol, atol=declared.atol)):
            return "within tolerance", declared.reason
        return "differs", "; ".join(
            compare.explain(want, got, compare.Tolerance(declared.rtol, declared.atol))
        )
    if declared is not None and declared.differs:
        if variant is None:
            return "declared difference", declared.reason
        if compare.matches(device_names(variant), got, tolerance):
            return "accelerator output", declared.reason
        reasons = compare.explain(device_names(variant), got, tolerance)
        return "differs", f"from its .{declared.platform}.out: " + "; ".join(reasons)
    return "differs", "; ".join(compare.explain(want, got, tolerance))


def stamp() -> dict:
    """What ran the snippets (call in the process that ran them): :func:`jaxbook.runtime.stamp`,
    the platform's runtime as its client reports it (``platform_version``: the CUDA, ROCm or TPU
    runtime), the accelerator plugins installed, and the date."""
    from importlib.metadata import distributions

    import jax

    device = jax.devices()[0]
    plugin = re.compile(
        r"^(jax[-_](cuda|rocm)\d*[-_](plugin|pjrt)|libtpu.*|nvidia[-_](cuda[-_]runtime|cudnn)[-_].*)$"
    )
    plugins = {
        d.metadata["Name"]: d.version for d in distributions() if plugin.match(d.metadata["Name"] or "")
    }
    return {
        **runtime.stamp(),
        "platform": device.platform,
        "platform_version": str(getattr(device.client, "platform_version", "")).strip(),
        "plugins": dict(sorted(plugins.items())),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def run_snippets(snippets: list[Path], devices: str, root: Path) -> tuple[dict, dict]:
    """Run ``snippets`` page by page in the book's kernel on ``devices`` (``JAXBOOK_DEVICES``);
    returns ``(stamp, {name: CellResult})``. Nothing is stored: these are not the build's results."""
    from jaxbook.execute import Kernel

    by_page: dict[Path, list[Path]] = {}
    for path in snippets:
        by_page.setdefault(pages.page_of(path, root), []).append(path)
    before = os.environ.get("JAXBOOK_DEVICES")
    os.environ["JAXBOOK_DEVICES"] = devices
    try:
        kernel = Kernel(root)
    finally:
        if before is None:
            os.environ.pop("JAXBOOK_DEVICES")
        else:
            os.environ["JAXBOOK_DEVICES"] = before
    results = {}
    try:
        code = (
            "import json\nfrom tools import accelerator\n__jaxbook_stamp__ = json.dumps(accelerator.stamp())"
        )
        found = json.loads(kernel.request(code, "__jaxbook_stamp__"))
        for paths in by_page.values():
            for cell in kernel.run_page(paths):
                results[cell.snippet] = cell
    finally:
        kernel.close()
    return found, results


def judge(path: Path, cell, platform: str | None, root: Path) -> Verdict:
    """The :class:`Verdict` of ``cell``, the result of the snippet at ``path``, on ``platform``
    (``gpu``, ``tpu``; None on a CPU, where no ``# platform:`` line applies)."""
    name = path.relative_to(root).as_posix()
    source = source_of(path)
    try:
        tolerance = parse_tolerance(source, name)
        declared = parse_platforms(source, name).get(platform) if platform else None
    except SnippetError as exc:
        return Verdict(name, "broke", str(exc))
    expected = outputs.read_expected(path)
    if expected is None:
        return Verdict(name, "broke", f"{name}: no .out file (make outputs SNIPPET={name})")
    variant_path = outputs.expected_path(path, platform) if platform else None
    variant = variant_path.read_text(encoding="utf-8") if variant_path and variant_path.is_file() else None
    status, detail = classify(expected, cell.text, tolerance, declared, variant, cell.contract)
    return Verdict(name, status, detail, needed_devices(cell.text + (cell.contract or "")))


def run_and_judge(
    snippets: list[Path], devices: str = "own", root: Path | None = None
) -> tuple[dict, list[Verdict], dict]:
    """Run and judge ``snippets`` on ``devices``; with fewer than the book's devices, run those
    that differ or broke again on as many emulated CPU devices (:data:`STATUSES`). Returns the
    stamp, the verdicts in the order of ``snippets``, and the results (by snippet name)."""
    root = (root or book_root()).resolve()
    found, results = run_snippets(snippets, devices, root)
    platform = found["backend"] if found["backend"] != "cpu" else None
    verdicts = [judge(path, results[path.relative_to(root).as_posix()], platform, root) for path in snippets]
    count = found["devices"]
    suspects = [v for v in verdicts if v.status in FAILING]
    if count < runtime.DEVICE_COUNT and suspects:
        by_name = {path.relative_to(root).as_posix(): path for path in snippets}
        _, again = run_snippets([by_name[v.snippet] for v in suspects], f"cpu:{count}", root)
        for verdict in suspects:
            on_cpu = judge(by_name[verdict.snippet], again[verdict.snippet], None, root)
            if on_cpu.status not in ("same", "within tolerance"):
                needed = verdict.needed or on_cpu.needed
                verdict.status = "needs devices"
                verdict.needed = needed
                verdict.detail = (
                    f"{on_cpu.status} on {count} emulated CPU device(s) too (the outputs are "
                    f"those of {runtime.DEVICE_COUNT}): {verdict.detail}"
                )
    return found, verdicts, results


def accept(verdicts: list[Verdict], results: dict, platform: str | None, root: Path) -> list[str]:
    """Write ``<name>.<platform>.out`` for each snippet that declares ``differs`` on ``platform``
    and printed another output than the reviewed one; returns the files written."""
    written = []
    if platform is None:
        return written
    for verdict in verdicts:
        if verdict.status not in ("declared difference", "differs"):
            continue
        path = root / verdict.snippet
        declared = parse_platforms(source_of(path), verdict.snippet).get(platform)
        if declared is None or not declared.differs:
            continue
        tolerance = parse_tolerance(source_of(path), verdict.snippet)
        if outputs.write_expected(path, results[verdict.snippet].text, tolerance, platform):
            written.append(outputs.expected_path(path, platform).relative_to(root).as_posix())
    return written


def report(found: dict, verdicts: list[Verdict]) -> tuple[dict, str]:
    """The report as JSON data and as text: the stamp, the count of each verdict, one line per
    snippet that is not ``same``."""
    counts = Counter(v.label() for v in verdicts)
    data = {
        "stamp": found,
        "counts": dict(sorted(counts.items(), key=lambda kv: _order(kv[0]))),
        "snippets": [asdict(v) | {"label": v.label()} for v in verdicts],
    }
    lines = [
        "The book's snippets on this machine's own devices (make accelerator)",
        f"  devices:  {found['devices']} x {found['device_kind']} ({found['backend']}"
        + (f", {found['platform_version']}" if found.get("platform_version") else "")
        + ")",
        f"  JAX {found['jax']}, jaxlib {found['jaxlib']}, Python {found['python']}, CPU {found['cpu']}",
        f"  plugins:  {', '.join(f'{k} {v}' for k, v in found['plugins'].items()) or 'none'}",
        f"  date:     {found['date']}",
        "",
        f"{len(verdicts)} snippets: " + ", ".join(f"{n} {label}" for label, n in data["counts"].items()),
    ]
    for verdict in sorted(verdicts, key=lambda v: (_order(v.label()), v.snippet)):
        if verdict.status != "same":
            detail = verdict.detail if len(verdict.detail) <= DETAIL else verdict.detail[: DETAIL - 3] + "..."
            lines.append(f"  {verdict.label():20} {verdict.snippet}" + (f": {detail}" if detail else ""))
    return data, "\n".join(lines) + "\n"


def _order(label: str) -> int:
    return STATUSES.index("needs devices" if label.startswith("needs ") else label)


def selected(snippet_args: list[str], page_args: list[str], root: Path) -> list[Path]:
    """The snippets to check: those named, every snippet of the pages named, or all of them."""
    from jaxbook.execute import book_pages_with_cells

    chosen: list[Path] = []
    for arg in snippet_args:
        path = (root / arg).resolve() if not Path(arg).is_absolute() else Path(arg)
        if not path.is_file() or path.name.startswith("_") or path.suffix != ".py":
            raise SystemExit(f"{arg}: not a snippet file")
        chosen.append(path)
    for arg in page_args:
        page = (root / arg).resolve()
        if not page.is_file():
            raise SystemExit(f"{arg}: no such page")
        chosen += [p for p in pages.read(page).snippets() if p.is_file()]
    if not snippet_args and not page_args:
        for page in book_pages_with_cells(root):
            chosen += [p for p in pages.read(page).snippets() if p.is_file()]
    return list(dict.fromkeys(chosen))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.accelerator", description=__doc__.split("\n")[0])
    parser.add_argument("--snippet", action="append", default=[], help="a snippet to check (repeatable)")
    parser.add_argument("--page", action="append", default=[], help="every snippet of a page (repeatable)")
    parser.add_argument("--devices", default="own", help="own (default) or cpu:N, as JAXBOOK_DEVICES")
    parser.add_argument("--accept", action="store_true", help="write <name>.<platform>.out where declared")
    parser.add_argument("--out", default=str(OUT), help=f"folder of the report (default {OUT})")
    args = parser.parse_args(argv)
    root = book_root().resolve()
    snippets = selected(args.snippet, args.page, root)
    found, verdicts, results = run_and_judge(snippets, args.devices, root)
    data, text = report(found, verdicts)
    platform = found["backend"] if found["backend"] != "cpu" else None
    if args.accept:
        written = accept(verdicts, results, platform, root)
        text += "".join(f"wrote {name}: review it with git diff\n" for name in written)
        data["written"] = written
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "report.txt").write_text(text, encoding="utf-8")
    print(text + f"report: {out / 'report.txt'} and {out / 'report.json'}")
    return 1 if any(v.status in FAILING for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
