"""Unit tests of the snippet contract (jaxbook.snippet): declarations, errors and deprecations."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.compare import DEFAULT, Tolerance
from jaxbook.snippet import (
    PlatformDifference,
    SnippetError,
    Varies,
    check_varies,
    execute,
    parse_platforms,
    parse_tolerance,
    parse_varies,
    restored_state,
    scrub,
    shown,
    trimmed_traceback,
)

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()


def deprecating(category="DeprecationWarning"):
    """A snippet whose line 3 warns, as a library warning raised with stacklevel=2 is attributed."""
    return f"import warnings\n\nwarnings.warn('old_api is deprecated', {category})\nprint('after')\n"


def run(source, shown=None):
    """The deprecations the snippet at snippets/demo/x.py raised (``execute``'s ``observed``); the
    warnings it showed, as a reader sees them, go to ``shown`` (and stay out of pytest's summary)."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        try:
            execute(source, "snippets/demo/x.py", {"__name__": "__main__"}, observed=seen)
        finally:
            if shown is not None:
                shown.extend(caught)
    return seen


def test_declared_error_is_returned_with_trimmed_traceback():
    source = "# raises: ZeroDivisionError\n# match: division\n\ndef f():\n    return 1 / 0\n\nf()\n"
    declaration, error = execute(source, "snippets/demo/x.py", {})
    assert declaration.raises == "ZeroDivisionError" and isinstance(error, ZeroDivisionError)
    text = "".join(trimmed_traceback(error))
    # The reader sees "def f():" ... "f()" as lines 1-4 (the header and the blank line after it
    # are not shown): the traceback counts those lines and quotes them.
    assert shown(source).text.splitlines() == ["def f():", "    return 1 / 0", "", "f()"]
    assert 'File "snippets/demo/x.py", line 4, in <module>\n    f()\n' in text
    assert 'File "snippets/demo/x.py", line 2, in f\n    return 1 / 0\n' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")


def test_jax_names_the_shown_line_and_a_contributor_message_the_file_line():
    header = "# raises: jax.errors.TracerBoolConversionError\n# match: traced array\n\n"
    jit = "import jax\n\n\n@jax.jit\ndef f(x):\n    return 1 if x > 0 else 0\n\n\nf(1.0)\n"
    _, error = execute(header + jit, "snippets/demo/x.py", {})
    assert "snippets/demo/x.py:4 " in str(error)  # JAX: "while tracing f at" its first shown line
    assert 'x.py", line 9, in <module>\n    f(1.0)\n' in "".join(trimmed_traceback(error))
    # For the contributor, who edits the file: its line, the header included (shown line 2 + 3).
    header = "# tolerance: rtol=1e-3 -- a demo\n# platform: tpu differs -- a demo\n\n"
    with pytest.raises(SnippetError, match=r"^snippets/demo/x\.py:5: raised ZeroDivisionError"):
        execute(header + "x = 1\nx / 0\n", "snippets/demo/x.py", {})
    with pytest.raises(SnippetError, match=r"^snippets/demo/x\.py:6: timed out"):
        loop = "import time\n\nwhile True: time.sleep(0.05)\n"
        execute(header + loop, "snippets/demo/x.py", {}, timeout=1)
    deprecated = "import warnings\n\nwarnings.warn('old', DeprecationWarning)\n"
    with (
        warnings.catch_warnings(record=True),
        pytest.raises(SnippetError, match=r"^snippets/demo/x\.py:6: Deprecation"),
    ):
        execute(header + deprecated, "snippets/demo/x.py", {})


def test_library_frames_are_dropped_and_a_jax_error_class_resolves():
    _, error = execute(
        "# raises: TypeError\nimport jax.numpy as jnp\nx = jnp.zeros(2)\nx[0] = 1\n", "x.py", {}
    )
    text = "".join(trimmed_traceback(error))
    assert "site-packages" not in text and "/jax/" not in text and text.count('File "') == 1
    jit = "import jax\n\n@jax.jit\ndef f(x):\n    return 1 if x > 0 else 0\n\nf(1.0)\n"
    _, error = execute("# raises: jax.errors.TracerBoolConversionError\n" + jit, "snippets/demo/x.py", {})
    assert type(error).__name__ == "TracerBoolConversionError"
    assert "snippets/demo/x.py" in str(error)  # JAX names the snippet file, not a temp path


def test_scrub_leaves_package_and_repository_paths_only():
    import optax

    library = Path(optax.__file__).parent / "_src" / "linear_algebra.py"
    assert scrub(f"{library}:44: DeprecationWarning") == "optax/_src/linear_algebra.py:44: DeprecationWarning"
    # The venv may live inside the repository (the README's set-up puts it in .venv/).
    inside = ROOT / ".venv" / "lib" / "python3.12" / "site-packages" / "optax" / "x.py"
    assert scrub(f'File "{inside}", line 3') == 'File "optax/x.py", line 3'
    assert scrub(f"{ROOT}/snippets/demo/x.py:3:{inside}") == "snippets/demo/x.py:3:optax/x.py"


@pytest.mark.parametrize(
    "source, message",
    [
        ("raise KeyError('k')\n", "x.py:1: raised KeyError: 'k', but the snippet declares no error"),
        ("# raises: KeyError\nx = 1\n", "x.py:1: declares '# raises: KeyError' but raised nothing"),
        (
            "# raises: KeyError\nraise LookupError('k')\n",
            "declares '# raises: KeyError' but raised LookupError",
        ),
        (
            "# raises: LookupError\nraise KeyError('k')\n",
            "declares '# raises: LookupError' but raised KeyError",
        ),
        ("# raises: KeyError\n# match: ^z$\nraise KeyError('k')\n", "does not match '# match: ^z$'"),
        ("# raises: NoSuchError\n", "x.py:1: malformed error declaration: 'NoSuchError' is not an exception"),
        ("# raises: jax.errors.NoSuchError\n", "'jax.errors.NoSuchError' is not an exception class"),
        ("# raises: Type Error\n", "x.py:1: malformed error declaration: '# raises:' needs one exception"),
        ("# raises: TypeError\n# raises: ValueError\n", "x.py:2: malformed error declaration: a second"),
        (
            "# match: (\n# raises: TypeError\n",
            "x.py:1: malformed error declaration: '# match:' is not a valid",
        ),
        ("# match: boom\n", "x.py: malformed error declaration: '# match:' without '# raises:'"),
        ("x = 1\n# raises: TypeError\n", "x.py:2: malformed error declaration: '# raises:' must be in the"),
        # deprecations: undeclared (from the snippet, or from a watched library), or declared wrongly
        (deprecating(), "x.py:3: DeprecationWarning while the snippet ran: old_api is deprecated. Replace"),
        (deprecating("FutureWarning"), "x.py:3: FutureWarning while the snippet ran"),
        (
            "# warns: DeprecationWarning\n# warns-match: ^other$\n" + deprecating(),
            "x.py:5: DeprecationWarning",
        ),
        (
            "# warns: DeprecationWarning\n",
            "x.py:1: declares '# warns: DeprecationWarning' but no Deprecation",
        ),
        ("# warns: FutureWarning\n# warns-match: x\n", "but no FutureWarning matching '# warns-match: x'"),
        ("# warns: ValueError\n", "x.py:1: malformed warning declaration: 'ValueError' is not a warning"),
        ("# warns: Deprecation Warning\n", "x.py:1: malformed warning declaration: '# warns:' needs one"),
        ("# warns-match: x\n", "x.py: malformed warning declaration: '# warns-match:' without '# warns:'"),
        ("x = 1\n# warns: FutureWarning\n", "x.py:2: malformed warning declaration: '# warns:' must be"),
        # tolerances: a reason, known names once each, numbers, within (0, 0.05], at the top
        ("# tolerance: rtol=2e-3\n", "x.py:1: malformed tolerance declaration: say why after ' -- '"),
        ("# tolerance: rtol=2e-3 --\n", "x.py:1: malformed tolerance declaration: say why after ' -- '"),
        ("# tolerance: rtl=2e-3 -- why\n", "x.py:1: malformed tolerance declaration: 'rtl=2e-3' is not"),
        ("# tolerance: rtol=1e-3, rtol=2e-3 -- why\n", "'rtol=2e-3' is not 'rtol=<number>'"),
        ("# tolerance: rtol=1.2.3 -- why\n", "'rtol=1.2.3' is not 'rtol=<number>'"),
        ("# tolerance: rtol=0.5 -- why\n", "rtol=0.5 is not a tolerance between 0 and 0.05"),
        ("# tolerance: rtol=0 -- why\n", "rtol=0 is not a tolerance between 0 and 0.05"),
        ("# tolerance: rtol=1e-3 -- a\n# tolerance: rtol=1e-3 -- b\n", "x.py:2: malformed tolerance declar"),
        ("x = 1\n# tolerance: rtol=1e-3 -- why\n", "x.py:2: malformed tolerance declaration: '# tolerance:'"),
        # platforms: known names once each, then 'differs' or a tolerance, and a reason
        ("# platform: gpu differs\n", "x.py:1: malformed platform declaration: say why after 'differs -- '"),
        ("# platform: gpu differs now -- why\n", "say why after 'differs -- '"),
        ("# platform: gpu rtol=1e-5\n", "x.py:1: malformed platform declaration: say why after ' -- '"),
        ("# platform: gpu -- why\n", "x.py:1: malformed platform declaration: say why after ' -- '"),
        ("# platform: cpu differs -- why\n", "'cpu' is not one of gpu, tpu (the .out file is the CPU's"),
        ("# platform: cuda differs -- why\n", "x.py:1: malformed platform declaration: 'cuda' is not one"),
        ("# platform: gpu,gpu differs -- why\n", "x.py:1: malformed platform declaration: a platform named"),
        ("# platform: gpu rtol=0.5 -- why\n", "x.py:1: malformed platform declaration: rtol=0.5 is not a"),
        ("# platform: tpu rtl=1e-3 -- why\n", "x.py:1: malformed platform declaration: 'rtl=1e-3' is not"),
        ("# platform: gpu differs -- a\n# platform: tpu,gpu rtol=1e-3 -- b\n", "x.py:2: malformed platform"),
        ("x = 1\n# platform: gpu differs -- why\n", "x.py:2: malformed platform declaration: '# platform:'"),
        ("# platform:\n", "x.py:1: malformed platform declaration: name the platforms"),
    ],
)
def test_a_broken_contract_fails_naming_the_file_and_line(source, message):
    with pytest.raises(SnippetError) as info:
        run(source + "print(1.5)\n")
    assert str(info.value).startswith("snippets/demo/x.py")
    assert message in str(info.value), str(info.value)


def test_an_undeclared_deprecation_is_shown_as_the_reader_sees_it():
    shown = []
    with pytest.raises(SnippetError, match="# warns: DeprecationWarning' at the top"):
        run(deprecating(), shown=shown)
    assert [(w.category, w.filename, w.lineno) for w in shown] == [
        (DeprecationWarning, "snippets/demo/x.py", 3)
    ]


def test_a_library_deprecation_fails_and_is_shown_without_machine_paths():
    import optax

    if not hasattr(optax, "global_norm"):
        pytest.skip("optax no longer has global_norm")
    shown = []
    with pytest.raises(SnippetError, match=r"x.py:3: DeprecationWarning.*optax.tree.norm"):
        run("import jax.numpy as jnp\nimport optax\noptax.global_norm({'a': jnp.ones(2)})\n", shown=shown)
    assert shown and all(w.filename.startswith("optax/") for w in shown), [w.filename for w in shown]


@pytest.mark.parametrize(
    "source, observed",
    [
        ("y = 1 + 1\n", []),
        (
            "# warns: DeprecationWarning\n# warns-match: old_api\n" + deprecating(),
            ["DeprecationWarning: old_api is deprecated"],
        ),
        (deprecating("UserWarning"), []),
        # a deprecation inside a library that is not watched (attributed to its own file)
        (
            "import warnings\nwarnings.warn_explicit('old', DeprecationWarning, '/site-packages/otherlib/m.py', 1)\n",
            ["DeprecationWarning: old"],
        ),
        ("# tolerance: rtol=2e-3, atol=1e-6 -- float16\n# platform: gpu,tpu differs -- devices\n", []),
    ],
)
def test_what_the_contract_lets_through_leaving_the_warning_filters_as_they_were(source, observed):
    filters = list(warnings.filters)
    assert run(source) == observed
    assert warnings.filters == filters


def test_declarations_are_read_with_their_values():
    source = (
        "# tolerance: rtol=2e-3, atol=1e-6 -- float16 training: the CPU decides the last digits\n"
        "# platform: gpu rtol=2e-3, atol=1e-6 -- TF32 matmuls\n"
        "# platform: tpu differs -- lists the machine's own devices\n"
        "x = 1\n"
    )
    assert parse_tolerance(source, "x.py") == Tolerance(rtol=2e-3, atol=1e-6)
    assert parse_tolerance("x = 1\n", "x.py") == DEFAULT
    assert parse_platforms(source, "x.py") == {
        "gpu": PlatformDifference("gpu", False, 2e-3, 1e-6, "TF32 matmuls", 2),
        "tpu": PlatformDifference("tpu", True, 0.0, 0.0, "lists the machine's own devices", 3),
    }
    both = parse_platforms("# platform: gpu, tpu differs -- device names\n", "x.py")
    assert sorted(both) == ["gpu", "tpu"] and all(d.differs for d in both.values())
    assert parse_platforms("x = 1\n", "x.py") == {}


def test_a_varies_declaration_is_read_and_a_malformed_one_names_file_and_line():
    source = "# tolerance: rtol=1e-3 -- bf16\n# varies: (?<= -> ).+ -- sampled text\nx = 1\n"
    assert parse_varies(source, "x.py") == Varies("(?<= -> ).+", "sampled text", 2)
    assert parse_tolerance(source, "x.py") == Tolerance(rtol=1e-3, varies="(?<= -> ).+")
    assert parse_varies("x = 1\n", "x.py") is None
    check_varies(source, "x.py", "'The ' -> 'cat'\n")
    with pytest.raises(SnippetError, match=r"^x\.py:2: malformed varies declaration: .* matches nothing"):
        check_varies(source, "x.py", "no arrow here\n")
    for line, why in (
        ("# varies: (?<= -> .+ -- sampled", "not a valid regular expression"),
        ("# varies: (?<= -> ).+", "give a regex, then ' -- ' and why"),
        ("# varies:  -- sampled", "give a regex, then ' -- ' and why"),
        ("# varies: x* -- sampled", "matches the empty text"),
    ):
        with pytest.raises(
            SnippetError, match=rf"^x\.py:3: malformed varies declaration: .*{re.escape(why)}"
        ):
            parse_tolerance(f"# A snippet\n\n{line}\nx = 1\n", "x.py")
    with pytest.raises(SnippetError, match=r"^x\.py:3: malformed varies declaration: a second"):
        parse_varies("# varies: a -- b\n\n# varies: c -- d\n", "x.py")
    with pytest.raises(SnippetError, match=r"^x\.py:2: malformed varies declaration: .* before any code"):
        parse_varies("x = 1\n# varies: a -- b\n", "x.py")


def test_timeout_names_the_line():
    with pytest.raises(SnippetError, match=r"x.py:4: timed out after 1 s"):
        execute("import time\n\nwhile True:\n    time.sleep(0.05)\n", "snippets/demo/x.py", {}, timeout=1)


def test_restored_state_undoes_config_and_print_options():
    """A snippet may switch the key-reuse checker off for itself only, or change print options."""
    import jax
    import numpy

    precision = numpy.get_printoptions()["precision"]
    source = "import jax, numpy\n\njax.config.update('jax_debug_key_reuse', False)\n"
    with restored_state():
        assert execute(source + "numpy.set_printoptions(precision=9)\n", "x.py") == (None, None)
        assert jax.config.jax_debug_key_reuse is False and numpy.get_printoptions()["precision"] == 9
    assert jax.config.jax_debug_key_reuse is True
    assert numpy.get_printoptions()["precision"] == precision
