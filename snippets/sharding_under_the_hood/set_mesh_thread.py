import threading

import jax

mesh = jax.make_mesh((8,), ("data",))


def mesh_axes_in_thread(body):
    """Run body() in a new thread and return the axis names of the mesh
    that thread sees afterwards (() when it has none)."""
    seen = []

    def run():
        """body, then read this thread's current mesh."""
        body()
        seen.append(jax.sharding.get_abstract_mesh().axis_names)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen[0]


# set_mesh called alone in a thread: it stays set there, for the thread.
print(
    "thread after set_mesh(mesh):",
    mesh_axes_in_thread(lambda: jax.set_mesh(mesh)),
)
print("main thread afterwards:", jax.sharding.get_abstract_mesh().axis_names)
with jax.set_mesh(mesh):
    print(
        "main thread, in the with block:",
        jax.sharding.get_abstract_mesh().axis_names,
    )
    # A thread started inside the block does not inherit its mesh.
    print(
        "new thread, started in the block:", mesh_axes_in_thread(lambda: None)
    )
