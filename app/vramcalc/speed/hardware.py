"""The devices a run reads and computes on, and how much of each an engine achieves (data/speed.json).

A card's figures come from data/gpus (bandwidth, dense tensor TFLOPS by dtype, the FP32 units' rate); the user's own
figures (--gpu-bandwidth, --gpu-tflops, --ram-bandwidth) win. What an engine achieves of them was
fitted to published runs (docs/accuracy.md, "Speed")."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..core.choices import Runtime
from ..core.units import GB
from ..sources.gpus import GpuKind, GpuSpec
from ..workload import Machine

TERA = 10**12


class Memory(enum.StrEnum):
    GDDR = "gddr"  # a discrete card's GDDR6/6X/7
    HBM = "hbm"  # datacenter stacks: achieved share differs from GDDR's at batch 1
    UNIFIED = "unified"  # LPDDR shared with the CPU: Apple Silicon, DGX Spark, Strix Halo


class Platform(enum.StrEnum):
    CUDA = "cuda"
    ROCM = "rocm"
    METAL = "metal"
    VULKAN = "vulkan"  # llama.cpp's Vulkan build on any card (Workload.llamacpp_vulkan)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Device:
    """One GPU as the speed model sees it: what it can read and compute per second (as specified)."""

    bandwidth: float | None  # bytes/s
    # FLOP/s by kernel kind: "16-bit", "fp8", "int8", "fp16-acc16" (dense tensor rates), "fp32" (FP32 without TF32)
    flops: Mapping[str, float]
    memory: Memory
    platform: Platform
    nvlink: bool
    link: float  # bytes/s one GPU sends to another, per direction (PCIe's when the card does not say)
    # bytes/s the CPU reads the weights kept "in system RAM" at when the user gives no --ram-bandwidth: on a
    # unified-memory machine its CPU's share of the one memory (`unified_ram_bandwidth`); None: a desktop's
    host_ram: float | None = None
    rdna: bool = False  # an RDNA 3, 3.5 or 4 card (is_rdna): speed/triton_moe.py

    def compute(self, kind: str) -> float | None:
        """The dense rate of `kind`, else the 16-bit rate (a quantised matmul runs no slower than 16-bit); "fp32"
        only its own: an fp32 matmul runs on the FP32 units (16 times slower than the 16-bit tensor rate on an A100,
        30 on a B200)."""
        return self.flops.get(kind) if kind == "fp32" else self.flops.get(kind) or self.flops.get("16-bit")

    @property
    def geforce(self) -> bool:
        """A consumer card: its FP16-accumulate tensor rate is twice its FP32-accumulate one (GeForce; the
        workstation and datacenter cards run both at one rate)."""
        return "fp16-acc16" in self.flops

    @property
    def kind(self) -> str:
        """The card's class, which the engines' achieved shares are fitted by: geforce, gddr (workstation), hbm or
        unified."""
        return "geforce" if self.geforce and self.memory is Memory.GDDR else self.memory.value


@functools.cache
def calibration() -> Mapping[str, Any]:
    with resources.files("vramcalc.data").joinpath("speed.json").open(encoding="utf-8") as file:
        data: Mapping[str, Any] = json.load(file)
    return data


def engine_rates(runtime: Runtime) -> Mapping[str, Any]:
    """The engine's shares and fixed costs; an engine with none of its own yet takes transformers' (its
    basis then says they were not fitted to it): a new engine is one module and one registry line."""
    engines: Mapping[str, Mapping[str, Any]] = calibration()["engines"]
    if runtime.value in engines:
        rates = engines[runtime.value]
        return engines[rates["alias"]] if "alias" in rates else rates  # Ollama runs llama.cpp
    return {**engines["transformers"], "basis": "speed.fit.none"}


def memory_of(gpu: GpuSpec) -> Memory:
    """The card's kind of memory: unified (Apple, DGX Spark, Strix Halo), HBM (data/speed.json) or GDDR."""
    if gpu.kind is GpuKind.APPLE or gpu.slug in calibration()["unified"]:
        return Memory.UNIFIED
    return Memory.HBM if gpu.slug in calibration()["hbm"] else Memory.GDDR


def platform_of(gpu: GpuSpec) -> Platform:
    if gpu.kind is GpuKind.APPLE:
        return Platform.METAL
    return Platform.ROCM if gpu.slug in calibration()["rocm"] else Platform.CUDA


def device(gpu: GpuSpec, machine: Machine) -> Device:
    """The card as the speed model sees it, the user's figures winning: --gpu-bandwidth, and --gpu-tflops
    scaling every dense rate the card lists, the FP32 units' too (or the only one, for a card that lists none: the
    basis line then names it for fp32 matmuls as for 16-bit ones)."""
    bandwidth: float | None = None if gpu.bandwidth_gb_s is None else float(gpu.bandwidth_gb_s * GB)
    if machine.gpu_bandwidth_gb_s is not None:
        bandwidth = machine.gpu_bandwidth_gb_s * GB
    rates = (("16-bit", gpu.fp16_flops), ("fp8", gpu.fp8_flops), ("int8", gpu.int8_ops),
             ("fp16-acc16", gpu.fp16_acc16_flops), ("fp32", gpu.fp32_flops))
    flops = {kind: float(value) for kind, value in rates if value}
    if machine.gpu_tflops is not None:  # a card without figures (typed "24gb"): the rate typed, whatever the kernel
        flops = {kind: rate * machine.gpu_tflops * TERA / flops["16-bit"] for kind, rate in flops.items()} if (
            "16-bit" in flops) else {"16-bit": machine.gpu_tflops * TERA, "fp32": machine.gpu_tflops * TERA}
    memory = memory_of(gpu)  # on unified memory the CPU reads the same memory: the bandwidth given is its too
    host_ram = unified_ram_bandwidth(bandwidth / GB) if memory is Memory.UNIFIED and bandwidth else None
    return Device(bandwidth=bandwidth, flops=flops, memory=memory, platform=platform_of(gpu),
                  nvlink=gpu.interconnect in ("sxm-nvlink", "nvlink-bridge"),
                  link=gpu.interconnect_bytes_per_s or pcie_bandwidth(), host_ram=host_ram, rdna=is_rdna(gpu))


def is_rdna(gpu: GpuSpec) -> bool:
    """An RDNA card, as triton_kernels' target_info.get_rdna_version tells one: gfx11* (RDNA 3 and 3.5) and gfx12*
    (RDNA 4) but gfx1250."""
    return gpu.gfx is not None and gpu.gfx.startswith(("gfx11", "gfx12")) and not gpu.gfx.startswith("gfx125")


def split_device(cards: Sequence[GpuSpec], layers: Sequence[int], machine: Machine) -> Device:
    """Cards that run a model's layers one after the other, each its own (llama.cpp's layer split), as one
    device: a token's time per byte read (and per FLOP) is the mean of theirs weighted by each card's share of
    the layers; the first card's kind of memory and platform, the slowest link between them. Its host's RAM is a
    desktop's: a list of cards never holds a Mac or a unified-memory PC (options.parse_gpus refuses one)."""
    devices = [device(card, machine) for card in cards]
    if not any(layers):  # every layer in system RAM (-ngl 0): no card's rate weighs on them; the first card's kind
        return devices[0]
    shares = [n / max(1, sum(layers)) for n in layers]

    def mean(values: Sequence[float | None]) -> float | None:
        if any(not value for value, share in zip(values, shares, strict=True) if share):
            return None
        return 1 / sum(share / value for value, share in zip(values, shares, strict=True) if share and value)

    flops = {kind: rate for kind in devices[0].flops
             if (rate := mean([d.flops.get(kind) for d in devices])) is not None}
    return dataclasses.replace(devices[0], bandwidth=mean([d.bandwidth for d in devices]), flops=flops,
                               link=min(d.link for d in devices))


def pcie_bandwidth() -> float:
    """What a PCIe link carries in practice, bytes/s per direction (data/speed.json): the host's copies to
    the GPU, and GPU to GPU where the card names no faster link."""
    return float(calibration()["pcie_gb_s"]) * GB


def host_copy_bandwidth(gpu: Device) -> float:
    """Bytes/s at which weights kept in system RAM are copied to the GPU's buffers (llama.cpp's op offload of a
    micro-batch): over PCIe for a card; on a unified-memory machine a copy within its one memory, which reads
    and writes each byte (half its bandwidth)."""
    if gpu.memory is Memory.UNIFIED and gpu.bandwidth is not None:
        return gpu.bandwidth / 2
    return pcie_bandwidth()


def unified_ram_bandwidth(memory_gb_s: float) -> float:
    """Bytes/s a unified-memory machine's CPU cores read its memory at (data/speed.json `unified_ram_share`): a share
    of the memory's bandwidth, never below a desktop's default nor above the memory's own (which binds only on a
    memory slower than a desktop's RAM, as a --gpu-bandwidth below 64 GB/s says)."""
    desktop = float(calibration()["ram_bandwidth_gb_s"])
    share = float(calibration()["unified_ram_share"]) * memory_gb_s
    return min(float(memory_gb_s), max(desktop, share)) * GB


class RamSource(enum.StrEnum):
    """Where the host's RAM bandwidth came from (the explanation says which)."""

    YOURS = "yours"  # --ram-bandwidth
    UNIFIED = "unified"  # the CPU's share of a Mac's, DGX Spark's or Strix Halo's memory
    DESKTOP = "desktop"  # a dual-channel DDR5 desktop (data/speed.json ram_bandwidth_gb_s)


def ram_source(machine: Machine, gpu: Device | None = None) -> RamSource:
    if machine.ram_bandwidth_gb_s is not None:
        return RamSource.YOURS
    return RamSource.UNIFIED if gpu is not None and gpu.host_ram is not None else RamSource.DESKTOP


def ram_bandwidth(machine: Machine, gpu: Device | None = None) -> float:
    """The host's RAM bandwidth in bytes/s: the user's, else the unified-memory machine's CPU share (`gpu.host_ram`),
    else a desktop's (data/speed.json)."""
    source = ram_source(machine, gpu)
    if source is RamSource.YOURS:
        assert machine.ram_bandwidth_gb_s is not None
        return float(machine.ram_bandwidth_gb_s) * GB
    if source is RamSource.UNIFIED:
        assert gpu is not None and gpu.host_ram is not None
        return gpu.host_ram
    return float(calibration()["ram_bandwidth_gb_s"]) * GB


def layer_overhead(rates: Mapping[str, Any], device: Device) -> float:
    """The engine's fixed seconds per layer per step (kernel launches, synchronisation), by platform
    (CUDA: by kind of memory, the datacenter cards' lower clocks showing)."""
    table = rates["layer_overhead_s"]
    key = f"{device.platform.value}-{device.memory.value}"
    return float(table.get(key, table.get(device.platform.value, table["cuda"])))


def moe_layer_overhead(rates: Mapping[str, Any], device: Device) -> float:
    """The engine's further fixed seconds per mixture-of-experts layer per step, by platform (0 where none
    is given): llama.cpp's routing kernels on Metal (the router, soft_max, argsort, get_rows, the weights'
    normalisation, the expert-output multiply and sum: about ten more dependent kernels than a dense FFN,
    llama-graph.cpp build_moe_ffn; docs/accuracy.md, "llama.cpp's mixtures of experts on Metal")."""
    return float(rates.get("moe_layer_overhead_s", {}).get(device.platform.value, 0.0))
