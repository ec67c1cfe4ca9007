"""The capstone's training run: sharded state, a donated jitted step, and
Orbax checkpoints of the state and the data iterator. As a script,
`python -m snippets.capstone._train FOLDER` trains into FOLDER and prints its
progress; stopped (Ctrl-C) and run again, it resumes from FOLDER's latest
complete checkpoint."""

import argparse
import os
import signal
import sys
import time
from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import optax
import orbax.checkpoint as ocp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from snippets.capstone._data import Batches
from snippets.capstone._model import S, init, loss, shardings, spec

#: steps, warmup steps, batch (sequences), save interval, checkpoints kept
STEPS, WARMUP, BATCH, EVERY, KEEP = 40, 4, 16, 10, 2
#: Adam's learning rate: linear warmup from 0 (SCHEDULE(0) = 0: the first
#: update moves nothing) to 3e-3, cosine decay to 3e-4.
SCHEDULE = optax.warmup_cosine_decay_schedule(0.0, 3e-3, WARMUP, STEPS, 3e-4)


def decay_mask(params):
    """True where AdamW decays the weight: the matrices of the layers and
    the unembedding, not the norms' scales nor the embeddings."""
    no_decay = {"norm1", "norm2", "norm", "embed", "pos"}
    return {
        k: decay_mask(v) if isinstance(v, dict) else k not in no_decay
        for k, v in params.items()
    }


tx = optax.chain(
    optax.clip_by_global_norm(1.0),
    optax.adamw(SCHEDULE, weight_decay=0.01, mask=decay_mask),
)


def make_mesh(shape=(4, 2)):
    """A (data, model) mesh of shape[0] * shape[1] devices, Auto axes."""
    return jax.make_mesh(
        shape, ("data", "model"), axis_types=(AxisType.Auto,) * 2
    )


def new_state(key):
    """The train state: step, float32 params, Optax state, loss history."""
    params = init(key)
    return {
        "step": jnp.zeros((), jnp.int32),
        "params": params,
        "opt": tx.init(params),
        "losses": jnp.zeros((STEPS,), jnp.float32),  # metrics, kept on device
    }


def batch_sharding(mesh):
    """Batches (BATCH, S + 1): rows split as the rules table splits
    "batch", through the same spec() as the model's activations."""
    return NamedSharding(mesh, spec(("batch",)))


def state_shardings(mesh):
    """The sharding of every leaf of the train state on mesh: params by the
    rules table, the Optax state like the params it tracks, the rest copied."""
    copied = NamedSharding(mesh, P())
    params = shardings(mesh)
    abstract = jax.eval_shape(new_state, jax.random.key(0))
    opt = optax.tree_map_params(
        tx,
        lambda _, sharding: sharding,
        abstract["opt"],
        params,
        transform_non_params=lambda _: copied,
    )
    return {"step": copied, "params": params, "opt": opt, "losses": copied}


def abstract_state(mesh):
    """Shapes, dtypes and shardings of the train state: a restore target."""
    return jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s),
        jax.eval_shape(new_state, jax.random.key(0)),
        state_shardings(mesh),
    )


@partial(jax.jit, donate_argnums=0)
def train_step(state, batch):
    """One AdamW step. batch: (BATCH, S + 1) int32 -> the next state."""
    value, grads = jax.value_and_grad(loss)(state["params"], batch)
    updates, opt = tx.update(grads, state["opt"], state["params"])
    return {
        "step": state["step"] + 1,
        "params": optax.apply_updates(state["params"], updates),
        "opt": opt,
        "losses": state["losses"].at[state["step"]].set(value),
    }


def manager(folder):
    """Orbax's manager of folder (made absolute, as Orbax requires): a
    checkpoint every EVERY steps and at a run's first step, written in
    the background, the last KEEP kept."""
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=EVERY,
        max_to_keep=KEEP,
        enable_async_checkpointing=True,
    )
    handlers = {
        "state": ocp.StandardCheckpointHandler(),
        "data": ocp.JsonCheckpointHandler(),
    }
    return ocp.CheckpointManager(
        Path(folder).absolute(), options=options, item_handlers=handlers
    )


def restore(mngr, mesh, step=None):
    """The train state and data iterator saved at step (default: the latest
    complete one), placed on mesh. -> (state, Batches)."""
    step = mngr.latest_step() if step is None else step
    saved = mngr.restore(
        step,
        args=ocp.args.Composite(
            state=ocp.args.StandardRestore(abstract_state(mesh)),
            data=ocp.args.JsonRestore(),
        ),
    )
    return saved.state, Batches.restore(saved.data, BATCH, S)


def shapes(tree):
    """{"params/embed": "float32[96,64]", ...}: every leaf's dtype and
    shape, by path."""
    leaves = jax.tree.leaves_with_path(tree)
    return {
        jax.tree_util.keystr(k, simple=True, separator="/"): (
            f"{v.dtype}[{','.join(map(str, v.shape))}]"
        )
        for k, v in leaves
    }


def checked_restore(folder, mesh):
    """restore() from folder's latest checkpoint, after checking that there
    is one and that it holds this model's state (names, dtypes and shapes);
    errors say what is wrong."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such checkpoint folder")
    with manager(folder) as mngr:
        step = mngr.latest_step()
        if step is None:
            raise FileNotFoundError(
                f"{folder}: holds no complete checkpoint"
                " (a folder named by its step)"
            )
        where = folder / str(step)
        try:
            saved = mngr.item_metadata(step)["state"]
        except Exception as e:
            raise ValueError(
                f"{where}: unreadable checkpoint ({type(e).__name__}: {e})"
            ) from e
        expected = jax.eval_shape(new_state, jax.random.key(0))
        saved, expected = shapes(saved), shapes(expected)
        problems = [f"{k}: missing" for k in expected if k not in saved]
        problems += [
            f"{k}: not in this model" for k in saved if k not in expected
        ]
        problems += [
            f"{k}: {saved[k]} saved, this model's {v}"
            for k, v in expected.items()
            if k in saved and saved[k] != v
        ]
        if problems:
            raise ValueError(
                f"{where}: holds another model's state (arrays that differ:"
                f" {len(problems)}; {', '.join(problems[:3])})"
            )
        return restore(mngr, mesh, step)


def train(
    folder,
    mesh,
    steps=STEPS,
    on_step=lambda step, state, mngr: None,
    on_restore=lambda state, batches: None,
):
    """Train to `steps`, starting from folder's latest checkpoint if it has
    one, saving every EVERY steps. -> the final state."""
    with jax.set_mesh(mesh), manager(folder) as mngr:
        if mngr.latest_step() is None:
            init_state = jax.jit(
                new_state, out_shardings=state_shardings(mesh)
            )
            state, batches = init_state(jax.random.key(0)), Batches(BATCH, S)
        else:
            state, batches = restore(mngr, mesh)
            on_restore(state, batches)
        for step in range(batches.step, steps):
            batch = jax.device_put(next(batches), batch_sharding(mesh))
            state = train_step(state, batch)
            mngr.save(
                step + 1,
                args=ocp.args.Composite(
                    state=ocp.args.StandardSave(state),
                    data=ocp.args.JsonSave(batches.state()),
                ),
            )
            on_step(step + 1, state, mngr)
        mngr.wait_until_finished()
    return state


def report(step, state, mngr):
    """Print the step; every EVERY steps, with the mean loss of those steps
    (fetched from the device then only). Process 0 only."""
    if jax.process_index() != 0:
        return
    line = f"step {step}"
    if step % EVERY == 0:
        mean = jax.device_get(state["losses"][step - EVERY : step]).mean()
        line += f": mean loss of the last {EVERY} steps {mean:.2f}"
    print(line, flush=True)


#: Set by the command "kill during the next save" (see step_by_step).
KILL_DURING_SAVE = False


def step_by_step(step, state, mngr):
    """For --step-by-step, when another program drives this one: print the
    step, then wait for a line on stdin before going on. After a save step,
    first wait for the save, so that what is on disk is known if the other
    program kills this process. Told "kill during the next save", this
    process kills itself as soon as Orbax has created that checkpoint's
    temporary folder, while the write is still going on."""
    global KILL_DURING_SAVE
    if step % EVERY == 0:
        if KILL_DURING_SAVE:
            in_progress = mngr.is_saving_in_progress()
            partial = Path(mngr.directory) / f"{step}.orbax-checkpoint-tmp"
            while not partial.exists():  # created by Orbax's thread
                time.sleep(0.001)
            print(
                f"step {step} saving, in progress: {in_progress}", flush=True
            )
            os.kill(os.getpid(), signal.SIGKILL)  # the write is not done
        mngr.wait_until_finished()
    if jax.process_index() == 0:
        print(f"step {step}", flush=True)
    command = sys.stdin.readline().strip()
    KILL_DURING_SAVE = command == "kill during the next save"


def restored(state, batches):
    """Say which checkpoint the process resumed from."""
    if jax.process_index() == 0:
        print(f"restored step {int(state['step'])}", flush=True)


def main():
    parser = argparse.ArgumentParser(
        description="Train the capstone's model into FOLDER, resuming from"
        " its latest complete checkpoint if it has one."
    )
    parser.add_argument("folder", help="the checkpoint folder")
    parser.add_argument(
        "--step-by-step",
        action="store_true",
        help="after each step, wait for a line on stdin (for a program that"
        " drives this one; see step_by_step)",
    )
    args = parser.parse_args()
    on_step = step_by_step if args.step_by_step else report
    try:
        train(args.folder, make_mesh(), on_step=on_step, on_restore=restored)
    except KeyboardInterrupt:  # Ctrl-C; the manager finished its saves
        print("stopped; run the same command again to resume")


if __name__ == "__main__":
    import warnings

    # Deprecations are errors: a call that a coming JAX release removes
    # stops the script now, not after an upgrade.
    warnings.simplefilter("error", DeprecationWarning)
    warnings.simplefilter("error", FutureWarning)
    main()
