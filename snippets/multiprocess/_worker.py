"""The script every process runs: `python _worker.py COORDINATOR N K TASK`.

Process K of N joins the others, then runs TASK: "describe" (what this
process sees of the devices and of the data) or "train" (training steps of
the model of Step 9, part 2, on the devices of all processes).
"""

import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.sharded_training._mlp import D, init_in_place, loss

ROWS, LR, STEPS = 64, 0.1, 3  # global batch size, learning rate, steps


def keep_stdout_for_python():
    """Send what native libraries write on stdout to stderr: Gloo logs
    each connection there, from several threads. Python's print keeps the
    original stdout, which then holds only this script's lines."""
    python_out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = open(python_out, "w", buffering=1)


def connect(coordinator, processes, k):
    """Join the cluster as process k of processes; process 0 serves the
    coordinator, here on the loopback address only."""
    jax.distributed.initialize(
        coordinator_address=coordinator,
        num_processes=processes,
        process_id=k,
        coordinator_bind_address=coordinator,
    )


def load_rows(start, stop):
    """Examples start .. stop-1 of the data set, each made from its index
    alone, as if read from a file. -> x, y: (stop - start, D)."""
    x = np.stack(
        [
            np.random.default_rng(i).standard_normal(D, dtype=np.float32)
            for i in range(start, stop)
        ]
    )
    return x, np.sin(2 * x)


def load_batch(mesh):
    """This process's rows of the global batch, assembled into global
    arrays split over "data". -> (start, stop), x, y: (ROWS, D)."""
    rows = NamedSharding(mesh, P("data"))
    blocks = rows.addressable_devices_indices_map((ROWS, D)).values()
    start = min(b[0].start for b in blocks)  # the rows this process's
    stop = max(b[0].stop for b in blocks)  # devices hold
    x, y = load_rows(start, stop)
    x = jax.make_array_from_process_local_data(rows, x)
    y = jax.make_array_from_process_local_data(rows, y)
    return (start, stop), x, y


def describe(mesh):
    """Print what this process sees of the devices and of the batch."""
    k, n = jax.process_index(), jax.process_count()
    local, every = jax.local_device_count(), jax.device_count()
    print(f"process {k} of {n}: {local} local devices of {every}")
    print("CPU collectives:", jax.config.jax_cpu_collectives_implementation)
    owners = [[d.process_index for d in row] for row in mesh.devices]
    print("process of each device of the (data, model) mesh:", owners)
    (start, stop), x, _ = load_batch(mesh)
    print(f"loaded rows {start}:{stop} of {ROWS} -> x: {jax.typeof(x)}")
    here, total = len(x.addressable_shards), len(x.sharding.device_set)
    print(
        f"x: shards on this process's devices: {here} of {total},",
        "fully addressable:",
        x.is_fully_addressable,
    )
    mine = sorted(
        {(s.index[0].start, s.index[0].stop) for s in x.addressable_shards}
    )
    print("rows of its shards (each on 2 devices):", mine)
    try:
        np.asarray(x)
    except RuntimeError as err:
        print("np.asarray(x): RuntimeError:", str(err).split(" is not")[0])
    with jax.set_mesh(mesh):
        copy = jax.reshard(x, P())  # every device gets all rows
    print(
        "after reshard(x, P()):",
        jax.typeof(copy),
        "| rows read here:",
        np.asarray(copy).shape[0],
    )
    # The usual tool to read a global array (metrics, say) in every process:
    whole = multihost_utils.process_allgather(x, tiled=True)  # NumPy
    print(
        "process_allgather(x):",
        type(whole).__name__,
        whole.shape,
        "equal to the reshard:",
        bool((whole == np.asarray(copy)).all()),
    )


@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x, y):
    """One SGD step on the global batch. -> (new params, loss)."""
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads), value


def train(mesh, x, y):
    """STEPS SGD steps from init_in_place(key 0), parameters laid out by SPECS
    on mesh. -> losses (STEPS,)."""
    with jax.set_mesh(mesh):
        params = jax.jit(init_in_place)(jax.random.key(0))
        losses = []
        for _ in range(STEPS):
            params, value = sgd_step(params, x, y)
            losses.append(value)
    return jnp.stack(losses)


def main(coordinator, processes, k, task):
    """Join, build the mesh over every process's devices, run task."""
    keep_stdout_for_python()
    connect(coordinator, int(processes), int(k))
    mesh = jax.make_mesh((jax.device_count() // 2, 2), ("data", "model"))
    if task == "describe":
        describe(mesh)
    else:
        (start, stop), x, y = load_batch(mesh)
        losses = train(mesh, x, y)  # one copy per process
        print(
            f"process {k}, rows {start}:{stop}, losses:",
            " ".join(f"{v:.4f}" for v in np.asarray(losses)),
        )
    jax.distributed.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:])
