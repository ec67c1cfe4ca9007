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


def fold_equals_split(key):
    """For i in 0..3: whether fold_in(key, i) == split(key, 4)[i]."""
    children = jax.random.key_data(jax.random.split(key, 4))
    folded = [
        jax.random.key_data(jax.random.fold_in(key, i)) for i in range(4)
    ]
    return [bool((f == c).all()) for f, c in zip(folded, children)]


print("fold_in(root, i) == split(root, 4)[i]:", fold_equals_split(root))
