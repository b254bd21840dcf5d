"""What a process holds on an NVIDIA card beside PyTorch's allocator, by the card's compute capability
(data/gpu_overhead.json, written by tools/gpu_overhead.py from tests/data/gpu_overhead_sources.json;
docs/accuracy.md, "The GPU's own overhead").

nvidia-smi shows a process's memory; PyTorch's out-of-memory message splits it into what PyTorch allocated, what its
caching allocator reserved but left unallocated, and the rest: the CUDA context with the kernels the run loaded
(lazily since CUDA 11.7; PyTorch 1.13 sets CUDA_MODULE_LOADING=LAZY) and the libraries' own buffers. `context` is
that rest in published runs of one process on one GPU, their median on each class of card, never below a bare
context published for it; `workspace` is PyTorch's cuBLAS workspace, allocated once per handle and stream.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from .gpus import GpuSpec


@functools.cache
def _classes() -> dict[str, dict[str, Any]]:
    with resources.files("vramcalc.data").joinpath("gpu_overhead.json").open(encoding="utf-8") as file:
        classes: dict[str, dict[str, Any]] = json.load(file)
        return classes


def card_overhead(gpu: GpuSpec | None) -> tuple[str, dict[str, Any]] | None:
    """(compute capability, {context, workspace, runs, bare?}) of the card's class, or None where no figure is
    published (GB10, AMD, Apple, a card given by its size only)."""
    if gpu is None:
        return None
    return next(((arch, entry) for arch, entry in _classes().items() if gpu.slug in entry["cards"]), None)
