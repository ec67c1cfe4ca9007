"""Tests for Rematerialized MLP Block."""

import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
from jax.ad_checkpoint import print_saved_residuals

from practice._testing import all_primitives

B, D, H, L = 8, 16, 48, 4


def block_params(seed, layers=None):
    rng = np.random.default_rng(seed)
    lead = () if layers is None else (layers,)
    shapes = {"w1": (D, H), "b1": (H,), "w2": (H, D), "b2": (D,)}
    return {
        k: jnp.asarray(rng.normal(size=lead + s) / np.sqrt(s[0]), jnp.float32)
        for k, s in shapes.items()
    }


def inputs(seed=0):
    return jnp.asarray(
        np.random.default_rng(100 + seed).normal(size=(B, D)), jnp.float32
    )


def np_block(p, x):
    p = {k: np.asarray(v, np.float64) for k, v in p.items()}
    pre = np.asarray(x, np.float64) @ p["w1"] + p["b1"]
    gelu = (
        0.5
        * pre
        * (1 + np.tanh(np.sqrt(2 / np.pi) * (pre + 0.044715 * pre**3)))
    )
    return x + gelu @ p["w2"] + p["b2"]


def residual_shapes(fn, *args):
    """The lines printed by jax.ad_checkpoint.print_saved_residuals for fn(*args).sum()."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_saved_residuals(lambda *a: fn(*a).sum(), *args)
    return out.getvalue().splitlines()


def hidden_residuals(lines):
    return [line for line in lines if line.startswith(f"f32[{B},{H}]")]


def has_remat(names):
    return any(n.startswith(("checkpoint", "remat")) for n in names)


def test_block_values(impl):
    p, x = block_params(0), inputs()
    out = impl.mlp_block(p, x)
    assert out.shape == (B, D) and out.dtype == jnp.float32
    np.testing.assert_allclose(out, np_block(p, x), rtol=1e-5, atol=1e-5)


def test_remat_block_same_values_and_grads(impl):
    p, x = block_params(1), inputs(1)

    def loss(fn):
        return lambda p, x: jnp.sum(jnp.sin(fn(p, x)))

    plain_val, plain_grads = jax.jit(
        jax.value_and_grad(loss(impl.mlp_block), argnums=(0, 1))
    )(p, x)
    for save in [False, True]:
        fn = lambda p, x: impl.remat_mlp_block(p, x, save)
        val, grads = jax.jit(jax.value_and_grad(loss(fn), argnums=(0, 1)))(
            p, x
        )
        np.testing.assert_allclose(val, plain_val, rtol=1e-6)
        for a, b in zip(jax.tree.leaves(grads), jax.tree.leaves(plain_grads)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_remat_primitive_in_jaxpr(impl):
    p, x = block_params(2), inputs()
    assert not has_remat(
        all_primitives(jax.make_jaxpr(impl.mlp_block)(p, x).jaxpr)
    )
    for save in [False, True]:
        jaxpr = jax.make_jaxpr(lambda p, x: impl.remat_mlp_block(p, x, save))(
            p, x
        )
        assert has_remat(all_primitives(jaxpr.jaxpr)), save


def test_saved_residuals(impl):
    p, x = block_params(3), inputs()
    assert len(hidden_residuals(residual_shapes(impl.mlp_block, p, x))) >= 2
    assert hidden_residuals(residual_shapes(impl.remat_mlp_block, p, x)) == []
    saved = hidden_residuals(
        residual_shapes(lambda p, x: impl.remat_mlp_block(p, x, True), p, x)
    )
    assert len(saved) == 1 and "preactivation" in saved[0], saved


def test_deep_mlp_values_and_grads(impl):
    sp, x = block_params(4, layers=L), inputs(2)
    expected = np.asarray(x, np.float64)
    for i in range(L):
        expected = np_block({k: v[i] for k, v in sp.items()}, expected)
    np.testing.assert_allclose(
        impl.deep_mlp(sp, x), expected, rtol=1e-4, atol=1e-4
    )  # eager
    forward = jax.jit(impl.deep_mlp, static_argnums=2)
    np.testing.assert_allclose(
        forward(sp, x, True), expected, rtol=1e-4, atol=1e-4
    )

    def grad(remat):
        return jax.jit(
            jax.grad(lambda sp, x: jnp.sum(impl.deep_mlp(sp, x, remat) ** 2))
        )(sp, x)

    for a, b in zip(jax.tree.leaves(grad(True)), jax.tree.leaves(grad(False))):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_deep_mlp_is_a_scan_with_remat_inside(impl):
    sp, x = block_params(5, layers=L), inputs()
    for remat in [False, True]:
        jaxpr = jax.make_jaxpr(lambda sp, x: impl.deep_mlp(sp, x, remat))(
            sp, x
        ).jaxpr
        top = [eqn.primitive.name for eqn in jaxpr.eqns]
        assert "scan" in top, top
        assert has_remat(all_primitives(jaxpr)) == remat


def test_remat_lowers_compiled_temporary_memory(impl):
    layers, batch, width, hidden = 4, 32, 32, 128
    sp = {
        "w1": jnp.zeros((layers, width, hidden)),
        "b1": jnp.zeros((layers, hidden)),
        "w2": jnp.zeros((layers, hidden, width)),
        "b2": jnp.zeros((layers, width)),
    }
    x = jnp.zeros((batch, width))

    def temp_bytes(remat):
        grad = jax.jit(
            jax.grad(lambda sp, x: jnp.sum(impl.deep_mlp(sp, x, remat)))
        )
        return grad.lower(sp, x).compile().memory_analysis().temp_size_in_bytes

    plain, remat = temp_bytes(False), temp_bytes(True)
    assert remat < 0.5 * plain, (remat, plain)
