"""Tests for Paged KV Cache Gather."""

import jax
import jax.numpy as jnp
import numpy as np

from practice._testing import normal

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


def test_gather_matches_loop(impl):
    pages = pool()
    out = impl.gather_pages(pages, jnp.asarray(TABLE))
    assert out.shape == (2, 3 * P, K, H)
    np.testing.assert_array_equal(out, np_gather(pages, TABLE))


def test_gather_hand_values(impl):
    # Page i holds the value 10 * i + slot everywhere: the gathered sequence reads the block table.
    pages = (10.0 * jnp.arange(5)[:, None] + jnp.arange(2)[None, :])[
        :, :, None, None
    ]  # (5, 2, 1, 1)
    out = impl.gather_pages(pages, jnp.array([[4, 0, 2]], jnp.int32))
    np.testing.assert_array_equal(
        out[0, :, 0, 0], [40.0, 41.0, 0.0, 1.0, 20.0, 21.0]
    )


def test_shared_prefix_pages(impl):
    table = np.array(
        [[5, 2], [5, 8]], np.int32
    )  # both sequences share page 5 (a common prompt)
    out = impl.gather_pages(pool(1), jnp.asarray(table))
    np.testing.assert_array_equal(out[0, :P], out[1, :P])
    np.testing.assert_array_equal(out, np_gather(pool(1), table))


def test_gather_under_jit_traced_table(impl):
    pages = pool(2)
    f = jax.jit(impl.gather_pages)
    for table in (TABLE, TABLE[:, ::-1].copy()):
        np.testing.assert_array_equal(
            f(pages, jnp.asarray(table)), np_gather(pages, table)
        )


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


def test_write_casts_to_pool_dtype(impl):
    pages = jnp.zeros((NUM_PAGES, P, K, H), jnp.bfloat16)
    kv = jnp.ones((2, K, H), jnp.float32)
    out = impl.write_token(
        pages, jnp.asarray(TABLE), jnp.array([0, 0], jnp.int32), kv
    )
    assert out.dtype == jnp.bfloat16
    assert float(out.astype(jnp.float32).sum()) == 2 * K * H
