"""Write app/vramcalc/data/gpu_overhead.json from tests/data/gpu_overhead_sources.json (issue 28).

A developer tool, not run by CI (tests/test_gpu_overhead.py checks that the written file is what it would write).
For each class of NVIDIA card (compute capability): the memory one process held beside PyTorch's allocator in the
published out-of-memory messages (in use - allocated by PyTorch - reserved by PyTorch but unallocated), their
median, never below a bare CUDA context published for the class; and PyTorch's default cuBLAS workspace for the
class (aten/src/ATen/cuda/CublasHandlePool.cpp, parseChosenWorkspaceSize: 32 MiB when the compute capability's
major is 9 to 12, else CUBLAS_WORKSPACE_CONFIG ":4096:2:16:8" = 4096 KiB × 2 + 16 KiB × 8). A card of no class
(GB10, AMD, Apple) keeps the engine's round 1 GiB.

Usage: python tools/gpu_overhead.py
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "tests" / "data" / "gpu_overhead_sources.json"
OUT = ROOT / "app" / "vramcalc" / "data" / "gpu_overhead.json"
UNITS = {"GiB": 2**30, "MiB": 2**20, "KiB": 2**10}


def printed_bytes(text: str) -> float:
    """"19.40 GiB" -> bytes, as PyTorch's out-of-memory message prints a size."""
    number, unit = text.split()
    return float(number) * UNITS[unit]


def beside_allocator(run: list[str]) -> float:
    in_use, allocated, free = (printed_bytes(size) for size in run)
    return in_use - allocated - free


def cublas_workspace(arch: str) -> int:
    major = int(arch.removeprefix("sm_")) // 10
    return 32 * 2**20 if 9 <= major <= 12 else 4096 * 1024 * 2 + 16 * 1024 * 8


def classes(sources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    written: dict[str, dict[str, Any]] = {}
    for arch, entry in sources["classes"].items():
        runs = [r["run"] for r in sources["runs"] if r["class"] == arch and r["included"]]
        median = statistics.median(beside_allocator(run) for run in runs)
        bare = next((c["mib"] * 2**20 for c in sources["bare_contexts"] if c["class"] == arch), 0)
        written[arch] = {"cards": entry["cards"], "context": round(max(median, bare)),
                         "workspace": cublas_workspace(arch), "runs": len(runs)}
        written[arch] |= {"bare": True} if bare > median else {}
    return written


def render(written: dict[str, dict[str, Any]]) -> str:
    lines = [f' "{arch}": {json.dumps(entry)}' for arch, entry in written.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    OUT.write_text(render(classes(json.loads(SOURCES.read_text(encoding="utf-8")))), encoding="utf-8")
