import jax.numpy as jnp

from practice.decoding.beam_search_step.solution import (
    beam_search_step,
    gather_beams,
)

# toy bigram model over 5 tokens; token 4 is EOS
table = jnp.log(
    jnp.array(
        [
            [0.05, 0.5, 0.3, 0.1, 0.05],
            [0.1, 0.1, 0.2, 0.2, 0.4],
            [0.3, 0.1, 0.1, 0.4, 0.1],
            [0.2, 0.2, 0.2, 0.2, 0.2],
            [0.2, 0.2, 0.2, 0.2, 0.2],
        ]
    )
)
EOS, K, STEPS = 4, 3, 4

# (B=1, K): one live beam at the start
scores = jnp.array([[0.0, -jnp.inf, -jnp.inf]])
finished = jnp.zeros((1, K), bool)
state = {
    "last": jnp.zeros((1, K), jnp.int32),  # per-beam state, (B, K, ...)
    "seq": jnp.zeros((1, K, 0), jnp.int32),
}
for step in range(STEPS):
    log_probs = table[state["last"]]  # (B, K, V)
    scores, parents, tokens, finished = beam_search_step(
        scores, log_probs, finished, EOS
    )
    state = gather_beams(state, parents)  # follow the surviving parents
    state = {
        "last": tokens,
        "seq": jnp.concatenate([state["seq"], tokens[..., None]], axis=-1),
    }
    print(
        f"step {step}: parents {parents[0].tolist()} tokens "
        f"{tokens[0].tolist()}"
    )

for k in range(K):
    print(
        f"beam {k}: tokens {state['seq'][0, k].tolist()}  log-prob "
        f"{float(scores[0, k]):.3f}"
        f"  finished {bool(finished[0, k])}"
    )
