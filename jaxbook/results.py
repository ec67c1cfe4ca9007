"""What executing a page gives: the kernel makes each :class:`CellResult`, the store keeps a
:class:`PageResult`. A leaf module, so that the kernel's code (its machinery hash) is only what
it runs."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CellResult:
    """What one snippet did when its page ran (``snippet``: its path under the book's root)."""

    snippet: str
    jupyter_outputs: list = field(default_factory=list)  # nbformat 4 output dicts, in order
    text: str = ""  # what the page shows, normalised (jaxbook.outputs.normalise)
    declared: str | None = None  # the '# raises:' declaration
    raised: str | None = None  # what it raised
    warnings: list = field(default_factory=list)  # deprecations seen, "Class: message"
    contract: str | None = None  # None: the contract held; else why it broke
    seconds: float = 0.0


@dataclass
class PageResult:
    page: str  # the page's path under the book's root
    key: str
    inputs: dict  # {path: sha256} of every file the page's snippets ran
    cells: list  # [CellResult], one per snippet, in the page's order
    seconds: float = 0.0
    # the environment of the kernel that ran it (jaxbook.runtime.stamp), what the page's note says
    stamp: dict = field(default_factory=dict)

    def cell(self, snippet: str) -> CellResult | None:
        return next((c for c in self.cells if c.snippet == snippet), None)
