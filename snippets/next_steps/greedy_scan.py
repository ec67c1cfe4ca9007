import jax
import jax.numpy as jnp
from jax import lax

# A toy "model": the next-token logits depend only on the current token.
table = jnp.array(
    [
        [0.0, 2.0, 0.0, 0.0],  # after token 0, token 1 is most likely
        [0.0, 0.0, 0.0, 3.0],  # after 1 comes 3
        [1.0, 0.0, 0.0, 0.0],  # after 2 comes 0
        [0.0, 0.0, 5.0, 0.0],  # after 3 comes 2
    ]
)
step_traces = 0


def decode(first_token, steps):
    """Greedy decoding, fixed step count. first_token: () -> (steps,)."""

    def step(token, _):
        global step_traces
        # counts how often Python runs the body: only while tracing
        step_traces += 1
        next_token = jnp.argmax(table[token])
        return next_token, next_token  # (new carry, output for this step)

    _, tokens = lax.scan(step, first_token, None, length=steps)
    return tokens


def decode_python_loop(first_token, steps):
    """The same loop, unrolled in Python. first_token: () -> (steps,)."""
    global step_traces
    token, tokens = first_token, []
    for _ in range(steps):
        step_traces += 1
        token = jnp.argmax(table[token])
        tokens.append(token)
    return jnp.stack(tokens)


print("generated:", jax.jit(decode, static_argnums=1)(jnp.array(0), 7))
print("scan, 7 steps, traces of the step body:       ", step_traces)
step_traces = 0
print(
    "generated:",
    jax.jit(decode_python_loop, static_argnums=1)(jnp.array(0), 7),
)
print("Python loop, 7 steps, traces of the step body:", step_traces)
