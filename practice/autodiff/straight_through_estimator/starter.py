"""Straight-Through Estimator with Custom VJP.

Rounding and sign have zero gradient almost everywhere, so a network that
quantizes its weights or activations cannot learn through them. The
straight-through estimator keeps the quantized value in the forward pass and
pretends, in the backward pass, that the operation was (nearly) the identity.
Implement it with ``jax.custom_vjp`` and use it to build a fake-quantizer.
"""

import jax
import jax.numpy as jnp


def round_ste(x: jax.Array) -> jax.Array:
    """``jnp.round(x)`` forward; the identity backward (straight through).

    Forward: ``jnp.round(x)`` (round half to even). Backward: the incoming
    cotangent passes through unchanged.

    x: float32 array of any shape -> same shape and dtype. Must be a
    ``jax.custom_vjp`` function.
    """
    raise NotImplementedError(
        "round_ste: decorate with jax.custom_vjp and define fwd and bwd"
    )


def sign_ste(x: jax.Array) -> jax.Array:
    """Sign forward (0 maps to +1); the clipped identity backward.

    Forward: ``1.0`` where ``x >= 0`` and ``-1.0`` elsewhere (note: 0 maps to
    1, unlike ``jnp.sign``). Backward: the "hard tanh" estimator

        g * (|x| <= 1)

    the cotangent passes where ``|x| <= 1`` and is zeroed elsewhere.

    x: float32 array of any shape -> same shape and dtype. Must be a
    ``jax.custom_vjp`` function.
    """
    raise NotImplementedError(
        "sign_ste: keep x as a residual for the backward pass"
    )


def fake_quantize(x: jax.Array, n_bits: int) -> jax.Array:
    """Symmetric uniform quantization of [-1, 1], straight-through rounding.

    x: float32 array of any shape; n_bits: Python int >= 2. Same shape and
    dtype as x:

        s = 2 ** (n_bits - 1) - 1
        out = round_ste(clip(x * s, -s, s)) / s

    Its gradient is therefore 1 where ``|x| < 1`` and 0 where ``|x| > 1``
    (clipped).
    """
    raise NotImplementedError("fake_quantize: scale, clip, round_ste, unscale")
