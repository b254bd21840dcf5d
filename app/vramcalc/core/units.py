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
