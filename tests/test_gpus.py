"""GPU and Mac data (data/gpus/, data/README.md "gpus"): every file loads and is sourced, the compute and
interconnect figures, the Apple working-set rule against every published measurement, the wired-limit override,
the unified-memory PCs' GPU share, and "my card: N GB"."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GB, GIB, MIB
from vramcalc.sources.gpus import (
    DEFAULT_MACOS,
    INTERCONNECTS,
    GpuKind,
    MemorySource,
    all_gpus,
    configure,
    custom_gpu,
    gpu,
    load_apple,
    load_gpus,
    metal_working_set,
    table_gpus,
    usable_bytes_for,
)

FOLDER = resources.files("vramcalc") / "data" / "gpus"
MB = 10**6  # llama.cpp since 2024 prints recommendedMaxWorkingSetSize as bytes / 1e6 "MB"

# (unified memory GB, macOS rule, measured recommendedMaxWorkingSetSize in bytes, machine, source).
# Every point is in data/README.md with its quote. "code index" = a public GitHub file found by exact-string
# search whose repository the index does not name; the quoted log line is given there.
LEGACY, TAHOE = 15, 26
PUBLISHED = [
    (8, LEGACY, 5726.63 * MB, "M1 8 GB", "h2oai/h2ogpt#1359"),
    (16, LEGACY, 10922.67 * MIB, "M1 16 GB", "abetlen/llama-cpp-python#687, ise-uiuc/magicoder#19"),
    (16, LEGACY, 11453.25 * MB, "M4 16 GB", "ggml-org/llama.cpp#11083"),
    (16, LEGACY, 10.67 * GIB, "M4 16 GB, macOS 15.6", "exo-explore/exo PR #1672"),
    (24, LEGACY, 17179.89 * MB, "M4 Pro 24 GB", "code index (MacBook Pro M4 24G guide)"),
    (32, LEGACY, 21845.34 * MIB, "M1 Max / M2 Max 32 GB", "ggml-org/llama.cpp PR #2011, ollama/ollama#434"),
    (36, LEGACY, 28991.03 * MB, "M4 Max 36 GB", "code index (llama.cpp install notes)"),
    (48, LEGACY, 38654.71 * MB, "M3 Max 48 GB, macOS 14", "code index (llama-server log)"),
    (64, LEGACY, 49152.00 * MIB, "M1 Max 64 GB", "ggml-org/llama.cpp#1870"),
    (64, LEGACY, 51539.61 * MB, "M2 Max or Ultra 64 GB", "code index (llama.cpp logs)"),
    (128, LEGACY, 103079.22 * MB, "M4 Max 128 GB", "ardanlabs/kronk#10"),
    (512, LEGACY, 498216.21 * MB, "M3 Ultra 512 GB", "code index (llama-bench log)"),
    (16, TAHOE, 11.84 * GIB, "M3 16 GB", "AlexsJones/llmfit PR #754"),
    (18, TAHOE, 14302.25 * MB, "M3 Pro 18 GB", "code index (test fixture)"),
    (24, TAHOE, 19069.67 * MB, "M4 24 GB, M5 24 GB", "code index (llama.cpp logs)"),
    (32, TAHOE, 26800.60 * MB, "M4 32 GB", "code index (ollama 0.17 log)"),
    (36, TAHOE, 30150.67 * MB, "M4 Max 36 GB, M3 Max 36 GB", "code index (llama.cpp notes, April 2026)"),
    (48, TAHOE, 40200.90 * MB, "M4 Pro 48 GB", "code index (llama-server --list-devices)"),
    (64, TAHOE, 55662.79 * MB, "M3 Max 64 GB, macOS 26.4.1", "code index (benchmark notes)"),
    (128, TAHOE, 107.52 * GIB, "M5 Max 128 GB, macOS 26", "antirez/ds4 PR #893, osaurus-ai/osaurus PR #1958"),
    (192, TAHOE, 165150 * MIB, "M2 Ultra 192 GB", "ggml-org/llama.cpp PR #18919 (memory breakdown total)"),
]


def order() -> list[str]:
    return json.loads((FOLDER / "order.json").read_text(encoding="utf-8"))


def data_files() -> set[str]:
    names = (p.name for p in FOLDER.iterdir())
    return {n.removesuffix(".json") for n in names if n.endswith(".json") and n != "order.json"}


# ---------------------------------------------------------------- the data files


def test_order_lists_every_file_exactly_once():
    listed = order()
    assert len(listed) == len(set(listed))
    assert set(listed) == data_files()


@pytest.mark.parametrize("name", sorted(data_files()))
def test_every_file_loads_and_is_sourced(name):
    raw = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    assert raw["source"].strip()
    if raw.get("kind") == "apple":
        slugs = [f"{name}-{config['memory_gb']}gb" for config in raw["configurations"]]
    else:
        slugs = [name]
    for slug in slugs:
        spec = all_gpus()[slug]
        assert spec.source == raw["source"]
        assert spec.display_name and spec.bandwidth_gb_s > 0 and spec.usable_bytes > 0


def test_discrete_cards_memory_figures():
    for spec in load_gpus().values():
        assert spec.kind in (GpuKind.DISCRETE, GpuKind.UNIFIED)
        # nvidia-smi's total is near the marketed GB (at most 8 % below), and PyTorch's total below nvidia-smi's
        if spec.nvidia_smi_total_mib is not None:
            marketed = spec.marketed_memory_gb * GB
            assert 0.92 * marketed < spec.nvidia_smi_total_mib * MIB <= 1.1 * marketed
        if spec.torch_total_gib is not None and spec.nvidia_smi_total_mib is not None:
            assert spec.torch_total_gib * GIB < spec.nvidia_smi_total_mib * MIB


def test_the_listed_consumer_cards_are_there():
    for slug in ("rtx-3060", "rtx-4060-ti-8gb", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4070-ti-super", "rtx-4080-super",
                 "rtx-5060-ti-16gb", "rtx-5070-ti", "rtx-5080", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-a6000",
                 "rtx-pro-6000"):
        assert slug in load_gpus()


def test_load_gpus_is_the_cards_and_pcs_and_all_gpus_adds_the_macs():
    assert set(load_gpus()) | set(load_apple()) == set(all_gpus())
    assert not set(load_gpus()) & set(load_apple())
    assert all(spec.kind is GpuKind.APPLE for spec in load_apple().values())
    assert list(all_gpus()) == [s for s in all_gpus() if s in load_gpus() or s in load_apple()]


def test_apple_configurations():
    sizes = {slug: spec.unified_memory_gb for slug, spec in load_apple().items()}
    assert sizes["apple-m1-16gb"] == 16 and sizes["apple-m2-pro-32gb"] == 32 and sizes["apple-m2-ultra-192gb"] == 192
    for chip, expected in (("apple-m3-max", {36, 48, 64, 96, 128}), ("apple-m4-max", {36, 48, 64, 128}),
                           ("apple-m2-ultra", {64, 128, 192}), ("apple-m3-ultra", {96, 256, 512}),
                           ("apple-m4-pro", {24, 48, 64}), ("apple-m4", {16, 24, 32})):
        found = {size for slug, size in sizes.items() if slug.removeprefix(chip + "-").removesuffix("gb").isdigit()}
        assert found == expected, chip
    assert gpu("apple-m4-max-128gb").display_name == "Apple M4 Max 128 GB"
    assert gpu("apple-m4-max-36gb").bandwidth_gb_s == 410 and gpu("apple-m4-max-48gb").bandwidth_gb_s == 546


def test_table_is_a_sensible_subset():
    table = table_gpus()
    assert 10 <= len(table) <= 24
    assert set(table) <= set(all_gpus())
    assert "h100-80gb" in table and "rtx-4090" in table and "apple-m4-max-128gb" in table
    assert "rtx-5080" not in table and "apple-m1-8gb" not in table


# ---------------------------------------------------------------- compute and interconnect

TERA = 10**12
NEW_CARDS = ("rtx-3070", "rtx-3080", "rtx-4070-ti", "rtx-4080", "rtx-4000-ada", "rtx-5000-ada", "a40", "a100-80gb-pcie",
             "h100-pcie", "dgx-spark", "strix-halo")


def test_every_card_has_fp16_and_a_compute_source():
    for slug, spec in load_gpus().items():
        assert spec.fp16_flops is not None and spec.fp16_flops > 0, slug
        assert spec.compute_source and spec.compute_source.strip(), slug


def test_compute_keys_are_in_every_card_file():
    for name in order():
        raw = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
        if raw.get("kind") == "apple":
            continue
        for key in ("fp16_tflops", "fp8_tflops", "int8_tops", "fp4_tflops", "interconnect", "interconnect_gb_s",
                    "compute_source"):
            assert key in raw, (name, key)  # null where the card has no such path


def test_precisions_are_ordered_and_dense():
    for slug, spec in load_gpus().items():
        if spec.fp8_flops is not None:
            assert spec.fp8_flops >= spec.fp16_flops, slug
        if spec.fp4_flops is not None:
            assert spec.fp8_flops is not None and spec.fp4_flops >= spec.fp8_flops, slug
        if spec.fp16_acc16_flops is not None:  # GeForce: FP32 accumulate runs at half the FP16-accumulate rate
            assert spec.fp16_acc16_flops == pytest.approx(2 * spec.fp16_flops, rel=0.01), slug
        # dense, not sparse: no single GPU here reaches 2.5 PFLOPS of dense 16-bit (B200 is 2.25)
        assert spec.fp16_flops <= 2.5e15, slug


def test_accumulate_rates_follow_the_brief():
    # GeForce: FP32 accumulate at half rate (RTX 4090 165.2 vs 330.3; RTX 3090 71 vs 142)
    assert gpu("rtx-4090").fp16_flops == pytest.approx(165.2 * TERA)
    assert gpu("rtx-4090").fp16_acc16_flops == pytest.approx(330.3 * TERA)
    assert gpu("rtx-3090").fp16_flops == pytest.approx(71 * TERA)
    assert gpu("rtx-3090").fp16_acc16_flops == pytest.approx(142 * TERA)
    # datacenter and pro cards: one rate (no separate FP16-accumulate figure)
    for slug in ("a100-80gb", "h100-80gb", "l40s", "rtx-6000-ada", "rtx-a6000", "rtx-pro-6000"):
        assert gpu(slug).fp16_acc16_flops is None, slug
    assert gpu("h100-80gb").fp16_flops == pytest.approx(989.5 * TERA)
    assert gpu("a100-80gb").fp16_flops == pytest.approx(312 * TERA) and gpu("a100-80gb").fp8_flops is None
    # FP4 only on Blackwell
    assert gpu("b200").fp4_flops and gpu("rtx-5090").fp4_flops and gpu("dgx-spark").fp4_flops
    assert gpu("h100-80gb").fp4_flops is None and gpu("rtx-4090").fp4_flops is None


def test_units_are_base_units():
    spec = gpu("h100-80gb")
    assert spec.interconnect == "sxm-nvlink"
    assert spec.interconnect_bytes_per_s == 450 * 10**9  # NVLink 4: 900 GB/s total, 450 per direction
    assert gpu("a100-80gb").interconnect_bytes_per_s == 300 * 10**9
    assert gpu("rtx-4090").interconnect_bytes_per_s == 32 * 10**9  # PCIe 4.0 x16
    assert gpu("rtx-5090").interconnect_bytes_per_s == 64 * 10**9  # PCIe 5.0 x16
    assert gpu("mi300x").interconnect == "infinity-fabric"
    assert gpu("strix-halo").interconnect is None and gpu("strix-halo").interconnect_bytes_per_s is None
    for spec in all_gpus().values():
        for value in (spec.fp16_flops, spec.fp8_flops, spec.int8_ops, spec.fp4_flops):
            assert value is None or (isinstance(value, float) and value > 1e12), spec.slug  # FLOP/s, not TFLOPS
        assert spec.interconnect in (None, *INTERCONNECTS), spec.slug
        assert spec.interconnect_bytes_per_s is None or spec.interconnect_bytes_per_s >= 10**10, spec.slug


def test_bad_interconnect_is_rejected():
    with pytest.raises(ValidationError) as caught:
        dataclasses.replace(gpu("rtx-4090"), interconnect="infiniband")
    assert caught.value.field == "interconnect"
    with pytest.raises(ValidationError):
        dataclasses.replace(gpu("rtx-4090"), interconnect_bytes_per_s=None)


def test_custom_card_has_no_compute():
    spec = gpu("24gb")
    assert (spec.fp16_flops, spec.fp8_flops, spec.int8_ops, spec.fp4_flops, spec.interconnect,
            spec.interconnect_bytes_per_s, spec.gpu_cores, spec.compute_source) == (None,) * 8


@pytest.mark.parametrize("slug", NEW_CARDS)
def test_new_cards_load(slug):
    spec = gpu(slug)
    assert spec.slug in load_gpus() and spec.usable_bytes > 0 and spec.bandwidth_gb_s > 0
    assert spec.fp16_flops and spec.compute_source


def test_new_cards_figures():
    assert gpu("a100-80gb-pcie").bandwidth_gb_s == 1935 and gpu("a100-80gb").bandwidth_gb_s == 2039
    assert gpu("h100-pcie").bandwidth_gb_s == 2000 and gpu("h100-pcie").interconnect == "pcie"
    assert gpu("rtx-3070").usable_bytes == 8192 * MIB and gpu("rtx-3080").usable_bytes == 10240 * MIB
    assert gpu("dgx-spark").bandwidth_gb_s == 273 and gpu("strix-halo").bandwidth_gb_s == 256
    assert not gpu("rtx-3070").table and not gpu("a40").table


# ---------------------------------------------------------------- unified-memory PCs


def test_unified_pcs_default_to_the_smaller_share():
    spark = gpu("dgx-spark")
    assert spark.kind is GpuKind.UNIFIED and spark.usable_source is MemorySource.TORCH
    assert spark.usable_bytes == round(119.61 * GIB)  # the smallest CUDA total reported (121.69 on newer kernels)
    halo = gpu("strix-halo")
    assert halo.kind is GpuKind.UNIFIED and halo.usable_source is MemorySource.GPU_SHARE
    assert halo.usable_bytes == 96 * GIB  # the BIOS / Windows carve-out, not the Linux GTT maximum
    assert "default" in halo.usable_basis
    assert halo.max_gpu_share_gib is not None and halo.usable_bytes < halo.max_gpu_share_gib * GIB <= 128 * GIB


def test_gpu_share_override():
    halo = gpu("strix-halo")
    linux = configure(halo, gpu_share_gib=120)  # ttm.pages_limit=31457280 -> "122880M of GTT memory ready"
    assert linux.usable_bytes == 120 * GIB and linux.usable_source is MemorySource.GPU_SHARE
    assert "as set" in linux.usable_basis and linux.slug == halo.slug
    assert configure(halo).usable_bytes == 96 * GIB


@pytest.mark.parametrize("value", [0, 0.5, 125, 200, -1, "96", True])
def test_gpu_share_out_of_range_names_the_field(value):
    with pytest.raises(ValidationError) as caught:
        configure(gpu("strix-halo"), gpu_share_gib=value)
    assert caught.value.field == "gpu_share_gib"


@pytest.mark.parametrize("slug", ["rtx-4090", "dgx-spark", "apple-m4-max-128gb"])
def test_gpu_share_is_for_settable_pcs_only(slug):
    with pytest.raises(ValidationError) as caught:
        configure(gpu(slug), gpu_share_gib=64)
    assert caught.value.field == "gpu_share_gib"


# ---------------------------------------------------------------- Apple compute


# Apple tech specs: the GPU bin each memory size ships with (the smaller bin where two share a size)
APPLE_CORES = {
    "apple-m3-max": {36: 30, 48: 40, 64: 40, 96: 30, 128: 40},
    "apple-m4-max": {36: 32, 48: 40, 64: 40, 128: 40},
    "apple-m2-max": {32: 30, 64: 30, 96: 38},
    "apple-m3-ultra": {96: 60, 256: 60, 512: 80},
    "apple-m5": {16: 10, 24: 10, 32: 10},
}


@pytest.mark.parametrize("chip", sorted(APPLE_CORES))
def test_apple_bins_follow_the_tech_specs(chip):
    for memory_gb, cores in APPLE_CORES[chip].items():
        assert gpu(f"{chip}-{memory_gb}gb").gpu_cores == cores, (chip, memory_gb)


def test_apple_bins_match_the_bandwidth_bins():
    # the M3 Max and M4 Max bins are also the bandwidth bins (data/README.md)
    for slug, spec in load_apple().items():
        if slug.startswith("apple-m3-max-"):
            assert (spec.gpu_cores, spec.bandwidth_gb_s) in ((30, 300), (40, 400)), slug
        if slug.startswith("apple-m4-max-"):
            assert (spec.gpu_cores, spec.bandwidth_gb_s) in ((32, 410), (40, 546)), slug


def test_apple_fp16_is_cores_times_alus_times_clock():
    for name in order():
        raw = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
        if raw.get("kind") != "apple":
            continue
        assert raw["compute_source"].strip()
        for config in raw["configurations"]:
            spec = all_gpus()[f"{name}-{config['memory_gb']}gb"]
            assert spec.gpu_cores and spec.compute_source == raw["compute_source"]
            if name.startswith("apple-m5"):  # neural accelerators: no published figure
                assert spec.fp16_flops is None
                continue
            expected = spec.gpu_cores * 128 * 2 * raw["gpu_clock_mhz"] * 10**6
            assert spec.fp16_flops == pytest.approx(expected, abs=0.005 * TERA), spec.slug  # 2 decimals in the data
    # Apple's own figure: M2 Max 38-core 13.6 TFLOPS (the 96 GB Mac has only the 38-core GPU)
    assert gpu("apple-m2-max-96gb").fp16_flops == pytest.approx(13.6 * TERA, rel=0.01)


# ---------------------------------------------------------------- the Apple rule


@pytest.mark.parametrize(("memory_gb", "macos", "measured", "machine", "source"), PUBLISHED,
                         ids=[f"{p[3]} macOS{p[1]}" for p in PUBLISHED])
def test_rule_matches_each_published_point(memory_gb, macos, measured, machine, source):
    predicted, _ = metal_working_set(memory_gb, macos)
    assert abs(predicted - measured) / measured < 0.02, (machine, source, predicted, measured)


def test_rule_in_words_and_the_default_is_the_older_smaller_rule():
    assert DEFAULT_MACOS == LEGACY
    m64 = gpu("apple-m1-max-64gb")
    assert m64.usable_source is MemorySource.METAL
    assert m64.usable_basis == "Metal recommendedMaxWorkingSetSize, about 3/4 of 64 GB (macOS 15 and earlier)"
    assert m64.usable_bytes == 48 * GIB
    # "64 GB machines fail above ~47-49 GB" (ggml-org/llama.cpp#1870)
    assert 47 * GIB <= m64.usable_bytes <= 49 * GIB
    assert gpu("apple-m1-16gb").usable_bytes == 16 * GIB * 2 // 3
    for spec in load_apple().values():
        assert spec.usable_bytes <= usable_bytes_for(spec, macos=TAHOE) or spec.unified_memory_gb > 192
        assert 0.6 * spec.unified_memory_gb * GIB < spec.usable_bytes < spec.unified_memory_gb * GIB


def test_macos_26_rule():
    assert usable_bytes_for(gpu("apple-m3-16gb"), macos=26) == 16 * GIB * 74 // 100
    assert metal_working_set(128, 27)[1] == "84 % of 128 GB (macOS 26)"
    for bad in (10, 16, 25, "26", True, 26.0):
        with pytest.raises(ValidationError) as caught:
            usable_bytes_for(gpu("apple-m3-16gb"), macos=bad)
        assert caught.value.field == "macos"


# ---------------------------------------------------------------- the iogpu.wired_limit_mb override


def test_wired_limit_override():
    mac = gpu("apple-m4-max-128gb")
    # antirez/ds4 PR #893: iogpu.wired_limit_mb = 114688 -> recommendedMaxWorkingSetSize 112.00 GiB
    assert usable_bytes_for(mac, 114688) == 112 * GIB
    # AlexsJones/llmfit PR #754: on an M3 16 GB, 12000 and 14000 MiB made Metal report exactly those
    assert usable_bytes_for(gpu("apple-m3-16gb"), 12000) == 12000 * MIB
    assert usable_bytes_for(gpu("apple-m3-16gb"), 14000) == 14000 * MIB
    configured = configure(mac, wired_limit_mb=114688)
    assert configured.usable_source is MemorySource.WIRED_LIMIT and configured.slug == mac.slug
    assert "114688" in configured.usable_basis
    # the override wins over the macOS rule; 0 (the sysctl's stock value) and None mean the default
    assert usable_bytes_for(mac, 114688, macos=26) == 112 * GIB
    assert usable_bytes_for(mac, 0) == usable_bytes_for(mac, None) == mac.usable_bytes
    assert usable_bytes_for(mac, 128 * 1024) == 128 * GIB


@pytest.mark.parametrize("value", [128 * 1024 + 1, 1_000_000, 1023, 512, -1, 2.5, "4096", True])
def test_wired_limit_out_of_range_names_the_field(value):
    with pytest.raises(ValidationError) as caught:
        usable_bytes_for(gpu("apple-m4-max-128gb"), value)
    assert caught.value.field == "wired_limit_mb" and caught.value.value == value


def test_wired_limit_is_for_macs_only():
    with pytest.raises(ValidationError) as caught:
        usable_bytes_for(gpu("rtx-4090"), 20000)
    assert caught.value.field == "wired_limit_mb"
    assert usable_bytes_for(gpu("rtx-4090"), None, macos=26) == gpu("rtx-4090").usable_bytes


# ---------------------------------------------------------------- "my card: N GB"


@pytest.mark.parametrize(("text", "slug", "name", "usable"), [
    ("24gb", "24gb", "My card (24 GB)", 24 * GB),
    ("my-24gb", "24gb", "My card (24 GB)", 24 * GB),
    ("24 GB", "24gb", "My card (24 GB)", 24 * GB),
    ("10.5gb", "10.5gb", "My card (10.5 GB)", 10_500_000_000),
    ("1gb", "1gb", "My card (1 GB)", GB),
    ("1024gb", "1024gb", "My card (1024 GB)", 1024 * GB),
])
def test_custom_card(text, slug, name, usable):
    spec = gpu(text)
    assert (spec.slug, spec.display_name, spec.usable_bytes) == (slug, name, usable)
    assert spec.kind is GpuKind.CUSTOM and spec.usable_source is MemorySource.TYPED and not spec.table
    assert "typed" in spec.source and "GB" in spec.source
    assert gpu(spec.slug) == spec
    assert slug not in all_gpus()


@pytest.mark.parametrize("text", ["0gb", "0.5gb", "-8gb", "1025gb", "99999gb", "1e3gb", "gb", "abcgb", "24", "24gib",
                                  "nope", "", "NaNgb", "infgb"])
def test_bad_custom_card_names_the_field(text):
    with pytest.raises(ValidationError) as caught:
        gpu(text)
    assert caught.value.field == "gpu" and caught.value.value == text


@pytest.mark.parametrize("value", [0, -1, 2000, float("nan"), float("inf"), "24", None, True])
def test_custom_gpu_rejects_bad_numbers(value):
    with pytest.raises(ValidationError) as caught:
        custom_gpu(value)
    assert caught.value.field == "gpu"


def test_unknown_slug_names_the_field():
    for value in ("h100", 24, None):
        with pytest.raises(ValidationError) as caught:
            gpu(value)
        assert caught.value.field == "gpu"


# ---------------------------------------------------------------- the Tesla T4 (issue 24)


def test_tesla_t4():
    """The free Colab and Kaggle card: PyTorch's smallest published total (Unsloth's notebooks print 14.563, 14.741
    and 14.748 GiB), the T4 datasheet's rates, Turing's lack of bf16 and FP8."""
    t4 = gpu("tesla-t4")
    assert t4.usable_source is MemorySource.TORCH and t4.usable_bytes == round(14.563 * GIB)
    assert t4.nvidia_smi_total_mib == 15109 and t4.bandwidth_gb_s == 320 and t4.table
    assert (t4.fp16_flops, t4.int8_ops, t4.fp32_flops) == (65 * TERA, 130 * TERA, pytest.approx(8.1 * TERA))
    assert t4.fp8_flops is None and t4.fp4_flops is None and t4.fp16_acc16_flops is None
    assert t4.interconnect == "pcie" and t4.interconnect_bytes_per_s == 16 * GB  # PCIe 3.0 x16
    assert not t4.bf16 and all(spec.bf16 for slug, spec in all_gpus().items() if slug != "tesla-t4")
