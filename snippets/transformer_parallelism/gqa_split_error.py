# raises: ValueError
# match: does not evenly divide the dimension size 2
# platform: gpu,tpu differs -- The error prints the mesh with that machine's device kind
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

D, G, K = 64, 2, 8  # model width, key/value heads, head width
mesh = jax.make_mesh((8,), ("model",))
wk = jnp.zeros((D, G, K))  # the key projection: one (D, K) slice per head
with jax.set_mesh(mesh):
    jax.device_put(wk, P(None, "model"))  # 2 heads over 8 devices
