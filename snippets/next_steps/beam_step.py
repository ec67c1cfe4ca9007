import jax.numpy as jnp
from jax import lax

beam_scores = jnp.array([-0.5, -1.2])  # log-probabilities of 2 current beams
log_probs = jnp.log(
    jnp.array(
        [
            [0.1, 0.6, 0.3],  # next-token distribution of beam 0
            [0.7, 0.2, 0.1],  # and of beam 1 (vocabulary of 3)
        ]
    )
)

# (beams, vocab): every one-token extension
candidates = beam_scores[:, None] + log_probs
# best 2 over all beams and tokens
scores, flat = lax.top_k(candidates.reshape(-1), 2)
vocab = log_probs.shape[1]
print("parent beams:", flat // vocab, " new tokens:", flat % vocab)
with jnp.printoptions(precision=3):
    print("new beam scores:", scores)
