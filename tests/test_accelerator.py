"""The accelerator check (tools.accelerator), tested without an accelerator: its verdicts on
made-up outputs, the device-name rule, the device count read from a mesh's error, the report, the
accelerator outputs it writes, and two real runs on this CPU: one device standing in for a machine
with fewer than 8 (a mesh's cell needs 8 devices, the others match), and 8 emulated devices."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jaxbook import ROOT, runtime
from jaxbook.compare import DEFAULT
from jaxbook.snippet import PlatformDifference
from jaxbook.store import CellResult
from tools import accelerator
from tools.accelerator import Verdict, classify, device_names, needed_devices

#: Unit tests read none of the book's content (tests/pass_cache.py).
unit = pytest.mark.inputs()

TANH = "tanh: [-0.7615942   0.46211717  0.9640276 ]\n"
TANH_GPU = "tanh: [-0.7615941   0.46211714  0.9640275 ]\n"  # 1.3e-7 to 1e-7 of each value away


@unit
def test_same_output_and_device_names_of_another_platform():
    assert classify(TANH, TANH, DEFAULT) == ("same", "")
    cpu = "placed on {CpuDevice(id=0)} and cpu:7\n"
    assert classify(cpu, "placed on {CudaDevice(id=0)} and cuda:7\n", DEFAULT)[0] == "same"
    # the device's id is compared: another device is another output
    assert classify(cpu, "placed on {CudaDevice(id=1)} and cuda:7\n", DEFAULT)[0] == "differs"
    tpu = "TpuDevice(id=3, process_index=0, coords=(1,1,0), core_on_chip=0)"
    assert device_names(f"[{tpu}, tpu:3]") == "[Device(id=3), device:3]"
    assert device_names("a cpu:7x and MyDevice(id=2)") == "a cpu:7x and MyDevice(id=2)"


@unit
def test_a_platform_tolerance_is_used_only_when_declared():
    gpu = PlatformDifference("gpu", False, 1e-5, 0.0, "tanh approximated", 1)
    tight = PlatformDifference("gpu", False, 1e-9, 0.0, "too tight", 1)
    assert classify(TANH, TANH_GPU, DEFAULT)[0] == "same"  # within the default's last-digit allowance
    moved = "x: 1.000200\n"  # 2e-4 away: TF32-like
    assert classify("x: 1.000000\n", moved, DEFAULT)[0] == "differs"
    assert classify("x: 1.000000\n", moved, DEFAULT, gpu)[0] == "differs"  # 1e-5 is too tight
    tf32 = PlatformDifference("gpu", False, 5e-4, 0.0, "TF32 matmuls", 1)
    assert classify("x: 1.000000\n", moved, DEFAULT, tf32) == ("within tolerance", "TF32 matmuls")
    status, detail = classify("x: 1.000000\n", moved, DEFAULT, tight)
    assert status == "differs" and "line 1: 1.000200 where 1.000000 was expected" in detail
    # the text is compared exactly under any tolerance
    assert classify("x: 1.000000\n", "y: 1.000000\n", DEFAULT, tf32)[0] == "differs"


@unit
def test_a_declared_difference_is_compared_with_the_reviewed_accelerator_output():
    differs = PlatformDifference("gpu", True, 0.0, 0.0, "lists the machine's devices", 1)
    assert classify("backend: cpu\n", "backend: gpu\n", DEFAULT, differs) == (
        "declared difference",
        "lists the machine's devices",
    )
    assert classify("backend: cpu\n", "backend: gpu\n", DEFAULT, differs, "backend: gpu\n")[0] == (
        "accelerator output"
    )
    status, detail = classify("backend: cpu\n", "backend: tpu\n", DEFAULT, differs, "backend: gpu\n")
    assert status == "differs" and detail.startswith("from its .gpu.out: line 1")
    # the .out file's own output is still the first comparison
    assert classify("backend: cpu\n", "backend: cpu\n", DEFAULT, differs, "backend: gpu\n")[0] == "same"
    # and nothing is declared on the CPU itself: the same text differs there
    assert classify("backend: cpu\n", "backend: gpu\n", DEFAULT)[0] == "differs"


@unit
def test_a_broken_snippet_is_broke_with_its_first_line():
    status, detail = classify("x\n", "", DEFAULT, broke="snippets/a/b.py:3: raised KeyError: 'k'\nmore")
    assert (status, detail) == ("broke", "snippets/a/b.py:3: raised KeyError: 'k'")


@unit
def test_the_devices_a_mesh_needs_come_from_jax_s_error():
    assert needed_devices("ValueError: Number of devices 1 must be >= the product of mesh_shape (4, 2)") == 8
    assert needed_devices("Number of devices 2 must be >= the product of mesh_shape (16,)") == 16
    assert needed_devices("ValueError: cannot select an axis to squeeze out") is None


@unit
def test_the_report_is_stamped_and_lists_what_is_not_the_same():
    found = {
        "jax": "0.12.0.1",
        "jaxlib": "0.12.0.1",
        "backend": "gpu",
        "devices": 1,
        "python": "3.12.1",
        "cpu": "x86_64 with AVX2",
        "device_kind": "NVIDIA H200",
        "platform": "gpu",
        "platform_version": "PJRT C API\ncuda 12080",
        "plugins": {"jax-cuda12-plugin": "0.12.0.1"},
        "date": "2026-12-04 12:00 UTC",
    }
    verdicts = [
        Verdict("snippets/a/same.py", "same"),
        Verdict("snippets/a/mesh.py", "needs devices", "broke on 1 emulated CPU device(s) too", 8),
        Verdict("snippets/a/odd.py", "differs", "line 1: the text differs"),
        Verdict("snippets/a/names.py", "declared difference", "device names"),
    ]
    data, text = accelerator.report(found, verdicts)
    assert data["stamp"] == found
    assert data["counts"] == {"same": 1, "declared difference": 1, "needs 8 devices": 1, "differs": 1}
    assert [s["label"] for s in data["snippets"]] == [
        "same",
        "needs 8 devices",
        "differs",
        "declared difference",
    ]
    assert "1 x NVIDIA H200 (gpu, PJRT C API\ncuda 12080)" in text
    assert "JAX 0.12.0.1, jaxlib 0.12.0.1" in text and "jax-cuda12-plugin 0.12.0.1" in text
    assert "4 snippets: 1 same, 1 declared difference, 1 needs 8 devices, 1 differs" in text
    assert "  needs 8 devices      snippets/a/mesh.py: broke on 1" in text
    assert "same.py" not in text


def book(tmp_path, header: str, expected: str, gpu: str | None = None):
    """A one-snippet book in ``tmp_path``: snippets/a/x.py with ``header``, its .out and .gpu.out."""
    folder = tmp_path / "snippets" / "a"
    folder.mkdir(parents=True)
    (folder / "x.py").write_text(header + "print('backend: gpu')\n")
    (folder / "x.out").write_text(expected)
    if gpu is not None:
        (folder / "x.gpu.out").write_text(gpu)
    return folder / "x.py"


@unit
def test_judge_reads_the_declarations_and_the_accelerator_output(tmp_path):
    path = book(tmp_path, "# platform: gpu differs -- names the backend\n", "backend: cpu\n")
    cell = CellResult(snippet="snippets/a/x.py", text="backend: gpu\n")
    assert accelerator.judge(path, cell, "gpu", tmp_path).status == "declared difference"
    assert accelerator.judge(path, cell, None, tmp_path).status == "differs"  # on a CPU: no platform
    assert accelerator.judge(path, cell, "tpu", tmp_path).status == "differs"  # declared for gpu only
    (path.with_suffix(".gpu.out")).write_text("backend: gpu\n")
    assert accelerator.judge(path, cell, "gpu", tmp_path).status == "accelerator output"
    broken = CellResult(snippet="snippets/a/x.py", text="", contract="snippets/a/x.py:1: raised KeyError")
    assert accelerator.judge(path, broken, "gpu", tmp_path).status == "broke"


@unit
def test_accept_writes_the_accelerator_output_of_declared_differences_only(tmp_path):
    declared = book(tmp_path, "# platform: gpu differs -- names the backend\n", "backend: cpu\n")
    verdicts = [Verdict("snippets/a/x.py", "declared difference")]
    results = {"snippets/a/x.py": CellResult(snippet="snippets/a/x.py", text="backend: gpu\n")}
    assert accelerator.accept(verdicts, results, None, tmp_path) == []  # on a CPU, nothing
    assert accelerator.accept(verdicts, results, "gpu", tmp_path) == ["snippets/a/x.gpu.out"]
    assert declared.with_suffix(".gpu.out").read_text() == "backend: gpu\n"
    undeclared = Verdict("snippets/a/x.py", "differs")
    declared.write_text("print('backend: gpu')\n")  # no declaration: its difference is a failure
    declared.with_suffix(".gpu.out").unlink()
    assert accelerator.accept([undeclared], results, "gpu", tmp_path) == []
    assert not declared.with_suffix(".gpu.out").exists()


MESH = ROOT / "snippets/sharding/devices_mesh.py"
PLAIN = ROOT / "snippets/jit/jit_basic.py"
PLACED = ROOT / "snippets/jit/log_compiles.py"
RUN_INPUTS = [p for s in (MESH, PLAIN, PLACED) for p in (s, s.with_suffix(".out"))]


def run_check(tmp_path, devices: str) -> tuple[subprocess.CompletedProcess, dict]:
    """``python -m tools.accelerator`` on three snippets with ``--devices``, and its JSON report."""
    args = [sys.executable, "-m", "tools.accelerator", "--devices", devices, "--out", str(tmp_path)]
    for snippet in (MESH, PLAIN, PLACED):
        args += ["--snippet", str(snippet.relative_to(ROOT))]
    env = {k: v for k, v in os.environ.items() if k != "JAXBOOK_DEVICES"}
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    report = (
        json.loads((tmp_path / "report.json").read_text()) if (tmp_path / "report.json").is_file() else {}
    )
    return result, report


@pytest.mark.inputs(*RUN_INPUTS)
def test_one_device_stands_in_for_fewer_than_eight(tmp_path):
    """On the machine's own devices (here: one CPU device), a mesh's cell needs 8 devices and is
    reported, not failed; the others print their .out; the report is stamped with the count."""
    result, report = run_check(tmp_path, "own")
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["stamp"]["devices"] == 1 and report["stamp"]["backend"] == "cpu"
    labels = {s["snippet"]: s["label"] for s in report["snippets"]}
    assert labels == {
        "snippets/sharding/devices_mesh.py": "needs 8 devices",
        "snippets/jit/jit_basic.py": "same",
        "snippets/jit/log_compiles.py": "same",
    }
    text = (tmp_path / "report.txt").read_text()
    assert "3 snippets: 2 same, 1 needs 8 devices" in text and "1 x cpu" in text


@pytest.mark.inputs(*RUN_INPUTS)
def test_eight_devices_print_every_out_file(tmp_path):
    result, report = run_check(tmp_path, f"cpu:{runtime.DEVICE_COUNT}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["stamp"]["devices"] == runtime.DEVICE_COUNT
    assert report["counts"] == {"same": 3}
