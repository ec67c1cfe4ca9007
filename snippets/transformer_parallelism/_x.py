"""Bytes that collectives move in a compiled program (.as_text()), for the
collectives (collective-permute) that traffic() in snippets/sharding_costs/
_comm.py (Step 9, under the hood: what sharding costs) does not read."""

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


def computations(program):
    """The program text's computations -> dict name: text of its body."""
    blocks, name = {}, None
    for line in program.splitlines():
        if line.endswith("{") and not line.startswith(" "):
            name = line.split()[1 if line.startswith("ENTRY") else 0]
            blocks[name.lstrip("%")] = []
        elif line == "}":
            name = None
        elif name is not None:
            blocks[name.lstrip("%")].append(line)
    return {n: "\n".join(lines) for n, lines in blocks.items()}


def loop_body(program):
    """The text of the program's while-loop bodies (a scan's step; for a
    scan over layers, one layer), with the computations they call."""
    parts = computations(program)
    todo = [n for text in parts.values() for n in _called(text, "body=")]
    seen = []
    while todo:
        n = todo.pop()
        if n not in seen and n in parts:
            seen.append(n)
            todo += _called(parts[n], "to_apply=") + _called(
                parts[n], "calls="
            )
    return "\n".join(parts[n] for n in seen)


def _called(text, key):
    """Names after `key` (body=%b, calls=%c) in text -> list of str."""
    return [
        part.split(key, 1)[1].lstrip("%").split(",")[0].split(")")[0].strip()
        for part in text.splitlines()
        if key in part
    ]
