# platform: gpu,tpu differs -- The machine orders its devices (a TPU by its topology) and may group them in slices
import jax
from jax.experimental import mesh_utils


def ids(devices):
    """Device ids of a mesh's device array, nested as the array is."""
    return [[d.id for d in row] for row in devices]


mesh = jax.make_mesh((4, 2), ("data", "model"))
print(f"make_mesh((4, 2)) on this {jax.default_backend()}:", ids(mesh.devices))

# one (4, 2) mesh per granule of the slower network; here the granule is
# the process, and this machine runs one
hybrid = mesh_utils.create_hybrid_device_mesh(
    (4, 2), (1, 1), process_is_granule=True
)
print("create_hybrid_device_mesh((4, 2), (1, 1)):", ids(hybrid))
try:  # devices of a multi-slice TPU system carry a slice_index
    mesh_utils.create_hybrid_device_mesh((4, 2), (1, 1))
except ValueError as error:
    print(f"by slice on this {jax.default_backend()}:", error)
