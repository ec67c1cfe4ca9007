# platform: gpu,tpu differs -- lists the machine's own backend and devices

import jax

print("backend:", jax.default_backend())
print("devices:", jax.device_count())
print(jax.devices())
