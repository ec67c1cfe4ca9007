# platform: tpu differs -- A TPU rounds `w`'s buffer up to its memory tile: its 64 floats take 0.50 KiB there, 0.25 KiB on the CPU; the program texts and the loss are the same
import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    """Least squares. w: (64,), x: (4096, 64), y: (4096,) -> ()."""
    return jnp.mean((x @ w - y) ** 2)


kx, ky = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (4096, 64))  # 1 MiB
y = jax.random.normal(ky, (4096,))
w = jnp.zeros(64)

closed = jax.jit(lambda w: loss_fn(w, x, y))  # x, y captured
passed = jax.jit(loss_fn)  # x, y are arguments
programs = {
    "closed over": closed.lower(w),
    "passed in": passed.lower(w, x, y),
}
print("data:", (x.nbytes + y.nbytes) // 2**10, "KiB")
for name, lowered in programs.items():
    text_kib = len(lowered.as_text()) / 2**10
    args = lowered.compile().memory_analysis().argument_size_in_bytes
    print(
        f"{name:12} program text {text_kib:7.1f} KiB,"
        f" arguments {args / 2**10:7.2f} KiB"
    )
print("same loss:", jnp.allclose(closed(w), passed(w, x, y)))
