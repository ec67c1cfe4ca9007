"""A Resumable Data Iterator.

A training run that is killed and restored from a checkpoint must see the
same batches it would have seen without the interruption. The iterator below
serves batches of example indices from one shuffled epoch after another, and
its whole state is three integers that a checkpoint can store as JSON.
"""

from __future__ import annotations

import numbers

import numpy as np

#: The keys of a state, exactly these.
KEYS = ("seed", "epoch", "offset")


def epoch_order(n: int, seed: int, epoch: int) -> np.ndarray:
    """The order of the n examples in one epoch: (n,) int64, a permutation
    that depends on (seed, epoch) alone."""
    return np.random.default_rng([seed, epoch]).permutation(n)


class ShuffledBatches:
    """Batches of example indices, cut from one shuffled epoch after another.

    The stream is epoch_order(n, seed, 0), then epoch_order(n, seed, 1), ...
    one after the other, cut into consecutive batches of batch_size indices:
    a batch may end in the next epoch (or span several when batch_size > n).
    The iterator starts at example ``offset`` of epoch ``epoch``.
    Raise ``ValueError`` for n < 1, batch_size < 1, seed < 0, epoch < 0 or
    an offset outside [0, n).
    """

    def __init__(self, n, batch_size, seed=0, epoch=0, offset=0):
        raise NotImplementedError("__init__: check the arguments, keep them")

    def __iter__(self):
        return self

    def __next__(self) -> np.ndarray:
        """The next batch: (batch_size,) int64 example indices."""
        raise NotImplementedError("__next__: take from the epochs in turn")

    def state(self) -> dict:
        """Where the stream stands: a new dict {"seed": ..., "epoch": ...,
        "offset": ...} of Python ints, the position of the next example."""
        raise NotImplementedError("state: three integers")

    @classmethod
    def restore(cls, state, n, batch_size) -> ShuffledBatches:
        """The iterator at the position ``state`` (from ``state()``, maybe
        after a JSON round trip) records; batch_size may differ from the
        saved iterator's. Raise ``ValueError`` unless the keys are exactly
        KEYS, and ``TypeError`` for a value that is not an integer (a bool is
        not one; NumPy integers are)."""
        raise NotImplementedError(
            "restore: check the state, build the iterator"
        )
