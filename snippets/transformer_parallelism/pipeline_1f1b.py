# platform: gpu,tpu differs -- The scratch memory is whatever that backend's compiler allocates
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.transformer_parallelism._schedule import IDLE, B, F, schedule

S, M, R, D = 4, 8, 64, 64  # stages, micro-batches, rows of each, width
mesh = jax.make_mesh((S,), ("stage",), devices=jax.devices()[:S])
k = jax.random.split(jax.random.key(0), 2)
ws = jax.random.normal(k[0], (S, D, D)) / D**0.5  # layer s on stage s
xs = jax.random.normal(k[1], (M, R, D))


def layer(w, x):
    """One stage: w (D, D), x (R, D) -> (R, D)."""
    return jnp.tanh(x @ w)


def loss(ws, xs):
    """The unsplit model's loss: mean square of its output -> scalar."""
    for w in ws:
        xs = layer(w, xs)
    return jnp.mean(xs**2)


def run(slots):
    """The pipeline that executes a schedule table (ticks, S, 2) of (action,
    micro-batch): per stage, ws (1, D, D), table (ticks, 1, 2), xs (M, R, D)
    -> gradient (1, D, D), peak live activations (1,), and what it did
    (1, ticks, 2).
    Activations wait for their backward in `slots` buffers; a gradient
    from the stage above waits one tick at most, in one buffer."""

    def per_stage(ws, table, xs):
        me, w = lax.axis_index("stage"), ws[0]
        up = [(s, s + 1) for s in range(S - 1)]  # stage 0 receives zeros
        down = [(s + 1, s) for s in range(S - 1)]
        nothing = lax.pcast(jnp.zeros((R, D)), "stage", to="varying")

        def forward(state, m):
            saved, grad, gw, live = state
            x = jnp.where(me == 0, xs[m], saved[m % slots])
            saved = saved.at[m % slots].set(x)  # kept for the backward
            return (saved, grad, gw, live + (me == 0)), layer(w, x), nothing

        def backward(state, m):
            saved, grad, gw, live = state
            y, vjp = jax.vjp(layer, w, saved[m % slots])  # recompute y
            dy = jnp.where(me == S - 1, 2 * y / (M * R * D), grad)
            dw, dx = vjp(dy)
            return (saved, grad, gw + dw, live - 1), nothing, dx

        def idle(state, m):
            return state, nothing, nothing

        def tick(carry, step):
            state, peak, inbox = carry
            saved, grad, gw, live = state
            (x_in, m_in, x_ok), (g_in, _, g_ok) = inbox
            saved = jnp.where(x_ok, saved.at[m_in % slots].set(x_in), saved)
            grad = jnp.where(g_ok, g_in, grad)  # used by this tick's backward
            state = (saved, grad, gw, live + x_ok)
            action, m = step[0, 0], step[0, 1]
            state, y, dx = lax.switch(
                action, [idle, forward, backward], state, m
            )
            sent_up = (y, m, action == F)
            sent_down = (dx, m, action == B)
            inbox = (
                lax.ppermute(sent_up, "stage", up),
                lax.ppermute(sent_down, "stage", down),
            )
            peak = jnp.maximum(peak, state[3])
            return (state, peak, inbox), step[0]  # what it did

        buf, one = jnp.zeros((slots, R, D)), jnp.zeros((R, D))
        msg = (one, 0, False)
        start = ((buf, one, jnp.zeros((D, D)), 0), 0, (msg, msg))
        start = lax.pcast(start, "stage", to="varying")
        (state, peak, _), actions = lax.scan(tick, start, table)
        return state[2][None], peak[None], actions[None]

    return jax.jit(
        jax.shard_map(
            per_stage,
            mesh=mesh,
            in_specs=(P("stage"), P(None, "stage"), P()),
            out_specs=P("stage"),
        )
    )


expected = jax.grad(loss)(ws, xs)
bubble = (S - 1) / (M + S - 1)
print(f"{S} stages, {M} micro-batches: (S - 1) / (M + S - 1) = {bubble:.3f}")
for name in ["gpipe", "1f1b"]:
    table = jnp.array(schedule(S, M, name))  # (ticks, S, 2)
    slots = M if name == "gpipe" else S  # room for what a stage keeps live
    pipeline = run(slots)
    with jax.set_mesh(mesh):
        args = jax.device_put(
            (ws, table, xs), (P("stage"), P(None, "stage"), P())
        )
    compiled = pipeline.lower(*args).compile()
    grad, peak, actions = jax.device_get(compiled(*args))
    scratch = compiled.memory_analysis()
    print(f"{name}: {table.shape[0]} ticks")
    for s in range(S):
        did = [f"{'.FB'[a]}{m if a else ' '}" for a, m in actions[s]]
        print(("  " + " ".join(did)).rstrip())
    idle = (actions[..., 0] == IDLE).mean()
    print(
        f"  idle fraction {idle:.3f}; live activations, most per stage:",
        end="",
    )
    print(f" {peak.tolist()}")
    print(f"  scratch per device {scratch.temp_size_in_bytes / 1024:.0f} KiB")
    same = jnp.allclose(grad, expected, atol=1e-6)
    print("  gradient equal to the unsplit model's:", bool(same))
