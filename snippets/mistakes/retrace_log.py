import logging

import jax
import jax.numpy as jnp


@jax.jit
def mean_score(x):
    """Mean of tanh over a sequence. x: (length,) -> scalar."""
    return jnp.mean(jnp.tanh(x))


class PrintCompiles(logging.Handler):
    """Show only JAX's 'Compiling ...' log lines."""

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Compiling"):
            print(message.split(". Argument")[0])


inputs = [jnp.ones(5), jnp.ones(6), jnp.ones(5)]
jax_logger = logging.getLogger("jax")
handler = PrintCompiles()
jax_logger.addHandler(handler)
jax_logger.propagate = False
with jax.log_compiles():  # JAX logs every XLA compilation inside this block
    for x in inputs:
        mean_score(x)
jax_logger.removeHandler(handler)
jax_logger.propagate = True
