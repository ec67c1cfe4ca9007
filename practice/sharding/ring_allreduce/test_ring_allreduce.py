"""Tests for Ring All-Reduce with ppermute (8 emulated CPU devices)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from jax.sharding import NamedSharding, PartitionSpec as P

from practice._testing import all_eqns

FORBIDDEN = (
    "psum",
    "all_gather",
    "all_to_all",
    "reduce_scatter",
    "psum_scatter",
    "pmax",
    "pmin",
)


def on_ring(fn, n):
    """fn applied with shard_map on a 1-D mesh of the first n devices (any n
    from 1 to 8, powers of two or not): global (n*d, ...) -> (n*d, ...)."""
    mesh = jax.make_mesh((n,), ("ring",), devices=jax.devices()[:n])
    mapped = jax.jit(
        jax.shard_map(fn, mesh=mesh, in_specs=P("ring"), out_specs=P("ring"))
    )
    return lambda x: mapped(jax.device_put(x, NamedSharding(mesh, P("ring"))))


def ring(impl, n):
    return on_ring(lambda block: impl.ring_allreduce(block, "ring"), n)


def psum(n):
    return on_ring(lambda block: jax.lax.psum(block, "ring"), n)


def sent_elements(jaxpr, multiplier=1):
    """(total elements sent by ppermute, operand shapes, other primitives) of one device."""
    total, shapes, names = 0, [], []
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        names.append(name)
        if name == "ppermute":
            for var in eqn.invars:
                shapes.append(tuple(var.aval.shape))
                total += multiplier * math.prod(var.aval.shape)
        assert name != "while", (
            "use a Python loop or fori_loop with static bounds"
        )
        inner_mult = (
            multiplier * eqn.params["length"] if name == "scan" else multiplier
        )
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else [value]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    t, s, nm = sent_elements(inner, inner_mult)
                    total, shapes, names = total + t, shapes + s, names + nm
    return total, shapes, names


@pytest.mark.requirement(1)
def test_sum_of_integer_blocks(impl):
    n, d = 8, 16
    x = np.arange(n * d, dtype=np.int32)
    out = ring(impl, n)(jnp.asarray(x))
    expected = np.tile(x.reshape(n, d).sum(axis=0), n)
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == jnp.int32 and out.shape == x.shape


@pytest.mark.requirement(2)
def test_matches_psum_on_several_ring_sizes(impl):
    rng = np.random.default_rng(0)
    for n, block_shape in [
        (2, (2,)),
        (3, (3,)),
        (4, (12, 3)),
        (5, (10, 2)),
        (6, (6, 1)),
        (7, (14,)),
        (8, (8, 2, 5)),
        (8, (24,)),
    ]:
        x = jnp.asarray(
            rng.normal(size=(n * block_shape[0],) + block_shape[1:]),
            jnp.float32,
        )
        np.testing.assert_allclose(
            ring(impl, n)(x),
            psum(n)(x),
            rtol=1e-5,
            atol=1e-5,
            err_msg=f"n={n} block={block_shape}",
        )


@pytest.mark.requirement(3, 4)
def test_communication_is_bandwidth_optimal(impl):
    for n, block_shape in [(8, (16, 3)), (4, (8,)), (3, (6,)), (7, (7, 2))]:
        x = jnp.zeros((n * block_shape[0],) + block_shape[1:])
        jaxpr = jax.make_jaxpr(ring(impl, n))(x).jaxpr
        total, shapes, names = sent_elements(jaxpr)
        assert not [nm for nm in names if nm.startswith(FORBIDDEN)], names
        chunk = (block_shape[0] // n,) + block_shape[1:]
        assert shapes and all(s == chunk for s in shapes), (shapes, chunk)
        assert total == 2 * (n - 1) * math.prod(chunk), (total, n, chunk)


def perms(jaxpr):
    """The perm of every ppermute in a jaxpr, nested ones included."""
    return [
        sorted(tuple(pair) for pair in e.params["perm"])
        for e in all_eqns(jaxpr)
        if e.primitive.name == "ppermute"
    ]


@pytest.mark.requirement(5)
@pytest.mark.parametrize("n", range(2, 9))
def test_every_send_goes_to_the_right_neighbour(impl, n):
    """Device i sends only to (i + 1) % n: a ring the other way round, or
    any other permutation, gives the same sum but not the stated ring."""
    x = jnp.zeros((n * n, 3))  # a block of n rows: chunks of one
    found = perms(jax.make_jaxpr(ring(impl, n))(x).jaxpr)
    right = sorted((i, (i + 1) % n) for i in range(n))
    assert found and all(p == right for p in found), (found, right)


@pytest.mark.requirement(2)
def test_under_an_outer_jit(impl):
    n = 8
    x = jnp.arange(n * 8, dtype=jnp.float32)
    f = jax.jit(ring(impl, n))
    np.testing.assert_allclose(f(x), psum(n)(x))
    np.testing.assert_allclose(f(2 * x), psum(n)(2 * x))


@pytest.mark.requirement(1, 2)
@given(
    n=st.integers(1, 8),
    block=st.sampled_from([(1,), (3, 3), (1, 2, 5)]),
    dtype=st.sampled_from(["float32", "bfloat16", "float16", "int32"]),
    seed=st.integers(0, 2**16),
)
@example(n=1, block=(1,), dtype="float32", seed=0)
@example(n=8, block=(1, 2, 5), dtype="bfloat16", seed=0)
@example(n=3, block=(3, 3), dtype="int32", seed=0)
@example(n=7, block=(1,), dtype="float16", seed=0)
def test_matches_float64_oracle(impl, n, block, dtype, seed):
    """Rings of every size from 1 (no step at all) to 8 devices, blocks (n,), (3n, 3) and
    (n, 2, 5), four dtypes; small integer values make every sum exact."""
    shape = (n * n * block[0],) + block[1:]  # n blocks of (n * block[0], ...)
    values = np.random.default_rng(seed).integers(-8, 9, size=shape)
    x = jnp.asarray(values.astype(np.float32), dtype)
    out = ring(impl, n)(x)
    assert out.shape == x.shape and out.dtype == x.dtype
    blocks = values.reshape((n, -1) + block[1:]).astype(np.float64)
    expected = np.concatenate([blocks.sum(axis=0)] * n)
    np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


def sent_dtypes(jaxpr):
    """The dtype of every operand of every ppermute, nested ones included."""
    return [
        v.aval.dtype
        for e in all_eqns(jaxpr)
        if e.primitive.name == "ppermute"
        for v in e.invars
    ]


@pytest.mark.requirement(4)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int32"])
def test_chunks_travel_in_the_block_dtype(impl, dtype):
    """A chunk upcast to float32 for the sums doubles what bfloat16 and
    float16 rings send, though the result comes back in the block's dtype."""
    x = jnp.zeros((8 * 8, 3), dtype)
    found = sent_dtypes(jax.make_jaxpr(ring(impl, 8))(x).jaxpr)
    assert found and all(d == jnp.dtype(dtype) for d in found), found
