"""The accelerator check (tools.accelerator) without an accelerator: its verdicts on made-up outputs,
its report and the accelerator outputs it writes, and real runs on one and on 8 CPU devices."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jaxbook import ROOT, runtime
from jaxbook.compare import DEFAULT
from jaxbook.results import CellResult
from jaxbook.snippet import PlatformDifference
from tools import accelerator
from tools.accelerator import Verdict, classify, device_names

#: Unit tests read none of the book's content (tests/pass_cache.py).
unit = pytest.mark.inputs()

TANH = "tanh: [-0.7615942   0.46211717  0.9640276 ]\n"
TANH_GPU = "tanh: [-0.7615941   0.46211714  0.9640275 ]\n"  # 1.3e-7 to 1e-7 of each value away
ON_CPU = "placed on {CpuDevice(id=0)} and cpu:7\n"
TF32 = PlatformDifference("gpu", False, 5e-4, 0.0, "TF32 matmuls", 1)
TIGHT = PlatformDifference("gpu", False, 1e-5, 0.0, "too tight", 1)
DIFFERS = PlatformDifference("gpu", True, 0.0, 0.0, "names the backend", 1)
CPU, GPU, TPU = "backend: cpu\n", "backend: gpu\n", "backend: tpu\n"
X, X_MOVED = "x: 1.000000\n", "x: 1.000200\n"  # 2e-4 apart: TF32-like


@unit
@pytest.mark.parametrize(
    "expected, actual, declared, variant, status",
    [
        (TANH, TANH, None, None, "same"),
        (TANH, TANH_GPU, None, None, "same"),  # within the default's last-digit allowance
        (ON_CPU, "placed on {CudaDevice(id=0)} and cuda:7\n", None, None, "same"),
        (ON_CPU, "placed on {CudaDevice(id=1)} and cuda:7\n", None, None, "differs"),  # another device
        (X, X_MOVED, None, None, "differs"),
        (X, X_MOVED, TIGHT, None, "differs"),
        (X, X_MOVED, TF32, None, "within tolerance"),
        (X, "y: 1.000000\n", TF32, None, "differs"),  # text is compared exactly
        (CPU, GPU, None, None, "differs"),
        (CPU, GPU, DIFFERS, None, "declared difference"),
        (CPU, GPU, DIFFERS, GPU, "accelerator output"),
        (CPU, TPU, DIFFERS, GPU, "differs"),
        (CPU, CPU, DIFFERS, GPU, "same"),  # the .out file's output is still the first comparison
    ],
)
def test_each_output_gets_the_verdict_its_declarations_give(expected, actual, declared, variant, status):
    assert classify(expected, actual, DEFAULT, declared, variant)[0] == status


@unit
def test_a_verdict_says_why_and_device_names_keep_their_ids():
    assert classify(X, X_MOVED, DEFAULT, TF32)[1] == "TF32 matmuls"
    assert "line 1: 1.000200 where 1.000000 was expected" in classify(X, X_MOVED, DEFAULT, TIGHT)[1]
    assert classify(CPU, TPU, DEFAULT, DIFFERS, GPU)[1].startswith("from its .gpu.out: line 1")
    broke = classify("x\n", "", DEFAULT, broke="snippets/a/b.py:3: raised KeyError: 'k'\nmore")
    assert broke == ("broke", "snippets/a/b.py:3: raised KeyError: 'k'")
    tpu = "TpuDevice(id=3, process_index=0, coords=(1,1,0), core_on_chip=0)"
    assert device_names(f"[{tpu}, tpu:3]") == "[Device(id=3), device:3]"
    assert device_names("a cpu:7x and MyDevice(id=2)") == "a cpu:7x and MyDevice(id=2)"


@unit
def test_the_report_is_stamped_and_lists_what_is_not_the_same():
    versions = {"jax": "0.12.0.1", "jaxlib": "0.12.0.1", "python": "3.12.1", "date": "2026-12-04 12:00 UTC"}
    devices = {"backend": "gpu", "devices": 1, "device_kind": "NVIDIA H200", "platform_version": "cuda 12080"}
    found = versions | devices | {"cpu": "x86_64 with AVX2", "plugins": {"jax-cuda12-plugin": "0.12.0.1"}}
    verdicts = [
        Verdict("snippets/a/same.py", "same"),
        Verdict("snippets/a/mesh.py", "needs 8 devices", "broke on 1 emulated CPU device(s) too"),
        Verdict("snippets/a/odd.py", "differs", "line 1: the text differs"),
        Verdict("snippets/a/names.py", "declared difference", "device names"),
    ]
    data, text = accelerator.report(found, verdicts)
    assert data["stamp"] == found
    assert [s["status"] for s in data["snippets"]] == [
        "same",
        "needs 8 devices",
        "differs",
        "declared difference",
    ]
    assert "1 x NVIDIA H200 (gpu, cuda 12080)" in text and "jax-cuda12-plugin 0.12.0.1" in text
    assert "4 snippets: 1 same, 1 declared difference, 1 needs 8 devices, 1 differs" in text
    assert "  needs 8 devices      snippets/a/mesh.py: broke on 1" in text
    assert "JAX 0.12.0.1, jaxlib 0.12.0.1" in text and "same.py" not in text


@unit
def test_judge_and_accept_read_the_declarations_and_the_accelerator_output(tmp_path):
    path = tmp_path / "snippets" / "a" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text("# platform: gpu differs -- names the backend\nprint('backend: gpu')\n")
    path.with_suffix(".out").write_text(CPU)
    cell = CellResult(snippet="snippets/a/x.py", text=GPU)
    assert accelerator.judge(path, cell, "gpu", tmp_path).status == "declared difference"
    assert accelerator.judge(path, cell, None, tmp_path).status == "differs"  # on a CPU: no platform
    assert accelerator.judge(path, cell, "tpu", tmp_path).status == "differs"  # declared for gpu only
    broken = CellResult(snippet="snippets/a/x.py", text="", contract="snippets/a/x.py:1: raised KeyError")
    assert accelerator.judge(path, broken, "gpu", tmp_path).status == "broke"
    verdicts, results = [Verdict("snippets/a/x.py", "declared difference")], {cell.snippet: cell}
    assert accelerator.accept(verdicts, results, None, tmp_path) == []  # on a CPU, nothing
    assert accelerator.accept(verdicts, results, "gpu", tmp_path) == ["snippets/a/x.gpu.out"]
    assert path.with_suffix(".gpu.out").read_text() == GPU
    assert accelerator.judge(path, cell, "gpu", tmp_path).status == "accelerator output"
    path.with_suffix(".gpu.out").unlink()
    path.write_text("print('backend: gpu')\n")  # no declaration: its difference is a failure
    assert accelerator.accept([Verdict("snippets/a/x.py", "differs")], results, "gpu", tmp_path) == []
    assert not path.with_suffix(".gpu.out").exists()


MESH, PLAIN, PLACED = "sharding/devices_mesh.py", "jit/jit_basic.py", "jit_under_the_hood/cache_key.py"
RUN_INPUTS = [ROOT / "snippets" / s for name in (MESH, PLAIN, PLACED) for s in (name, name[:-3] + ".out")]


@pytest.mark.inputs(*RUN_INPUTS)
@pytest.mark.parametrize(
    "devices, mesh", [("own", "needs 8 devices"), (f"cpu:{runtime.DEVICE_COUNT}", "same")]
)
def test_a_mesh_needs_8_devices_and_the_other_snippets_print_their_out_file(tmp_path, devices, mesh):
    """On the machine's own devices (here one CPU device) the mesh's cell needs 8 devices and is
    reported, not failed; on 8 emulated devices every snippet prints its .out file."""
    args = [sys.executable, "-m", "tools.accelerator", "--devices", devices, "--out", str(tmp_path)]
    args += [arg for name in (MESH, PLAIN, PLACED) for arg in ("--snippet", f"snippets/{name}")]
    env = {k: v for k, v in os.environ.items() if k != "JAXBOOK_DEVICES"}
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["stamp"]["devices"] == (1 if devices == "own" else runtime.DEVICE_COUNT)
    assert report["stamp"]["backend"] == "cpu"
    labels = {s["snippet"]: s["status"] for s in report["snippets"]}
    assert labels == {f"snippets/{MESH}": mesh, f"snippets/{PLAIN}": "same", f"snippets/{PLACED}": "same"}
