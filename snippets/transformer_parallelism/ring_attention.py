# platform: gpu,tpu differs -- XLA compiles the scratch buffers and the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding_costs._comm import traffic
from snippets.transformer_parallelism._x import permute_bytes

N, T, D = 8, 512, 32  # devices on the ring, sequence length, head width
B = T // N  # positions per device
mesh = jax.make_mesh((N,), ("seq",))
kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q, k, v = (jax.random.normal(key, (T, D)) for key in (kq, kk, kv))


def attention(q, k, v):
    """Causal attention on one device: q, k, v (T, D) -> (T, D)."""
    s = q @ k.T / D**0.5
    later = jnp.arange(T)[None, :] > jnp.arange(T)[:, None]
    return jax.nn.softmax(jnp.where(later, -jnp.inf, s), axis=-1) @ v


def block_update(m, total, acc, q, k, v, q_pos, k_pos):
    """Fold one key/value block into the running softmax of a query block.
    m: (b,) running max of the scores; total: (b,) running sum of exp;
    acc: (b, D) unnormalised output; q (b, D), k and v (c, D), q_pos (b,),
    k_pos (c,) -> new (m, total, acc)."""
    s = q @ k.T / D**0.5
    s = jnp.where(k_pos[None, :] > q_pos[:, None], -jnp.inf, s)  # causal
    m_new = jnp.maximum(m, s.max(axis=-1))
    p = jnp.exp(s - m_new[:, None])
    scale = jnp.exp(m - m_new)  # rescale what was summed under the old max
    return m_new, total * scale + p.sum(-1), acc * scale[:, None] + p @ v


def ring_attention(q, k, v):
    """Per device: its block of positions, q, k, v (B, D) -> (B, D). The
    key/value blocks travel around the ring; after N - 1 hops every query
    block has seen every key block."""
    me = lax.axis_index("seq")
    right = [(i, (i + 1) % N) for i in range(N)]
    q_pos = me * B + jnp.arange(B)

    def hop(carry, step):
        """Fold in the block held now, then pass it to the right."""
        m, total, acc, k, v = carry
        k_pos = (me - step) % N * B + jnp.arange(B)  # whose block it is
        m, total, acc = block_update(m, total, acc, q, k, v, q_pos, k_pos)
        k, v = lax.ppermute((k, v), "seq", right)
        return (m, total, acc, k, v), None

    start = (jnp.full((B,), -jnp.inf), jnp.zeros((B,)), jnp.zeros((B, D)))
    start = lax.pcast(start, "seq", to="varying")
    (m, total, acc, k, v), _ = lax.scan(hop, (*start, k, v), jnp.arange(N - 1))
    k_pos = (me + 1) % N * B + jnp.arange(B)  # the last block, not sent on
    m, total, acc = block_update(m, total, acc, q, k, v, q_pos, k_pos)
    return acc / total[:, None]


ring = jax.jit(
    jax.shard_map(
        ring_attention, mesh=mesh, in_specs=P("seq"), out_specs=P("seq")
    )
)
with jax.set_mesh(mesh):
    placed = jax.device_put((q, k, v), P("seq"))
out = ring(*placed)
print("output:", jax.typeof(out))
same = jnp.allclose(out, attention(q, k, v), atol=1e-5)
print("equal to full attention (within 1e-5):", bool(same))


def gathered_attention(q, k, v):
    """Per device, for comparison: gather every key and value block first,
    then attend q (B, D) to all T positions -> (B, D)."""
    k, v = (lax.all_gather(a, "seq", tiled=True) for a in (k, v))
    q_pos = lax.axis_index("seq") * B + jnp.arange(B)
    start = (jnp.full((B,), -jnp.inf), jnp.zeros((B,)), jnp.zeros((B, D)))
    m, total, acc = block_update(*start, q, k, v, q_pos, jnp.arange(T))
    return acc / total[:, None]


gathered = jax.jit(
    jax.shard_map(
        gathered_attention, mesh=mesh, in_specs=P("seq"), out_specs=P("seq")
    )
)


def gathered_by_block(q, k, v):
    """Per device, for comparison: gather every key and value block, then
    fold them in one block at a time, its own first, as the ring does."""
    k, v = (lax.all_gather(a, "seq") for a in (k, v))  # (N, B, D)
    me = lax.axis_index("seq")
    q_pos = me * B + jnp.arange(B)

    def fold(state, step):
        """Fold in the block that the ring would hold at this step."""
        j = (me - step) % N
        k_pos = j * B + jnp.arange(B)
        return block_update(*state, q, k[j], v[j], q_pos, k_pos), None

    start = (jnp.full((B,), -jnp.inf), jnp.zeros((B,)), jnp.zeros((B, D)))
    start = lax.pcast(start, "seq", to="varying")
    (m, total, acc), _ = lax.scan(fold, start, jnp.arange(N))
    return acc / total[:, None]


by_block = jax.jit(
    jax.shard_map(
        gathered_by_block, mesh=mesh, in_specs=P("seq"), out_specs=P("seq")
    )
)
for name, f in [("K, V", gathered), ("K, V by block", by_block)]:
    same = jnp.allclose(f(*placed), out, atol=1e-5)
    print(f"gathered {name} equal too (within 1e-5):", bool(same))
print(f"K and V of the whole sequence: {2 * T * D * 4 // 1024} KiB")
print(f"{'per device':15} {'scratch':>12} {'sends':>12}")
for name, f, args in [
    ("one device", jax.jit(attention), (q, k, v)),
    ("gather K, V", gathered, placed),
    ("gather by block", by_block, placed),
    ("ring", ring, placed),
]:
    compiled = f.lower(*args).compile()
    program = compiled.as_text()
    scratch = compiled.memory_analysis().temp_size_in_bytes
    hops = N - 1 if f is ring else 1  # the ring's permute runs in a loop
    sent = hops * permute_bytes(program) + sum(r[3] for r in traffic(program))
    print(f"{name:15} {scratch / 1024:8.0f} KiB {sent / 1024:8.0f} KiB")
