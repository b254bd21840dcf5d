"""Numbers as people read them: bytes in GB (10^9) or GiB (2^30), counts in K/M/B, each
written the current language's way. Every string names its unit."""

from __future__ import annotations

from ..core.units import GIB, MIB, to_gb, to_gib
from .messages import localize


def format_gb(num_bytes: int, digits: int = 2) -> str:
    return localize(f"{to_gb(num_bytes):,.{digits}f} GB")


def format_gib(num_bytes: int, digits: int = 2) -> str:
    return localize(f"{to_gib(num_bytes):,.{digits}f} GiB")


def format_count(value: int) -> str:
    """A large count in words people use for model sizes: 8.03B, 124.4M."""
    for divisor, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        # 999,885,952 rounds to 3 significant digits as 1.00B, not 1e+03M
        if abs(value) >= divisor * 0.9995:
            return localize(f"{value / divisor:.3g}{suffix}")
    return str(value)


def format_binary(num_bytes: int) -> str:
    """A byte count in the largest binary unit that keeps it readable: 14.96 GiB, 501 MiB, 12 KiB."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", 2**10)):
        if num_bytes >= size / 10 if unit == "GiB" else num_bytes >= size:
            return localize(f"{num_bytes / size:,.2f} {unit}")
    return localize(f"{num_bytes:,} B")
