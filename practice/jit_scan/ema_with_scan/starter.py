"""Exponential Moving Average with Scan.

An exponential moving average (EMA) smooths a sequence with a running state:
loss curves in a logger, Adam's moment estimates, Polyak averages of
parameters. A Python loop under ``jax.jit`` is unrolled into one copy of the
body per step, so compile time grows with the sequence length. ``jax.lax.scan``
traces the body once and loops at run time. Write both an EMA and a variant
that restarts at episode boundaries, as scans.
"""

import jax
import jax.numpy as jnp


def ema(xs: jax.Array, decay, debias: bool = False) -> jax.Array:
    """Running EMA of ``xs`` along axis 0.

    xs: (T, ...) float32 with T >= 0; decay: float scalar in [0, 1), may be
    traced; debias: Python bool. With m = 0 before the first step:

        m_t = decay * m_{t-1} + (1 - decay) * xs[t]
        out[t] = m_t                            if not debias
        out[t] = m_t / (1 - decay ** (t + 1))   if debias

    Debiasing removes the bias of the first steps toward 0.

    Returns (T, ...) float32 (T = 0 gives an empty array of that shape). Must
    be a ``jax.lax.scan``: the traced program may not grow with T.
    Differentiable in xs and decay.
    """
    raise NotImplementedError(
        "ema: lax.scan with the running average as the carry"
    )


def ema_with_resets(xs: jax.Array, resets: jax.Array, decay) -> jax.Array:
    """EMA that restarts wherever ``resets`` is True (at episode boundaries).

    xs: (T, ...) float32; resets: (T,) bool; decay: float scalar in [0, 1).
    With m = 0 before the first step:
        m_t = xs[t]                                   if resets[t]
        m_t = decay * m_{t-1} + (1 - decay) * xs[t]   otherwise
    Returns (T, ...) float32, computed with ``jax.lax.scan``.
    """
    raise NotImplementedError(
        "ema_with_resets: scan over (x, reset) pairs, choose with jnp.where"
    )
