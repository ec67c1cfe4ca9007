"""Tests for Paged KV Cache Gather."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import all_primitives, normal

NUM_PAGES, P, K, H = 10, 4, 2, 3


def pool(seed=0):
    return normal(seed, (NUM_PAGES, P, K, H))


TABLE = np.array(
    [[3, 7, 1], [0, 9, 4]], np.int32
)  # B=2 sequences, M=3 blocks each


def np_gather(pages, table):
    pages = np.asarray(pages)
    out = np.zeros((table.shape[0], table.shape[1] * P, K, H), pages.dtype)
    for b in range(table.shape[0]):
        for t in range(table.shape[1] * P):
            out[b, t] = pages[table[b, t // P], t % P]
    return out


def np_write(pages, table, positions, kv):
    pages = np.array(pages)
    for b, pos in enumerate(positions):
        pages[table[b, pos // P], pos % P] = kv[b]
    return pages


@pytest.mark.requirement(1)
def test_gather_matches_loop(impl):
    pages = pool()
    out = impl.gather_pages(pages, jnp.asarray(TABLE))
    assert out.shape == (2, 3 * P, K, H)
    np.testing.assert_array_equal(out, np_gather(pages, TABLE))


@pytest.mark.requirement(1)
def test_gather_hand_values(impl):
    # Page i holds the value 10 * i + slot everywhere: the gathered sequence reads the block table.
    pages = (10.0 * jnp.arange(5)[:, None] + jnp.arange(2)[None, :])[
        :, :, None, None
    ]  # (5, 2, 1, 1)
    out = impl.gather_pages(pages, jnp.array([[4, 0, 2]], jnp.int32))
    np.testing.assert_array_equal(
        out[0, :, 0, 0], [40.0, 41.0, 0.0, 1.0, 20.0, 21.0]
    )


@pytest.mark.requirement(1)
def test_shared_prefix_pages(impl):
    table = np.array(
        [[5, 2], [5, 8]], np.int32
    )  # both sequences share page 5 (a common prompt)
    out = impl.gather_pages(pool(1), jnp.asarray(table))
    np.testing.assert_array_equal(out[0, :P], out[1, :P])
    np.testing.assert_array_equal(out, np_gather(pool(1), table))


@pytest.mark.requirement(2)
def test_gather_under_jit_traced_table(impl):
    pages = pool(2)
    f = jax.jit(impl.gather_pages)
    for table in (TABLE, TABLE[:, ::-1].copy()):
        np.testing.assert_array_equal(
            f(pages, jnp.asarray(table)), np_gather(pages, table)
        )


@pytest.mark.requirement(4)
def test_write_matches_loop_and_leaves_input(impl):
    pages = pool(3)
    before = np.array(pages)
    positions = np.array(
        [5, 11], np.int32
    )  # seq 0 -> page 7 slot 1, seq 1 -> page 4 slot 3
    kv = normal(4, (2, K, H))
    out = impl.write_token(
        pages, jnp.asarray(TABLE), jnp.asarray(positions), kv
    )
    np.testing.assert_array_equal(
        out, np_write(before, TABLE, positions, np.asarray(kv))
    )
    np.testing.assert_array_equal(out[7, 1], kv[0])
    np.testing.assert_array_equal(out[4, 3], kv[1])
    np.testing.assert_array_equal(pages, before)


@pytest.mark.requirement(5)
def test_write_then_gather_round_trip_under_jit(impl):
    # Decode 12 tokens per sequence one at a time into empty pages, then read them back in order.
    tokens = normal(5, (2, 3 * P, K, H))
    pages = jnp.zeros((NUM_PAGES, P, K, H))
    table = jnp.asarray(TABLE)
    write = jax.jit(impl.write_token)
    for t in range(3 * P):
        pages = write(pages, table, jnp.full((2,), t, jnp.int32), tokens[:, t])
    np.testing.assert_array_equal(impl.gather_pages(pages, table), tokens)
    unused = [i for i in range(NUM_PAGES) if i not in TABLE]
    np.testing.assert_array_equal(
        pages[jnp.array(unused)], np.zeros((len(unused), P, K, H))
    )


@pytest.mark.requirement(6)
def test_write_casts_to_pool_dtype(impl):
    pages = jnp.zeros((NUM_PAGES, P, K, H), jnp.bfloat16)
    kv = jnp.ones((2, K, H), jnp.float32)
    out = impl.write_token(
        pages, jnp.asarray(TABLE), jnp.array([0, 0], jnp.int32), kv
    )
    assert out.dtype == jnp.bfloat16
    assert float(out.astype(jnp.float32).sum()) == 2 * K * H


@pytest.mark.requirement(3)
def test_gather_program_does_not_grow_with_the_table(impl):
    def program_size(b, m):
        table = jnp.zeros((b, m), jnp.int32)
        jaxpr = jax.make_jaxpr(impl.gather_pages)(pool(), table)
        return len(all_primitives(jaxpr.jaxpr))

    assert program_size(1, 1) == program_size(6, 5), (
        "the traced program grows with B or M: no Python loops"
    )


# (num_pages, P, K, H, B, M): single pages, slots and heads; odd sizes
SHAPES = [(1, 1, 1, 1, 1, 1), (7, 3, 1, 2, 2, 3), (9, 2, 2, 1, 3, 2)]
DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}


ANY = st.floats(width=32)  # nan, inf and -0.0 included


@st.composite
def paged_inputs(draw):
    """A pool whose unreferenced pages hold inf or nan, a block table with
    distinct pages, one position below M * P per sequence, new tokens; the
    referenced pages and the tokens hold any float32 (inf, nan, -0.0 too)."""
    n_pages, p, k, h, b, m = draw(st.sampled_from(SHAPES))
    pages = draw(hnp.arrays(np.float32, (n_pages, p, k, h), elements=ANY))
    order = draw(st.permutations(range(n_pages)))
    table = np.array(order[: b * m], np.int32).reshape(b, m)
    unused = np.ones(n_pages, bool)
    unused[table] = False
    pages[unused] = draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    positions = np.array(
        draw(st.lists(st.integers(0, m * p - 1), min_size=b, max_size=b)),
        np.int32,
    )
    kv = draw(hnp.arrays(np.float32, (b, k, h), elements=ANY))
    dtype = DTYPES[draw(st.sampled_from(sorted(DTYPES)))]
    return jnp.asarray(pages, dtype), table, positions, kv


def same(actual, expected):
    """Equal elements, nan included (as float32: NumPy's comparison counts a
    bfloat16 nan as unequal to itself), and the same sign bits (-0.0)."""
    actual = np.asarray(actual, np.float32)
    expected = np.asarray(expected, np.float32)
    np.testing.assert_array_equal(actual, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(
        np.signbit(actual[numbers]), np.signbit(expected[numbers])
    )


@pytest.mark.requirement(1, 4, 6, 7)
# float32 values beyond float16's range become inf when cast: intended
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@given(args=paged_inputs())
@example(
    args=(
        # inf, nan and -0.0 in the referenced page 0 and in the token
        jnp.array(
            [[[[np.inf]], [[np.nan]], [[-0.0]]], [[[1.0]], [[2.0]], [[3.0]]]]
        ),
        np.array([[0]], np.int32),
        np.array([2], np.int32),  # the last slot
        np.array([[[-np.inf]]], np.float32),
    )
)
@example(
    args=(
        jnp.array([[[[np.nan]]], [[[2.0]]]]),  # page 0 is not referenced
        np.array([[1]], np.int32),
        np.array([0], np.int32),
        np.array([[[5.0]]], np.float32),
    )
)
def test_property_matches_numpy_loops(impl, args):
    pages, table, positions, kv = args
    gathered = impl.gather_pages(pages, jnp.asarray(table))
    same(gathered, np_gather_any(pages, table))
    out = impl.write_token(
        pages, jnp.asarray(table), jnp.asarray(positions), kv
    )
    assert out.dtype == pages.dtype and out.shape == pages.shape
    expected = np_write_any(pages, table, positions, kv.astype(pages.dtype))
    same(out, expected)


def np_gather_any(pages, table):
    """np_gather for any page size."""
    p = pages.shape[1]
    pages = np.asarray(pages)
    return np.stack(
        [
            np.stack([pages[row[t // p], t % p] for t in range(len(row) * p)])
            for row in table
        ]
    )


def np_write_any(pages, table, positions, kv):
    """np_write for any page size."""
    p = pages.shape[1]
    pages = np.array(pages)
    for b, pos in enumerate(positions):
        pages[table[b, pos // p], pos % p] = kv[b]
    return pages
