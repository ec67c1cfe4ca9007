"""Tests for Rematerialized MLP Block."""

import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from jax.ad_checkpoint import print_saved_residuals

from practice._testing import all_primitives, compiled_lines

B, D, H, L = 8, 16, 48, 4


def block_params(seed, layers=None, d=D, h=H):
    rng = np.random.default_rng(seed)
    lead = () if layers is None else (layers,)
    shapes = {"w1": (d, h), "b1": (h,), "w2": (h, d), "b2": (d,)}
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


@pytest.mark.requirement(1)
def test_block_values(impl):
    p, x = block_params(0), inputs()
    out = impl.mlp_block(p, x)
    assert out.shape == (B, D) and out.dtype == jnp.float32
    np.testing.assert_allclose(out, np_block(p, x), rtol=1e-5, atol=1e-5)


@pytest.mark.requirement(2)
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


@pytest.mark.requirement(3)
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


@pytest.mark.requirement(4, 5)
def test_saved_residuals(impl):
    p, x = block_params(3), inputs()
    assert len(hidden_residuals(residual_shapes(impl.mlp_block, p, x))) >= 2
    assert hidden_residuals(residual_shapes(impl.remat_mlp_block, p, x)) == []
    saved = hidden_residuals(
        residual_shapes(lambda p, x: impl.remat_mlp_block(p, x, True), p, x)
    )
    assert len(saved) == 1 and "preactivation" in saved[0], saved


@pytest.mark.requirement(5)
def test_saved_residual_is_the_preactivation(impl):
    """The one (B, H) residual that jax.vjp keeps holds x @ w1 + b1, not
    the activation after gelu under the same name."""
    p, x = block_params(3), inputs()
    _, vjp_fn = jax.vjp(lambda p, x: impl.remat_mlp_block(p, x, True), p, x)
    hidden = [
        np.asarray(leaf)
        for leaf in jax.tree.leaves(vjp_fn)
        if getattr(leaf, "shape", None) == (x.shape[0], p["w1"].shape[1])
    ]
    pre = np.asarray(x, np.float64) @ np.asarray(p["w1"], np.float64)
    pre += np.asarray(p["b1"], np.float64)
    assert len(hidden) == 1, [h.shape for h in hidden]
    np.testing.assert_allclose(hidden[0], pre, rtol=1e-5, atol=1e-5)


@pytest.mark.requirement(6)
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


@pytest.mark.requirement(7, 8)
def test_deep_mlp_is_a_scan_with_remat_inside(impl):
    sp, x = block_params(5, layers=L), inputs()
    for remat in [False, True]:
        jaxpr = jax.make_jaxpr(lambda sp, x: impl.deep_mlp(sp, x, remat))(
            sp, x
        ).jaxpr
        top = [eqn.primitive.name for eqn in jaxpr.eqns]
        assert "scan" in top, top
        assert has_remat(all_primitives(jaxpr)) == remat


@pytest.mark.requirement(8)
def test_deep_mlp_default_has_no_remat(impl):
    """Without remat, deep_mlp is the signature's remat=False: no checkpoint."""
    sp, x = block_params(5, layers=L), inputs()
    jaxpr = jax.make_jaxpr(impl.deep_mlp)(sp, x).jaxpr
    assert not has_remat(all_primitives(jaxpr))


@pytest.mark.requirement(9)
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


SHAPES = [(1, 1, 1), (3, 5, 7), (B, D, H)]  # (B, D, H): size-1 and odd axes


def jnp_block(p, x):
    """An independent jnp oracle of the block (tanh-approximated gelu)."""
    pre = x @ p["w1"] + p["b1"]
    c = jnp.sqrt(2 / jnp.pi)
    gelu = 0.5 * pre * (1 + jnp.tanh(c * (pre + 0.044715 * pre**3)))
    return x + gelu @ p["w2"] + p["b2"]


@pytest.mark.requirement(1, 2)
@given(
    shape=st.sampled_from(SHAPES),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.1, 1.0, 5.0]),
    save=st.booleans(),
)
@example(shape=(1, 1, 1), seed=0, scale=5.0, save=True)
def test_blocks_match_oracles(impl, shape, seed, scale, save):
    """Plain and remat blocks: values against float64 NumPy, gradients
    (params and x) against the jnp oracle's."""
    b, d, h = shape
    p = block_params(seed, d=d, h=h)
    x = jnp.asarray(
        np.random.default_rng(seed).normal(size=(b, d)) * scale, jnp.float32
    )
    expected = np_block(p, x)
    plain = impl.mlp_block(p, x)
    assert plain.shape == (b, d) and plain.dtype == jnp.float32
    np.testing.assert_allclose(plain, expected, rtol=1e-4, atol=1e-4)
    remat = lambda p, x: impl.remat_mlp_block(p, x, save)
    np.testing.assert_allclose(remat(p, x), expected, rtol=1e-4, atol=1e-4)

    def loss(fn):
        return lambda p, x: jnp.sum(jnp.sin(fn(p, x)))

    want = jax.grad(loss(jnp_block), argnums=(0, 1))(p, x)
    got = jax.grad(loss(remat), argnums=(0, 1))(p, x)
    for a, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_allclose(a, w, rtol=1e-4, atol=1e-4)


@pytest.mark.requirement(6)
@pytest.mark.parametrize("layers", [1, 3])
def test_deep_mlp_layer_order(impl, layers):
    """Layer i is applied i-th: against the NumPy oracle, 1 and 3 layers."""
    sp, x = block_params(6, layers=layers), inputs(3)
    expected = np.asarray(x, np.float64)
    for i in range(layers):
        expected = np_block({k: v[i] for k, v in sp.items()}, expected)
    for remat in [False, True]:
        np.testing.assert_allclose(
            impl.deep_mlp(sp, x, remat), expected, rtol=1e-4, atol=1e-4
        )


@pytest.mark.requirement(7)
def test_deep_mlp_program_does_not_grow_with_layers(impl):
    """One scan: the jaxpr has as many equations for 2 layers as for 6."""

    def size(layers, remat):
        sp, x = block_params(7, layers=layers), inputs()
        fn = lambda sp, x: impl.deep_mlp(sp, x, remat)
        return len(all_primitives(jax.make_jaxpr(fn)(sp, x).jaxpr))

    for remat in [False, True]:
        assert size(2, remat) == size(6, remat), remat


@pytest.mark.requirement(7)
def test_deep_mlp_compiled_program_does_not_grow_with_layers(impl):
    """Checked on what XLA compiles, not only on the jaxpr (unroll=True)."""
    x = inputs()
    lines = [
        compiled_lines(
            lambda sp, x: impl.deep_mlp(sp, x, False),
            block_params(7, layers=layers),
            x,
        )
        for layers in (2, 6)
    ]
    assert lines[0] == lines[1], f"compiled program grows: {lines}"


@pytest.mark.requirement(8)
def test_deep_mlp_saves_only_layer_inputs(impl):
    """With remat the scan saves no (L, B, H) stack of hidden activations."""
    sp, x = block_params(8, layers=L), inputs()
    stacked = f"f32[{L},{B},{H}]"

    def lines(remat):
        return residual_shapes(
            lambda sp, x: impl.deep_mlp(sp, x, remat), sp, x
        )

    assert any(line.startswith(stacked) for line in lines(False))
    assert not any(line.startswith(stacked) for line in lines(True))
