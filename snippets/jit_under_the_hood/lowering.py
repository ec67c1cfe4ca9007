# platform: gpu,tpu differs -- XLA compiles that backend's own program: a GPU names its fusions differently, and a TPU names its fusions by number (fusion.5 for the CPU's add_multiply_fusion) and adds its (8, 128) memory tiling to each layout, as in f32[100,100]{1,0:T(8,128)}
import re

import jax
import jax.numpy as jnp


def gelu(x):
    """Tanh approximation of GELU. x: any shape -> same shape."""
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def computations(hlo):
    """Compiled HLO text -> {computation name: its operation lines}.

    The entry computation is under "ENTRY"; fused ones keep the name
    that the backend gave them (CPU and GPU name them differently).
    """
    found, name = {}, None
    for line in hlo.splitlines():
        head = re.match(r"(ENTRY )?%(\S+) .*\{$", line)
        if head:
            name = "ENTRY" if head.group(1) else head.group(2)
            found[name] = []
        elif line == "}":
            name = None
        elif name and " = " in line:
            found[name].append(line.strip())
    return found


def fused_ops(hlo):
    """Number of operations inside the computations that fusions call."""
    found = computations(hlo)
    entry = "\n".join(found["ENTRY"])
    called = re.findall(r"fusion\(.*?calls=%([\w.-]+)", entry)
    return sum("parameter(" not in s for name in called for s in found[name])


def entry_lines(hlo):
    """The entry computation of compiled HLO text, without its metadata."""
    ops = computations(hlo)["ENTRY"]
    cut = r", (?:metadata|backend_config)="
    return ["  " + re.split(cut, s)[0] for s in ops]


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
