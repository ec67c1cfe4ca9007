# platform: tpu differs -- A TPU computes the float32 power `x ** powers` with its own approximation: (-3)**2 prints 9.000011 and (-3)**3 -27.00002 there, and the printed columns widen; the trace counts and the errors are the same
import jax
import jax.numpy as jnp
import numpy as np

from practice.jit_scan.static_arguments.solution import (
    normalize_rows,
    poly_features,
)

# JAX reports a "jaxpr_trace_duration" event every time a function is traced
events = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: events.append(event)
)


def traces_during(call):
    """Run call() and return how many traces happened meanwhile."""
    before = events.count("/jax/core/compile/jaxpr_trace_duration")
    call()
    return events.count("/jax/core/compile/jaxpr_trace_duration") - before


x, x_other = jnp.array([0.0, 1.0, 2.0, -3.0]), jnp.array([5.0, 6.0, 7.0, 8.0])
print("poly_features(x, 3):\n", poly_features(x, 3))
print(
    "traces, new values, same degree:",
    traces_during(lambda: poly_features(x_other, 3)),
)
print(
    "traces, new degree 1:           ",
    traces_during(lambda: poly_features(x, 1)),
)
print(
    "traces, degree 3 again:         ",
    traces_during(lambda: poly_features(x, 3)),
)


def poly_traced_degree(x, degree):
    """poly_features without a static degree: degree arrives as a tracer."""
    return x[:, None] ** jnp.arange(degree + 1)


try:
    jax.jit(poly_traced_degree)(x, 3)
except jax.errors.ConcretizationTypeError as err:
    print("degree not static:", type(err).__name__)

rows = jnp.array([[3.0, -4.0], [0.0, 0.0]])
for kind in ["l1", "l2", "max"]:
    print(
        f"normalize_rows(rows, {kind!r}):",
        np.asarray(normalize_rows(rows, kind), dtype=np.float64)
        .round(4)
        .tolist(),
    )
try:
    normalize_rows(rows, "l3")
except ValueError as err:
    print("ValueError:", err)
