# platform: gpu,tpu differs -- an accelerator's compiled step gathers the bfloat16 copies, and a TPU v5e may report 0 KiB of temporaries for a step this small
# tolerance: rtol=0.02 -- the compiler's memory plan may move a little with the CPU
from collections import Counter

import jax
import numpy as np

from snippets.capstone._model import S
from snippets.capstone._train import (
    BATCH,
    batch_sharding,
    make_mesh,
    new_state,
    state_shardings,
    train_step,
)
from snippets.sharding._hlo import (
    collectives,
    partitioned_types,
    result_types,
)

mesh = make_mesh()  # 4 x 2: ("data", "model")
with jax.set_mesh(mesh):  # the compiled step, for a look inside
    shapes = jax.eval_shape(new_state, jax.random.key(0))
    abstract = jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s),
        shapes,
        state_shardings(mesh),
    )
    batch = jax.ShapeDtypeStruct(
        (BATCH, S + 1), np.int32, sharding=batch_sharding(mesh)
    )
    lowered = train_step.lower(abstract, batch)
    compiled = lowered.compile()
text = compiled.as_text()
print("collectives of the step:", ", ".join(collectives(text)))
for when, types in [
    ("after SPMD partitioning", partitioned_types(lowered, "all-gather")),
    ("compiled for these devices", result_types(text, "all-gather")),
]:
    gathered = Counter(t.split("[")[0] for t in types)
    print(f"element types of the all-gathers, {when}:", dict(gathered))
mem = compiled.memory_analysis()  # bytes per device
kib = {
    k: getattr(mem, f"{k}_size_in_bytes") / 2**10
    for k in ("argument", "output", "alias", "temp")
}
print(
    "per device: arguments {argument:.0f} KiB, outputs {output:.0f} KiB"
    " ({alias:.0f} KiB of them in donated buffers),"
    " temporaries {temp:.0f} KiB".format(**kib)
)
