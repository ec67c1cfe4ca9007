import jax
import jax.numpy as jnp

from practice.vectorization.model_ensemble.solution import (
    ensemble_predict,
    ensemble_predict_split,
    init_ensemble,
    mlp,
)

ensemble = init_ensemble(
    jax.random.key(0), n_models=4, d_in=3, d_hidden=16, d_out=1
)
print("w1 shape (M, d_in, d_hidden):", ensemble["w1"].shape)

x = jax.random.normal(jax.random.key(1), (5, 3))  # one shared batch
preds = ensemble_predict(ensemble, x)
print("shared batch -> (M, B, d_out):", preds.shape)
print(
    "model predictions for x[0]:", [round(float(p), 3) for p in preds[:, 0, 0]]
)
print(
    "ensemble mean and std for x[0]:",
    round(float(preds[:, 0, 0].mean()), 3),
    round(float(preds[:, 0, 0].std()), 3),
)

model_2 = jax.tree.map(lambda leaf: leaf[2], ensemble)
# float32 products on every backend (GPUs multiply float32 in TF32 by
# default, and a batched product can round otherwise than a single one)
with jax.default_matmul_precision("float32"):
    same = jnp.allclose(ensemble_predict(ensemble, x)[2], mlp(model_2, x))
print("slice 2 equals mlp(model 2, x):", same)

xs = jax.random.normal(jax.random.key(2), (4, 5, 3))  # one batch per model
print(
    "split batches -> (M, B, d_out):",
    ensemble_predict_split(ensemble, xs).shape,
)
