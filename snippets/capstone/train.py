# platform: gpu,tpu differs -- Orbax saves a host copy of an accelerator's arrays, so step 31 donates the state being saved (`is_deleted()` prints True on a TPU v5e)
# tolerance: rtol=0.02 -- bfloat16 compute: losses move with the CPU
import tempfile
from pathlib import Path

import jax
import matplotlib.pyplot as plt
import numpy as np

from snippets.capstone._train import (
    EVERY,
    SCHEDULE,
    STEPS,
    decay_mask,
    make_mesh,
    manager,
    new_state,
    restore,
    train,
)

mesh = make_mesh()  # 4 x 2: ("data", "model")
fetched, seen = [], {}


def log(step, state, mngr):
    """Every EVERY steps, process 0 fetches the last EVERY losses. At steps
    30 and 31 it also keeps what the checks of the save of step 30 need."""
    if step % EVERY == 0 and jax.process_index() == 0:
        losses = jax.device_get(state["losses"][step - EVERY : step])
        fetched.append(losses)
        mean = losses.mean()
        print(f"step {step:2}: mean loss of the last {EVERY} steps {mean:.2f}")
    if step == 30:  # save() of step 30 has returned; the write goes on
        seen["writing"] = mngr.is_saving_in_progress()
        seen["copy"] = jax.tree.map(np.array, state)  # copies, not views
    if step in (30, 31):  # the next step is given this state, donated
        seen[step] = state["params"]["embed"]


print(
    "AdamW decays:",
    jax.tree.map(bool, decay_mask(new_state(jax.random.key(0))["params"])),
)
with tempfile.TemporaryDirectory() as folder:
    state = train(Path(folder) / "run", mesh, on_step=log)
    with jax.set_mesh(mesh), manager(Path(folder) / "run") as mngr:
        from_disk, _ = restore(mngr, mesh, step=30)
same = jax.tree.all(jax.tree.map(np.array_equal, from_disk, seen["copy"]))
print(
    f"step 30: save() returned while writing: {seen['writing']};",
    f"restored, step 30 equals a copy taken then: {same}",
)
print(
    "buffers donated (deleted): by step 31, of the state being saved:",
    f"{seen[30].is_deleted()}; by step 32: {seen[31].is_deleted()}",
)
losses = np.asarray(state["losses"])
print(
    "loss history fetched every",
    EVERY,
    "steps equals the one on device:",
    np.array_equal(np.concatenate(fetched), losses),
)
print(f"loss at step 1: {losses[0]:.2f}, at step {STEPS}: {losses[-1]:.2f}")
print(
    "learning rate of the updates of steps 1, 5 and 40:",
    ", ".join(f"{float(SCHEDULE(k)):.1e}" for k in (0, 4, 39)),
)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(np.arange(1, STEPS + 1), losses, label="training loss")
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy (nats per character)")
lr = ax.twinx()
lr.plot(
    np.arange(1, STEPS + 1),  # step k's update uses SCHEDULE(k - 1)
    [SCHEDULE(k) for k in range(STEPS)],
    color="0.6",
    linestyle="--",
    label="learning rate",
)
lr.set_ylabel("learning rate")
ax.set_title("The capstone's run: 40 steps on the 4 x 2 mesh")
fig.legend(loc="upper right", bbox_to_anchor=(0.85, 0.85))
fig.tight_layout()
plt.show()
