"""Published figures of accelerators and their links, with their sources.
Bytes per second are decimal (1 GB/s = 1e9 B/s), as the vendors give them."""

#: Per chip: peak dense bf16 FLOP/s, HBM bandwidth (B/s), HBM capacity (B).
CHIPS = {
    # NVIDIA H100 datasheet, SXM: 1,979 bf16 TFLOPS "with sparsity", half
    # of it dense; 3.35 TB/s; 80 GB.
    "H100 SXM": (989e12, 3.35e12, 80e9),
    # NVIDIA H200 datasheet, SXM: the same Tensor Cores; 4.8 TB/s; 141 GB.
    "H200 SXM": (989e12, 4.8e12, 141e9),
    # Google Cloud, "TPU v5e": 197 TFLOPs bf16, 819 GBps, 16 GB.
    "TPU v5e": (197e12, 819e9, 16e9),
    # Google Cloud, "TPU v5p": 459 TFLOPs bf16, 2765 GBps, 95 GB.
    "TPU v5p": (459e12, 2765e9, 95e9),
}

#: Per chip: (bytes per second as published, "both" if that counts both
#: directions together or "one" if per direction, source).
LINKS = {
    "TPU v5e ICI": (
        400e9,
        "both",
        'Google Cloud, "TPU v5e": 400 GBps'
        " bidirectional per chip, over 4 ports",
    ),
    "TPU v5p ICI": (
        1200e9,
        "both",
        'Google Cloud, "TPU v5p": 1200 GBps bidirectional per chip',
    ),
    "NVLink 4 (H100, H200)": (
        900e9,
        "both",
        "NVIDIA H100 and H200 datasheets: 900 GB/s per GPU, bidirectional",
    ),
    "PCIe Gen5 x16": (
        128e9,
        "both",
        "NVIDIA H100 datasheet: 128 GB/s,"
        " bidirectional (32 GT/s per lane, PCI-SIG)",
    ),
    "400 Gb/s NIC": (
        400e9 / 8,
        "one",
        "NVIDIA ConnectX-7: 400 Gb/s per port; DGX H100 has one per GPU",
    ),
    "TPU v5e DCN": (
        2 * 100e9 / 8 / 8,
        "one",
        'Google Cloud, "TPU v5e": 2 x 100 Gbps NICs per host of 8 chips',
    ),
    "TPU v5p DCN": (
        50e9 / 8,
        "one",
        'Google Cloud, "TPU v5p": 50 Gbps data-centre network per chip',
    ),
}


#: Links of a chip that a TPU's torus spreads its published ICI figure over
#: (Google Cloud: v5e chips form a 2-D torus, v5p chips a 3-D one). A ring
#: along one axis of the torus uses 2 of them.
PORTS = {"TPU v5e ICI": 4, "TPU v5p ICI": 6}


def one_way(link):
    """Bytes per second one chip can send while it receives as much."""
    rate, direction, _ = LINKS[link]
    return rate / 2 if direction == "both" else rate


def one_axis(link):
    """Bytes per second one chip sends in a ring along one axis of its
    network: 2 of its PORTS on a TPU torus, all of it on any other link."""
    return one_way(link) * 2 / PORTS.get(link, 2)
