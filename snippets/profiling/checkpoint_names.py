import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def block(p, h):
    """The block above, its product h @ w1 tagged with the name "pre"."""
    w1, w2 = p  # (d, 4d), (4d, d)
    pre = checkpoint_name(h @ w1, "pre")
    return h + jnp.tanh(pre) @ w2


def kept_mib(f, p, h):
    """MiB that f's backward pass keeps from its forward pass, besides
    the inputs: jax.vjp's backward function holds them."""
    _, backward = jax.vjp(f, p, h)
    kept = sum(x.nbytes for x in jax.tree.leaves(backward))
    inputs = sum(x.nbytes for x in jax.tree.leaves((p, h)))
    return (kept - inputs) / 2**20


p = (jnp.zeros((64, 256)), jnp.zeros((256, 64)))
h = jnp.zeros((2048, 64))  # the hidden activation is (2048, 256): 2 MiB
keep_pre = jax.checkpoint_policies.save_only_these_names("pre")

variants = {
    "plain block": block,
    "jax.checkpoint": jax.checkpoint(block),
    "jax.checkpoint keeping 'pre'": jax.checkpoint(block, policy=keep_pre),
}
print("kept for the backward pass, besides the inputs:")
for label, f in variants.items():
    print(f"  {label + ':':30}{kept_mib(f, p, h):5.2f} MiB")
