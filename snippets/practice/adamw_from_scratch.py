# platform: tpu rtol=2e-4 -- A TPU multiplies float32 matrices in one bfloat16 pass by default, so the printed losses move in the fifth digit (up to 1.3e-4); the parameters still match optax's
import jax
import jax.numpy as jnp
import optax

from practice.optimizers.adamw_from_scratch.solution import adamw


def loss(params, x, y):
    """Mean squared error of a linear model. x: (n, 3), y: (n,) -> scalar."""
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


kx, kw = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (32, 3))
y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.3
params = ref_params = {"w": jax.random.normal(kw, (3,)), "b": jnp.array(0.0)}

init, update = adamw(learning_rate=0.05, weight_decay=0.01)
oracle = optax.adamw(learning_rate=0.05, weight_decay=0.01)
state, ref_state = init(params), oracle.init(params)


@jax.jit
def step(params, state):
    """One AdamW step with our optimizer -> (params, state, loss)."""
    value, grads = jax.value_and_grad(loss)(params, x, y)
    updates, state = update(grads, state, params)
    return jax.tree.map(jnp.add, params, updates), state, value


@jax.jit
def ref_step(params, state):
    """The same step with optax.adamw -> (params, state)."""
    updates, state = oracle.update(jax.grad(loss)(params, x, y), state, params)
    return optax.apply_updates(params, updates), state


for i in range(200):
    params, state, value = step(params, state)
    ref_params, ref_state = ref_step(ref_params, ref_state)
    if i % 50 == 0:
        print(f"step {i:3d}: loss {float(value):.4f}")

print("steps counted:", state["count"])
print(
    "learned w:",
    [round(float(w), 2) for w in params["w"]],
    " b:",
    round(float(params["b"]), 2),
)
print(
    "same parameters as optax.adamw after 200 steps:",
    all(
        jnp.allclose(a, b, atol=1e-5)
        for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(ref_params))
    ),
)
