import jax
import numpy as np

from snippets.capstone._data import TOKENS, VOCAB, Batches, decode
from snippets.capstone._model import S
from snippets.capstone._train import BATCH, batch_sharding, make_mesh

print(f"corpus: {len(TOKENS):,} characters, {len(VOCAB)} distinct")
stream = Batches(BATCH, S, seed=0)
first = next(stream)
print(
    "batch 0:",
    first.shape,
    first.dtype,
    "| row 0 begins",
    repr(decode(first[0, :30])),
)

for _ in range(4):  # batches 1 to 4
    next(stream)
saved = stream.state()  # what a checkpoint stores
print("iterator state after 5 batches:", saved)
resumed = Batches.restore(saved, BATCH, S)  # in another process, say
print(
    "restored iterator gives the next batch:",
    np.array_equal(next(resumed), next(stream)),
)

mesh = make_mesh()  # 4 x 2: ("data", "model")
x = jax.device_put(
    first, batch_sharding(mesh)
)  # rows as the rules split "batch"
print(
    "on the mesh:",
    x.sharding.spec,
    "| device 0 holds rows",
    x.addressable_shards[0].index[0],
)
