import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives

mesh = jax.make_mesh((8,), ("data",))
with jax.set_mesh(mesh):  # the mesh for every bare PartitionSpec below
    a = jax.device_put(jnp.ones((16, 32)), P(None, "data"))
    b = jax.device_put(jnp.ones((32, 8)), P("data", None))

    @jax.jit
    def matmul_rows(a, b):
        """a: (n, k), b: (k, m) -> (n, m), rows split over "data"."""
        c = jnp.matmul(a, b, out_sharding=P("data", None))
        print("inside jit, c:", jax.typeof(c))  # printed while tracing
        return c

    c = matmul_rows(a, b)
    print("c:", jax.typeof(c), "| equals 32:", bool(jnp.all(c == 32)))

    @jax.jit
    def replicate(c):
        """c: (n, m) -> (n, m), a full copy on every device."""
        return jax.reshard(c, P())

    print("reshard outside jit:", jax.typeof(jax.reshard(c, P())))
    print("reshard inside jit: ", jax.typeof(replicate(c)))
    program = replicate.lower(c).compile().as_text()
    print("replicate compiles to:", collectives(program))
