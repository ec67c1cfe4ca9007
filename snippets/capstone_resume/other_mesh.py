# tolerance: rtol=0.02 -- bfloat16 compute: losses move with the CPU
import tempfile
from pathlib import Path

import jax
import numpy as np

from snippets.capstone._data import batch_at
from snippets.capstone._model import S, loss
from snippets.capstone._train import (
    BATCH,
    batch_sharding,
    make_mesh,
    manager,
    restore,
    train,
)

with tempfile.TemporaryDirectory() as tmp:
    train(Path(tmp) / "run", make_mesh(), steps=20)  # saved at steps 10 and 20
    restored = {}
    for shape in [(4, 2), (2, 4), (2, 2)]:  # the last on 4 of the 8 devices
        mesh = make_mesh(shape)
        with jax.set_mesh(mesh), manager(Path(tmp) / "run") as mngr:
            state, batches = restore(mngr, mesh)
            batch = jax.device_put(
                batch_at(0, 20, BATCH, S), batch_sharding(mesh)
            )
            restored[shape] = state, jax.jit(loss)(state["params"], batch)
        qkv = state["params"]["blocks"]["qkv"]
        print(
            f"mesh {shape}: {mesh.devices.size} devices,",
            f"restored step {int(state['step'])},",
            f"iterator at {batches.state()['step']},",
            f"device 0 holds {qkv.addressable_shards[0].data.shape} of qkv",
        )

base, base_loss = restored[(4, 2)]
for shape in [(2, 4), (2, 2)]:
    state, value = restored[shape]
    same = jax.tree.all(
        jax.tree.map(lambda a, b: np.array_equal(a, b), state, base)
    )
    close = bool(np.isclose(value, base_loss, rtol=1e-3))
    print(
        f"{shape}: same state as on (4, 2), bit for bit: {same};",
        f"loss of batch 20 {value:.2f} ({base_loss:.2f} on (4, 2)),",
        f"equal to within 1e-3: {close}",
    )
