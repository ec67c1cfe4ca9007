"""A static value changed in place: jit's cache sees the change too."""

import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Scaled:
    """x: (n,) leaf; scale: static, here a mutable list (the docs say no)."""

    x: jax.Array
    scale: list | tuple = jax.tree.static()


traces = 0


@jax.jit
def apply(s):
    """x * scale[0]. s.x: (n,) -> (n,)."""
    global traces
    traces += 1  # Python side effect: runs only while tracing
    return s.x * s.scale[0]


def show(label, s):
    """Print apply(s) and the number of traces so far."""
    y = apply(s)
    print(f"{label:24} {y} | traces: {traces}")


s = Scaled(jnp.ones(3), [2.0])
show("scale=[2.0]", s)
s.scale[0] = 3.0  # the list jit keeps in its cache key changes with it
show("s.scale[0] = 3.0", s)
show("new Scaled, [3.0]", Scaled(s.x, [3.0]))
show("new Scaled, (3.0,)", Scaled(s.x, (3.0,)))  # a tuple: immutable
