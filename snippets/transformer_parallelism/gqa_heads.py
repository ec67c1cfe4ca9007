# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives
from snippets.sharding_costs._comm import traffic

T, D, H, G, K = 16, 64, 8, 2, 8  # positions, width, query heads, KV heads,
R = H // G  # head width; query heads that share one key/value head
mesh = jax.make_mesh((8,), ("model",))
N = mesh.size  # devices in the tensor-parallel group
ks = jax.random.split(jax.random.key(0), 5)
x = jax.random.normal(ks[0], (T, D))
wq = jax.random.normal(ks[1], (D, H, K)) / D**0.5
wk, wv = (jax.random.normal(k, (D, G, K)) / D**0.5 for k in ks[2:4])
wo = jax.random.normal(ks[4], (H, K, D)) / (H * K) ** 0.5


def gqa(x, wq, wk, wv, wo):
    """Grouped-query causal attention on one device, query heads grouped
    R to a key/value head. x (T, D), wq (D, H, K), wk and wv (D, G, K),
    wo (H, K, D) -> (T, D)."""
    q = jnp.einsum("td,dhk->thk", x, wq).reshape(T, G, R, K)
    k, v = jnp.einsum("td,dgk->tgk", x, wk), jnp.einsum("td,dgk->tgk", x, wv)
    s = jnp.einsum("tgrk,sgk->grts", q, k) / K**0.5
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -jnp.inf)
    o = jnp.einsum("grts,sgk->tgrk", jax.nn.softmax(s, -1), v)
    return jnp.einsum("thk,hkd->td", o.reshape(T, H, K), wo)


def heads(x, wq, k, v, wo):
    """Causal attention of h query heads, each with its own key/value
    head: x (T, D), wq (D, h, K), k and v (T, h, K), wo (h, K, D)
    -> partial (T, D), the heads' share of the output."""
    q = jnp.einsum("td,dhk->thk", x, wq)
    s = jnp.einsum("thk,shk->hts", q, k) / K**0.5
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -jnp.inf)
    o = jnp.einsum("hts,shk->thk", jax.nn.softmax(s, -1), v)
    return jnp.einsum("thk,hkd->td", o, wo)


def replicated(x, wq, wk, wv, wo):
    """Per device: its query heads; every key/value head, all of which it
    computes (and would cache), then picks the ones its query heads read."""
    mine = lax.axis_index("model") * wq.shape[1] + jnp.arange(wq.shape[1])
    k, v = (jnp.einsum("td,dgk->tgk", x, w)[:, mine // R] for w in (wk, wv))
    return lax.psum(heads(x, wq, k, v, wo), "model")


def repeated(x, wq, wk, wv, wo):
    """Per device: its query heads and a copy of the key/value head each
    reads, laid out beside it beforehand."""
    k, v = (jnp.einsum("td,dhk->thk", x, w) for w in (wk, wv))
    return lax.psum(heads(x, wq, k, v, wo), "model")


split = P(None, "model")  # split over heads
expected = gqa(x, wq, wk, wv, wo)
layouts = {  # in_specs of (x, wq, wk, wv, wo), and the key/value weights
    "replicated": (replicated, (P(), split, P(), P(), P("model")), (wk, wv)),
    "repeated": (
        repeated,
        (P(), split, split, split, P("model")),
        tuple(jnp.repeat(w, N // G, axis=1) for w in (wk, wv)),  # (D, N, K)
    ),
}
print(f"{H} query heads, {G} key/value heads, {N} devices")
with jax.set_mesh(mesh):
    for name, (local, specs, kv) in layouts.items():
        layer = jax.jit(jax.shard_map(local, in_specs=specs, out_specs=P()))
        args = jax.device_put((x, wq, *kv, wo), specs)
        program = layer.lower(*args).compile().as_text()
        block = args[2].addressable_shards[0].data  # device 0's keys
        print(
            f"{name}: wk {jax.typeof(args[2])}, device 0 holds {block.shape}"
        )
        print(
            f"  key/value weights per device: {2 * block.nbytes // 1024} KiB"
            f", cache per position per device: {2 * block.shape[1] * K * 4} B"
        )
        sent = sum(r[3] for r in traffic(program))
        print(f"  {collectives(program)}, sends {sent / 1024:.2f} KiB")
        same = jnp.allclose(layer(*args), expected, atol=1e-5)
        print("  equal to the unsharded layer:", bool(same))
