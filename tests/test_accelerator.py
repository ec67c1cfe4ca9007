"""The accelerator check (tools.accelerator) without an accelerator: its verdicts on made-up outputs,
its report and the accelerator outputs it writes, and real runs on one and on 8 CPU devices."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jaxbook import ROOT, runtime
from jaxbook.compare import DEFAULT, Tolerance
from jaxbook.deps import project_dependencies
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
def test_a_declared_varying_span_is_hidden_under_the_platform_tolerance_too():
    varies = Tolerance(DEFAULT.rtol, DEFAULT.atol, r"(?<= -> ).+")
    expected, actual = "'a' -> <varies>\n" + X, "'a' -> 'bc'\n" + X_MOVED
    assert classify(expected, actual, varies, TF32)[0] == "within tolerance"
    assert classify(expected, actual.replace("'a'", "'b'"), varies, TF32)[0] == "differs"


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


@unit
def test_the_kernel_says_what_it_runs_on_without_loading_a_tool():
    """The stamp's code runs in the book's kernel, which loads the machinery and no tool."""
    script = f"import json, sys\nexec({accelerator.STAMP!r})\nprint(json.dumps([__jaxbook_stamp__, sorted(sys.modules)]))"
    env = {**os.environ, **runtime.jax_env(), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    found, modules = json.loads(done.stdout)
    assert set(json.loads(found)) >= {"backend", "devices", "plugins", "date", "jax"}
    assert not [m for m in modules if m.split(".")[0] in ("tools", "tests")]


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
    # the progress file keeps the hash of the code each snippet ran, for a later re-judgement
    from tools.check_record import code_hash

    lines = [json.loads(line) for line in (tmp_path / accelerator.PROGRESS).read_text().splitlines()]
    sources = {name: value for line in lines for name, value in line.get("sources", {}).items()}
    assert sources == {name: code_hash((ROOT / name).read_text(encoding="utf-8")) for name in labels}


@unit
def test_what_differs_runs_again_on_the_cpu_and_is_relabelled(tmp_path, monkeypatch):
    """On a TPU with 1 device: a snippet that prints its .out on the machine's CPU (8 devices) but
    not on 1 needs devices; one the CPU prints the same way as the TPU is a version difference; one
    the CPU prints correctly is a platform difference and still differs."""
    folder = tmp_path / "snippets" / "a"
    folder.mkdir(parents=True)
    names = {"mesh": "ok\n", "version": "new wording\n", "platform": "x: 1.000000\n"}
    for name, want in names.items():
        (folder / f"{name}.py").write_text("print('x')\n")
        (folder / f"{name}.out").write_text(want if name != "version" else "old wording\n")
    groups = {"page.md": [folder / f"{name}.py" for name in names]}
    on_tpu = {
        "snippets/a/mesh.py": CellResult(
            "snippets/a/mesh.py", contract="snippets/a/mesh.py:1: raised ValueError: 8"
        ),
        "snippets/a/version.py": CellResult("snippets/a/version.py", text="new wording\n"),
        "snippets/a/platform.py": CellResult("snippets/a/platform.py", text="x: 1.002000\n"),
    }
    on_cpu = {
        "cpu:8": {
            "snippets/a/mesh.py": "ok\n",
            "snippets/a/version.py": "new wording\n",
            "snippets/a/platform.py": "x: 1.000000\n",
        },
        "cpu:1": {
            "snippets/a/mesh.py": None,
            "snippets/a/version.py": "new wording\n",
            "snippets/a/platform.py": "x: 1.000000\n",
        },
    }
    calls = []

    def fake_run(again, devices, root, progress=None):
        calls.append((devices, sorted(p.name for paths in again.values() for p in paths)))
        cells = {}
        for name, text in on_cpu[devices].items():
            broke = None if text is not None else f"{name}:1: raised ValueError: 8"
            cells[name] = CellResult(name, text=text or "", contract=broke)
        return {"jax": "0.10.2", "cpu": "x86_64"}, cells

    monkeypatch.setattr(accelerator, "run", fake_run)
    found = {"platform": "tpu", "devices": 1}
    found, verdicts, _ = accelerator.judge_all(found, on_tpu, groups, tmp_path, progress=None)
    labels = {v.snippet.split("/")[-1]: v.status for v in verdicts}
    assert labels == {
        "mesh.py": "needs 8 devices",
        "version.py": "version difference",
        "platform.py": "differs",
    }
    assert [devices for devices, _ in calls] == ["cpu:8", "cpu:1"]
    assert calls[0][1] == ["mesh.py", "platform.py", "version.py"]
    assert found["cpu_rerun"] == {"jax": "0.10.2", "cpu": "x86_64"}
    platform = next(v for v in verdicts if v.snippet.endswith("platform.py"))
    assert platform.detail.startswith("prints its .out on this machine's CPU")
    # without the rerun, all three fail
    _, verdicts, _ = accelerator.judge_all(
        {"platform": "tpu", "devices": 1}, on_tpu, groups, tmp_path, progress=False
    )
    assert {v.status for v in verdicts} == {"differs", "broke"}


@unit
def test_a_run_stopped_early_leaves_its_outputs_and_they_can_be_judged_later(tmp_path):
    progress = tmp_path / accelerator.PROGRESS
    stamp = {"platform": "tpu", "devices": 1}
    lines = [
        {"devices": "own", "stamp": stamp},
        {"devices": "own", "cells": [{"snippet": "snippets/a/x.py", "text": "1\n"}]},
        {"devices": "cpu:8", "stamp": {"platform": None}},
        {"devices": "cpu:8", "cells": [{"snippet": "snippets/a/x.py", "text": "2\n"}]},
    ]
    progress.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found, results = accelerator.load_outputs(progress)
    assert found == stamp and results["snippets/a/x.py"].text == "1\n"  # the first devices' only
    accelerator.write_outputs(tmp_path, found, results)
    again = accelerator.load_outputs(tmp_path / accelerator.OUTPUTS)
    assert again[0] == stamp and again[1]["snippets/a/x.py"] == results["snippets/a/x.py"]


def newer_fstrings(source: str) -> list[int]:
    """Lines of f-strings that only Python 3.12 parses (PEP 701): an f-string's quote used again
    inside one of its replacement fields, or a backslash there. (``ast.parse``'s ``feature_version``
    does not reject them.)"""
    import io
    import tokenize

    found, quotes = [], []  # the quote of each f-string being read, innermost last
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.FSTRING_START:
            quote = tok.string.lstrip("fFrRbB")
            if quotes and (quote.startswith(quotes[-1]) or "\\" in tok.string):
                found.append(tok.start[0])
            quotes.append(quote)
        elif tok.type == tokenize.FSTRING_END:
            quotes.pop()
        elif quotes and tok.type == tokenize.STRING:
            if tok.string.lstrip("fFrRbBuU").startswith(quotes[-1]) or "\\" in tok.string:
                found.append(tok.start[0])
    return found


#: What the check runs on the accelerator's own Python: its entry points and the kernel with every
#: module they import (derived from the imports, never listed), and the content it executes.
CHECK_ENTRIES = ("tools/accelerator.py", "tools/chip_measure.py", "jaxbook/kernel.py")
PY311_FILES = sorted(
    {p for entry in CHECK_ENTRIES for p in project_dependencies(ROOT / entry, ROOT)}
    | {p for content in ("snippets", "practice") for p in (ROOT / content).rglob("*.py")}
)


@unit
def test_newer_fstrings_finds_what_python_3_11_rejects():
    assert newer_fstrings("x = f\"{'a'}\"\n") == []
    assert newer_fstrings('x = f"{"a"}"\n') == [1]
    assert newer_fstrings("x = f'{g(r\"\\d\")}'\n") == [1]  # a backslash in a field
    assert newer_fstrings('x = f"""{"a"}"""\n') == []


@pytest.mark.inputs(*PY311_FILES, ROOT / "tools" / "accelerator_run.sh")
def test_what_the_check_runs_parses_on_python_3_11():
    """The machines lent with an accelerator come with their own Python (3.11 on a TPU VM): the
    check, the kernel's modules and every snippet must parse there."""
    newer = {
        path.relative_to(ROOT).as_posix(): lines
        for path in PY311_FILES
        if (lines := newer_fstrings(path.read_text(encoding="utf-8")))
    }
    assert newer == {}, "f-strings only Python 3.12 parses (quote or backslash inside a field)"
    script = (ROOT / "tools" / "accelerator_run.sh").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


@pytest.mark.inputs(
    ROOT / "tools" / "chip_measure.py",
    ROOT / "tools" / "chip_record.py",
    ROOT / "snippets" / "profiling" / "_regression.py",
    ROOT / "snippets" / "profiling" / "_mixed.py",
)
def test_chip_measure_runs_on_the_cpu_and_its_record_has_the_shape_the_pages_read(tmp_path):
    """The chip measurements at CPU sizes (--small: a rehearsal, which the record refuses), then
    condensed as a record: every part, in the shape :func:`tools.chip_record.validate` asks for."""
    from tools import chip_measure, chip_record

    env = {k: v for k, v in os.environ.items() if k != "JAXBOOK_DEVICES"} | {"JAX_PLATFORMS": "cpu"}
    args = [sys.executable, "-m", "tools.chip_measure", "--small", "--out", str(tmp_path)]
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    chip = json.loads((tmp_path / "chip.json").read_text())
    assert chip["small"] and chip["stamp"]["backend"] == "cpu" and chip["errors"] == {}
    with pytest.raises(ValueError, match="--small"):
        chip_record.condense(chip)
    record = chip_record.condense(chip | {"small": False}, tmp_path)
    chip_record.validate(record)
    # the CPU's trace has no device thread of operations to summarise; the raw trace is kept, and
    # the run it traced is named (a TPU's trace: tests/test_chip_record.py)
    assert set(chip_record.SHAPE) - {"trace"} <= set(record) and "trace" not in record
    assert chip["parts"]["trace"]["run"] == {"dtype": "bfloat16", "remat": False}
    assert chip["parts"]["trace"]["kept"] == "perfetto_trace.json.gz"
    assert {row["variant"] for row in record["roofline"]["rows"]} == {
        "bfloat16",
        "float32 default",
        "float32 high",
        "float32 highest",
    }
    policy = chip_measure.REMAT_POLICY
    assert [run.get("remat_policy") for run in record["training"]["runs"]] == [None, policy, None, policy]
    assert [(run["dtype"], run["remat"]) for run in record["training"]["runs"]] == [
        ("bfloat16", False),
        ("bfloat16", True),
        ("float32", False),
        ("float32", True),
    ]
    assert record["float16"]["gradients"]["float16"] == 0.0  # the CPU computes float16 in float16
    assert (tmp_path / "perfetto_trace.json.gz").is_file()
    broken = json.loads(json.dumps(record))
    del broken["roofline"]["rows"][2]["tflops"]
    with pytest.raises(ValueError, match=r"record\.roofline\.rows\[2\]: no 'tflops'"):
        chip_record.validate(broken)
    broken["roofline"]["rows"][2]["tflops"] = "fast"
    with pytest.raises(ValueError, match=r"rows\[2\]\.tflops: 'fast' is not float"):
        chip_record.validate(broken)


@pytest.mark.inputs(ROOT / "tools" / "check_record.py", ROOT / "docs" / "records" / "tpu_v5e_check.json")
def test_the_committed_tpu_check_record_has_its_shape_and_its_counts_are_its_verdicts():
    """The report of the check's run on the lent TPU v5e (tools/check_record.py): stamped, every
    verdict one of the check's, the counts and reasons the tally of its verdicts, what the chip
    printed kept where it differs, and no snippet both run and not reached; its re-judgement against
    later declarations the same, and judging only snippets whose code is the code the chip ran. A
    record edited by hand into another shape fails."""
    import copy

    from tools import check_record

    record = json.loads((ROOT / "docs" / "records" / "tpu_v5e_check.json").read_text(encoding="utf-8"))
    check_record.validate(record)
    assert record["stamp"]["backend"] == "tpu" and record["stamp"]["device_kind"].startswith("TPU")
    assert check_record.STATUSES == accelerator.STATUSES
    assert set(record["counts"]) <= set(accelerator.STATUSES)
    again = record["rejudged"]  # the same outputs against the declarations reviewed since
    assert sum(again["counts"].values()) + len(again["not_rejudged"]) == record["check"]["reached"]
    for change in (
        lambda r: r["counts"].update(same=r["counts"].get("same", 0) + 1),
        lambda r: r["not_reached"].append(r["snippets"][0]["snippet"]),
        lambda r: r["snippets"][0].update(status="fine"),
        lambda r: r["reasons"].update(other=r["reasons"].get("other", 0) + 1),
        lambda r: r["stamp"].pop("jax"),
        # its re-judgement (check_record --rejudge): counts that are not its verdicts, a snippet
        # whose code changed since the run judged again, a snippet neither judged nor listed
        lambda r: r["rejudged"]["counts"].update(same=r["rejudged"]["counts"]["same"] + 1),
        lambda r: r["rejudged"]["counts"].pop("differs"),
        lambda r: r["rejudged"]["snippets"][0].update(code_now="0" * 16),
        lambda r: (r["rejudged"]["not_rejudged"] or r["rejudged"]["snippets"]).pop(),
    ):
        edited = copy.deepcopy(record)
        change(edited)
        with pytest.raises(ValueError):
            check_record.validate(edited)


def _git(root, *args, date=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t")
    env |= {"GIT_COMMITTER_EMAIL": "t@t"}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@unit
def test_a_rejudgement_judges_the_runs_outputs_against_new_declarations_and_lists_what_changed(tmp_path):
    """``check_record --rejudge``: the chip's outputs of snippets whose code is the code the chip ran
    are judged against the declarations committed since (a ``# platform: tpu`` line and its
    ``.tpu.out``: accelerator output); a snippet edited since the run or deleted is listed with why,
    not judged; a verdict of the run's CPU re-run stands where the output still differs. The record
    validates; one that claims a changed snippet was judged again, or whose counts are not its
    verdicts, does not."""
    import copy

    from tools import check_record

    folder = tmp_path / "snippets" / "s"
    folder.mkdir(parents=True)
    for name, out in {"x": TPU, "y": X, "z": X, "w": X}.items():
        (folder / f"{name}.py").write_text(f"print({name!r})\n", encoding="utf-8")
        (folder / f"{name}.out").write_text(out if name != "x" else CPU, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "before the run", date="2026-12-06T05:00:00+00:00")
    # since the run: x declares its TPU output, y's code changes, z is deleted, w is as it was
    (folder / "x.py").write_text(
        "# platform: tpu differs -- names the backend\nprint('x')\n", encoding="utf-8"
    )
    (folder / "x.tpu.out").write_text(TPU, encoding="utf-8")
    (folder / "y.py").write_text("print('y', 2)\n", encoding="utf-8")
    (folder / "z.py").unlink()
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "declarations", date="2026-12-06T06:00:00+00:00")
    head = _git(tmp_path, "rev-parse", "HEAD")

    printed = {"x": TPU, "y": X, "z": X, "w": X_MOVED + "more\n"}
    cells = [asdict_cell(f"snippets/s/{n}.py", text) for n, text in printed.items()]
    progress = tmp_path / "progress.jsonl"
    stamp = {"backend": "tpu", "platform": "tpu", "devices": 1, "date": "2026-12-06 05:33 UTC"}
    lines = [{"devices": "own", "stamp": stamp}, {"devices": "own", "cells": cells}]
    progress.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = [
        {"snippet": "snippets/s/x.py", "status": "differs", "detail": "line 1"},
        {"snippet": "snippets/s/y.py", "status": "same", "detail": ""},
        {"snippet": "snippets/s/z.py", "status": "same", "detail": ""},
        {"snippet": "snippets/s/w.py", "status": "version difference", "detail": "prints the same"},
    ]
    run[0]["printed"] = TPU
    record = {
        "stamp": {"device_kind": "TPU v5 lite", "devices": 1, "backend": "tpu", "jax": "0.10.2"}
        | {"date": stamp["date"], "jaxlib": "0.10.2", "python": "3.11"},
        "cpu_rerun": {"jax": "0.10.2", "python": "3.11", "date": "2026-12-06 05:39 UTC"},
        "check": {"limit_seconds": 60, "order": "the book's", "reached": 4, "not_reached": 0},
        "counts": {
            s: {"same": 2, "version difference": 1, "differs": 1}.get(s, 0) for s in check_record.STATUSES
        },
        "reasons": {},
        "snippets": run,
        "not_reached": [],
    }
    check_record.validate(record)
    again = check_record.rejudge(record, progress, tmp_path, head, "2026-12-06 06:30 UTC")
    check_record.validate(again)
    part = again["rejudged"]
    assert part["commit"] == head and again["counts"] == record["counts"]  # the run's stay
    assert {v["snippet"]: v["status"] for v in part["snippets"]} == {
        "snippets/s/x.py": "accelerator output",
        "snippets/s/w.py": "version difference",  # the CPU re-run's verdict stands
    }
    assert {status: n for status, n in part["counts"].items() if n} == {
        "accelerator output": 1,
        "version difference": 1,
    }
    assert set(part["counts"]) == set(check_record.STATUSES)  # zeros too, for a page to cite
    assert (part["judged"], part["not_judged"]) == (2, 2)
    assert part["why_not"] == {check_record.DELETED: 1, check_record.EDITED: 1}
    assert {v["snippet"]: v["why"] for v in part["not_rejudged"]} == {
        "snippets/s/y.py": check_record.EDITED,
        "snippets/s/z.py": check_record.DELETED,
    }
    assert "git log --before" in part["method"]
    summary = check_record.text(again, {})
    assert (
        "the run, 2026-12-06 05:33 UTC: 2 same, 0 within tolerance, 0 accelerator output, "
        "0 declared difference, 1 version difference, 0 needs 8 devices, 1 differs, 0 broke" in summary
    )
    assert f"judged against the declarations of {head[:12]} (2026-12-06 06:30 UTC): 1 accelerator" in summary
    for change in (
        lambda r: r["rejudged"]["snippets"][0].update(code_now="0" * 16),  # claims a changed snippet
        lambda r: r["rejudged"]["not_rejudged"].pop(),
        lambda r: r["rejudged"]["counts"].update(same=1),
        lambda r: r["rejudged"]["not_rejudged"][0].update(why="fine"),
        lambda r: r["rejudged"].update(commit="HEAD"),
        lambda r: r["rejudged"].update(not_judged=1),
        lambda r: r["rejudged"]["why_not"].update({check_record.DELETED: 2}),
    ):
        edited = copy.deepcopy(again)
        change(edited)
        with pytest.raises(ValueError):
            check_record.validate(edited)
    # a change to the code of a snippet moves it out of the judged ones, even with new declarations
    (folder / "w.py").write_text("# platform: tpu rtol=1e-3 -- TPU\nprint('w')  # now\n", encoding="utf-8")
    later = check_record.rejudge(record, progress, tmp_path, head, "2026-12-06 06:40 UTC")
    assert "snippets/s/w.py" in {v["snippet"] for v in later["rejudged"]["not_rejudged"]}
    # a run that recorded the hash of the code it ran is compared by that hash, not by git
    lines[1]["sources"] = {"snippets/s/w.py": check_record.code_hash((folder / "w.py").read_text())}
    progress.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    hashed = check_record.rejudge(record, progress, tmp_path, head, "2026-12-06 06:50 UTC")["rejudged"]
    assert hashed["method"] == "the code hashes the run recorded"
    assert "snippets/s/w.py" in {v["snippet"] for v in hashed["snippets"]}  # judged again


def asdict_cell(snippet, text):
    from dataclasses import asdict

    return asdict(CellResult(snippet=snippet, text=text))
