import jax
import numpy as np
from jax.sharding import Mesh

mesh = jax.make_mesh((4, 2), ("data", "model"))
print("platform:", jax.devices()[0].platform)
print("make_mesh device ids:", [d.id for d in mesh.devices.flat])
by_hand = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
print(
    "same as reshaping jax.devices():",
    bool((mesh.devices == by_hand.devices).all()),
)
