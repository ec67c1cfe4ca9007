"""Expected outputs (jaxbook.outputs, jaxbook.verdict), the page rule (jaxbook.pages) and the
deprecation part of the contract (jaxbook.snippet), in-process."""

from __future__ import annotations

import subprocess
import textwrap
import warnings
from pathlib import Path

import pytest

from jaxbook import ROOT, outputs, pages, verdict
from jaxbook.snippet import SnippetError, execute, parse_warning
from jaxbook.store import CellResult

# --- the normaliser: one test per rule, each with what it must leave alone ---------------------


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
        ("took 1.2 s", "took <duration>"),
        ("took 350 µs", "took <duration>"),
        ("took 12ns", "took <duration>"),
        ("after 2 seconds", "after <duration>"),
        ("took 3.5e-05 s", "took <duration>"),
    ],
)
def test_duration_rule(text, expected):
    assert outputs.normalise(text) == expected + "\n"


@pytest.mark.parametrize(
    "text",
    [
        "10 updates: 0 bytes",
        "shape (3, 4) float32",
        "f32[3,2] 2 samples",
        "x2 s",
        "x: 1.5",
        "mask 3s2",
        "array([1., 2.])",
        "v1.2 s3",
    ],
)
def test_duration_rule_leaves_other_numbers(text):
    assert outputs.normalise(text) == text + "\n"


def test_timing_table_rule():
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


def test_address_rule():
    assert outputs.normalise("<object at 0x7f3a2c1b9e80>") == "<object at 0x<address>>\n"
    assert outputs.normalise("mask 0xff, 0x1234") == "mask 0xff, 0x1234\n"


def test_temporary_name_rule():
    assert outputs.normalise("saved to tmpa1b2c_d4/ckpt") == "saved to <tmp>/ckpt\n"
    assert outputs.normalise("tmp_file and tmpdir") == "tmp_file and tmpdir\n"


def test_whitespace_rule():
    assert outputs.normalise("\n\na  \r\nb\t\n\n\n") == "a\nb\n"
    assert outputs.normalise("") == ""
    assert outputs.normalise("  indented\nkept") == "  indented\nkept\n"


def test_every_rule_is_documented_in_one_place():
    doc = outputs.__doc__
    for name in [rule.name for rule in outputs.RULES] + ["timing-table", "whitespace"]:
        assert f"``{name}``" in doc, name
    for rule in outputs.RULES:  # each example is changed by its own rule
        assert rule.pattern.search(rule.example), rule.name


# --- the message that fails the build -----------------------------------------------------------


def test_difference_names_the_snippet_shows_a_diff_and_the_command():
    message = verdict.difference("snippets/jit/jit_basic.py", "a\nsame: True\nz\n", "a\nsame: False\nz\n")
    assert message.startswith("snippets/jit/jit_basic.py: output differs from snippets/jit/jit_basic.out")
    assert "-same: True\n+same: False\n" in message
    assert "--- snippets/jit/jit_basic.out (expected)" in message
    assert "`make outputs SNIPPET=snippets/jit/jit_basic.py`" in message
    assert verdict.difference("snippets/jit/jit_basic.py", "a\n", "a\n") is None


def test_missing_expected_file_gives_the_same_instruction():
    message = verdict.difference("snippets/a/b.py", None, "x\n")
    assert "snippets/a/b.out does not exist" in message
    assert "`make outputs SNIPPET=snippets/a/b.py`" in message


def test_write_expected_reports_a_change(tmp_path):
    snippet = tmp_path / "s.py"
    assert outputs.write_expected(snippet, "one\n") is True
    assert outputs.write_expected(snippet, "one\n") is False
    assert outputs.read_expected(snippet) == "one\n"


def test_write_expected_keeps_a_file_that_matches_within_tolerance(tmp_path):
    """`make outputs` on another CPU leaves the reviewed file as it is (no diff noise), and
    rewrites it when something real changed."""
    from jaxbook.compare import Tolerance

    snippet = tmp_path / "s.py"
    outputs.write_expected(snippet, "w: 2.9973, steps: 200\n")
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 200\n", Tolerance(rtol=1e-3)) is False
    assert outputs.read_expected(snippet) == "w: 2.9973, steps: 200\n"
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 200\n") is True  # beyond the default
    assert outputs.write_expected(snippet, "w: 2.9968, steps: 201\n", Tolerance(rtol=1e-3)) is True
    assert outputs.read_expected(snippet) == "w: 2.9968, steps: 201\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.out"]  # no temporary file left behind


# --- the page rule ------------------------------------------------------------------------------


def test_every_snippet_belongs_to_the_page_that_loads_it():
    """The rule of jaxbook.pages.page_of holds for the whole book: from a snippet's path alone
    one finds the page that shows it."""
    wrong = []
    for page in pages.book_pages(ROOT):
        for snippet in pages.loaded_snippets(page):
            try:
                home = pages.page_of(snippet, ROOT)
            except ValueError as exc:
                wrong.append(str(exc))
                continue
            if home != page:
                wrong.append(
                    f"{snippet.relative_to(ROOT)} is loaded by {page.relative_to(ROOT)} "
                    f"but the rule gives {home.relative_to(ROOT)}"
                )
    assert not wrong, "\n".join(wrong)


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


def test_selection_orders_a_pages_snippets_as_its_cells():
    selected = pages.selection(ROOT, ["guide/jit.md"], [])
    assert list(selected) == ["guide/jit.md"]
    assert selected["guide/jit.md"] == pages.loaded_snippets(ROOT / "guide" / "jit.md")
    one = pages.selection(ROOT, [], ["snippets/jit/jit_basic.py"])
    assert one == {"guide/jit.md": [ROOT / "snippets" / "jit" / "jit_basic.py"]}
    with pytest.raises(ValueError, match="a helper has no output of its own; use HELPER="):
        pages.selection(ROOT, [], ["snippets/training/_model.py"])


def test_selection_refuses_a_snippet_its_page_does_not_load(tmp_path):
    """The page rule says where a snippet is shown; until that page loads it there is no output
    to accept, and the message gives the cell to add."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "jit.md").write_text("# Jit\n")
    (tmp_path / "snippets" / "jit").mkdir(parents=True)
    (tmp_path / "snippets" / "jit" / "new.py").write_text("print(1)\n")
    with pytest.raises(ValueError) as caught:
        pages.selection(tmp_path, [], ["snippets/jit/new.py"])
    assert str(caught.value) == (
        "snippets/jit/new.py: guide/jit.md does not load it, so it has no output yet; add a cell to "
        "guide/jit.md:\n```{code-cell} ipython3\n:load: ../snippets/jit/new.py\n```"
    )


# --- deprecations break the contract unless declared --------------------------------------------

DEPRECATED = "import numpy as np\n\nprint(np.asarray(1))\n{call}\n"


def deprecating(category="DeprecationWarning", message="old_api is deprecated"):
    # Attributed to the snippet's own line, like a library warning raised with stacklevel=2.
    return f"import warnings\n\nwarnings.warn({message!r}, {category})\nprint('after')\n"


def run(source, name="snippets/demo/x.py", shown=None):
    """The deprecations the snippet raised (``execute``'s ``observed``); the warnings it showed, as
    a reader would see them, are appended to ``shown`` (and kept out of pytest's summary)."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        try:
            execute(source, name, {"__name__": "__main__"}, observed=seen)
        finally:
            if shown is not None:
                shown.extend(caught)
    return seen


def test_undeclared_deprecation_fails_naming_snippet_and_warning():
    shown = []
    with pytest.raises(SnippetError) as info:
        run(deprecating(), shown=shown)
    assert [(w.category, w.filename, w.lineno) for w in shown] == [
        (DeprecationWarning, "snippets/demo/x.py", 3)
    ]
    message = str(info.value)
    assert message.startswith("snippets/demo/x.py:3: DeprecationWarning")
    assert "old_api is deprecated" in message and "# warns: DeprecationWarning" in message


def test_undeclared_future_warning_fails():
    with pytest.raises(SnippetError, match="x.py:3: FutureWarning"):
        run(deprecating("FutureWarning"))


def test_library_deprecation_fails(monkeypatch):
    import optax

    if not hasattr(optax, "global_norm"):
        pytest.skip("optax no longer has global_norm")
    shown = []
    with pytest.raises(SnippetError, match=r"x.py:3: DeprecationWarning.*optax.tree.norm"):
        run("import jax.numpy as jnp\nimport optax\noptax.global_norm({'a': jnp.ones(2)})\n", shown=shown)
    # Shown as the reader sees it: the library's file relative to its package, no machine path.
    assert shown and all(w.filename.startswith("optax/") for w in shown), [w.filename for w in shown]


def test_declared_deprecation_passes_and_is_observed():
    seen = run("# warns: DeprecationWarning\n# warns-match: old_api\n" + deprecating())
    assert seen == ["DeprecationWarning: old_api is deprecated"]


@pytest.mark.parametrize(
    "header, message",
    [
        (
            "# warns: DeprecationWarning\n",
            "declares '# warns: DeprecationWarning' but no DeprecationWarning was raised",
        ),
        ("# warns: FutureWarning\n", "x.py:1: declares '# warns: FutureWarning'"),
    ],
)
def test_declared_deprecation_that_is_not_raised_fails(header, message):
    with pytest.raises(SnippetError) as info:
        run(header + "print('nothing deprecated')\n")
    assert message in str(info.value)


def test_declared_pattern_must_match():
    with pytest.raises(SnippetError, match="x.py:5: DeprecationWarning"):
        run("# warns: DeprecationWarning\n# warns-match: ^other$\n" + deprecating())


def test_other_warnings_and_other_libraries_pass():
    assert run(deprecating("UserWarning")) == []
    # A deprecation raised inside a library that is not watched (attributed to its own file).
    source = (
        "import warnings\n\nwarnings.warn_explicit('old', DeprecationWarning, "
        "'/x/site-packages/otherlib/m.py', 1)\n"
    )
    assert run(source) == ["DeprecationWarning: old"]


@pytest.mark.parametrize(
    "source, message",
    [
        ("# warns: Deprecation Warning\n", "x.py:1: malformed warning declaration: '# warns:' needs"),
        ("# warns-match: x\n", "'# warns-match:' without '# warns:'"),
        ("x = 1\n# warns: FutureWarning\n", "x.py:2: malformed warning declaration: '# warns:' must"),
    ],
)
def test_malformed_warning_declarations(source, message):
    with pytest.raises(SnippetError) as info:
        parse_warning(source, "snippets/demo/x.py")
    assert message in str(info.value)


def test_a_warning_declaration_must_name_a_warning():
    with pytest.raises(SnippetError, match="'ValueError' is not a warning class"):
        run("# warns: ValueError\nx = 1\n")


def test_warning_filters_are_restored():
    before = list(warnings.filters)
    run("# warns: DeprecationWarning\n" + deprecating())
    assert warnings.filters == before


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
