"""A Resumable Data Iterator: reference solution."""

from __future__ import annotations

import itertools
import numbers

import numpy as np

KEYS = ("seed", "epoch", "offset")


def epoch_order(n: int, seed: int, epoch: int) -> np.ndarray:
    """The order of the n examples in one epoch: (n,) int64."""
    return np.random.default_rng([seed, epoch]).permutation(n)


class ShuffledBatches:
    """Batches of example indices, cut from one shuffled epoch after
    another; its whole state is three integers."""

    def __init__(self, n, batch_size, seed=0, epoch=0, offset=0):
        if n < 1 or batch_size < 1:
            raise ValueError(f"need n, batch_size >= 1: {n}, {batch_size}")
        if seed < 0 or epoch < 0 or not 0 <= offset < n:
            raise ValueError(f"no position {seed=}, {epoch=}, {offset=}")
        self.n, self.batch_size = n, batch_size
        self.seed, self.epoch, self.offset = seed, epoch, offset

    def __iter__(self):
        return self

    def __next__(self) -> np.ndarray:
        """The next (batch_size,) int64 indices; a batch may span epochs."""
        epochs = map(self.order, itertools.count(self.epoch))
        stream = itertools.chain.from_iterable(epochs)  # epoch after epoch
        end = self.offset + self.batch_size
        window = itertools.islice(stream, self.offset, end)
        batch = np.fromiter(window, np.int64, self.batch_size)
        position = self.epoch * self.n + end  # examples served so far
        self.epoch, self.offset = divmod(position, self.n)
        return batch

    def order(self, epoch: int) -> np.ndarray:
        """Epoch number epoch's order of the examples."""
        return epoch_order(self.n, self.seed, epoch)

    def state(self) -> dict:
        """Where the stream stands: {"seed", "epoch", "offset"}, ints."""
        return {"seed": self.seed, "epoch": self.epoch, "offset": self.offset}

    @classmethod
    def restore(cls, state, n, batch_size) -> ShuffledBatches:
        """The iterator at the position that state() returned."""
        if sorted(state) != sorted(KEYS):
            raise ValueError(f"a state has the keys {KEYS}: {sorted(state)}")
        for key in KEYS:
            value = state[key]
            if isinstance(value, bool) or not isinstance(
                value, numbers.Integral
            ):
                raise TypeError(f"state[{key!r}] is not an integer: {value!r}")
        return cls(n, batch_size, *(int(state[k]) for k in KEYS))
