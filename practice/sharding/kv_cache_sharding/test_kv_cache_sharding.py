"""Tests for KV-Cache Sharding for Inference (8 emulated CPU devices)."""

import math

import jax
import jax.numpy as jnp
import pytest
from hypothesis import example, given, strategies as st
from jax.sharding import NamedSharding, PartitionSpec as P

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]
SIZES = st.integers(1, 64)
ANY_MESH = st.tuples(st.integers(1, 16), st.integers(1, 16))
#: Any cache and any mesh, the divisible cases and the others alike.
ANY_CACHE = given(batch=SIZES, context=SIZES, kv_heads=SIZES, mesh=ANY_MESH)


def make_mesh(data, model):
    return jax.make_mesh((data, model), ("data", "model"))


def entries(spec):
    """The five entries of a spec, padded with None."""
    return tuple(spec) + (None,) * (5 - len(spec))


def spec_entries(impl, batch, context, kv_heads, mesh):
    """The five entries of the spec impl chooses on a (data, model) mesh."""
    return entries(impl.cache_spec(batch, context, kv_heads, *mesh))


@pytest.mark.requirement(1)
@ANY_CACHE
@example(batch=1, context=1, kv_heads=1, mesh=(1, 1))
def test_five_entries_layers_and_head_dim_whole(
    impl, batch, context, kv_heads, mesh
):
    spec = impl.cache_spec(batch, context, kv_heads, *mesh)
    assert isinstance(spec, P)
    assert len(spec) == 5, spec
    assert spec[0] is None and spec[4] is None, spec


@pytest.mark.requirement(2)
@ANY_CACHE
@example(batch=1, context=8, kv_heads=8, mesh=(4, 2))
@example(batch=6, context=8, kv_heads=8, mesh=(4, 2))
@example(batch=12, context=8, kv_heads=8, mesh=(3, 1))
def test_batch_over_data_when_it_divides(impl, batch, context, kv_heads, mesh):
    spec = spec_entries(impl, batch, context, kv_heads, mesh)
    data = mesh[0]
    assert spec[1] == ("data" if batch % data == 0 else None), spec


@pytest.mark.requirement(3)
@ANY_CACHE
@example(batch=4, context=64, kv_heads=8, mesh=(1, 8))
@example(batch=4, context=64, kv_heads=2, mesh=(1, 8))
@example(batch=4, context=63, kv_heads=3, mesh=(1, 2))
@example(batch=4, context=5, kv_heads=6, mesh=(1, 3))
@example(batch=4, context=7, kv_heads=5, mesh=(2, 1))
def test_heads_then_sequence_over_model(impl, batch, context, kv_heads, mesh):
    spec = spec_entries(impl, batch, context, kv_heads, mesh)
    model = mesh[1]
    if kv_heads % model == 0:
        expected = (None, "model")
    elif context % model == 0:
        expected = ("model", None)
    else:
        expected = (None, None)
    assert (spec[2], spec[3]) == expected, spec


@pytest.mark.requirement(2, 3, 4)
@pytest.mark.parametrize("data,model", MESHES)
@pytest.mark.parametrize(
    "batch,context,kv_heads", [(8, 16, 8), (4, 16, 2), (3, 6, 1), (2, 5, 4)]
)
def test_lays_out_a_real_array(impl, data, model, batch, context, kv_heads):
    """device_put onto the 8 devices accepts the spec, and device 0's
    block is the cache split as the rules say."""
    spec = impl.cache_spec(batch, context, kv_heads, data, model)
    shape = (2, batch, context, kv_heads, 4)
    placed = jax.device_put(
        jnp.zeros(shape, jnp.bfloat16),
        NamedSharding(make_mesh(data, model), spec),
    )
    b = batch // data if batch % data == 0 else batch
    if kv_heads % model == 0:
        c, h = context, kv_heads // model
    elif context % model == 0:
        c, h = context // model, kv_heads
    else:
        c, h = context, kv_heads
    assert placed.addressable_shards[0].data.shape == (2, b, c, h, 4)


AXES = st.sampled_from(
    [None, "data", "model", ("data", "model"), ("model", "data")]
)


@st.composite
def layouts(draw):
    """A mesh of the 8 devices, a spec of 0 to 4 entries (each axis named
    once at most) and a shape whose split dimensions divide evenly."""
    data, model = draw(st.sampled_from(MESHES))
    sizes = {"data": data, "model": model}
    ndim = draw(st.integers(1, 4))
    spec, used = [], set()
    for _ in range(draw(st.integers(0, ndim))):
        axes = draw(AXES)
        names = (
            () if axes is None else (axes,) if isinstance(axes, str) else axes
        )
        if used & set(names):
            axes, names = None, ()
        used |= set(names)
        spec.append(axes)
    shape = []
    for i in range(ndim):
        axes = spec[i] if i < len(spec) else None
        names = (
            () if axes is None else (axes,) if isinstance(axes, str) else axes
        )
        split = math.prod(sizes[a] for a in names)
        shape.append(split * draw(st.integers(1, 3)))
    itemsize = draw(st.sampled_from([1, 2, 4]))
    return (data, model), tuple(shape), itemsize, P(*spec)


@pytest.mark.requirement(5)
@given(layouts())
@example(((2, 4), (4, 8), 2, P()))
@example(((2, 4), (8, 3, 5), 4, P(("data", "model"))))
@example(((4, 2), (2, 4, 6, 3), 1, P("model", "data")))
def test_bytes_equal_jax_block(impl, layout):
    (data, model), shape, itemsize, spec = layout
    block = NamedSharding(make_mesh(data, model), spec).shard_shape(shape)
    got = impl.bytes_per_device(
        shape, itemsize, spec, {"data": data, "model": model}
    )
    assert got == math.prod(block) * itemsize, (shape, spec, block)
    assert isinstance(got, int)


@pytest.mark.requirement(5)
def test_bytes_of_a_serving_cache_by_hand(impl):
    """32 layers, batch 16, 4096 positions, 8 KV heads of 128, bfloat16,
    on 2 x 4 devices, batch over data and heads over model:
    32 * 8 * 4096 * 2 * 128 * 2 bytes."""
    shape = (32, 16, 4096, 8, 128)
    spec = P(None, "data", None, "model", None)
    got = impl.bytes_per_device(shape, 2, spec, {"data": 2, "model": 4})
    assert got == 32 * 8 * 4096 * 2 * 128 * 2
