import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec as P

from practice.capstone.restore_other_mesh.solution import restore_onto


def mesh_of(shape, count):
    """A (data, model) mesh of the first `count` devices."""
    devices = jax.devices()[:count]
    return jax.make_mesh(shape, ("data", "model"), devices=devices)


saved_on = mesh_of((4, 2), 8)
tree = {
    "w": jax.device_put(
        jnp.arange(128.0).reshape(8, 16),
        NamedSharding(saved_on, P("data", "model")),
    ),
    "scale": jnp.ones(16, jnp.bfloat16),
}
specs = {"w": P("model", "data"), "scale": P()}
with tempfile.TemporaryDirectory() as tmp:
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save(Path(tmp) / "ckpt", tree)
    checkpointer.wait_until_finished()
    for shape, count in [((2, 2), 4), ((2, 4), 8)]:
        mesh = mesh_of(shape, count)
        got = restore_onto(Path(tmp) / "ckpt", mesh, specs)
        w, scale = got["w"], got["scale"]
        print(
            f"mesh {shape}: w {w.sharding.spec} on {len(w.devices())} "
            "devices,",
            f"device 0 holds {w.addressable_shards[0].data.shape};",
            f"scale {scale.dtype} {scale.addressable_shards[0].data.shape};",
            "same values:",
            np.array_equal(w, tree["w"]),
        )
    try:
        restore_onto(Path(tmp) / "ckpt", mesh_of((2, 3), 6), specs)
    except ValueError as e:
        print("on a 2 x 3 mesh:", str(e).split(":")[0], "does not divide")
