"""lax.map(f, xs): f on one slice of xs at a time, as a scan with no carry."""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def score(x):
    """A function of one example. x: (3,) -> ()."""
    return jnp.sum(jnp.tanh(x) * x)


def top_level(fn, xs):
    """The scans and tanh ops of fn's jaxpr, outside any scan, in order."""
    facts = []
    for e in jax.make_jaxpr(fn)(xs).eqns:
        if e.primitive.name == "scan":
            step = [v.aval.shape for v in e.params["jaxpr"].jaxpr.invars]
            n = e.params["length"]
            facts.append(f"scan of {n} steps, inputs of a step: {step}")
        if e.primitive.name == "tanh":
            facts.append(f"tanh on {e.outvars[0].aval.shape}")
    return ", then ".join(facts)


xs = jnp.arange(24.0).reshape(8, 3) / 24  # 8 examples of shape (3,)
print("jax.vmap(score)(xs)")
print("  jaxpr:", top_level(jax.vmap(score), xs))
for batch_size in [None, 4, 3]:
    mapped = partial(lax.map, score, batch_size=batch_size)
    print(f"lax.map(score, xs, batch_size={batch_size})")
    print("  jaxpr:", top_level(mapped, xs))
    print("  same as vmap:", jnp.allclose(mapped(xs), jax.vmap(score)(xs)))
