"""The collective operations in a compiled program's text (.as_text())."""

#: XLA's collective operations, as the program text names them.
COLLECTIVES = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "collective-permute",
    "all-to-all",
)


def collectives(program):
    """The collective operations the program text calls -> list of names."""
    return [c for c in COLLECTIVES if f"{c}(" in program]


def collective_lines(program):
    """The lines of the program text that call a collective operation."""
    return [
        line.strip()
        for line in program.splitlines()
        if any(f"{c}(" in line for c in COLLECTIVES)
    ]


def result_types(program, op):
    """The result types of the program's `op` operations -> list of str,
    e.g. ['f32[256,256]{1,0}'] for one all-gather of a (256, 256) array."""
    return [
        line.split(" = ", 1)[1].split(f" {op}(")[0]
        for line in collective_lines(program)
        if f" {op}(" in line
    ]
