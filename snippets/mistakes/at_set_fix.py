import jax.numpy as jnp

scores = jnp.array([0.1, 0.7, 0.2])
new_scores = scores.at[1].set(0.0)  # a new array with one element replaced
print("original:", scores)
print("updated: ", new_scores)
print("add:     ", scores.at[1].add(1.0))
scores = scores.at[0].multiply(10.0)  # rebind the name to the new array
print("rebound: ", scores)
