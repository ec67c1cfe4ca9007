"""Bytes moved by the collectives of a compiled program (.as_text()), by the
ring formulas."""

import math
import re

#: Bytes per element of the dtypes that XLA's program text names.
DTYPE_BYTES = {
    "pred": 1,
    "s8": 1,
    "u8": 1,
    "bf16": 2,
    "f16": 2,
    "s32": 4,
    "u32": 4,
    "f32": 4,
    "s64": 8,
    "f64": 8,
}

#: Bytes one device sends, as a fraction of F (the larger of one device's
#: input and result), for a collective over n devices done as a ring
#: (Patarasuk and Yuan, 2009): an all-gather or a reduce-scatter passes n - 1
#: blocks of F / n around the ring, an all-reduce is one of each. An
#: all-to-all keeps 1 of its n pieces and sends each other one directly, as
#: on a switch; on a ring, each piece is forwarded once per hop.
RING = {
    "all-gather": lambda n: (n - 1) / n,
    "reduce-scatter": lambda n: (n - 1) / n,
    "all-reduce": lambda n: 2 * (n - 1) / n,
    "all-to-all": lambda n: (n - 1) / n,  # on a switch
}


def array_bytes(types):
    """Bytes of the arrays in a result type, e.g. '(f32[4,8]{1,0}, f32[])'."""
    total = 0
    for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", types):
        shape = [int(d) for d in dims.split(",") if d]
        total += DTYPE_BYTES[dtype] * math.prod(shape)
    return total


def group_size(line):
    """How many devices take part in each group of a collective's line."""
    groups = line.split("replica_groups=", 1)[1]
    if groups.startswith("mesh["):  # mesh['a'=4,'b'=2] {'a'}: the axes used
        sizes = dict(re.findall(r"'(\w+)'=(\d+)", groups.split("]", 1)[0]))
        axes = re.findall(r"'(\w+)'", groups.split("{", 1)[1].split("}")[0])
        return math.prod(int(sizes[a]) for a in axes)
    if groups.startswith("["):  # iota form [groups,size]<=[...]
        return int(groups[1:].split("]")[0].split(",")[1])
    return len(groups[2:].split("}")[0].split(","))  # {{0,1,...},{...}}


def traffic(program):
    """Each collective in the program text -> list of (op, full array bytes
    F, group size n, bytes one device sends). Each is counted once: one in a
    while loop's body (a scan) runs once per iteration, so multiply by the
    trip count."""
    rows = []
    for line in program.splitlines():
        for op, fraction in RING.items():
            if f" {op}(" not in line:
                continue
            result = line.split(" = ", 1)[1].split(f" {op}(")[0]
            n = group_size(line)
            full = array_bytes(result)
            if op == "reduce-scatter":  # the result is one device's block
                full *= n
            rows.append((op, full, n, full * fraction(n)))
    return rows
