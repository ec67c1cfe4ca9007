import jax
import jax.numpy as jnp
import numpy as np

from practice.decoding.speculative_acceptance.solution import (
    speculative_accept,
)

p = jnp.array(
    [
        [0.1, 0.4, 0.2, 0.2, 0.1],  # target p_0, p_1, p_2 (L = 2 draft tokens)
        [0.3, 0.1, 0.3, 0.2, 0.1],
        [0.2, 0.2, 0.2, 0.2, 0.2],
    ]
)
q = jnp.array(
    [
        [0.4, 0.1, 0.1, 0.2, 0.2],  # draft q_0, q_1
        [0.2, 0.2, 0.2, 0.2, 0.2],
    ]
)

one_key, draft_key, accept_key = jax.random.split(jax.random.key(0), 3)
draft = jnp.array([0, 2], jnp.int32)
tokens, num = speculative_accept(one_key, draft, q, p)
print(
    "one round: draft",
    draft.tolist(),
    "-> emitted",
    tokens.tolist(),
    "num_emitted",
    int(num),
)

# 20,000 independent rounds: draft tokens from q, then acceptance
n = 20_000
drafts = jax.random.categorical(draft_key, jnp.log(q), shape=(n, 2)).astype(
    jnp.int32
)
keys = jax.random.split(accept_key, n)
tokens, num = jax.jit(
    jax.vmap(speculative_accept, in_axes=(0, 0, None, None))
)(keys, drafts, q, p)
first = np.bincount(np.asarray(tokens[:, 0]), minlength=5) / n
print("first token frequencies:", np.round(first, 3))
print("target p_0:             ", np.asarray(p[0]))
print("draft q_0:              ", np.asarray(q[0]))
print(
    "acceptance rate of draft token 0:",
    round(float(jnp.mean(num >= 2)), 3),
    "  expected sum(min(p_0, q_0)) =",
    round(float(jnp.minimum(p[0], q[0]).sum()), 3),
)
