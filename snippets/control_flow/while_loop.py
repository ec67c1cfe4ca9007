"""lax.while_loop(cond_fun, body_fun, init): data decide the step count."""

import jax
import jax.numpy as jnp
from jax import lax

# counts how often jit traces newton_sqrt (Python code runs only while tracing)
traces = 0


@jax.jit
def newton_sqrt(a, tol=1e-6):
    """sqrt(a) by Newton's method until |x^2 - a| <= tol * a.

    () -> (sqrt: (), iterations: () int).
    """
    global traces
    traces += 1

    def cond_fun(state):
        x, i = state
        return (jnp.abs(x * x - a) > tol * a) & (i < 100)

    def body_fun(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    return lax.while_loop(cond_fun, body_fun, (a, 0))


for a in [2.0, 100.0, 1e6]:
    root, iterations = newton_sqrt(a)
    print(f"a = {a:>9}: sqrt = {root:.4f} after {iterations} iterations")
print("traced:", traces, "time(s)")
