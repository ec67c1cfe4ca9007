import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives, result_types

S, M, B, D = 8, 8, 4, 16  # stages (one per device), micro-batches, rows, width
mesh = jax.make_mesh((S,), ("stage",))
k = jax.random.split(jax.random.key(0), 2)
ws = jax.random.normal(k[0], (S, D, D)) / 4.0  # layer s lives on stage s
xs = jax.random.normal(k[1], (M, B, D))  # M micro-batches of B rows


def layer(w, x):
    """One layer: w (D, D), x (B, D) -> (B, D)."""
    return jnp.tanh(x @ w)


def sequential(ws, xs):
    """The unsplit model: ws (S, D, D), xs (M, B, D) -> (M, B, D)."""
    for w in ws:
        xs = layer(w, xs)
    return xs


def gpipe(ws, xs):
    """Per stage: ws (1, D, D), xs (M, B, D) -> (M, B, D). At time t stage
    s works on micro-batch t - s, then hands its output to stage s + 1."""
    me = lax.axis_index("stage")
    ring = [(s, (s + 1) % S) for s in range(S)]

    def tick(carry, t):
        held, outs = carry  # held: what the previous stage sent at t - 1
        x = jnp.where(me == 0, xs[jnp.minimum(t, M - 1)], held)
        y = layer(ws[0], x)
        done = (me == S - 1) & (t >= S - 1)  # the last stage finishes one
        i = jnp.maximum(t - (S - 1), 0)
        outs = jnp.where(done, outs.at[i].set(y), outs)
        return (lax.ppermute(y, "stage", ring), outs), None

    start = lax.pcast(jnp.zeros((B, D)), "stage", to="varying")
    outs = lax.pcast(jnp.zeros_like(xs), "stage", to="varying")
    (_, outs), _ = lax.scan(tick, (start, outs), jnp.arange(M + S - 1))
    return lax.psum(jnp.where(me == S - 1, outs, 0.0), "stage")


run = jax.jit(
    jax.shard_map(gpipe, mesh=mesh, in_specs=(P("stage"), P()), out_specs=P())
)
with jax.set_mesh(mesh):
    ws_placed = jax.device_put(ws, P("stage"))
y = run(ws_placed, xs)
program = run.lower(ws_placed, xs).compile().as_text()
print(f"time steps: M + S - 1 = {M + S - 1} for {M} micro-batches")
print("collectives:", collectives(program))
print("each step sends:", result_types(program, "collective-permute"))
print("equals the unsplit model:", bool(jnp.allclose(y, sequential(ws, xs))))


def loss(f, ws, xs):
    """Mean square of the model's output -> scalar."""
    return jnp.mean(f(ws, xs) ** 2)


grad = jax.jit(jax.grad(lambda ws: loss(run, ws, xs)))
g_pipe = grad(ws_placed)
g_seq = jax.grad(lambda ws: loss(sequential, ws, xs))(ws)
backward = grad.lower(ws_placed).compile().as_text()
print("gradient program:", collectives(backward))
print("gradient layout:", jax.typeof(g_pipe))
print("gradient equals the unsplit one:", bool(jnp.allclose(g_pipe, g_seq)))
