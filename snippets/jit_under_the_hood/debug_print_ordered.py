import jax


def show(x):
    """Print x. x: () -> ()."""
    jax.debug.print("x = {}", x)
    return x


def show_ordered(x):
    """Print x, in order with every other ordered print. x: () -> ()."""
    jax.debug.print("x = {}", x, ordered=True)
    return x


for f in (show, show_ordered):
    effects = [type(e).__name__ for e in jax.make_jaxpr(f)(1.0).effects]
    program = jax.jit(f).lower(1.0).as_text()
    # the compiled program's signature: its inputs and outputs
    main = next(line for line in program.splitlines() if "@main(" in line)
    print(
        f"{f.__name__:13s} effects: {effects}, takes and returns a token:",
        "!stablehlo.token" in main,
    )
