import jax
import jax.numpy as jnp
from jax import lax

logits = jnp.array([2.0, 0.5, 1.0, -1.0, 3.0, 0.0])
probs = jax.nn.softmax(logits)

# the 3 largest logits and where they are
values, indices = lax.top_k(logits, 3)
# same shape, the rest masked out
kept = jnp.where(logits >= values[-1], logits, -jnp.inf)
order = jnp.argsort(-probs)  # tokens from most to least likely

with jnp.printoptions(precision=3, suppress=True):
    print("probabilities:     ", probs)
    print("top-3 tokens:      ", indices)
    print("top-3 distribution:", jax.nn.softmax(kept))
    print("sorted tokens:     ", order)
    print("cumulative mass:   ", jnp.cumsum(probs[order]))
