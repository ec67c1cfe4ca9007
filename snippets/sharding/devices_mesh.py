import jax

print("devices:", jax.device_count(), jax.devices()[:3], "...")

# 8 devices arranged as a 4 x 2 grid with named axes.
mesh = jax.make_mesh((4, 2), ("data", "model"))
print("mesh shape:", dict(mesh.shape))
print("device ids:\n", mesh.device_ids)
print("axis types:", mesh.axis_types)
