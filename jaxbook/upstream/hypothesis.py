"""Hypothesis's internals (6.131+): the constants it draws from every local module imported so far
(``hypothesis.internal.conjecture.providers._get_local_constants``)."""

from __future__ import annotations


def draw_from_strategies_only() -> None:
    """Make a test's examples depend on its strategies alone, not on what ran before it: Hypothesis
    also draws constants read from every local module imported so far (a no-op before 6.131)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    if hasattr(providers, "_get_local_constants"):
        providers._get_local_constants = providers.Constants
