"""How far the book's printed numbers move on other CPUs: ``python -m tools.portability``.

Runs every snippet of the book, as the build does (the book's kernel, page by page), once per CPU
of :data:`jaxbook.runtime.OTHER_CPUS` that this machine can emulate (``--cpu NAME`` to choose; the
machine's own is ``native``), each in a scratch copy of the book under ``_build/portability/``,
and compares each output with the committed expected output (:mod:`jaxbook.compare`). Prints, per
snippet whose output changed anywhere, the smallest tolerance each CPU needs (``=``: the same
text; ``~``: within one unit of the last printed digit), and at the end the largest needed by a
snippet without a ``# tolerance:`` declaration: the measurement behind
:data:`jaxbook.compare.DEFAULT`. Asserts nothing; exits 1 if some output fails its tolerance.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jaxbook import ROOT, compare, layout, outputs, pages, runtime, store
from jaxbook.snippet import parse_tolerance, source_of

OUT = ROOT / "_build" / "portability"
#: What a scratch copy of the book needs to run its snippets.
SOURCES = tuple(
    dict.fromkeys(["snippets", "practice", *(pattern.split("/")[0] for pattern in pages.PAGE_PATTERNS)])
)


def scratch_book(name: str) -> Path:
    """A fresh copy of the book's pages and snippets in ``_build/portability/<name>``."""
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for source in SOURCES:
        path = ROOT / source
        if path.is_dir():
            shutil.copytree(path, folder / source, ignore=shutil.ignore_patterns("__pycache__"))
        elif path.is_file():
            shutil.copy2(path, folder / source)
    return folder


def run_book(name: str) -> dict[str, str]:
    """``{snippet path: normalised output}`` of every snippet, run as CPU ``name``."""
    folder = scratch_book(name)
    env = {**os.environ, "JAXBOOK_ROOT": str(folder)}
    for variable in ("JAXBOOK_AS_CPU", "JAXBOOK_STORE"):
        env.pop(variable, None)
    if name != "native":
        env["JAXBOOK_AS_CPU"] = name
    subprocess.run(
        [sys.executable, "-m", "jaxbook.accept", "COMPARE=1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )
    found = {}
    for path in (folder / layout.STORE).rglob("*.json"):
        result = store.load(path.stem, folder)
        for cell in result.cells if result else []:
            found[cell.snippet] = cell.text
    return found


#: Float32 arithmetic of the kinds the book's snippets do, printed at full precision (9 significant
#: digits, always with an exponent): how far float32 results themselves move between CPUs,
#: whatever a snippet prints.
PROBE = """import jax, jax.numpy as jnp
k = jax.random.split(jax.random.key(0), 4)
x, w = jax.random.normal(k[0], (256, 300)), jax.random.normal(k[1], (300,))
y = x @ w + 0.1 * jax.random.normal(k[2], (256,))
logits = 3.0 * jax.random.normal(k[3], (1000,))


def loss(v, x, y):
    return jnp.mean((x @ v - y) ** 2)


@jax.jit
def train(v):
    for _ in range(100):
        v = v - 0.01 * jax.grad(loss)(v, x, y)
    return v


h = jnp.tanh(x[:, :64] @ x[:64, :64])
results = {
    "dot": (x @ w)[:4],
    "sum of squares": jnp.sum(x**2),
    "mean of |x|": jnp.mean(jnp.abs(x)),
    "logsumexp": jax.nn.logsumexp(logits),
    "softmax": jax.nn.softmax(logits)[:4],
    "exp, log, tanh": jnp.stack([jnp.exp(logits[:4] / 3), jnp.log1p(jnp.abs(logits[:4])), jnp.tanh(logits[:4])]),
    "mlp layer": h[0, :4],
    "trained weights": train(jnp.zeros(300))[:4],
    "final loss": loss(train(jnp.zeros(300)), x, y),
}
for name, value in results.items():
    print(name + ":", " ".join(f"{float(v):.8e}" for v in jnp.ravel(value)))
"""


def probe(cpu: str) -> str:
    """What :data:`PROBE` prints as CPU ``cpu``."""
    path = OUT / "probe.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROBE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "JAXBOOK_AS_CPU"}
    if cpu != "native":
        env["JAXBOOK_AS_CPU"] = cpu
    run = subprocess.run(
        [sys.executable, "-m", "jaxbook.run", str(path)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if run.returncode:
        raise SystemExit(f"the probe failed as {cpu}:\n{run.stderr[-3000:]}")
    return run.stdout


def describe(expected: str, actual: str | None) -> str:
    """A table cell: how ``actual`` relates to ``expected``."""
    if actual is None:
        return "no run"
    if actual == expected:
        return "="
    needed = compare.required(expected, actual)
    if needed is None:
        return "TEXT"
    if not needed.rtol and not needed.atol:
        return "~"
    return str(needed)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="append", choices=["native", *runtime.OTHER_CPUS])
    parser.add_argument("--probe", action="store_true", help="float32 arithmetic only, not the book")
    args = parser.parse_args(argv)
    cpus = args.cpu or ["native", *runtime.OTHER_CPUS]
    if args.probe:
        printed = {cpu: probe(cpu) for cpu in cpus}
        for cpu in cpus[1:]:
            print(f"float32 results as {cpu} against {cpus[0]}:")
            for a, b in zip(printed[cpus[0]].splitlines(), printed[cpu].splitlines()):
                needed = compare.required(a, b)
                print(f"  {a.split(':')[0]:16} {'=' if a == b else needed}")
        return 0
    runs = {}
    for cpu in cpus:
        print(f"running every snippet as {cpu} ...", flush=True)
        runs[cpu] = run_book(cpu)
    status, worst = 0, (0.0, None)
    print(f"\n{'snippet':58} " + " ".join(f"{cpu:>16}" for cpu in cpus))
    for group in pages.selection(ROOT, [], []).values():
        for snippet in group:
            name = snippet.relative_to(ROOT).as_posix()
            expected = outputs.read_expected(snippet) or ""
            cells = [describe(expected, runs[cpu].get(name)) for cpu in cpus]
            if all(cell == "=" for cell in cells):
                continue
            tolerance = parse_tolerance(source_of(snippet), name)
            declared = tolerance != compare.DEFAULT
            for cpu in cpus:
                actual = runs[cpu].get(name)
                if actual is None:
                    continue
                if not compare.matches(expected, actual, tolerance):
                    status = 1
                needed = compare.required(expected, actual)
                if needed and not declared and needed.rtol > worst[0]:
                    worst = (needed.rtol, f"{name} as {cpu}")
            mark = " (declares " + str(tolerance) + ")" if declared else ""
            print(f"{name + mark:58} " + " ".join(f"{cell:>16}" for cell in cells))
    print(f"\nlargest rtol needed by a snippet that declares none: {worst[0]:.2g} ({worst[1]})")
    print(f"default tolerance: {compare.DEFAULT}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
