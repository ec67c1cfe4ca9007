"""Arrows run one way: the content (snippets/, practice/) and the maintainers' tools (tools/) import
the machinery (jaxbook/); the tests import anything; a tool may also import a snippets' helper
module (``snippets/<folder>/_x.py``), to measure on a chip what a page shows. The machinery imports no content, no test, no
tool and none of its own commands (the modules the Makefile runs with ``-m``), so that what Sphinx,
the kernel and ``make check`` load is the machinery alone."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jaxbook import ROOT

pytestmark = pytest.mark.inputs("snippets", "practice", "tools")

#: Where a file lives -> the top-level packages it must not import.
FORBIDDEN = {
    "jaxbook": ("tests", "tools", "practice", "snippets", "conftest"),
    "tools": ("tests", "practice", "snippets", "conftest"),  # but snippets' helpers (see above)
    "content": ("tests", "tools", "conftest"),
}


def layer(relative: Path) -> str | None:
    top = relative.parts[0]
    if top in ("snippets", "practice"):
        return "content"
    if relative == Path("conftest.py"):  # loaded by make check and make practice too: machinery
        return "jaxbook"
    return top if top in FORBIDDEN else None


def commands(makefile: Path) -> set[str]:
    """The machinery's modules the Makefile runs as commands (``$(PY) -m jaxbook.build``)."""
    return set(re.findall(r"-m (jaxbook(?:\.\w+)+)", makefile.read_text(encoding="utf-8")))


def imports(path: Path, root: Path) -> list[tuple[int, list[str]]]:
    """(line, names) of every import statement of ``path``, anywhere in it: the absolute dotted
    names of the modules it may load (``from a import b`` may load ``a`` and ``a.b``)."""
    package = path.relative_to(root).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(filter(None, [base, node.module or ""]))
            found.append((node.lineno, [module, *(f"{module}.{alias.name}" for alias in node.names)]))
    return found


def violations(root: Path) -> list[str]:
    """``file:line: ...`` for every import that runs the wrong way in the layers' folders."""
    own_commands = commands(root / "Makefile")
    found = []
    for path in sorted(
        [root / "conftest.py"] * (root / "conftest.py").is_file()
        + [p for top in ("jaxbook", "tools", "snippets", "practice") for p in (root / top).rglob("*.py")]
    ):
        relative = path.relative_to(root)
        where, itself = layer(relative), ".".join(relative.with_suffix("").parts)
        for line, names in imports(path, root):
            top = names[0].split(".")[0]
            command = next((n for n in names if n in own_commands and n != itself), None)
            helper = (
                where == "tools"
                and top == "snippets"
                and any(n.split(".")[-1].startswith("_") for n in names)
            )
            if top in FORBIDDEN[where] and not helper:
                found.append(
                    f"{relative}:{line}: {where} imports {names[0]} ({top}/ may not be imported here)"
                )
            elif where == "jaxbook" and command:
                found.append(f"{relative}:{line}: jaxbook imports {command}, a command the Makefile runs")
    return found


def test_every_arrow_runs_one_way():
    assert violations(ROOT) == []


def circles(root: Path) -> list[str]:
    """``a -> b`` for each import of a module of jaxbook/ or tools/ by one it is imported back from
    (directly or through others, at any level of the file: a function's import too)."""
    files = {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
        for top in ("jaxbook", "tools")
        for p in (root / top).rglob("*.py")
    }
    graph = {}
    for name, path in files.items():
        found = [
            [n for n in names[1:] if n in files] or [n for n in names[:1] if n in files]
            for _, names in imports(path, root)
        ]
        graph[name] = {n for names in found for n in names} - {name}

    def reached(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for other in graph[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        return seen

    return [f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a]) if a in reached(b)]


def test_no_module_is_imported_back_by_what_it_imports():
    assert circles(ROOT) == []


def test_a_circle_is_named_by_its_arrows(tmp_path):
    files = {
        "jaxbook/__init__.py": "",
        "jaxbook/a.py": "from jaxbook import b\n",
        "jaxbook/b.py": "import os\n",
    }
    files["tools/x.py"] = "from tools.y import Y\n"
    files["tools/y.py"] = "def f():\n    from tools import x\n"
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert circles(tmp_path) == ["tools.x -> tools.y", "tools.y -> tools.x"]


def test_an_arrow_that_runs_back_is_named_with_its_file_and_line(tmp_path):
    files = {
        "Makefile": "check:\n\t$(PY) -m jaxbook.check x\n",
        "jaxbook/__init__.py": "",
        "jaxbook/check.py": "from jaxbook import pages\n",
        "jaxbook/pages.py": "import os\n",
        "jaxbook/study.py": "from . import check\nfrom .check import main\n",
        "jaxbook/docs.py": "def f():\n    from tests.helpers import Book\n",
        "tools/record.py": "from tests.test_study import Terminal\nfrom jaxbook import pages\n"
        "from snippets.a import _h\nimport snippets.a._h\nimport snippets.a.x\n",
        "practice/a/solution.py": "import jax\nfrom tools import mutation\n",
        "snippets/a/x.py": "from practice.a.solution import f\nfrom snippets.a import _h\n",
        "tests/test_a.py": "from tools import record\nfrom practice.a import solution\n",
        "conftest.py": "import os\n\n\ndef hook():\n    from tests.browser import support\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert violations(tmp_path) == [
        "conftest.py:5: jaxbook imports tests.browser (tests/ may not be imported here)",
        "jaxbook/docs.py:2: jaxbook imports tests.helpers (tests/ may not be imported here)",
        "jaxbook/study.py:1: jaxbook imports jaxbook.check, a command the Makefile runs",
        "jaxbook/study.py:2: jaxbook imports jaxbook.check, a command the Makefile runs",
        "practice/a/solution.py:2: content imports tools (tools/ may not be imported here)",
        "tools/record.py:1: tools imports tests.test_study (tests/ may not be imported here)",
        "tools/record.py:5: tools imports snippets.a.x (snippets/ may not be imported here)",
    ]


def sphinx_extensions(conf: Path) -> list[str]:
    """The book's own extensions conf.py loads (``jaxbook.*`` in its ``extensions`` list)."""
    tree = ast.parse(conf.read_text(encoding="utf-8"))
    listed = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "extensions" for t in node.targets)
    )
    return [e.value for e in listed.elts if isinstance(e, ast.Constant) and e.value.startswith("jaxbook")]


def test_sphinx_loads_no_test_runner():
    """What Sphinx and its parallel workers import stays the machinery: pytest comes in only with
    the practice checker (jaxbook/practice.py), which no extension imports."""
    extensions = sphinx_extensions(ROOT / "conf.py")
    assert "jaxbook.downloads" in extensions and "jaxbook.sphinxext" in extensions
    probe = f"import sys\nfor e in {extensions!r}: __import__(e)\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest')))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
