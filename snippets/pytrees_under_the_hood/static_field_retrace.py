"""A static field is part of the treedef: under jit, a new value compiles."""

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Dense:
    """Dense layer. w: (d_in, d_out), b: (d_out,); activation is static."""

    w: jax.Array
    b: jax.Array
    activation: Callable = jax.tree.static(default=jnp.tanh)


traces = 0


@jax.jit
def forward(layer, x):
    """x: (n, d_in) -> (n, d_out)."""
    global traces
    traces += 1  # Python side effect: runs only while tracing
    return layer.activation(x @ layer.w + layer.b)


x = jnp.ones((4, 3))
w0, w1 = jnp.ones((3, 2)), 2 * jnp.ones((3, 2))
b0, b1 = jnp.zeros(2), jnp.ones(2)

# JAX reports an event each time it compiles a program for XLA
compiles = 0


def count_compiles(event, duration, **kwargs):
    """Count XLA compilations (a jax.monitoring listener)."""
    global compiles
    compiles += event == "/jax/core/compile/backend_compile_duration"


jax.monitoring.register_event_duration_secs_listener(count_compiles)

calls = [
    ("first call: w0, b0", Dense(w0, b0)),
    ("new leaves w1, b1", Dense(w1, b1)),
    ("activation=jax.nn.relu", Dense(w1, b1, jax.nn.relu)),
    ("activation=jnp.tanh again", Dense(w0, b0, jnp.tanh)),
    ("a lambda", Dense(w0, b0, lambda y: 2 * y)),
    ("the same lambda, written again", Dense(w0, b0, lambda y: 2 * y)),
]
seen = []  # the treedefs of earlier calls
print(f"{'call':31} treedef seen before  traces  compiles")
for label, layer in calls:
    treedef = jax.tree.structure(layer)
    forward(layer, x)
    print(f"{label:31} {treedef in seen!s:19} {traces:7} {compiles:9}")
    seen.append(treedef)
jax.monitoring.unregister_event_duration_listener(count_compiles)

first, second = (layer.activation for _, layer in calls[-2:])
print("the two lambdas are ==:", first == second)
