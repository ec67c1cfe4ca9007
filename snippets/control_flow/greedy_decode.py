"""Greedy decoding with lax.scan: a tiny random recurrent model, 16 tokens."""

import jax
import jax.numpy as jnp
from jax import lax

VOCAB, DIM, STEPS = 16, 8, 8

k_embed, k_rec, k_out = jax.random.split(jax.random.key(0), 3)
params = {
    "embed": jax.random.normal(k_embed, (VOCAB, DIM)),  # token -> vector
    # state -> state
    "rec": jax.random.normal(k_rec, (DIM, DIM)) / jnp.sqrt(DIM),
    # state -> logits over the vocabulary
    "out": jax.random.normal(k_out, (DIM, VOCAB)),
}


def model_step(params, state, token):
    """state: (DIM,), token: () int -> (state: (DIM,), logits: (VOCAB,))."""
    state = jnp.tanh(params["embed"][token] + state @ params["rec"])
    return state, state @ params["out"]


@jax.jit
def greedy_decode(params, first_token):
    """Greedy decoding: each token is the argmax of the next logits.

    first_token: () int -> tokens: (STEPS,).
    """

    def step(carry, _):
        state, token = carry
        state, logits = model_step(params, state, token)
        token = jnp.argmax(logits)
        # the carry has a fixed shape; the tokens are the ys
        return (state, token), token

    _, tokens = lax.scan(step, (jnp.zeros(DIM), first_token), length=STEPS)
    return tokens


tokens = greedy_decode(params, jnp.int32(3))
print("scan decode:", tokens.tolist())

# The same decoding with a Python loop, one token at a time, outside jit.
state, token, reference = jnp.zeros(DIM), 3, []
for _ in range(STEPS):
    state, logits = model_step(params, state, token)
    token = int(jnp.argmax(logits))
    reference.append(token)
print("python loop:", reference)
print("identical:", tokens.tolist() == reference)
