"""Tests for Per-Example Gradients with vmap."""

from typing import NamedTuple

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st


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


def floats(shape):
    return hnp.arrays(np.float32, shape, elements=st.floats(-3, 3, width=32))


@st.composite
def linear_batches(draw):
    """params {"w": (d,), "b": ()}, xs (B, d), ys (B,); B = 1 included."""
    batch = draw(st.sampled_from([1, 4, 7]))
    d = draw(st.sampled_from([1, 3]))
    params = {"w": draw(floats(d)), "b": draw(floats(()))}
    return params, draw(floats((batch, d))), draw(floats(batch))


@pytest.mark.requirement(1, 2)
@given(linear_batches(), st.booleans())
@example(
    ({"w": np.float32([2]), "b": np.float32(1)}, np.ones((1, 1)), np.ones(1)),
    False,
)
def test_linear_matches_float64_closed_form(impl, case, jit):
    params, xs, ys = (jax.tree.map(np.float32, c) for c in case)
    f = impl.per_example_grads
    f = jax.jit(f, static_argnums=0) if jit else f
    grads = f(linear_loss, params, xs, ys)
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    x64 = xs.astype(np.float64)
    r = x64 @ params["w"] + np.float64(params["b"]) - ys
    assert grads["w"].shape == xs.shape and grads["b"].shape == ys.shape
    np.testing.assert_allclose(
        grads["w"], 2 * r[:, None] * x64, rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(grads["b"], 2 * r, rtol=1e-4, atol=1e-4)


@pytest.mark.requirement(3)
def test_program_does_not_grow_with_the_batch(impl):
    def size(batch):
        params, xs, ys = linear_setup(0, batch=batch)
        program = jax.make_jaxpr(
            lambda p, x, y: impl.per_example_grads(linear_loss, p, x, y)
        )(params, xs, ys)
        return len(program.jaxpr.eqns)

    assert size(9) == size(2), "the program grows with B: a loop"


def scaled_loss(params, x, y):
    """Gradient y * x[:-1] for "a" and y * x[-1] for "b": zero when y == 0."""
    return y * (params["a"] @ x[:-1] + params["b"] * x[-1])


@st.composite
def clipping_batches(draw):
    """xs (B, 3), ys (B,) with zeros (zero gradients), max_norm > 0; the
    gradients and max_norm at one scale from 1e-15 to 1e15 (the statement's)."""
    batch = draw(st.sampled_from([1, 3, 6]))
    xs = draw(floats((batch, 3)))
    ys = draw(
        hnp.arrays(np.float32, batch, elements=st.sampled_from([0, 0.5, 2]))
    )
    scale = 10.0 ** draw(st.integers(-15, 15))
    max_norm = draw(st.sampled_from([0.1, 1.0, 4.0])) * scale
    return xs, np.float32(ys * scale), float(np.float32(max_norm))


@pytest.mark.requirement(4, 5, 6)
@given(clipping_batches())
@example((np.float32([[3, 0, 4], [0, 0, 0]]), np.float32([1, 1]), 2.5))
@example((np.float32([[3, 0, 4], [1, 2, 3]]), np.float32([0, 0]), 1.0))
@example((np.float32([[1, 0, 0]]), np.float32([2e-12]), 1e-12))
def test_clipping_matches_float64_numpy(impl, case):
    xs, ys, max_norm = case
    params = {"a": jnp.zeros(2), "b": jnp.float32(0.0)}
    f = jax.jit(impl.clipped_mean_grad, static_argnums=0)
    out = f(scaled_loss, params, xs, ys, jnp.float32(max_norm))
    grads = ys[:, None].astype(np.float64) * xs  # example b's (a, b)
    norms = np.linalg.norm(grads, axis=1)
    scale = np.minimum(1.0, max_norm / np.where(norms > 0, norms, 1.0))
    expected = np.mean(grads * scale[:, None], axis=0)
    assert jax.tree.structure(out) == jax.tree.structure(params)
    atol = 1e-6 * max_norm
    np.testing.assert_allclose(out["a"], expected[:2], rtol=1e-5, atol=atol)
    np.testing.assert_allclose(out["b"], expected[2], rtol=1e-5, atol=atol)


@pytest.mark.requirement(1, 2)
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


@pytest.mark.requirement(1, 2)
def test_mlp_matches_a_loop_of_grads(impl):
    params, xs, ys = mlp_setup(1)
    grads = impl.per_example_grads(mlp_loss, params, xs, ys)
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    for b in range(5):
        expected = jax.grad(mlp_loss)(params, xs[b], ys[b])
        for g, e in zip(jax.tree.leaves(grads), jax.tree.leaves(expected)):
            assert g.shape == (5,) + e.shape
            np.testing.assert_allclose(g[b], e, rtol=1e-5, atol=1e-6)


@pytest.mark.requirement(1)
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


@pytest.mark.requirement(4, 5)
def test_clipping_by_hand(impl):
    # loss = w . x has gradient x (independent of w): norms 5, 0.5 and 0.
    loss = lambda params, x, y: jnp.dot(params["w"], x) + 0.0 * y
    params = {"w": jnp.zeros(2)}
    xs = jnp.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    out = impl.clipped_mean_grad(loss, params, xs, jnp.zeros(3), 1.0)
    # clipped: [0.6, 0.8], [0.3, 0.4] (unchanged), [0, 0] -> mean over 3 examples
    np.testing.assert_allclose(out["w"], [0.3, 0.4], rtol=1e-6)
    assert not np.any(np.isnan(out["w"]))


@pytest.mark.requirement(4)
def test_clipping_uses_the_global_norm_across_leaves(impl):
    # gradient w.r.t. a is x[:2], w.r.t. b is x[2]: the norm of (3, 0, 4) is 5, not 3 or 4.
    loss = lambda p, x, y: jnp.dot(p["a"], x[:2]) + p["b"] * x[2]
    params = {"a": jnp.zeros(2), "b": jnp.float32(0.0)}
    out = impl.clipped_mean_grad(
        loss, params, jnp.array([[3.0, 0.0, 4.0]]), jnp.zeros(1), 2.5
    )
    np.testing.assert_allclose(out["a"], [1.5, 0.0], rtol=1e-6)
    np.testing.assert_allclose(out["b"], 2.0, rtol=1e-6)


@pytest.mark.requirement(4)
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


class Parts(NamedTuple):
    a: jax.Array
    b: jax.Array


#: Every pytree container: (params from leaves a (), b (3,), c (2, 1); the
#: leaves back from such params).
CONTAINERS = {
    "dict": (
        lambda a, b, c: {"a": a, "b": b, "c": c},
        lambda p: (p["a"], p["b"], p["c"]),
    ),
    "list": (lambda a, b, c: [a, b, c], lambda p: tuple(p)),
    "tuple": (lambda a, b, c: (a, (b, c)), lambda p: (p[0], *p[1])),
    "named tuple": (
        lambda a, b, c: [Parts(a, b), c],
        lambda p: (p[0].a, p[0].b, p[1]),
    ),
    "nested": (
        lambda a, b, c: {"layers": [Parts(a, b)], "extra": (c,)},
        lambda p: (p["layers"][0].a, p["layers"][0].b, p["extra"][0]),
    ),
    "bare array": (
        lambda a, b, c: b,
        lambda p: (jnp.float32(0.5), p, jnp.full((2, 1), 0.75)),
    ),
}


@pytest.mark.requirement(1, 2)
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("batch", [1, 3])
def test_every_container_matches_closed_form(impl, container, batch):
    """Dicts, lists, tuples, named tuples, nested ones and a bare array: the
    gradients in params' structure, each leaf (B, *shape), against the float64
    closed form of r = a x0 + b . x[:3] + sum(c) x3 - y, loss r ** 2 / 2."""
    build, parts = CONTAINERS[container]
    params = build(
        jnp.float32(0.5), jnp.array([1.0, -2.0, 0.25]), jnp.full((2, 1), 0.75)
    )

    def loss(params, x, y):
        a, b, c = parts(params)
        return (a * x[0] + b @ x[:3] + jnp.sum(c) * x[3] - y) ** 2 / 2

    rng = np.random.default_rng(batch)
    xs = rng.normal(size=(batch, 4)).astype(np.float32)
    ys = rng.normal(size=batch).astype(np.float32)
    grads = impl.per_example_grads(
        loss, params, jnp.asarray(xs), jnp.asarray(ys)
    )
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    r = 0.5 * x[:, 0] + x[:, :3] @ [1.0, -2.0, 0.25] + 1.5 * x[:, 3] - y
    expected = build(
        r * x[:, 0],
        r[:, None] * x[:, :3],
        np.ones((1, 2, 1)) * (r * x[:, 3])[:, None, None],
    )
    for got, want, leaf in zip(
        jax.tree.leaves(grads),
        jax.tree.leaves(expected),
        jax.tree.leaves(params),
    ):
        assert got.shape == (batch, *leaf.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
