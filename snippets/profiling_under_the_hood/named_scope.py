# platform: gpu differs -- A GPU compiles its own program and its profiler writes its own files, so the names printed differ

"""jax.named_scope names the operations traced inside it."""

import gzip
import re
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp

from snippets.profiling._trace import shown_name


def mlp(params, x):
    """Two tanh layers. params: ((4, 8), (8, 2)), x: (n, 4) -> (n, 2)."""
    w1, w2 = params
    with jax.named_scope("layer1"):
        x = jnp.tanh(x @ w1)
    with jax.named_scope("layer2"):
        x = jnp.tanh(x @ w2)
    return x


def loss(params, x):
    """Sum of squared outputs. x: (n, 4) -> ()."""
    return jnp.sum(mlp(params, x) ** 2)


def op_names(text):
    """The distinct op_name="..." values in a program's text, sorted."""
    return sorted(set(re.findall(r'op_name="([^"]*)"', text)))


params = (jnp.ones((4, 8)) / 4, jnp.ones((8, 2)) / 8)
x = jnp.ones((3, 4))
lowered = jax.jit(mlp).lower(params, x)
compiled = lowered.compile()
print("op names in compiled.as_text():")
for name in op_names(compiled.as_text()):
    print("   ", name)
print(
    "'layer1' in lowered.as_text():",
    "layer1" in lowered.as_text(),
    "| with debug_info=True:",
    "layer1" in lowered.as_text(debug_info=True),
)

grad_text = jax.jit(jax.grad(loss)).lower(params, x).compile().as_text()
print("scopes in the compiled gradient (without jit(loss)/ and the op):")
for scope in sorted({n.rsplit("/", 1)[0] for n in op_names(grad_text)}):
    if "layer" in scope:
        print("   ", scope.removeprefix("jit(loss)/"))

forward = jax.jit(mlp)
forward(params, x).block_until_ready()  # compile before tracing
with tempfile.TemporaryDirectory() as log_dir:
    with jax.profiler.trace(log_dir, create_perfetto_trace=True):
        forward(params, x).block_until_ready()
    files = {
        shown_name(p.name): p for p in Path(log_dir).rglob("*") if p.is_file()
    }
    for shown, path in sorted(files.items()):
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        print(
            f"{shown}: holds 'jit(mlp)/layer1/':", b"jit(mlp)/layer1/" in data
        )
