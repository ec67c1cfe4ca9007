"""Unit tests of the snippet contract (jaxbook.snippet), run in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.snippet import SnippetError, execute, parse_declaration, scrub, trimmed_traceback

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()


def run(source, name="snippets/demo/x.py"):
    return execute(source, name, {"__name__": "__main__"})


def test_plain_snippet_runs():
    assert run("y = 1 + 1\n") == (None, None)


def test_declared_error_is_returned_with_trimmed_traceback():
    declaration, error = run(
        "# raises: ZeroDivisionError\n# match: division\n\ndef f():\n    return 1 / 0\n\nf()\n"
    )
    assert declaration.raises == "ZeroDivisionError" and isinstance(error, ZeroDivisionError)
    text = "".join(trimmed_traceback(error))
    assert 'File "snippets/demo/x.py", line 7, in <module>' in text
    assert 'File "snippets/demo/x.py", line 5, in f' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")


def test_traceback_drops_library_frames_and_paths():
    _, error = run("# raises: TypeError\nimport jax.numpy as jnp\nx = jnp.zeros(2)\nx[0] = 1\n")
    text = "".join(trimmed_traceback(error))
    assert "site-packages" not in text and "/jax/" not in text
    assert text.count('File "') == 1


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
        ("raise KeyError('k')\n", "raised KeyError: 'k', but the snippet declares no error"),
        (
            "# raises: KeyError\nx = 1\n",
            "snippets/demo/x.py:1: declares '# raises: KeyError' but raised nothing",
        ),
        (
            "# raises: KeyError\nraise LookupError('k')\n",
            "declares '# raises: KeyError' but raised LookupError",
        ),
        (
            "# raises: LookupError\nraise KeyError('k')\n",
            "declares '# raises: LookupError' but raised KeyError",
        ),
        ("# raises: KeyError\n# match: ^z$\nraise KeyError('k')\n", "does not match '# match: ^z$'"),
        (
            "# raises: NoSuchError\nx = 1\n",
            "snippets/demo/x.py:1: malformed error declaration: 'NoSuchError'",
        ),
        ("# raises: jax.errors.NoSuchError\nx = 1\n", "'jax.errors.NoSuchError' is not an exception class"),
    ],
)
def test_contract_violations_name_the_file(source, message):
    with pytest.raises(SnippetError, match=None) as info:
        run(source)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "# raises: Type Error\n",
            "x.py:1: malformed error declaration: '# raises:' needs one exception class",
        ),
        (
            "# raises: TypeError\n# raises: ValueError\n",
            "x.py:2: malformed error declaration: a second '# raises:'",
        ),
        (
            "# match: (\n# raises: TypeError\n",
            "x.py:1: malformed error declaration: '# match:' is not a valid regular",
        ),
        ("# match: boom\n", "'# match:' without '# raises:'"),
        (
            "x = 1\n# raises: TypeError\n",
            "x.py:2: malformed error declaration: '# raises:' must be in the comment block",
        ),
    ],
)
def test_malformed_declarations(source, message):
    with pytest.raises(SnippetError) as info:
        parse_declaration(source, "snippets/demo/x.py")
    assert message in str(info.value)


def test_jax_error_path_resolves():
    declaration, error = run(
        "# raises: jax.errors.TracerBoolConversionError\nimport jax\n\n"
        "@jax.jit\ndef f(x):\n    return 1 if x > 0 else 0\n\nf(1.0)\n"
    )
    assert type(error).__name__ == "TracerBoolConversionError"
    assert "snippets/demo/x.py" in str(error)  # JAX names the snippet file, not a temp path


def test_timeout_names_the_line():
    with pytest.raises(SnippetError, match=r"x.py:4: timed out after 1 s"):
        execute("import time\n\nwhile True:\n    time.sleep(0.05)\n", "snippets/demo/x.py", {}, timeout=1)


def test_restored_state_undoes_config_and_print_options():
    import jax
    import numpy

    from jaxbook.snippet import restored_state

    precision = numpy.get_printoptions()["precision"]
    with restored_state():
        jax.config.update("jax_enable_x64", True)
        numpy.set_printoptions(precision=precision + 3)
    assert jax.config.values["jax_enable_x64"] is False
    assert numpy.get_printoptions()["precision"] == precision


# --- tolerance declarations ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, message",
    [
        ("# tolerance: rtol=2e-3\n", "x.py:1: malformed tolerance declaration: say why after ' -- '"),
        ("# tolerance: rtol=2e-3 --\n", "x.py:1: malformed tolerance declaration: say why after ' -- '"),
        ("# tolerance: rtl=2e-3 -- why\n", "x.py:1: malformed tolerance declaration: 'rtl=2e-3' is not"),
        ("# tolerance: rtol=1e-3, rtol=2e-3 -- why\n", "'rtol=2e-3' is not 'rtol=<number>'"),
        ("# tolerance: rtol=0.5 -- why\n", "rtol=0.5 is not a tolerance between 0 and 0.05"),
        ("# tolerance: rtol=0 -- why\n", "rtol=0 is not a tolerance between 0 and 0.05"),
        ("# raises: KeyError\n# tolerance: rtol=1e-3 -- a\n# tolerance: rtol=1e-3 -- b\n", "x.py:3: "),
        (
            "x = 1\n# tolerance: rtol=1e-3 -- why\n",
            "x.py:2: malformed tolerance declaration: '# tolerance:' must",
        ),
    ],
)
def test_a_malformed_tolerance_declaration_fails_naming_the_file_and_line(header, message):
    with pytest.raises(SnippetError, match=None) as failure:
        run(header + "print(1.5)\n")
    assert message in str(failure.value), str(failure.value)


def test_a_tolerance_declaration_is_read_with_its_values():
    from jaxbook.compare import DEFAULT, Tolerance
    from jaxbook.snippet import parse_tolerance

    source = "# tolerance: rtol=2e-3, atol=1e-6 -- float16 training: the CPU decides the last digits\n"
    assert parse_tolerance(source + "x = 1\n", "x.py") == Tolerance(rtol=2e-3, atol=1e-6)
    assert parse_tolerance("x = 1\n", "x.py") == DEFAULT
    assert run(source + "x = 1\n") == (None, None)  # the contract accepts it


# --- platform declarations ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, message",
    [
        ("# platform: gpu differs\n", "x.py:1: malformed platform declaration: say why after 'differs -- '"),
        ("# platform: gpu rtol=1e-5\n", "x.py:1: malformed platform declaration: say why after ' -- '"),
        ("# platform: gpu -- why\n", "x.py:1: malformed platform declaration: say why after ' -- '"),
        ("# platform: cpu differs -- why\n", "'cpu' is not one of gpu, tpu (the .out file is the CPU's"),
        ("# platform: cuda differs -- why\n", "x.py:1: malformed platform declaration: 'cuda' is not one of"),
        (
            "# platform: gpu,gpu differs -- why\n",
            "x.py:1: malformed platform declaration: a platform named twice",
        ),
        ("# platform: gpu differs now -- why\n", "say why after 'differs -- '"),
        (
            "# platform: gpu rtol=0.5 -- why\n",
            "x.py:1: malformed platform declaration: rtol=0.5 is not a tolerance",
        ),
        ("# platform: tpu rtl=1e-3 -- why\n", "x.py:1: malformed platform declaration: 'rtl=1e-3' is not"),
        (
            "# platform: gpu differs -- a\n# platform: tpu,gpu rtol=1e-3 -- b\n",
            "x.py:2: malformed platform declaration: a second '# platform:' line for gpu",
        ),
        (
            "x = 1\n# platform: gpu differs -- why\n",
            "x.py:2: malformed platform declaration: '# platform:' must",
        ),
        ("# platform:\n", "x.py:1: malformed platform declaration: name the platforms"),
    ],
)
def test_a_malformed_platform_declaration_fails_naming_the_file_and_line(header, message):
    """Checked where the other declarations are: running the snippet (the build) refuses it."""
    with pytest.raises(SnippetError) as failure:
        run(header + "print(1.5)\n")
    assert message in str(failure.value), str(failure.value)


def test_platform_declarations_are_read_per_platform():
    from jaxbook.snippet import PlatformDifference, parse_platforms

    source = (
        "# tolerance: rtol=1e-5 -- the CPU's own\n"
        "# platform: gpu rtol=2e-3, atol=1e-6 -- TF32 matmuls\n"
        "# platform: tpu differs -- lists the machine's own devices\n"
        "x = 1\n"
    )
    assert parse_platforms(source, "x.py") == {
        "gpu": PlatformDifference("gpu", False, 2e-3, 1e-6, "TF32 matmuls", 2),
        "tpu": PlatformDifference("tpu", True, 0.0, 0.0, "lists the machine's own devices", 3),
    }
    both = parse_platforms("# platform: gpu, tpu differs -- device names\n", "x.py")
    assert sorted(both) == ["gpu", "tpu"] and all(d.differs for d in both.values())
    assert parse_platforms("x = 1\n", "x.py") == {}
    assert run(source) == (None, None)  # the contract accepts them
