import re

import jax
import jax.numpy as jnp


def gelu(x):
    """Tanh approximation of GELU. x: any shape -> same shape."""
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def fused_ops(hlo):
    """Number of operations inside the fused computations of compiled HLO."""
    fused = hlo[hlo.index("%fused_computation") : hlo.index("ENTRY")]
    return sum(
        " = " in s and "parameter(" not in s for s in fused.splitlines()
    )


def entry_lines(hlo):
    """The entry computation of compiled HLO text, without its metadata."""
    entry = hlo[hlo.index("ENTRY") :].splitlines()
    ops = [line for line in entry if " = " in line]
    return [re.split(r", (?:metadata|backend_config)=", s)[0] for s in ops]


x = jnp.zeros((100, 100))
jaxpr = jax.make_jaxpr(gelu)(x)
lowered = jax.jit(gelu).lower(x)  # jaxpr -> StableHLO, not compiled yet
stablehlo = lowered.as_text()
compiled = lowered.compile().as_text()  # what XLA made of it

hlo_ops = [s for s in stablehlo.splitlines() if " = stablehlo." in s]
print("jaxpr equations:     ", len(jaxpr.eqns))
print("StableHLO operations:", len(hlo_ops), "- the first three:")
print("\n".join(hlo_ops[:3]))
print("XLA fusions:         ", compiled.count("fusion("))
print("operations fused:    ", fused_ops(compiled))
print("compiled entry computation:")
print("\n".join(entry_lines(compiled)))
