# raises: TypeError
# match: key<fry>
import jax

step = 7
legacy = jax.random.PRNGKey(0)
print(
    "legacy key + step:", legacy + step, "(accepted: just uint32 arithmetic)"
)

key = jax.random.key(0)
key + step  # a typed key is not a number
