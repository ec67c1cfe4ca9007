import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.sharding._linear import loss, make_data

mesh = jax.make_mesh((8,), ("data",))
x, y = make_data(jax.random.key(0))
params = {"w": jnp.zeros(4), "b": jnp.zeros(())}
g_full = jax.jit(jax.grad(loss))(params, x, y)


def grad_then_pmean(params, x, y):
    """The older convention: grad on this device's examples, then pmean."""
    return lax.pmean(jax.grad(loss)(params, x, y), "data")


def under_shard_map(check_vma):
    """grad_then_pmean in shard_map, params passed replicated (P())."""
    batch = NamedSharding(mesh, P("data"))
    xs, ys = jax.device_put(x, batch), jax.device_put(y, batch)
    f = jax.shard_map(
        grad_then_pmean,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),
        out_specs=P(),
        check_vma=check_vma,
    )
    return jax.jit(f)(params, xs, ys)


def under_pmap():
    """grad_then_pmean in pmap: params unmapped, 8 examples per device."""
    f = jax.pmap(grad_then_pmean, axis_name="data", in_axes=(None, 0, 0))
    grads = f(params, x.reshape(8, 8, -1), y.reshape(8, 8))
    return jax.tree.map(lambda g: g[0], grads)  # device 0's copy


print("grad then pmean, divided by the full-batch gradient:")
for name, g in [
    ("shard_map (check_vma=True)", under_shard_map(True)),
    ("shard_map (check_vma=False)", under_shard_map(False)),
    ("pmap", under_pmap()),
]:
    print(
        f"  {name:28s} w: {jnp.round(g['w'] / g_full['w'], 4)}"
        f"  b: {jnp.round(g['b'] / g_full['b'], 4)}"
    )
