import jax
import numpy as np
from jax.sharding import PartitionSpec as P

from snippets.multiprocess import _launch, _worker

printed = _launch.run(_worker.__file__, ["train"], processes=2, devices=4)
for text in printed:
    print(text)

# The same steps in this one process, on its own 8 devices.
mesh = jax.make_mesh((4, 2), ("data", "model"))
x, y = _worker.load_rows(0, _worker.ROWS)
with jax.set_mesh(mesh):
    x, y = jax.device_put((x, y), P("data"))
one = np.asarray(_worker.train(mesh, x, y))
print("one process, rows 0:64, losses:", " ".join(f"{v:.4f}" for v in one))
for k, text in enumerate(printed):
    losses = [float(v) for v in text.split("losses:")[1].split()]
    print(f"process {k} agrees:", np.allclose(losses, one, atol=1e-4))
