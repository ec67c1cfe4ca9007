"""``{get-the-code}``: on a practice page, one paragraph that says how to get the code. With the
repository's address (conf.py's ``jaxbook_repository``: Read the Docs gives it to its builds as
``READTHEDOCS_GIT_CLONE_URL``; another host sets ``JAXBOOK_REPOSITORY_URL``), clone it; without
one, download the page's notebook. Either way the page says that the notebook checks itself.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from jaxbook.sphinxext import code_paragraph


def how_to_get_the_code(repository: str) -> str:
    """The paragraph's text, `code` in backquotes, for the repository's address ("" when unknown)."""
    notebook = (
        "download this page's notebook (the link under the title): edit its code cell, run it, "
        "then run its last cell, which checks your attempt as `make check` does."
    )
    if repository:
        return (
            f"Get the code with `git clone {repository}` and run the commands below in the clone "
            "(`make check` installs what it needs on its first run; Python 3.12 or newer). "
            f"Or, with no clone, {notebook}"
        )
    return f"The commands below run in a clone of the book's repository. Without one, {notebook}"


class GetTheCode(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        text = how_to_get_the_code(self.config.jaxbook_repository)
        return [code_paragraph(text, ["jaxbook-get-the-code"])]


def setup(app):
    # "env": another address reads every page again (and the build's key holds the variables).
    app.add_config_value("jaxbook_repository", "", "env", types=(str,))
    app.add_directive("get-the-code", GetTheCode)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
