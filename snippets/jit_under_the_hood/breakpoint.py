import io

import jax
import jax.numpy as jnp

# What a reader would type at the (jdb) prompt, fed from a string here,
# and a buffer for what the debugger prints
COMMANDS = io.StringIO("p x\np x < 0\np y[2]\nc\n")
SESSION = io.StringIO()


@jax.jit
def nll(x):
    """Mean negative log. x: (n,) -> scalar."""
    y = jnp.log(x)
    jax.debug.breakpoint(stdin=COMMANDS, stdout=SESSION)  # not the terminal
    return -jnp.mean(y)


inner = jax.make_jaxpr(nll)(jnp.ones(3)).eqns[0].params["jaxpr"]
print("operations:", [eqn.primitive.name for eqn in inner.eqns])
print("result:", nll(jnp.array([0.5, 0.25, -0.1])))
print("commands:", COMMANDS.getvalue().splitlines())
print("what the debugger printed:")
print(SESSION.getvalue())
