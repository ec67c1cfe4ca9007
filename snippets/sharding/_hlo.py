"""The collective operations in a compiled program's text (.as_text())."""

import re
import tempfile
from pathlib import Path

#: XLA's collective operations, as the program text names them.
COLLECTIVES = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "collective-permute",
    "all-to-all",
)


def collectives(program):
    """The collective operations the program text calls -> list of names. A
    GPU's program splits each into a -start and a -done operation."""
    return [
        c
        for c in COLLECTIVES
        if f"{c}(" in program or f"{c}-start(" in program
    ]


def collective_lines(program):
    """The lines of the program text that call a collective operation (on a
    GPU, the line of its -start operation)."""
    return [
        line.strip()
        for line in program.splitlines()
        if any(f"{c}(" in line or f"{c}-start(" in line for c in COLLECTIVES)
    ]


def result_types(program, op):
    """The result types of the program's `op` operations -> list of str,
    e.g. ['f32[256,256]{1,0}'] for one all-gather of a (256, 256) array."""
    return [
        re.split(f" {op}(?:-start)?\\(", line.split(" = ", 1)[1])[0]
        for line in collective_lines(program)
        if f" {op}(" in line or f" {op}-start(" in line
    ]


def without_layouts(text):
    """text without XLA's memory layouts: 'f32[32,1]{1,0}' -> 'f32[32,1]'."""
    return re.sub(r"\{[\d,]*\}", "", text)


def partitioned_types(lowered, op):
    """The result types of `op` in the program right after XLA's SPMD
    partitioner, before the backend's own passes, read from XLA's dump of
    that pass: lowered.compile() with dump options -> list of str such as
    'bf16[256,256]{1,0}'."""
    with tempfile.TemporaryDirectory() as folder:
        lowered.compile(
            compiler_options={
                "xla_dump_to": folder,
                "xla_dump_hlo_pass_re": "spmd-partitioning",
            }
        )
        dump = next(Path(folder).glob("*after_spmd-partitioning*"))
        program = dump.read_text()
    return result_types(program, op)
