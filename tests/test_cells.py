"""How the build finds a page's code cells (jaxbook.sphinxext.find_cells)."""

from jaxbook.sphinxext import find_cells

PAGE = """\
# Title

````md
```{code-cell} ipython3
:load: ../snippets/example/shown_not_run.py
```
````

```{code-cell} ipython3
:tags: [hide-input]
:load: ../snippets/a/one.py
```

```{code-cell} ipython3
---
tags: [hide-output]
load: ../snippets/a/two.py
---
```

```{code-cell} ipython3
print("inline")
```
"""


def test_cells_options_and_inline_code():
    cells = find_cells(PAGE.split("\n"))
    assert [c.load for c in cells] == ["../snippets/a/one.py", "../snippets/a/two.py", None]
    assert [c.load_line for c in cells[:2]] == [11, 17]
    assert cells[2].body == ['print("inline")'] and not cells[0].body and not cells[1].body
