# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
from collections import Counter

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from snippets.capstone._model import (
    RULES,
    H,
    K,
    L,
    S,
    V,
    f32,
    forward,
    init,
    shardings,
)
from snippets.sharding._hlo import COLLECTIVES, result_types
from snippets.sharding_costs._comm import traffic
from snippets.transformer_parallelism._x import loop_body

b, p = 8, 48  # sequences in the batch, prompt length
axes = (AxisType.Auto,) * 2
mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=axes)
SERVE = RULES | {"embed": None}  # weights split over "model" only, no FSDP
LAYOUTS = {  # keys or values (layers, batch, seq, heads, head_dim), split
    "heads": P(None, "data", None, "model", None),
    "sequence": P(None, "data", "model", None, None),
}
params = jax.device_put(init(jax.random.key(0)), shardings(mesh, SERVE))
tokens = jax.random.randint(jax.random.key(1), (b, p + 1), 0, V)


def prefill(params, prompt, cache):
    """The prompt (b, p) in one pass, its keys and values written into the
    cache, two (L, b, S, H, K) -> (last logits (b, V), cache)."""
    logits, cache = forward(params, prompt, cache, 0, dtype=f32)
    return logits[:, -1], cache


def decode(params, token, cache, pos):
    """One token per sequence, token (b, 1) at position pos, attending to
    the cache -> (logits (b, V), cache with the token's keys and values)."""
    logits, cache = forward(params, token, cache, pos, dtype=f32)
    return logits[:, -1], cache


def per_layer(compiled, tokens_per_device):
    """One layer's collectives (the scan's body) -> (bytes each device sends
    per token it processes, lines "count x op type")."""
    body = loop_body(compiled.as_text())
    ops = Counter(
        f"{op} {t.split('{')[0]}"
        for op in COLLECTIVES
        for t in result_types(body, op)
    )
    sent = sum(row[3] for row in traffic(body)) / tokens_per_device
    return sent, [f"{n} x {op}" for op, n in ops.items()]


with jax.set_mesh(mesh):
    full, _ = jax.jit(forward, static_argnames="dtype")(
        params, tokens, dtype=f32
    )
    for name, layout in LAYOUTS.items():
        where = NamedSharding(mesh, layout)
        cache = jax.device_put(2 * (jnp.zeros((L, b, S, H, K)),), where)
        fill = jax.jit(prefill, out_shardings=(None, (where, where)))
        args = (params, tokens[:, :p], cache)
        fill = fill.lower(*args).compile()
        _, cache = fill(*args)
        step = jax.jit(decode, out_shardings=(None, (where, where)))
        args = (params, tokens[:, p:], cache, p)
        step = step.lower(*args).compile()
        logits, cache = step(*args)
        held = cache[0].addressable_shards[0].data.shape
        print(f"cache split over {name}: device 0 holds {held} of each")
        # each device runs b / 4 sequences: p tokens each, then 1
        for what, compiled, n in [("prefill", fill, p), ("decode", step, 1)]:
            sent, ops = per_layer(compiled, b // 4 * n)
            print(f"  {what}: {sent:.0f} B sent per token per layer, by")
            print("\n".join("    " + op for op in ops))
        same = jnp.allclose(logits, full[:, p], atol=1e-5)
        print("  decode equal to a pass without a cache:", bool(same))
