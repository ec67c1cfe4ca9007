import jax
import jax.numpy as jnp

from practice.decoding.greedy_decode_scan.solution import greedy_decode


def cycle_step(state, tokens):
    """Toy bigram model. tokens: (B,) int32 -> logits (B, 8); the best next
    token is (t + 1) % 8."""
    table = jnp.eye(8)[(jnp.arange(8) + 1) % 8] * 2.0
    return table[tokens], state


first = jnp.array([0, 2, 4])
tokens, lengths = greedy_decode(
    cycle_step, (), first, num_steps=6, eos_id=3, pad_id=0
)
print("tokens:\n", tokens)
print("lengths:", lengths)


def python_loop_decode(first, num_steps):
    """The same loop in Python (no EOS handling). first: (B,) -> (B,
    num_steps)."""
    fed, out = first, []
    for _ in range(num_steps):
        logits, _ = cycle_step((), fed)
        fed = jnp.argmax(logits, axis=-1)
        out.append(fed)
    return jnp.stack(out, axis=1)


for steps in [6, 24]:
    scan_eqns = jax.make_jaxpr(
        lambda f: greedy_decode(cycle_step, (), f, steps, 3, 0)
    )(first).eqns
    loop_eqns = jax.make_jaxpr(lambda f: python_loop_decode(f, steps))(
        first
    ).eqns
    print(
        f"{steps:2d} steps: scan version {len(scan_eqns)} equations, "
        f"Python loop {len(loop_eqns)} equations"
    )
print("scan version primitives:", [eqn.primitive.name for eqn in scan_eqns])
