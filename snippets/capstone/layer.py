import math

import jax
import jax.numpy as jnp
from jax import lax

f32 = jnp.float32


def rms_norm(x, scale):
    """Normalise in float32. x: (..., D), scale: (D,) -> x's dtype."""
    y = x.astype(f32)
    y = y * lax.rsqrt(jnp.mean(y * y, axis=-1, keepdims=True) + 1e-6)
    return (y * scale).astype(x.dtype)


def attend(q, k, v, q_pos):
    """Causal attention. q: (b, s, H, K) at positions q_pos (s,), k, v:
    (b, t, H, K) at positions 0 .. t - 1 -> (b, s, H, K), v's dtype."""
    scores = jnp.einsum("bshk,bthk->bhst", q, k, preferred_element_type=f32)
    causal = q_pos[:, None] >= jnp.arange(k.shape[1])[None, :]
    scores = jnp.where(causal, scores / math.sqrt(q.shape[-1]), -jnp.inf)
    att = jax.nn.softmax(scores, axis=-1).astype(v.dtype)
    return jnp.einsum("bhst,bthk->bshk", att, v)


def block(x, p, cache, pos):
    """One pre-norm transformer layer on positions pos .. pos + s - 1.

    x: (b, s, D) in the compute dtype (bfloat16 in training); p: one layer's
    float32 weights, cast to it; cache: None (training: attend to these s
    positions) or keys and values, (b, S, H, K) each.
    -> (x, cache with this call's keys and values at pos)."""
    s, dt = x.shape[1], x.dtype
    h = rms_norm(x, p["norm1"])
    q, k, v = jnp.einsum("bsd,dthk->tbshk", h, p["qkv"].astype(dt))
    if cache is not None:  # decoding: write k, v at pos, attend to all S
        k = lax.dynamic_update_slice_in_dim(cache[0], k, pos, axis=1)
        v = lax.dynamic_update_slice_in_dim(cache[1], v, pos, axis=1)
        cache = (k, v)
    o = attend(q, k, v, pos + jnp.arange(s))
    x = x + jnp.einsum("bshk,hkd->bsd", o, p["out"].astype(dt))
    h = rms_norm(x, p["norm2"])
    h = jax.nn.gelu(h @ p["up"].astype(dt))
    return x + h @ p["down"].astype(dt), cache


if __name__ == "__main__":  # as a cell or a script, not when imported
    from snippets.capstone._model import init

    params = init(jax.random.key(0))  # every layer's weights, stacked
    p = {name: w[0] for name, w in params["blocks"].items()}  # layer 0's
    for name, w in p.items():
        print(f"{name:5} {str(w.shape):15} {w.dtype}")
    x = jax.random.normal(jax.random.key(1), (2, 8, 64), jnp.bfloat16)
    y, _ = block(x, p, None, 0)  # 2 sequences of 8 positions, width 64
    print("x", x.shape, x.dtype, "-> block ->", y.shape, y.dtype)
    changed, _ = block(x.at[:, -1].set(0.0), p, None, 0)  # last position
    same = jnp.array_equal(changed[:, :-1], y[:, :-1])
    print("positions 0-6 unchanged when position 7 changes:", bool(same))
