# platform: gpu,tpu differs -- This cell lists that machine's own backend and devices

import jax

print("backend:", jax.default_backend())
print("devices:", jax.device_count())
print(jax.devices())
