"""Maintainers' commands, run as ``python -m tools.<name>``: they may import jaxbook, never the reverse."""
