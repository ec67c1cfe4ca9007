"""Tests for Per-Example Gradients with vmap."""

import jax
import jax.numpy as jnp
import numpy as np


def linear_loss(params, x, y):
    """Squared error of a linear model on one example: x (d,), y () -> scalar."""
    return (x @ params["w"] + params["b"] - y) ** 2


def mlp_loss(params, x, y):
    """A small MLP with a list-of-dicts pytree: x (3,), y (2,) -> scalar."""
    h = jnp.tanh(x @ params[0]["w"] + params[0]["b"])
    out = h @ params[1]["w"] + params[1]["b"]
    return jnp.sum((out - y) ** 2)


def linear_setup(seed, batch=6, d=3):
    rng = np.random.default_rng(seed)
    params = {
        "w": jnp.asarray(rng.normal(size=d).astype(np.float32)),
        "b": jnp.float32(rng.normal()),
    }
    xs = jnp.asarray(rng.normal(size=(batch, d)).astype(np.float32))
    ys = jnp.asarray(rng.normal(size=batch).astype(np.float32))
    return params, xs, ys


def mlp_setup(seed, batch=5):
    rng = np.random.default_rng(seed)
    f32 = lambda *shape: jnp.asarray(rng.normal(size=shape).astype(np.float32))
    params = [{"w": f32(3, 4), "b": f32(4)}, {"w": f32(4, 2), "b": f32(2)}]
    return params, f32(batch, 3), f32(batch, 2)


def test_linear_matches_closed_form(impl):
    params, xs, ys = linear_setup(0)
    grads = impl.per_example_grads(linear_loss, params, xs, ys)
    assert grads["w"].shape == (6, 3) and grads["b"].shape == (6,)
    r = (
        np.asarray(xs) @ np.asarray(params["w"])
        + float(params["b"])
        - np.asarray(ys)
    )
    np.testing.assert_allclose(
        grads["w"], 2 * r[:, None] * np.asarray(xs), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(grads["b"], 2 * r, rtol=1e-5, atol=1e-6)


def test_mlp_matches_a_loop_of_grads(impl):
    params, xs, ys = mlp_setup(1)
    grads = impl.per_example_grads(mlp_loss, params, xs, ys)
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    for b in range(5):
        expected = jax.grad(mlp_loss)(params, xs[b], ys[b])
        for g, e in zip(jax.tree.leaves(grads), jax.tree.leaves(expected)):
            assert g.shape == (5,) + e.shape
            np.testing.assert_allclose(g[b], e, rtol=1e-5, atol=1e-6)


def test_mean_of_per_example_is_batch_gradient(impl):
    params, xs, ys = mlp_setup(2, batch=8)
    grads = jax.jit(impl.per_example_grads, static_argnums=0)(
        mlp_loss, params, xs, ys
    )
    batch_loss = lambda p: jnp.mean(
        jax.vmap(mlp_loss, in_axes=(None, 0, 0))(p, xs, ys)
    )
    expected = jax.grad(batch_loss)(params)
    for g, e in zip(jax.tree.leaves(grads), jax.tree.leaves(expected)):
        np.testing.assert_allclose(
            jnp.mean(g, axis=0), e, rtol=1e-5, atol=1e-6
        )


def test_clipping_by_hand(impl):
    # loss = w . x has gradient x (independent of w): norms 5, 0.5 and 0.
    loss = lambda params, x, y: jnp.dot(params["w"], x) + 0.0 * y
    params = {"w": jnp.zeros(2)}
    xs = jnp.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    out = impl.clipped_mean_grad(loss, params, xs, jnp.zeros(3), 1.0)
    # clipped: [0.6, 0.8], [0.3, 0.4] (unchanged), [0, 0] -> mean over 3 examples
    np.testing.assert_allclose(out["w"], [0.3, 0.4], rtol=1e-6)
    assert not np.any(np.isnan(out["w"]))


def test_clipping_uses_the_global_norm_across_leaves(impl):
    # gradient w.r.t. a is x[:2], w.r.t. b is x[2]: the norm of (3, 0, 4) is 5, not 3 or 4.
    loss = lambda p, x, y: jnp.dot(p["a"], x[:2]) + p["b"] * x[2]
    params = {"a": jnp.zeros(2), "b": jnp.float32(0.0)}
    out = impl.clipped_mean_grad(
        loss, params, jnp.array([[3.0, 0.0, 4.0]]), jnp.zeros(1), 2.5
    )
    np.testing.assert_allclose(out["a"], [1.5, 0.0], rtol=1e-6)
    np.testing.assert_allclose(out["b"], 2.0, rtol=1e-6)


def test_clipping_matches_numpy_on_random_batch(impl):
    params, xs, ys = mlp_setup(3, batch=10)
    max_norm = 8.0  # per-example norms range from about 1.4 to 29: some are clipped, some not
    out = jax.jit(impl.clipped_mean_grad, static_argnums=0)(
        mlp_loss, params, xs, ys, max_norm
    )
    per_example = [jax.grad(mlp_loss)(params, xs[b], ys[b]) for b in range(10)]
    clipped = []
    for g in per_example:
        flat = np.concatenate(
            [np.ravel(leaf) for leaf in jax.tree.leaves(g)]
        ).astype(np.float64)
        norm = np.linalg.norm(flat)
        clipped.append(flat * min(1.0, max_norm / norm))
    expected = np.mean(clipped, axis=0)
    got = np.concatenate([np.ravel(leaf) for leaf in jax.tree.leaves(out)])
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    assert jax.tree.structure(out) == jax.tree.structure(params)
