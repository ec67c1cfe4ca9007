"""Bytes that collectives move in a compiled program (.as_text()), for the
collectives that Step 9c's traffic() does not read (collective-permute)."""

from snippets.sharding_costs._comm import array_bytes


def permute_bytes(program):
    """Bytes one device sends in the program's collective-permutes -> int:
    each sends its whole operand once (to one other device). A permute in a
    while loop's body (a scan) is counted once, not per iteration."""
    total = 0
    for line in program.splitlines():
        if (
            " collective-permute(" in line
            or " collective-permute-start(" in line
        ):
            op = (
                "collective-permute-start"
                if "-start(" in line
                else "collective-permute"
            )
            result = line.split(" = ", 1)[1].split(f" {op}(")[0]
            total += array_bytes(result)
    return total
