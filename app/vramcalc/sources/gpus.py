"""GPU specs, as data: data/gpus/*.json, read once by `_load_all` (see data/README.md, "gpus").

Four kinds of entry share `GpuSpec`:

- discrete cards (`load_gpus()`), whose usable memory is PyTorch's total, else nvidia-smi's, else the
  marketed figure read as decimal GB;
- unified-memory PCs (also in `load_gpus()`: DGX Spark, Strix Halo), whose GPU shares LPDDR5X with the CPU:
  usable memory is the GPU share set (`configure(gpu, gpu_share_gib=N)`), else the data's default share, else
  the card rule (DGX Spark: PyTorch's total);
- Apple Silicon Macs (`load_apple()`, one data file per chip, one entry per memory size), whose usable
  memory is Metal's `recommendedMaxWorkingSetSize` (`metal_working_set`), or the `iogpu.wired_limit_mb`
  the user set (`configure`, `usable_bytes_for`);
- "my card: N GB" (`custom_gpu`, or `gpu("24gb")`), whose usable memory is N × 10^9 bytes.

`all_gpus()` is every listed entry in display order (the picker), `table_gpus()` the ones marked for the
fit table, and `gpu(slug)` finds any of them, or makes the custom card.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
from collections.abc import Mapping
from typing import Any

from ..core.errors import ValidationError
from ..core.units import GB, GIB, MIB
from .folders import read_folder


class MemorySource(enum.Enum):
    TORCH = "PyTorch total capacity"
    NVIDIA_SMI = "nvidia-smi total"
    MARKETED = "marketed GB (10^9 B)"
    METAL = "Metal recommendedMaxWorkingSetSize"
    WIRED_LIMIT = "iogpu.wired_limit_mb"
    TYPED = "the number typed, in GB (10^9 B)"
    GPU_SHARE = "GPU share of the unified memory"


class GpuKind(enum.Enum):
    DISCRETE = "discrete"
    APPLE = "apple"  # unified memory: the GPU may wire Metal's working set, not all of it
    UNIFIED = "unified"  # a PC whose GPU shares LPDDR5X with the CPU (DGX Spark, Strix Halo); listed with the cards
    CUSTOM = "custom"  # "my card: N GB"


# macOS major versions. The working-set rule changed with macOS 26 (see data/README.md);
# the estimate uses the older, smaller one unless told otherwise: it is the safe side.
LEGACY_MACOS = 15
TAHOE_MACOS = 26
DEFAULT_MACOS = LEGACY_MACOS
MIN_MACOS = 11  # the first macOS on Apple Silicon

# macOS 26: percent of RAM by the RAM's size, as measured (data/README.md); the last one has no upper bound.
TAHOE_PERCENT = ((32, 74), (64, 78), (128, 81), (None, 84))
# macOS 15 and earlier: 2/3 of RAM up to 32 GB, then 3/4, but never less than RAM - 48 GiB (512 GB measured).
LEGACY_SMALL_GB = 32
LEGACY_RESERVE_GIB = 48

# GPU-to-GPU paths (`GpuSpec.interconnect`): NVLink through NVSwitch on an SXM/HGX board; an NVLink bridge
# joining pairs of cards; PCIe only; AMD Infinity Fabric links; only a network card (DGX Spark's ConnectX-7).
INTERCONNECTS = ("sxm-nvlink", "nvlink-bridge", "pcie", "infinity-fabric", "network")
TERA = 10**12  # the data's TFLOPS / TOPS
MIN_GPU_SHARE_GIB = 1

MIN_WIRED_LIMIT_MB = 1024  # iogpu.wired_limit_mb is in MiB; below 1 GiB nothing useful fits
MIN_CUSTOM_GB = 1
MAX_CUSTOM_GB = 1024  # no single device comes near; the largest listed is a 512 GB Mac
# spaces and tabs only: \s would also take a newline or a form feed, which no one types into "24 gb"
_CUSTOM_SLUG = re.compile(r"(?:my-)?(\d{1,4}(?:\.\d{1,2})?)[ \t]*gb", re.IGNORECASE)


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuSpec:
    slug: str
    display_name: str
    marketed_memory_gb: int | float  # Apple: the unified memory ("64 GB", which is 64 GiB)
    bandwidth_gb_s: int | None  # None only for the custom card
    nvidia_smi_total_mib: int | None = None
    torch_total_gib: float | None = None
    source: str
    kind: GpuKind = GpuKind.DISCRETE
    table: bool = True  # shown in the fit table (`table_gpus`); every entry is selectable
    # Apple only: the iogpu.wired_limit_mb set (None: the macOS default), and the macOS whose rule applies
    wired_limit_mb: int | None = None
    macos: int = DEFAULT_MACOS
    # Compute and interconnect, in base units (FLOP/s, op/s, bytes/s); None where unknown or absent. Dense
    # (no sparsity) tensor rates: `fp16_flops` is BF16/FP16 inputs with FP32 accumulate (what PyTorch's 16-bit
    # GEMMs use), `fp16_acc16_flops` the FP16-accumulate rate where it differs (GeForce: twice), FP8 with FP32
    # accumulate. Apple: the FP32 ALU rate, which is also its FP16 matmul rate before M5. `fp32_flops`: the dense
    # FP32 rate PyTorch's fp32 GEMMs run at without TF32 (NVIDIA: the CUDA cores, not the tensor cores).
    fp16_flops: float | None = None
    fp32_flops: float | None = None
    fp16_acc16_flops: float | None = None
    fp8_flops: float | None = None
    int8_ops: float | None = None
    fp4_flops: float | None = None
    interconnect: str | None = None  # one of INTERCONNECTS
    interconnect_bytes_per_s: float | None = None  # GPU to GPU, per direction
    gpu_cores: int | None = None  # Apple: GPU cores of the configuration
    compute_source: str | None = None
    # False on NVIDIA cards before compute capability 8.0 (Tesla T4, Turing): no bfloat16 (frameworks run float16)
    bf16: bool = True
    # NVIDIA's compute capability ("7.5": Turing; NVIDIA's CUDA GPUs list), AMD's LLVM target ("gfx942": ROCm's
    # GPU specifications, vLLM 0.34 platforms/rocm.py): what the engines' kernel checks read (engines/cards.py)
    compute_capability: str | None = None
    gfx: str | None = None
    # Unified-memory PCs: the GPU share in GiB as set (None: the default), the data's default, and its maximum
    gpu_share_gib: float | None = None
    default_gpu_share_gib: float | None = None
    max_gpu_share_gib: float | None = None

    def __post_init__(self) -> None:
        if self.interconnect is not None and self.interconnect not in INTERCONNECTS:
            raise ValidationError("interconnect", self.interconnect, "one of " + ", ".join(INTERCONNECTS))
        if (self.interconnect is None) != (self.interconnect_bytes_per_s is None):
            raise ValidationError("interconnect_gb_s", self.interconnect_bytes_per_s,
                                  "a bandwidth exactly when there is an interconnect")
        if self.compute_capability is not None and not re.fullmatch(r"\d{1,2}\.\d", self.compute_capability):
            raise ValidationError("compute_capability", self.compute_capability, "major.minor, as 8.9")
        if self.gfx is not None and not re.fullmatch(r"gfx\d{2,3}[0-9a-f]", self.gfx):
            raise ValidationError("gfx", self.gfx, "an LLVM AMDGPU target, as gfx942")
        if self.gpu_share_gib is not None:
            _check_gpu_share(self, self.gpu_share_gib)
        if self.wired_limit_mb is not None:
            _check_wired_limit(self, self.wired_limit_mb)
        if self.macos != DEFAULT_MACOS:
            _check_macos(self.macos)
            if self.kind is not GpuKind.APPLE:
                raise ValidationError("macos", self.macos, "only Apple Silicon Macs depend on the macOS version")

    @property
    def capability(self) -> tuple[int, int] | None:
        """(major, minor) as torch.cuda.get_device_capability() gives it, which transformers' and vLLM's kernel
        checks compare: NVIDIA's compute capability; on ROCm the gfx target's digits (gfx942 -> (9, 4), gfx1100 ->
        (11, 0): vLLM 0.34 platforms/rocm.py _capability_from_gcn_arch). None for a Mac and a typed size."""
        if self.compute_capability is not None:
            major, minor = self.compute_capability.split(".")
            return int(major), int(minor)
        if self.gfx is not None:
            digits = re.match(r"gfx(\d+)", self.gfx).group(1)  # type: ignore[union-attr]
            return (int(digits[0]), int(digits[1])) if len(digits) < 4 else (int(digits[:2]), int(digits[2]))
        return None

    @property
    def usable_bytes(self) -> int:
        """Memory a process can allocate, from the best figure known (see data/README.md)."""
        return self._usable[0]

    @property
    def usable_source(self) -> MemorySource:
        return self._usable[1]

    @property
    def usable_basis(self) -> str:
        """The usable figure's source in words, e.g. "Metal recommendedMaxWorkingSetSize, about 3/4 of 64 GB
        (macOS 15 and earlier)" or "nvidia-smi total 24576 MiB"."""
        return self._usable[2]

    @property
    def unified_memory_gb(self) -> int | None:
        """Apple Silicon: the Mac's unified memory in (Apple's) GB, which are GiB; None for cards."""
        return int(self.marketed_memory_gb) if self.kind is GpuKind.APPLE else None

    @property
    def shared_memory_bytes(self) -> int | None:
        """A Mac's or a unified-memory PC's whole memory, which the GPU shares with the CPU: what the GPU holds and
        what is kept in system RAM (llama.cpp's layers or experts off the GPU, offloaded activations) come out of
        it together. None for a card with memory of its own. A Mac's hw.memsize (Apple's GB are GiB); a PC's CUDA
        total where known, which on the DGX Spark is all the OS has (its 128 GB less the kernel's: 119.61 GiB),
        else its 128 GB (GiB)."""
        if self.kind is GpuKind.UNIFIED and self.torch_total_gib is not None:
            return round(self.torch_total_gib * GIB)
        return round(self.marketed_memory_gb * GIB) if self.kind in (GpuKind.APPLE, GpuKind.UNIFIED) else None

    @property
    def carved_out(self) -> bool:
        """Whether the GPU's share is a BIOS carve-out (Strix Halo's default 96 GiB, the largest its BIOS offers,
        or a smaller share): the GPU's whether used or not, so system RAM is what it leaves of the memory. A
        larger share is Linux's GTT pool, taken from the one memory only as used (data/README.md)."""
        share = self.gpu_share_gib if self.gpu_share_gib is not None else self.default_gpu_share_gib
        return self.kind is GpuKind.UNIFIED and share is not None and self.default_gpu_share_gib is not None and (
            share <= self.default_gpu_share_gib)

    @property
    def _usable(self) -> tuple[int, MemorySource, str]:
        if self.kind is GpuKind.APPLE:
            if self.wired_limit_mb is not None:
                return (self.wired_limit_mb * MIB, MemorySource.WIRED_LIMIT,
                        f"iogpu.wired_limit_mb = {self.wired_limit_mb} (MiB), as set")
            size, rule = metal_working_set(int(self.marketed_memory_gb), self.macos)
            return size, MemorySource.METAL, f"{MemorySource.METAL.value}, {rule}"
        if self.kind is GpuKind.CUSTOM:
            return (round(self.marketed_memory_gb * GB), MemorySource.TYPED,
                    f"{_show_gb(self.marketed_memory_gb)} GB as typed, read as 10^9 bytes")
        if self.kind is GpuKind.UNIFIED:
            if self.gpu_share_gib is not None:
                return (round(self.gpu_share_gib * GIB), MemorySource.GPU_SHARE,
                        f"{MemorySource.GPU_SHARE.value}, {_show_gb(self.gpu_share_gib)} GiB as set")
            if self.default_gpu_share_gib is not None:
                return (round(self.default_gpu_share_gib * GIB), MemorySource.GPU_SHARE,
                        f"{MemorySource.GPU_SHARE.value}, {_show_gb(self.default_gpu_share_gib)} GiB (the default)")
        if self.torch_total_gib is not None:
            return (round(self.torch_total_gib * GIB), MemorySource.TORCH,
                    f"{MemorySource.TORCH.value} {self.torch_total_gib} GiB")
        if self.nvidia_smi_total_mib is not None:
            return (self.nvidia_smi_total_mib * MIB, MemorySource.NVIDIA_SMI,
                    f"{MemorySource.NVIDIA_SMI.value} {self.nvidia_smi_total_mib} MiB")
        return (round(self.marketed_memory_gb * GB), MemorySource.MARKETED,
                f"{self.marketed_memory_gb} GB marketed, read as 10^9 bytes")


def metal_working_set(memory_gb: int, macos: int = DEFAULT_MACOS) -> tuple[int, str]:
    """Metal's `recommendedMaxWorkingSetSize` for a Mac with `memory_gb` of unified memory, in bytes, and the
    rule in words. Apple's "GB" of unified memory are GiB (a 16 GB Mac has hw.memsize 17179869184).

    macOS 15 and earlier: 2/3 of RAM up to 32 GB, 3/4 above, and RAM - 48 GiB once that is larger (over 192 GB).
    macOS 26: 74 % below 32 GB, 78 % to 63 GB, 81 % to 127 GB, 84 % from 128 GB.
    Each published measurement is in data/README.md; tests/test_gpus.py holds the rule to them."""
    _check_macos(macos)
    ram = memory_gb * GIB
    if macos >= TAHOE_MACOS:
        percent = next(p for limit, p in TAHOE_PERCENT if limit is None or memory_gb < limit)
        return ram * percent // 100, f"{percent} % of {memory_gb} GB (macOS 26)"
    if memory_gb <= LEGACY_SMALL_GB:
        return ram * 2 // 3, f"about 2/3 of {memory_gb} GB (macOS 15 and earlier)"
    reserve = LEGACY_RESERVE_GIB * GIB
    if ram - reserve > ram * 3 // 4:
        return ram - reserve, f"{memory_gb} GB less {LEGACY_RESERVE_GIB} GiB (macOS 15 and earlier)"
    return ram * 3 // 4, f"about 3/4 of {memory_gb} GB (macOS 15 and earlier)"


def configure(gpu: GpuSpec, *, wired_limit_mb: int | None = None, macos: int | None = None,
              gpu_share_gib: float | None = None) -> GpuSpec:
    """An Apple Silicon Mac as the user set it up: `wired_limit_mb` is `sysctl iogpu.wired_limit_mb`
    (MiB; 0, the stock value, and None both mean the macOS default), `macos` the major version whose
    default rule applies (None: DEFAULT_MACOS). Raises ValidationError naming the field. For a card,
    `macos` is ignored and a wired limit is an error.

    A unified-memory PC whose GPU share can be set (Strix Halo: the BIOS carve-out or, on Linux, the amdgpu
    GTT size via ttm.pages_limit): `gpu_share_gib` is that share in GiB (None: the data's default, the safe
    smaller one), from MIN_GPU_SHARE_GIB to the PC's `max_gpu_share_gib`; on anything else it is an error."""
    if wired_limit_mb == 0 and not isinstance(wired_limit_mb, bool):
        wired_limit_mb = None
    if gpu_share_gib is not None:
        if wired_limit_mb is not None:
            raise ValidationError("wired_limit_mb", wired_limit_mb, "only Apple Silicon Macs have iogpu.wired_limit_mb")
        return dataclasses.replace(gpu, gpu_share_gib=gpu_share_gib)
    if gpu.kind is not GpuKind.APPLE:
        if wired_limit_mb is not None:
            raise ValidationError("wired_limit_mb", wired_limit_mb, "only Apple Silicon Macs have iogpu.wired_limit_mb")
        return gpu
    return dataclasses.replace(gpu, wired_limit_mb=wired_limit_mb, macos=DEFAULT_MACOS if macos is None else macos)


def usable_bytes_for(gpu: GpuSpec, wired_limit_mb: int | None = None, *, macos: int | None = None) -> int:
    """`gpu.usable_bytes`, with an Apple Mac's iogpu.wired_limit_mb and macOS version applied (see `configure`)."""
    return configure(gpu, wired_limit_mb=wired_limit_mb, macos=macos).usable_bytes


def _check_wired_limit(gpu: GpuSpec, value: object) -> None:
    if gpu.kind is not GpuKind.APPLE:
        raise ValidationError("wired_limit_mb", value, "only Apple Silicon Macs have iogpu.wired_limit_mb")
    ram_mib = int(gpu.marketed_memory_gb) * 1024
    allowed = f"a whole number of MiB from {MIN_WIRED_LIMIT_MB} to {ram_mib} (the {gpu.display_name}'s memory)"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError("wired_limit_mb", value, allowed)
    if not MIN_WIRED_LIMIT_MB <= value <= ram_mib:
        raise ValidationError("wired_limit_mb", value, allowed)


def _check_gpu_share(gpu: GpuSpec, value: object) -> None:
    if gpu.kind is not GpuKind.UNIFIED or gpu.max_gpu_share_gib is None:
        raise ValidationError("gpu_share_gib", value, "only unified-memory PCs with a settable GPU share (Strix Halo) "
                                                      "take one")
    allowed = f"GiB from {MIN_GPU_SHARE_GIB} to {_show_gb(gpu.max_gpu_share_gib)} (the {gpu.display_name}'s limit)"
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
        MIN_GPU_SHARE_GIB <= value <= gpu.max_gpu_share_gib
    ):
        raise ValidationError("gpu_share_gib", value, allowed)


def _check_macos(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_MACOS or LEGACY_MACOS < value < TAHOE_MACOS:
        allowed = f"a macOS major version: {MIN_MACOS} to {LEGACY_MACOS}, or {TAHOE_MACOS} and later"
        raise ValidationError("macos", value, allowed)


def custom_gpu(memory_gb: float) -> GpuSpec:
    """"My card: N GB": usable = N × 10^9 bytes, the number typed read as decimal GB."""
    if isinstance(memory_gb, bool) or not isinstance(memory_gb, int | float) or not (
        MIN_CUSTOM_GB <= memory_gb <= MAX_CUSTOM_GB
    ):
        raise ValidationError("gpu", memory_gb, f"a card's memory in GB, from {MIN_CUSTOM_GB} to {MAX_CUSTOM_GB}")
    shown = _show_gb(memory_gb)
    return GpuSpec(
        slug=f"{shown}gb",
        display_name=f"My card ({shown} GB)",
        marketed_memory_gb=int(memory_gb) if float(memory_gb).is_integer() else float(memory_gb),
        bandwidth_gb_s=None,
        source=f"the number typed: {shown} GB, read as {shown} × 10^9 bytes",
        kind=GpuKind.CUSTOM,
        table=False,
    )


def _show_gb(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


@functools.cache
def _load_all() -> Mapping[str, GpuSpec]:
    gpus: dict[str, GpuSpec] = {}
    for name, raw in read_folder("gpus"):
        if raw.get("kind") == GpuKind.APPLE.value:
            for spec in _apple_configurations(name, raw):
                gpus[spec.slug] = spec
        else:
            fields = {key: value for key, value in raw.items() if key not in _COMPUTE_KEYS and key != "kind"}
            fields.setdefault("source", "")  # the browser's copy leaves provenance out (tools/precompile.mjs)
            kind = GpuKind(raw.get("kind", GpuKind.DISCRETE.value))
            gpus[name] = GpuSpec(slug=name, kind=kind, **fields, **_compute(raw))
    return gpus


# data key -> (GpuSpec field, factor to base units)
_SCALED = {"fp16_tflops": ("fp16_flops", TERA), "fp16_acc16_tflops": ("fp16_acc16_flops", TERA),
           "fp32_tflops": ("fp32_flops", TERA),
           "fp8_tflops": ("fp8_flops", TERA), "int8_tops": ("int8_ops", TERA), "fp4_tflops": ("fp4_flops", TERA),
           "interconnect_gb_s": ("interconnect_bytes_per_s", GB)}
_COMPUTE_KEYS = frozenset(_SCALED) | {"interconnect", "compute_source", "gpu_cores", "gpu_clock_mhz"}


def _compute(*layers: Mapping[str, Any]) -> dict[str, Any]:  # layers: parsed JSON, later ones win
    """The compute fields of GpuSpec from the data's keys (TFLOPS, GB/s), in base units (FLOP/s, bytes/s)."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update((key, value) for key, value in layer.items() if key in _COMPUTE_KEYS)
    fields: dict[str, Any] = {field: None if merged.get(key) is None else float(merged[key]) * factor
                              for key, (field, factor) in _SCALED.items()}
    fields["interconnect"] = merged.get("interconnect")
    fields["compute_source"] = merged.get("compute_source")
    fields["gpu_cores"] = merged.get("gpu_cores")
    return fields


def _apple_configurations(name: str, raw: Mapping[str, Any]) -> list[GpuSpec]:  # raw: a parsed JSON file
    """One entry per memory size of the chip: slug "<file>-<N>gb", name "<chip> <N> GB"."""
    return [
        GpuSpec(
            slug=f"{name}-{config['memory_gb']}gb",
            display_name=f"{raw['display_name']} {config['memory_gb']} GB",
            marketed_memory_gb=config["memory_gb"],
            bandwidth_gb_s=config["bandwidth_gb_s"],
            source=str(raw.get("source", "")),  # the browser's copy leaves provenance out (tools/precompile.mjs)
            kind=GpuKind.APPLE,
            table=bool(config.get("table", False)),
            **_compute({key: value for key, value in raw.items() if key != "configurations"}, config,
                       {"fp32_tflops": config.get("fp16_tflops")} if raw.get("fp32_is_fp16") else {}),
        )
        for config in raw["configurations"]
    ]


def all_gpus() -> Mapping[str, GpuSpec]:
    """Every listed card and Mac configuration, in display order (the picker)."""
    return _load_all()


@functools.cache
def load_gpus() -> Mapping[str, GpuSpec]:
    """The listed discrete cards (NVIDIA, AMD) and unified-memory PCs (DGX Spark, Strix Halo): every entry but
    the Macs, in display order."""
    return {slug: spec for slug, spec in _load_all().items() if spec.kind in (GpuKind.DISCRETE, GpuKind.UNIFIED)}


@functools.cache
def load_apple() -> Mapping[str, GpuSpec]:
    """The listed Apple Silicon configurations, one per chip and memory size, in display order."""
    return {slug: spec for slug, spec in _load_all().items() if spec.kind is GpuKind.APPLE}


@functools.cache
def table_gpus() -> Mapping[str, GpuSpec]:
    """The entries marked `"table": true` in the data: what the fit table shows."""
    return {slug: spec for slug, spec in _load_all().items() if spec.table}


def gpu(slug: str) -> GpuSpec:
    """A listed entry by slug, or the custom card for "<N>gb" (also "my-<N>gb", "24 GB"; N from 1 to 1024)."""
    if not isinstance(slug, str):
        raise ValidationError("gpu", slug, _GPU_ALLOWED)
    gpus = _load_all()
    if slug in gpus:
        return gpus[slug]
    match = _CUSTOM_SLUG.fullmatch(slug.strip(" \t"))
    if match is None:
        return gpus[named(slug)]
    try:
        return custom_gpu(float(match.group(1)))
    except ValidationError:
        raise ValidationError("gpu", slug, _GPU_ALLOWED) from None


def named(text: str) -> str:
    """The slug of the one listed GPU or Mac that `text` names as people type it ("rtx4090",
    "4090", "RTX 4090", "GeForce RTX 4090", "m4 max 128"): its slug or name without punctuation and
    vendor words, else the one entry having every word typed. Several matches ("a100", "h100")
    or none raise a ValidationError on `gpu` that says which."""
    if not isinstance(text, str) or len(text) > 100:
        raise ValidationError("gpu", text, _GPU_ALLOWED)
    if text in _load_all():
        return text
    names = {slug: (slug, spec.display_name) for slug, spec in _load_all().items()}
    found = [slug for slug, both in names.items() if _squashed(text) in map(_squashed, both)]
    typed = _words(text)
    if not found and typed:
        found = [slug for slug, both in names.items() if any(typed <= _words(name) for name in both)]
    if len(found) == 1:
        return found[0]
    if found:
        raise ValidationError("gpu", text, "matches several GPUs (" + ", ".join(found[:8])
                              + (", ..." if len(found) > 8 else "") + "): name one")
    raise ValidationError("gpu", text, _GPU_ALLOWED)


_VENDOR_WORDS = ("nvidia", "geforce", "rtx", "amd", "instinct", "radeon", "apple")


def _squashed(name: str) -> str:
    """A name lowercased without punctuation or leading vendor words: "RTX 4090" -> "4090"."""
    squashed = re.sub(r"[^a-z0-9]", "", name.lower())
    while squashed.startswith(_VENDOR_WORDS):
        squashed = squashed[len(next(w for w in _VENDOR_WORDS if squashed.startswith(w))):]
    return squashed


def _words(name: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", name.lower())) - frozenset(_VENDOR_WORDS)


_GPU_ALLOWED = ("a listed GPU or Mac (e.g. rtx-4090, h100-80gb, apple-m4-max-128gb), "
                f"or a card's memory such as 24gb ({MIN_CUSTOM_GB} to {MAX_CUSTOM_GB} GB)")
