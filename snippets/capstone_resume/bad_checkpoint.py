# raises: ValueError
import contextlib
import shutil
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp

from snippets.capstone._train import checked_restore, make_mesh, manager, train

mesh = make_mesh()
with (
    tempfile.TemporaryDirectory() as tmp,
    contextlib.chdir(tmp),
):  # relative paths
    train("run", mesh, steps=1)  # a checkpoint of step 1
    shutil.copytree("run", "corrupt")
    Path("corrupt/1/state/_METADATA").write_text("{ not json")
    shutil.copytree("run/1", "partial/1.orbax-checkpoint-tmp")  # never done
    state, _ = checked_restore("run", mesh)
    bf16 = state | {  # the same model, its weights saved in bfloat16
        "params": jax.tree.map(
            lambda w: w.astype(jnp.bfloat16), state["params"]
        )
    }
    # another model: the same, but with a vocabulary of 128 characters
    other = state | {
        "params": state["params"] | {"unembed": jnp.zeros((64, 128))}
    }
    for name, saved in [("other", other), ("bf16", bf16)]:
        with manager(name) as mngr:
            mngr.save(
                1,
                args=ocp.args.Composite(
                    state=ocp.args.StandardSave(saved),
                    data=ocp.args.JsonSave({}),
                ),
            )
    for folder in ["missing", "partial", "corrupt", "bf16"]:
        try:
            checked_restore(folder, mesh)
        except (FileNotFoundError, ValueError) as e:
            print(f"{type(e).__name__}: {e}")
    checked_restore("other", mesh)
