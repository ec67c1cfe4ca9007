"""The capstone's model: a small decoder-only transformer whose parameters
carry logical axis names, mapped onto mesh axes by one rules table. Its layer
(block, with rms_norm and attend) is the page's cell layer.py."""

import itertools
import math

import jax
import jax.numpy as jnp
import optax
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.capstone.layer import block, rms_norm

bf16, f32 = jnp.bfloat16, jnp.float32
#: vocabulary (the corpus's 90 characters, padded to a multiple of 8),
#: width, heads, head size, MLP width, layers, longest sequence
V, D, H, K, F, L, S = 96, 64, 4, 16, 256, 2, 64

#: The one rules table: logical axis -> mesh axis (None: not split).
#: "embed" over "data" is FSDP; "heads", "mlp" and "vocab" over "model"
#: are tensor parallelism.
RULES = {
    "batch": "data",
    "embed": "data",
    "heads": "model",
    "mlp": "model",
    "vocab": "model",
    "layers": None,
    "qkv": None,
    "head_dim": None,
    "seq": None,
    "norm": None,
}

#: Every parameter's axes, by logical name; "layers" is the stacked axis
#: that lax.scan runs over.
LOGICAL = {
    "embed": ("vocab", "embed"),
    "pos": ("seq", "embed"),
    "blocks": {
        "norm1": ("layers", "norm"),
        "qkv": ("layers", "embed", "qkv", "heads", "head_dim"),
        "out": ("layers", "heads", "head_dim", "embed"),
        "norm2": ("layers", "norm"),
        "up": ("layers", "embed", "mlp"),
        "down": ("layers", "mlp", "embed"),
    },
    "norm": ("norm",),
    "unembed": ("embed", "vocab"),
}

#: Remat inside each layer: keep the products with weights (no batch
#: dimension), recompute the rest (attention scores, norms, GELU) backward.
POLICY = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def spec(names, rules=RULES):
    """Logical axis names (tuple of str) -> the PartitionSpec of the rules."""
    return P(*(rules[n] for n in names))


def param_specs(rules=RULES):
    """The PartitionSpec of every parameter, as a tree like the params."""
    return jax.tree.map(
        lambda n: spec(n, rules),
        LOGICAL,
        is_leaf=lambda x: isinstance(x, tuple),
    )


def shardings(mesh, rules=RULES):
    """The NamedSharding of every parameter on mesh."""
    return jax.tree.map(lambda s: NamedSharding(mesh, s), param_specs(rules))


#: The shape and fan-in of every random weight (the norms' scales start at 1).
SHAPES = {
    "embed": ((V, D), 1),
    "pos": ((S, D), 100),
    "qkv": ((L, D, 3, H, K), D),
    "out": ((L, H, K, D), 2 * L * H * K),
    "up": ((L, D, F), D),
    "down": ((L, F, D), 2 * L * F),
    "unembed": ((D, V), D),
}


def init(key):
    """Float32 master weights, shapes as LOGICAL names them: Gaussian of
    variance 1 / fan-in, cut from one draw (one random-number op compiles
    faster than seven)."""
    sizes = [math.prod(shape) for shape, _ in SHAPES.values()]
    flat = jax.random.normal(key, (sum(sizes),), f32)
    pieces = jnp.split(flat, list(itertools.accumulate(sizes))[:-1])
    w = {
        name: piece.reshape(shape) / math.sqrt(fan_in)
        for (name, (shape, fan_in)), piece in zip(SHAPES.items(), pieces)
    }
    ones = jnp.ones((L, D))
    blocks = {"norm1": ones, "norm2": ones}
    blocks |= {k: w.pop(k) for k in ("qkv", "out", "up", "down")}
    return {**w, "blocks": blocks, "norm": jnp.ones((D,))}


#: The KV cache's axes: batch split like the data, heads like the weights.
CACHE = ("layers", "batch", "seq", "heads", "head_dim")


def empty_cache(b, dtype=bf16):
    """Zero keys and values of every layer: two (L, b, S, H, K), laid out
    by CACHE (call it under jax.set_mesh)."""
    zeros = jnp.zeros((L, b, S, H, K), dtype)
    return tuple(jax.device_put(zeros, spec(CACHE)) for _ in "kv")  # 2 buffers


def forward(params, tokens, cache=None, pos=0, dtype=bf16):
    """Logits of the next token at positions pos .. pos + s - 1, computed
    in dtype from the float32 weights.

    tokens: (b, s) int32 -> (logits (b, s, V) float32, cache). Without a
    cache (training) the layers attend to these s tokens only."""
    s = tokens.shape[1]
    # the lookup as a product with one-hot rows: the sharded table needs no
    # gather (which the partitioner would do by copying the whole table)
    x = jax.nn.one_hot(tokens, V, dtype=dtype) @ params["embed"].astype(dtype)
    x = x + lax.dynamic_slice_in_dim(params["pos"], pos, s).astype(dtype)
    x = lax.with_sharding_constraint(x, spec(("batch",)))

    def layer(x, p_cache):
        """One step of the scan over stacked layers: (x, (p, cache))."""
        return block(x, *p_cache, pos)

    layer = jax.checkpoint(
        layer, policy=POLICY
    )  # remat, keeping what POLICY saves
    x, cache = lax.scan(layer, x, (params["blocks"], cache))
    x = rms_norm(x, params["norm"])
    unembed = params["unembed"].astype(dtype)
    return jnp.matmul(x, unembed, preferred_element_type=f32), cache


def loss(params, batch):
    """Mean next-character cross-entropy. batch: (b, s + 1) int32 -> ()."""
    logits, _ = forward(params, batch[:, :-1])
    targets = batch[:, 1:]
    return optax.softmax_cross_entropy_with_integer_labels(
        logits, targets
    ).mean()
