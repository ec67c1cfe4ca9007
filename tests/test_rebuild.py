"""No stale output: an edit re-executes exactly the pages that depend on it."""
from __future__ import annotations

import re

import pytest

from tests.helpers import Book

# Builds start Jupyter kernels, which take free TCP ports: concurrent builds can race for the same
# port ("Address already in use"), so every building test runs in the one "site" xdist group.
pytestmark = [pytest.mark.build, pytest.mark.xdist_group("site")]

# Each snippet prints a fresh token, so a page's output changes exactly when it is re-executed.
TOKEN = "import uuid\n\nprint('run', uuid.uuid4().hex)\n"


def tokens(build, docname):
    return re.findall(r"run [0-9a-f]{32}", build.page(docname))


@pytest.fixture
def book(tmp_path):
    book = Book(tmp_path)
    book.snippet("shared/_helper.py", "GREETING = 'hello'\n")
    book.snippet("shared/_indirect.py", "from snippets.shared._helper import GREETING\n")
    book.snippet("a/uses_helper.py", "from snippets.shared import _indirect\n\n" + TOKEN
                 + "print(_indirect.GREETING)\n")
    book.snippet("b/standalone.py", TOKEN)
    book.page("a", "a/uses_helper.py")
    book.page("b", "b/standalone.py")
    first = book.build()
    assert first.returncode == 0, first.output
    book.before = {page: tokens(first, page) for page in ("a", "b")}
    assert all(len(found) == 1 for found in book.before.values())
    return book


def test_noop_rebuild_executes_nothing(book):
    again = book.build()
    assert again.returncode == 0, again.output
    assert tokens(again, "a") == book.before["a"]
    assert tokens(again, "b") == book.before["b"]


def test_editing_a_snippet_reexecutes_only_its_page(book):
    book.snippet("b/standalone.py", TOKEN + "print('edited')\n")
    again = book.build()
    assert again.returncode == 0, again.output
    assert "edited" in again.page("b")
    assert tokens(again, "b") != book.before["b"]
    assert tokens(again, "a") == book.before["a"]


def test_editing_an_imported_helper_reexecutes_the_pages_that_import_it(book):
    # _helper is imported through _indirect: the dependency is followed transitively.
    book.snippet("shared/_helper.py", "GREETING = 'changed greeting'\n")
    again = book.build()
    assert again.returncode == 0, again.output
    assert "changed greeting" in again.page("a")
    assert tokens(again, "a") != book.before["a"]
    assert tokens(again, "b") == book.before["b"]


def test_changing_the_execution_key_reexecutes_every_page(book):
    # The key holds the JAX/jaxlib versions and device settings (jaxbook.runtime.execution_key).
    again = book.build("-D", "jaxbook_execution_key=jax==0.0.0;devices=1")
    assert again.returncode == 0, again.output
    assert tokens(again, "a") != book.before["a"]
    assert tokens(again, "b") != book.before["b"]


def test_the_build_runs_on_eight_emulated_devices(tmp_path):
    book = Book(tmp_path)
    book.snippet("dev/count.py", "import jax\n\nprint('device_count', jax.device_count(), jax.default_backend())\n")
    book.page("dev", "dev/count.py")
    build = book.build()
    assert build.returncode == 0, build.output
    assert "device_count 8 cpu" in build.page("dev")
    assert "with 8 devices" in build.page("dev")  # the environment stamp


def test_one_snippet_cannot_change_the_next_ones_output(tmp_path):
    book = Book(tmp_path)
    book.snippet("state/change.py", "import jax\nimport numpy as np\n\n"
                 "jax.config.update('jax_enable_x64', True)\nnp.set_printoptions(precision=2)\n")
    book.snippet("state/observe.py", "import jax.numpy as jnp\nimport numpy as np\n\n"
                 "print('dtype', jnp.ones(1).dtype, 'precision', np.get_printoptions()['precision'])\n")
    book.page("state", "state/change.py", "state/observe.py")
    build = book.build()
    assert build.returncode == 0, build.output
    assert "dtype float32 precision 8" in build.page("state")
