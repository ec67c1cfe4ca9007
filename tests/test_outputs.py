"""Expected outputs (jaxbook.outputs) and the page rule (jaxbook.pages), in-process."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from jaxbook import ROOT, outputs, pages
from jaxbook.compare import Tolerance
from jaxbook.results import CellResult


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "first call 88.1 ms, later calls 1.54 ms each",
            "first call <duration>, later calls <duration> each",
        ),
        (
            "jit, call 1:  386.30 ms\njit, call 2:    7.56 ms",
            "jit, call 1: <duration>\njit, call 2: <duration>",
        ),
        (
            "took 1.2 s, 350 µs, 12ns, 2 seconds, 3.5e-05 s",
            "took <duration>, <duration>, <duration>, <duration>, <duration>",
        ),
        ("<object at 0x7f3a2c1b9e80>", "<object at 0x<address>>"),
        ("saved to tmpa1b2c_d4/ckpt", "saved to <tmp>/ckpt"),
        ("\n\na  \r\nb\t\n\n\n", "a\nb"),
        ("  indented\nkept", "  indented\nkept"),
        # what each rule must leave alone
        ("10 updates: 0 bytes, shape (3, 4) float32, f32[3,2] 2 samples", None),
        ("x2 s, x: 1.5, mask 3s2, array([1., 2.]), v1.2 s3", None),
        ("mask 0xff, 0x1234", None),
        ("tmp_file and tmpdir", None),
    ],
)
def test_normalise(text, expected):
    assert outputs.normalise(text) == (text if expected is None else expected) + "\n"
    assert outputs.normalise("") == ""


def test_a_timing_tables_decimals_are_durations_up_to_a_blank_line():
    text = textwrap.dedent("""\
        compile time, measured on the build machine:
             n  jaxpr eqns (loop/scan)  loop [s]  scan [s]
            10          20 / 1             1.124     0.402
            80         160 / 1             6.386     0.325

        after the table: 1.5 stays
        """)
    assert outputs.normalise(text) == textwrap.dedent("""\
        compile time, measured on the build machine:
             n  jaxpr eqns (loop/scan)  loop [s]  scan [s]
            10          20 / 1 <duration> <duration>
            80         160 / 1 <duration> <duration>

        after the table: 1.5 stays
        """)


def test_write_expected_keeps_a_file_that_matches_within_tolerance(tmp_path):
    """`make outputs` on another CPU leaves the reviewed file as it is (no diff noise), and
    rewrites it when something real changed."""
    snippet = tmp_path / "s.py"
    assert outputs.read_expected(snippet) is None
    assert outputs.write_expected(snippet, "w: 2.9973, steps: 200\n") is True
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 200\n", Tolerance(rtol=1e-3)) is False
    assert outputs.read_expected(snippet) == "w: 2.9973, steps: 200\n"
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 200\n") is True  # beyond the default
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 201\n", Tolerance(rtol=1e-3)) is True
    assert outputs.read_expected(snippet) == "w: 2.9968, steps: 201\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.out"]  # no temporary file left behind


def test_write_expected_writes_a_declared_varying_span_as_varies(tmp_path):
    snippet, varies = tmp_path / "s.py", Tolerance(rtol=1e-6, varies=r"(?<= -> ).+")
    assert outputs.write_expected(snippet, "'The ' -> 'cat'\nok: True\n", varies) is True
    assert outputs.read_expected(snippet) == "'The ' -> <varies>\nok: True\n"
    assert outputs.write_expected(snippet, "'The ' -> 'dog'\nok: True\n", varies) is False
    assert outputs.write_expected(snippet, "'The ' -> 'dog'\nok: False\n", varies) is True
    assert outputs.read_expected(snippet) == "'The ' -> <varies>\nok: False\n"


def test_page_rule_cases(tmp_path):
    for page in ("index.md", "guide/jit.md", "docs/faq.md", "practice/arrays/masked_mean.md"):
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("# page\n")
    snippets = tmp_path / "snippets"

    def page(name):
        return pages.page_of(snippets / name, tmp_path).relative_to(tmp_path).as_posix()

    assert page("index/x.py") == "index.md"
    assert page("jit/x.py") == "guide/jit.md"
    assert page("faq/x.py") == "docs/faq.md"
    assert page("practice/masked_mean.py") == "practice/arrays/masked_mean.md"
    with pytest.raises(ValueError, match=r"snippets/nowhere/x.py: .*none exists"):
        page("nowhere/x.py")
    (tmp_path / "docs" / "jit.md").write_text("# clash\n")
    with pytest.raises(ValueError, match="more than one"):
        page("jit/x.py")


# --- make upgrade ---------------------------------------------------------------------------------


def test_upgrade_pins_jax_and_jaxlib_only():
    from tools.upgrade import pin

    text = "# deps\njax==0.12.0.1\njaxlib==0.12.0.1\noptax\njaxtyping==1.0\n"
    assert pin(text, "0.11.2") == "# deps\njax==0.11.2\njaxlib==0.11.2\noptax\njaxtyping==1.0\n"
    assert pin(text, None) == "# deps\njax\njaxlib\noptax\njaxtyping==1.0\n"


#: A stand-in for uv: ``pip compile`` writes a lock that keeps the pins unless ``--upgrade``, with
#: hashes only under ``--generate-hashes``, and says which uv wrote it.
FAKE_UV = """#!/bin/sh
[ "$1 $2" = "pip compile" ] || exit 2
pins=kept; hashes=no
for arg; do case "$arg" in --upgrade) pins=moved;; --generate-hashes) hashes=yes;; esac; done
while [ "$1" != "-o" ]; do shift; done
printf 'uv=%s pins=%s hashes=%s\\n' "$0" "$pins" "$hashes" > "$2"
"""


def test_make_lock_keeps_pins_and_make_upgrade_moves_them_with_one_pinned_uv(tmp_path, monkeypatch):
    """Both write the hashed lock with the uv that tools/uv-requirements.txt pins, installed once."""
    from jaxbook import layout
    from tools import upgrade

    real_run, installs = subprocess.run, []

    def run(command, **kwargs):  # no index here: the pinned install writes the stand-in uv
        if "install" in command or "venv" in command:
            installs.append(command)
            uv = tmp_path / layout.LOCKER / "bin" / "uv"
            uv.parent.mkdir(parents=True, exist_ok=True)
            uv.write_text(FAKE_UV)
            uv.chmod(0o755)
            return subprocess.CompletedProcess(command, 0)
        return real_run(command, **kwargs)

    monkeypatch.setattr(upgrade.subprocess, "run", run)
    uv = (tmp_path / layout.LOCKER / "bin" / "uv").as_posix()
    lock = tmp_path / "requirements.lock"
    upgrade.compile_lock(tmp_path, Path("requirements.in"), Path("requirements.lock"))
    assert lock.read_text() == f"uv={uv} pins=kept hashes=yes\n"
    upgrade.compile_lock(tmp_path, Path("requirements.in"), Path("requirements.lock"), upgrade=True)
    assert lock.read_text() == f"uv={uv} pins=moved hashes=yes\n"
    assert [c[-1] for c in installs if "install" in c] == [str(tmp_path / "tools" / "uv-requirements.txt")]
    dry_run = subprocess.run(["make", "-n", "lock", "VENV="], cwd=ROOT, capture_output=True, text=True)
    assert "-m tools.upgrade compile" in dry_run.stdout, dry_run.stdout + dry_run.stderr


def test_upgrade_summary_lists_each_kind_of_change_per_page(tmp_path):
    from tools.upgrade import summarise

    page = tmp_path / "guide" / "demo.md"
    page.parent.mkdir()
    names = ["same", "changed", "now_raises", "stops", "other", "warns"]
    page.write_text(
        "# demo\n"
        + "".join(f"\n```{{code-cell}} ipython3\n:load: ../snippets/demo/{n}.py\n```\n" for n in names)
    )
    results = {}
    for name in names:
        path = tmp_path / "snippets" / "demo" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
        results[f"snippets/demo/{name}.py"] = CellResult(
            f"snippets/demo/{name}.py",
            text="old\n",
            declared="KeyError" if name in ("stops", "other") else None,
            raised={"now_raises": "ValueError", "other": "jax.errors.TracerBoolConversionError"}.get(name),
            warnings=["DeprecationWarning: gone soon"] if name == "warns" else [],
            contract=None if name == "same" else "broken",
        )
    summary = summarise(tmp_path, "old key", results, changed={"snippets/demo/changed.py"})
    assert summary.startswith("upgrade: old key\n")
    assert "guide/demo.md: 5 of 6 snippets differ" in summary
    assert "snippets/demo/changed.py: output changed; breaks its contract: broken" in summary
    assert "snippets/demo/now_raises.py: now raises ValueError" in summary
    assert "snippets/demo/stops.py: stops raising KeyError" in summary
    assert "other.py: raises jax.errors.TracerBoolConversionError instead of KeyError" in summary
    assert "snippets/demo/warns.py: warns DeprecationWarning: gone soon" in summary
    assert "snippets/demo/same.py" not in summary
