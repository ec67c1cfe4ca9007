"""Helpers for tests that build small throwaway books with the real machinery."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, layout
from jaxbook.build import strict_command

TOP_MATTER = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n"
#: The extensions that publish (alt text, descriptions and sitemap, the publishing stage): a
#: throwaway book does without them unless it is about publishing.
POST_PROCESSING = ("jaxbook.a11y", "jaxbook.seo", "jaxbook.publish")


@dataclass
class Build:
    returncode: int
    output: str
    html: Path

    def page(self, name: str) -> str:
        """The built HTML of the page written by ``Book.page(name)``."""
        return (self.html / "guide" / f"{name}.html").read_text(encoding="utf-8")


class Book:
    """A throwaway book: the real conf.py and machinery, with pages and snippets of the test's own."""

    def __init__(self, root: Path, outputs: bool = False, publishing: bool = False):
        """``outputs``: compare snippet outputs with their .out files, as the book does (by default a
        test's snippets need none); ``publishing``: keep the :data:`POST_PROCESSING` extensions."""
        self.root = root
        shutil.copy(ROOT / "conf.py", root / "conf.py")
        with open(root / "conf.py", "a", encoding="utf-8") as conf:
            if not outputs:
                conf.write("\njaxbook_expected_outputs = False\n")
            if not publishing:
                conf.write(f"\nextensions = [e for e in extensions if e not in {POST_PROCESSING!r}]\n")
        shutil.copytree(ROOT / "_static", root / "_static")
        self.pages: list[str] = []

    def snippet(self, name: str, source: str, output: str | None = None) -> Path:
        """Write snippets/<name>; ``output``: its expected output (<name>.out), if given."""
        path = self.root / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
        if output is not None:
            path.with_suffix(".out").write_text(output, encoding="utf-8")
        return path

    def page(self, docname: str, *snippets: str, body: str = "", top_matter: bool = True) -> Path:
        """Write guide/<docname>.md loading ``snippets`` (paths under snippets/) in order."""
        cells = "".join(f"\n```{{code-cell}} ipython3\n:load: ../snippets/{s}\n```\n" for s in snippets)
        text = (TOP_MATTER if top_matter else "") + f"# Page {docname}\n\n{body}\n{cells}"
        path = self.root / "guide" / f"{docname}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if docname not in self.pages:
            self.pages.append(docname)
        self._index()
        return path

    def _index(self) -> None:
        toctree = "\n".join(f"guide/{p}" for p in self.pages)
        (self.root / "index.md").write_text(f"# Test book\n\n```{{toctree}}\n{toctree}\n```\n")

    def build(self, *extra: str, machinery: Path = ROOT) -> Build:
        """Sphinx's strict build as Read the Docs runs it, with the ``jaxbook`` package of ``machinery``."""
        return self._run(strict_command(self.root, None, *extra), machinery)

    def make_html(self) -> Build:
        """``make html``'s build (:func:`jaxbook.build.strict_build`): the store filled first."""
        code = "import sys; from pathlib import Path; from jaxbook.build import strict_build; "
        return self._run([sys.executable, "-c", code + "sys.exit(strict_build(Path.cwd()))"])

    def _run(self, command: list[str], machinery: Path = ROOT) -> Build:
        env = dict(os.environ, PYTHONPATH=str(machinery))
        result = subprocess.run(command, cwd=self.root, env=env, capture_output=True, text=True, timeout=600)
        return Build(result.returncode, result.stdout + result.stderr, self.root / layout.HTML)
