import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
print("jax_threefry_partitionable:", jax.config.jax_threefry_partitionable)


@jax.jit
def draw_split(key):
    """(8, 4) random bits, rows split over "data"."""
    return jax.random.bits(key, (8, 4), out_sharding=P("data"))


with jax.set_mesh(mesh):
    whole = jax.random.bits(jax.random.key(0), (8, 4))  # a copy per device
    split = draw_split(jax.random.key(0))
    hlo = draw_split.lower(jax.random.key(0)).compile().as_text()

print("whole:", jax.typeof(whole), "| split:", jax.typeof(split))
print("same bits:", bool(jnp.array_equal(whole, split)))
print("collectives:", [c for c in ("all-", "collective-") if c in hlo])
