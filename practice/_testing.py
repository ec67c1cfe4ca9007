"""Helpers shared by the practice tests, e.g. ``from practice._testing import normal``.

Not a test module and not part of any problem's API: only small utilities that several problems'
tests would otherwise copy.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


def normal(seed, *shapes):
    """Fixed-seed standard normal float32 arrays (NumPy RNG: no JAX compile per shape)."""
    rng = np.random.default_rng(seed)
    arrays = [
        jnp.asarray(rng.standard_normal(shape), jnp.float32)
        for shape in shapes
    ]
    return arrays[0] if len(arrays) == 1 else arrays


def extreme_uniform(end):
    """A stand-in for jax.random.uniform whose every draw is its lowest value
    (minval, 0.0 by default) or its highest (the float below maxval): what
    some key draws."""

    def uniform(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
        dtype = jnp.float32 if dtype is float else dtype
        low = jnp.asarray(minval, dtype)
        value = low
        if end == "highest":
            value = jnp.nextafter(jnp.asarray(maxval, dtype), low)
        return jnp.broadcast_to(value, shape)

    return uniform


def grads_at(step, params):
    """Different pseudo-gradients at every step, with the structure of params."""
    leaves, treedef = jax.tree.flatten(params)
    return jax.tree.unflatten(
        treedef, normal(100 + step, *[x.shape for x in leaves])
    )


def assert_trees_close(a, b, rtol, atol):
    """Same tree structure, and every pair of leaves allclose."""
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def steps_against_oracle(init, update, oracle, params, steps, rtol, atol):
    """Run ``(init, update)`` and the Optax transformation ``oracle`` side by side from the same
    params over ``steps`` (each a list of gradients shaped like params): every step's updates
    agree within rtol/atol. Returns both final params (float32 leaves: adding an update is what
    optax.apply_updates does, so this module needs no Optax)."""
    ref_params = params
    state, ref_state = init(params), oracle.init(params)
    for grads in steps:
        grads = [jnp.asarray(g) for g in grads]
        updates, state = update(grads, state, params)
        ref_updates, ref_state = oracle.update(grads, ref_state, ref_params)
        assert_trees_close(updates, ref_updates, rtol=rtol, atol=atol)
        params = jax.tree.map(jnp.add, params, updates)
        ref_params = jax.tree.map(jnp.add, ref_params, ref_updates)
    return params, ref_params


def all_eqns(jaxpr):
    """Every equation of a jaxpr, each followed by those nested in it (shard_map, scan, remat,
    ...)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else [value]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from all_eqns(inner)


def all_primitives(jaxpr):
    """Names of every primitive in a jaxpr, including nested ones (shard_map, scan, remat, ...)."""
    return [eqn.primitive.name for eqn in all_eqns(jaxpr)]


def compiled_lines(f, *args):
    """Lines of the optimised program XLA compiles for ``jax.jit(f)`` on ``args``: what really
    runs. A ``lax.scan(..., unroll=True)`` has the jaxpr of one loop but a compiled program that
    grows with the trip count."""
    return len(jax.jit(f).lower(*args).compile().as_text().splitlines())


def shard_map_operands(jaxpr):
    """The per-device shapes of the operands of every shard_map in a jaxpr."""
    return [
        [
            tuple(v.aval.shape)
            for v in getattr(
                e.params["jaxpr"], "jaxpr", e.params["jaxpr"]
            ).invars
        ]
        for e in all_eqns(jaxpr)
        if e.primitive.name == "shard_map"
    ]


class Pair(NamedTuple):
    w: jax.Array
    b: jax.Array


#: Every container a pytree of parameters may use, each holding the four
#: leaves it is given: {name: build(a, b, c, d) -> pytree}.
CONTAINERS = {
    "dict": lambda a, b, c, d: {"a": a, "b": {"c": b, "d": [c, d]}},
    "list": lambda a, b, c, d: [a, [b, c], d],
    "tuple": lambda a, b, c, d: (a, (b, c), d),
    "named tuple": lambda a, b, c, d: [Pair(a, b), Pair(c, d)],
    "nested": lambda a, b, c, d: {"layers": [Pair(a, b), (c,)], "s": d},
}
