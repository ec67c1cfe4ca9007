import jax
import jax.numpy as jnp

from _mlp import init_mlp, mlp

bf16, f32 = jnp.bfloat16, jnp.float32


def dense(w, x):
    """bfloat16 inputs, float32 sums. w: (d_in, d_out) f32, x: (n, d_in)."""
    return jnp.matmul(
        x.astype(bf16), w.astype(bf16), preferred_element_type=f32
    )


def mlp_mixed(params, x):
    """mlp in bfloat16 compute, activations stored in bfloat16.

    params: float32 master weights, x: (n, d) -> (n, d_out) bfloat16.
    """
    for w in params:
        x = jnp.tanh(dense(w, x)).astype(bf16)
    return x


def loss_fn(params, x, y, forward):
    """Mean squared error, reduced in float32. -> () float32."""
    return jnp.mean((forward(params, x).astype(f32) - y) ** 2)


kp, kx = jax.random.split(jax.random.key(0))
params = init_mlp(kp, [64, 256, 256, 1])  # float32 master weights
x = jax.random.normal(kx, (512, 64))
y = jnp.sin(x[:, :1])

jaxpr = jax.make_jaxpr(mlp_mixed)(params, x)
for eqn in jaxpr.eqns:
    if eqn.primitive.name == "dot_general":
        ins = " x ".join(str(v.aval) for v in eqn.invars)
        print(f"dot_general: {ins} -> {eqn.outvars[0].aval}")

grad = jax.jit(jax.grad(loss_fn), static_argnums=3)
g_mixed = grad(params, x, y, mlp_mixed)
g_f32 = grad(params, x, y, mlp)
print("gradient dtypes:", {g.dtype.name for g in g_mixed})
rel = [
    jnp.linalg.norm(a - b) / jnp.linalg.norm(b) for a, b in zip(g_mixed, g_f32)
]
print(
    "every layer's gradient within 2% of float32:", all(r < 0.02 for r in rel)
)
plain = jnp.matmul(x.astype(bf16), params[0].astype(bf16))
print("without preferred_element_type the product is", plain.dtype)
