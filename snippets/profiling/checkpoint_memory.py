import jax
import jax.numpy as jnp

N_BLOCKS, BATCH, D = 8, 512, 128


def block(p, h):
    """Residual MLP block with a 4x wider hidden layer. h: (batch, d) -> (batch, d)."""
    w1, w2 = p  # (d, 4d), (4d, d)
    return h + jnp.tanh(h @ w1) @ w2


def loss(params, x, remat):
    """Mean square of the output of N_BLOCKS blocks. x: (batch, d) -> scalar."""
    f = jax.checkpoint(block) if remat else block  # remat: keep only each block's input
    for p in params:
        x = f(p, x)
    return jnp.mean(x ** 2)


keys = jax.random.split(jax.random.key(0), 2 * N_BLOCKS)
params = [(jax.random.normal(k1, (D, 4 * D)) / D ** 0.5,
           jax.random.normal(k2, (4 * D, D)) / (4 * D) ** 0.5)
          for k1, k2 in zip(keys[::2], keys[1::2])]
x = jax.random.normal(jax.random.key(1), (BATCH, D))

print(f"one hidden activation: {BATCH * 4 * D * 4 / 2**20:.2f} MiB, one block input: {BATCH * D * 4 / 2**20:.2f} MiB")
for remat in (False, True):
    compiled = jax.jit(jax.grad(loss), static_argnums=2).lower(params, x, remat).compile()
    temp = compiled.memory_analysis().temp_size_in_bytes
    flops = compiled.cost_analysis()["flops"]
    print(f"checkpoint={remat!s:5}: temp memory {temp / 2**20:5.2f} MiB, {flops / 1e9:.2f} GFLOP")
print(f"redoing tanh(h @ w1) in every block: {N_BLOCKS * 2 * BATCH * D * 4 * D / 1e9:.2f} GFLOP")
