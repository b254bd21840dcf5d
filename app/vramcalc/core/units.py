"""Byte units. Everything inside the engine is an integer count of bytes;
these helpers exist only for display, and every string they make names its unit."""

from __future__ import annotations

GB = 10**9  # gigabyte, decimal: what GPU spec sheets mean by "GB"
GIB = 2**30  # gibibyte, binary: what PyTorch, nvidia-smi (MiB) and vLLM print
MIB = 2**20


def to_gb(num_bytes: int) -> float:
    return num_bytes / GB


def to_gib(num_bytes: int) -> float:
    return num_bytes / GIB


# English-style figures, in no language: render/numbers.py writes them the page's way.


def format_gb(num_bytes: int, digits: int = 2) -> str:
    return f"{to_gb(num_bytes):,.{digits}f} GB"


def format_gib(num_bytes: int, digits: int = 2) -> str:
    return f"{to_gib(num_bytes):,.{digits}f} GiB"


def format_count(value: int) -> str:
    """A large count in words people use for model sizes: 8.03B, 124.4M."""
    for divisor, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        # 999,885,952 rounds to 3 significant digits as 1.00B, not 1e+03M
        if abs(value) >= divisor * 0.9995:
            return f"{value / divisor:.3g}{suffix}"
    return str(value)


def format_binary(num_bytes: int) -> str:
    """A byte count in the largest binary unit that keeps it readable: 14.96 GiB, 501 MiB, 12 KiB."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", 2**10)):
        if num_bytes >= size / 10 if unit == "GiB" else num_bytes >= size:
            return f"{num_bytes / size:,.2f} {unit}"
    return f"{num_bytes:,} B"
