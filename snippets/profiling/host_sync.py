# platform: gpu differs -- On a fast GPU, `loss + 1` can print False: the program may already have finished when the add returns
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def work(a):
    """Busy work on any device. a: (n, n) -> (), exactly 1.0 in float32."""
    # about 7 GFLOP keep a CPU busy; the largest |tanh| is exactly 1.0
    m = jnp.max(jnp.abs(jnp.tanh((a @ a) @ a)))
    # then 2000 dependent steps of a rolled loop (max(1, tanh(1)) = 1); a
    # fast GPU can still finish all of it before a cheap call returns
    return lax.fori_loop(0, 2000, lambda i, s: jnp.maximum(s, jnp.tanh(s)), m)


a = jax.random.normal(jax.random.key(0), (1200, 1200))
slow = jax.jit(work)
slow(a).block_until_ready()  # compile outside the test

readers = {  # each needs the value on the host
    "float(loss)": float,
    "bool(loss > 0)": lambda loss: bool(loss > 0),
    "print(loss)": print,
    "f'{loss:.2f}'": lambda loss: f"{loss:.2f}",
    "loss.item()": lambda loss: loss.item(),
    "loss.tolist()": lambda loss: loss.tolist(),
    "np.asarray(loss)": np.asarray,
    "jax.device_get(loss)": jax.device_get,
}
print("result ready when the reader returned:")
for name, read in readers.items():
    loss = slow(a)  # queued, not computed yet
    read(loss)
    print(f"  {name:21} {loss.is_ready()}")

stays = {  # each returns a new device array without waiting
    "loss + 1": lambda loss: loss + 1,
    "jnp.stack([loss])": lambda loss: jnp.stack([loss]),
}
print("returned before the result was ready (in 3 tries):")
for name, use in stays.items():
    pending = []
    for _ in range(3):
        loss = slow(a)
        use(loss)
        pending.append(not loss.is_ready())
        loss.block_until_ready()
    print(f"  {name:21} {any(pending)}")
