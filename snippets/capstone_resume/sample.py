# varies: (?<= -> ).+ -- the text after each arrow comes from a model trained in bfloat16, whose rounding depends on the CPU; once one character differs, every later one does

import tempfile
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

from snippets.capstone._data import VOCAB, decode, encode
from snippets.capstone._model import CACHE, empty_cache, f32, forward, spec
from snippets.capstone._train import make_mesh, train


def pick(logits, key, top_k):
    """Next tokens from logits (b, V): the argmax (top_k None), or a draw
    among the top_k most likely. Ids past the vocabulary are padding."""
    logits = logits.at[:, len(VOCAB) :].set(-jnp.inf)
    if top_k is None:
        return jnp.argmax(logits, axis=-1)
    values, ids = lax.top_k(logits, top_k)
    choice = jax.random.categorical(key, values)
    return jnp.take_along_axis(ids, choice[:, None], axis=-1)[:, 0]


@partial(jax.jit, static_argnames=("steps", "top_k"), donate_argnames="cache")
def generate(params, prompt, cache, key, steps, top_k=None):
    """Continue prompt (b, p) int32 by `steps` tokens: one pass over the
    prompt fills the KV cache, then lax.scan adds one token per step.
    -> ((b, steps) int32, cache)."""
    keys = jax.random.split(key, steps)
    logits, cache = forward(params, prompt, cache, 0, dtype=f32)
    first = pick(logits[:, -1], keys[0], top_k)

    def step(carry, key):
        """One token: its logits from the cache, the next token picked."""
        token, cache, pos = carry
        logits, cache = forward(params, token[:, None], cache, pos, dtype=f32)
        token = pick(logits[:, -1], key, top_k)
        return (token, cache, pos + 1), token

    carry = (first, cache, prompt.shape[1])
    (_, cache, _), rest = lax.scan(step, carry, keys[1:])
    cache = lax.with_sharding_constraint(cache, (spec(CACHE),) * 2)
    return jnp.concatenate([first[:, None], rest.T], axis=1), cache


def among_top(logits, tokens, k):
    """Whether each token is among the k largest of its logits: (b, n)."""
    logits = logits.at[..., len(VOCAB) :].set(-jnp.inf)
    mine = jnp.take_along_axis(logits, tokens[..., None], axis=-1)
    return (logits > mine).sum(-1) < k


mesh = make_mesh()
with tempfile.TemporaryDirectory() as folder:
    params = train(folder, mesh)["params"]
prompts = ["The gradient ", "A jitted func", "Arrays are im", "vmap adds a b"]
with jax.set_mesh(mesh):
    prompt = jnp.stack([encode(p) for p in prompts])  # (4, 13)
    empty = empty_cache(len(prompts), f32)
    greedy, cache = generate(
        params, prompt, empty, jax.random.key(0), steps=40
    )
    print(
        "greedy:",
        greedy.shape,
        greedy.dtype,
        "| the cache passed in was donated:",
        empty[0].is_deleted(),
    )
    draws = []
    for seed in (1, 1, 2):  # the same key twice, then another
        tokens, cache = generate(
            params, prompt, cache, jax.random.key(seed), steps=40, top_k=5
        )
        draws.append(tokens)
    for text, most_likely, drawn in zip(prompts, greedy, draws[0]):
        print(f"greedy {text!r} -> {decode(most_likely)!r}")
        print(f"top-5  {text!r} -> {decode(drawn)!r}")

    # one pass without a cache over prompt + continuation: causal, so the
    # logits at each position are those of the prefix that ends there
    def full_logits(tokens):
        """Float32 logits of every prefix. -> (b, 40, V)."""
        seq = jnp.concatenate([prompt, tokens], axis=1)
        logits, _ = jax.jit(forward, static_argnames="dtype")(
            params, seq[:, :-1], dtype=f32
        )
        return logits[:, prompt.shape[1] - 1 :]

    argmax = jnp.argmax(
        full_logits(greedy).at[..., len(VOCAB) :].set(-jnp.inf), axis=-1
    )
    top5 = among_top(full_logits(draws[0]), draws[0], 5)
print(
    "greedy with the KV cache = argmax of a full pass, all 4 x 40 steps:",
    bool((greedy == argmax).all()),
)
print("top-5: every draw among its step's 5 most likely:", bool(top5.all()))
print(
    "top-5: same key, same text:",
    bool((draws[0] == draws[1]).all()),
    "| another key, another text:",
    bool((draws[0] != draws[2]).any()),
)
