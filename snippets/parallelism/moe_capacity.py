# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU splits each into a `-start` and a `-done` operation
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import result_types
from snippets.sharding_costs._comm import array_bytes

E, T, D = 8, 32, 16  # experts (one per device), tokens per device, width
mesh = jax.make_mesh((E,), ("expert",))
k = jax.random.split(jax.random.key(0), 3)
x = jax.random.normal(k[0], (E * T, D))  # the tokens, split over devices
router = jax.random.normal(k[1], (D, E))
w = jax.random.normal(k[2], (E, D, D)) / 4  # expert e's weights on device e


def top1(x):
    """Each token's expert: x (n, D) -> (n,) int."""
    return jnp.argmax(x @ router, axis=-1)


def dense(x):
    """Every token through its expert, no buffers: x (n, D) -> (n, D)."""
    return jnp.tanh(jnp.einsum("td,tdf->tf", x, w[top1(x)]))


def moe(capacity):
    """The expert layer with `capacity` slots per expert and device."""

    def layer(w, x):
        """Per device: w (1, D, D), x (T, D) -> (T, D); a token past its
        expert's capacity is dropped (its output is 0)."""
        choice = jax.nn.one_hot(top1(x), E)  # (T, E)
        slot = jnp.sum(jnp.cumsum(choice, axis=0) * choice, axis=1) - 1
        slot = slot.astype(jnp.int32)  # its place in the expert's queue
        # (T, E, C): token t goes to slot c of expert e's buffer
        dispatch = choice[:, :, None] * jax.nn.one_hot(slot, capacity)[:, None]
        send = jnp.einsum("tec,td->ecd", dispatch, x)  # (E, C, D)
        mine = lax.all_to_all(send, "expert", 0, 0, tiled=True)
        done = jnp.tanh(mine @ w[0])  # this device's expert, all its tokens
        back = lax.all_to_all(done, "expert", 0, 0, tiled=True)
        kept = jnp.sum(dispatch)[None]  # (1,): tokens that found a slot
        return jnp.einsum("tec,ecd->td", dispatch, back), kept

    specs = dict(
        in_specs=(P("expert"), P("expert")),
        out_specs=(P("expert"), P("expert")),
    )
    return jax.jit(jax.shard_map(layer, mesh=mesh, **specs))


with jax.set_mesh(mesh):
    args = jax.device_put((w, x), P("expert"))
want = dense(x)
print(f"{E} experts, {T} tokens per device, top-1 routing")
print(
    "factor  slots  buffer per device  dropped  kept match dense  all-to-alls"
)
for factor in (1.0, 1.25, 2.0):
    capacity = math.ceil(factor * T / E)
    layer = moe(capacity)
    y, kept = layer(*args)
    program = layer.lower(*args).compile().as_text()
    sent = [array_bytes(t) for t in result_types(program, "all-to-all")]
    zero = (y == 0).all(axis=1)  # a dropped token's row
    same = jnp.isclose(y, want, atol=1e-6).all(axis=1)
    print(
        f"{factor:6.2f} {capacity:6d} {str((E, capacity, D)):>18} "
        f"{1 - float(kept.sum()) / (E * T):8.1%} "
        f"{bool(jnp.all(zero | same))!s:>17}  {len(sent)} x {sent[0]} B"
    )
