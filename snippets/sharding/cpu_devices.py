from snippets.sharding import _your_script
from snippets.sharding._process import new_process

COUNT = "import jax; print('devices:', jax.device_count())"

print("nothing set:          ", new_process(["-c", COUNT]))
print(
    "JAX_NUM_CPU_DEVICES=8:",
    new_process(["-c", COUNT], JAX_NUM_CPU_DEVICES="8"),
)
print("your script:")
print(new_process([_your_script.__file__]))
