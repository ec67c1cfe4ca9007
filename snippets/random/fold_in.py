import jax

root = jax.random.key(0)


def dropout_key(step, layer):
    """The key of one layer at one step, from the root key alone."""
    return jax.random.fold_in(jax.random.fold_in(root, step), layer)


print("step 7, layer 2:", jax.random.uniform(dropout_key(7, 2), (3,)))
print(
    "step 7, layer 2:",
    jax.random.uniform(dropout_key(7, 2), (3,)),
    "(again: same)",
)
print("step 8, layer 2:", jax.random.uniform(dropout_key(8, 2), (3,)))

# fold_in(key, i) and split(key, n)[i] derive the same key here
children = jax.random.key_data(jax.random.split(root, 4))
same = [
    bool((jax.random.key_data(jax.random.fold_in(root, i)) == c).all())
    for i, c in enumerate(children)
]
print("jax_threefry_partitionable:", jax.config.jax_threefry_partitionable)
print("fold_in(root, i) == split(root, 4)[i]:", same)
