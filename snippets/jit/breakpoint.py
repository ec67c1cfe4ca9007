import io

import jax
import jax.numpy as jnp

# What a reader would type at the (jdb) prompt, fed from a string here
COMMANDS = io.StringIO("p x\np x < 0\np y[2]\nc\n")


@jax.jit
def nll(x):
    """Mean negative log. x: (n,) -> scalar."""
    y = jnp.log(x)
    jax.debug.breakpoint(stdin=COMMANDS)  # stdin=: not the keyboard
    return -jnp.mean(y)


inner = jax.make_jaxpr(nll)(jnp.ones(3)).eqns[0].params["jaxpr"]
print("operations:", [eqn.primitive.name for eqn in inner.eqns])
result = nll(jnp.array([0.5, 0.25, -0.1]))
print("\nresult:", result)
