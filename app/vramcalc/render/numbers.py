"""Numbers as people read them: bytes in GB (10^9) or GiB (2^30), counts in K/M/B, each
written the current language's way. Every string names its unit."""

from __future__ import annotations

from ..core import units
from .messages import localize


def format_gb(num_bytes: int, digits: int = 2) -> str:
    return localize(units.format_gb(num_bytes, digits))


def format_gib(num_bytes: int, digits: int = 2) -> str:
    return localize(units.format_gib(num_bytes, digits))


def format_count(value: int) -> str:
    """A large count in words people use for model sizes: 8.03B, 124.4M."""
    return localize(units.format_count(value))


def format_binary(num_bytes: int) -> str:
    """A byte count in the largest binary unit that keeps it readable: 14.96 GiB, 501 MiB, 12 KiB."""
    return localize(units.format_binary(num_bytes))
