import jax
import jax.numpy as jnp
import numpy as np

from practice.performance.bucketed_padding.solution import (
    bucket_length,
    bucketed,
    masked_attention_pool,
    pad_to_bucket,
)

BUCKETS = (8, 16, 32, 64)
print(
    "bucket of 5, 8, 9, 40:",
    [bucket_length(n, BUCKETS) for n in (5, 8, 9, 40)],
)
padded, mask = pad_to_bucket(np.ones((5, 2), np.float32), BUCKETS)
print("padded shape:", padded.shape, " mask:", mask.astype(int))

traces = {"unpadded": 0, "bucketed": 0}


def pool_unpadded(x, w):
    """Attention pooling of a whole sequence. x: (n, d), w: (d,) -> (d,)."""
    traces["unpadded"] += 1  # Python side effect: runs once per trace
    return jax.nn.softmax(x @ w) @ x


def pool_padded(x, mask, w):
    """The same pooling on a padded sequence. x: (L, d), mask: (L,), w: (d,) ->
    (d,)."""
    traces["bucketed"] += 1
    return masked_attention_pool(x, mask, w)


plain = jax.jit(pool_unpadded)
run = bucketed(pool_padded, BUCKETS)
rng = np.random.default_rng(0)
w = jnp.asarray(rng.normal(size=4), jnp.float32)
lengths = rng.integers(1, 65, size=30)
close = []
for n in lengths:
    x = rng.normal(size=(n, 4)).astype(np.float32)
    close.append(bool(jnp.allclose(plain(x, w), run(x, w), atol=1e-6)))
print(f"{len(lengths)} sequences, {len(set(lengths))} distinct lengths")
print("traces (= compilations):", traces)
print("the two results allclose:", all(close))
