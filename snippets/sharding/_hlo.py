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
