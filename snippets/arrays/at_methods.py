import jax.numpy as jnp

x = jnp.array([5.0, 1.0, 7.0, 3.0])
print("x             ", x)
print("at[0].set(0)  ", x.at[0].set(0.0))
print("at[1].add(10) ", x.at[1].add(10.0))
print("at[2].multiply", x.at[2].multiply(0.5))
print("at[3].min(2)  ", x.at[3].min(2.0))
print("at[3].max(9)  ", x.at[3].max(9.0))
print("x is unchanged", x)
