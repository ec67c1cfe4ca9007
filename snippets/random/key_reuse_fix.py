# platform: tpu differs -- random.normal's last digits: a TPU's float32 transcendental functions (log1p, used inside erfinv) differ from this CPU's (up to 2e-5 apart), and numpy's column padding moves with them; the same key still gives the same draws
import jax

jax.config.update("jax_debug_key_reuse", True)

key = jax.random.key(0)
key, sub = jax.random.split(key)  # split consumes key and returns fresh ones
noise_1 = jax.random.normal(sub, (3,))
key, sub = jax.random.split(key)
noise_2 = jax.random.normal(sub, (3,))
print("noise 1:", noise_1)
print("noise 2:", noise_2)
