"""The capstone's input pipeline: characters of the corpus, cut into
windows whose positions are a pure function of (seed, step)."""

import numpy as np

from snippets.capstone._corpus import TEXT

#: The characters of the corpus, in code-point order; token i is VOCAB[i].
VOCAB = "".join(sorted(set(TEXT)))
#: The whole corpus as token ids, (len(TEXT),) int32.
TOKENS = np.array([VOCAB.index(c) for c in TEXT], dtype=np.int32)


def encode(text):
    """str of n characters of VOCAB -> (n,) int32 token ids."""
    return np.array([VOCAB.index(c) for c in text], dtype=np.int32)


def decode(ids):
    """(n,) token ids -> str of n characters."""
    return "".join(VOCAB[int(i)] for i in ids)


def batch_at(seed, step, batch, length):
    """Batch number `step` of stream `seed`: (batch, length + 1) int32
    windows of TOKENS (inputs and next-character targets), at offsets drawn
    from a generator seeded by (seed, step) alone."""
    rng = np.random.default_rng([seed, step])
    starts = rng.integers(0, len(TOKENS) - length, size=batch)
    return np.stack([TOKENS[s : s + length + 1] for s in starts])


class Batches:
    """batch_at(seed, step) for step = start, start + 1, ...; its whole
    state is {"seed", "step"}, a checkpoint of two integers."""

    def __init__(self, batch, length, seed=0, step=0):
        self.shape, self.seed, self.step = (batch, length), seed, step

    def __iter__(self):
        return self

    def __next__(self):
        out = batch_at(self.seed, self.step, *self.shape)
        self.step += 1
        return out

    def state(self):
        """-> {"seed": int, "step": int}: where the stream stands."""
        return {"seed": self.seed, "step": self.step}

    @classmethod
    def restore(cls, state, batch, length):
        """The iterator a `state()` came from, at the same position."""
        return cls(batch, length, state["seed"], state["step"])
