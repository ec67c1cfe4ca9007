import jax
import jax.numpy as jnp

from practice.autodiff.straight_through_estimator.solution import (
    fake_quantize,
    round_ste,
    sign_ste,
)

x = jnp.array([-1.5, -0.6, 0.0, 0.4, 0.5, 2.7])
print("x:                 ", x)
print("round_ste(x):      ", round_ste(x))
print("grad of jnp.round: ", jax.grad(lambda x: jnp.round(x).sum())(x))
print("grad of round_ste: ", jax.grad(lambda x: round_ste(x).sum())(x))
print("sign_ste(x):       ", sign_ste(x))
print("grad of sign_ste:  ", jax.grad(lambda x: sign_ste(x).sum())(x))
print("fake_quantize(x, 3) * 3:", fake_quantize(x, 3) * 3)
print(
    "grad of fake_quantize:  ",
    jax.grad(lambda x: fake_quantize(x, 3).sum())(x),
)
