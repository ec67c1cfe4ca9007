import jax


def fold_equals_split(key):
    """For i in 0..3: whether fold_in(key, i) == split(key, 4)[i]."""
    children = jax.random.key_data(jax.random.split(key, 4))
    folded = [
        jax.random.key_data(jax.random.fold_in(key, i)) for i in range(4)
    ]
    return [bool((f == c).all()) for f, c in zip(folded, children)]


print("jax_threefry_partitionable:", jax.config.jax_threefry_partitionable)
print("setting on (the default):", fold_equals_split(jax.random.key(0)))
with jax.threefry_partitionable(False):
    print("setting off:             ", fold_equals_split(jax.random.key(0)))
