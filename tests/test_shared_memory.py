"""A Mac or a unified-memory PC (DGX Spark, Strix Halo) has one memory for the GPU and the CPU: what llama.cpp keeps
in system RAM (layers off the GPU, experts under --n-cpu-moe) comes out of the same memory as the GPU's part. Before,
only the GPU's part was compared with Metal's working set, so gpt-oss-120b with 30 layers' experts in "system RAM"
was said to fit a 24 GB Mac: 13.2 GiB on the GPU and 48.0 GiB beside it, 61.2 GiB of 24."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import breakdown_notes, estimate
from vramcalc.analysis.fit import fit_all, room_on
from vramcalc.analysis.ranks import most_loaded
from vramcalc.analysis.solve import fits, max_seq
from vramcalc.analysis.speed_answers import min_n_cpu_moe, speed_answers
from vramcalc.core.units import GIB
from vramcalc.inputs.parse import parse_target
from vramcalc.render.messages import ENGLISH
from vramcalc.render.view import present_target
from vramcalc.sources.gpus import configure, gpu
from vramcalc.workload import Machine

OSS = {"model": "gpt-oss-120b", "runtime": "llamacpp", "seq": "32768", "n_cpu_moe": "30"}


def _values(card: str, **extra: str) -> dict[str, str]:
    return {**OSS, "gpu": card, **extra}


def test_system_ram_on_a_mac_comes_out_of_its_one_memory():
    values = _values("apple-m4-24gb")
    workload, target = parse_workload(values), parse_target(values)
    rank = most_loaded(workload, 1)
    assert rank.total_bytes < target.gpu.usable_bytes  # the GPU's part alone is within Metal's working set
    assert rank.total_bytes + rank.ram_bytes > 24 * GIB  # but not with what is in system RAM
    assert not fits(workload, target)
    verdict = present_target(workload, target).verdict
    assert verdict.kind == "does not fit" and "24.00 GiB of unified memory" in verdict.text
    row = next(fit for fit in fit_all(estimate(workload)) if fit.gpu.slug == "apple-m4-24gb")
    assert row.verdict.value == "does not fit" and row.count is None
    assert row.utilization == pytest.approx((rank.total_bytes + rank.ram_bytes) / (24 * GIB))


def test_the_same_setup_fits_a_card_with_memory_of_its_own():
    values = _values("rtx-4090")
    assert fits(parse_workload(values), parse_target(values))
    assert room_on(gpu("rtx-4090"), 48 * GIB) == gpu("rtx-4090").usable_bytes


def test_the_longest_context_on_a_big_mac_stops_at_its_whole_memory():
    """M4 Max 128 GB: 96 GiB of working set, 48 GiB in system RAM. The longest context is where the GPU's part
    reaches the 80 GiB the RAM leaves, not the 96 of the working set."""
    values = _values("apple-m4-max-128gb")
    workload, target = parse_workload(values), parse_target(values)
    longest = max_seq(workload, target)
    assert longest is not None
    at, past = most_loaded(workload.but(seq=longest), 1), most_loaded(workload.but(seq=longest + 1), 1)
    assert at.total_bytes + at.ram_bytes <= 128 * GIB < past.total_bytes + past.ram_bytes
    assert past.total_bytes < target.gpu.usable_bytes  # the working set would have allowed more


def test_llamacpps_own_fit_is_not_offered_when_the_mac_cannot_hold_the_rest():
    values = {**OSS, "gpu": "apple-m4-24gb", "n_cpu_moe": "0"}
    answers = speed_answers(parse_workload(values), parse_target(values), Machine())
    assert answers.llamacpp_fit is not None and answers.llamacpp_fit_tokens_per_s is None
    assert answers.min_n_cpu_moe is None


def test_a_mac_copies_weights_in_system_ram_within_its_memory_not_over_pcie():
    """llama.cpp multiplies the weights it keeps in system RAM on the GPU for micro-batches of 32 tokens or more
    (op offload, ggml-metal.cpp's offload_op as CUDA's): a card copies them over PCIe, a Mac within its one
    memory, reading and writing each byte."""
    from vramcalc.speed import speed_of
    from vramcalc.speed.hardware import device, host_copy_bandwidth, pcie_bandwidth

    mac, card = gpu("apple-m4-max-128gb"), gpu("rtx-4090")
    assert host_copy_bandwidth(device(mac, Machine())) == mac.bandwidth_gb_s * 1e9 / 2
    assert host_copy_bandwidth(device(card, Machine())) == pcie_bandwidth()
    values = _values("apple-m4-max-128gb", prompt_tokens="4096", output_tokens="16")
    basis = speed_of(estimate(parse_workload(values)), mac, 1, Machine()).basis
    said = next(part for part in basis if part.key.startswith("speed.basis.prefill_host"))
    assert said.key == "speed.basis.prefill_host_unified" and dict(said.values)["pcie"] == "273"


def test_a_strix_halo_carve_out_is_the_gpus_whether_used_or_not():
    """Strix Halo's default share, 96 GiB, is a BIOS carve-out: the OS and what llama.cpp keeps in system RAM have
    the other 32 GiB, however little the GPU holds. 30 layers' experts (48 GiB) in RAM do not fit there, though the
    GPU's part and RAM's sum to 65 of 128 GiB; a larger share is Linux's GTT pool, shared as used."""
    strix = gpu("strix-halo")
    assert strix.carved_out and room_on(strix, 32 * GIB) == strix.usable_bytes and room_on(strix, 33 * GIB) < 0
    gtt = configure(strix, gpu_share_gib=120)
    assert not gtt.carved_out and room_on(gtt, 20 * GIB) == 108 * GIB
    values = _values("strix-halo")
    workload, target = parse_workload(values), parse_target(values)
    assert not fits(workload, target)
    verdict = present_target(workload, target).verdict
    assert verdict.kind == "does not fit" and "32.00 GiB its GPU's 96.00 GiB carve-out" in verdict.text
    assert fits(*(lambda v: (parse_workload(v), parse_target(v)))(_values("strix-halo", n_cpu_moe="0")))


def test_the_fewest_experts_in_ram_under_a_carve_out():
    """GLM-4.5-Air in q8_0 fills more than Strix Halo's 96 GiB carve-out: some layers' experts must go to RAM,
    but no more than the 32 GiB it leaves. The fits lie in a window of --n-cpu-moe, not from some N on."""
    values = {"model": "glm-4.5-air", "runtime": "llamacpp", "seq": "8192", "gpu": "strix-halo", "precision": "q8_0"}
    workload, target = parse_workload(values), parse_target(values)
    least = min_n_cpu_moe(workload, target)
    assert least is not None and fits(workload.but(n_cpu_moe=least), target)
    assert not fits(workload.but(n_cpu_moe=least - 1), target)
    assert not fits(workload.but(n_cpu_moe=workload.model.layers), target)  # all experts in RAM: over 32 GiB


def test_a_dgx_spark_shares_its_cuda_total_not_its_128_gb():
    """CUDA's total on the DGX Spark, 119.61 GiB, is all its OS has (128 GB less the kernel's): what llama.cpp
    keeps in system RAM comes out of it, not out of the 8.4 GiB beyond it."""
    spark = gpu("dgx-spark")
    assert spark.shared_memory_bytes == spark.usable_bytes == round(119.61 * GIB)
    values = {"model": "glm-4.5-air", "runtime": "llamacpp", "seq": "8192", "n_cpu_moe": "8", "gpu": "dgx-spark",
              "precision": "q4_k_m"}
    workload, target = parse_workload(values), parse_target(values)
    longest = max_seq(workload, target)
    assert longest is not None
    at = most_loaded(workload.but(seq=longest), 1)
    assert at.ram_bytes > 0 and at.total_bytes + at.ram_bytes <= spark.usable_bytes


def test_zero_offload_on_two_sparks_keeps_each_ranks_states_on_its_own_machine():
    """Each DGX Spark is a machine of one GPU: its memory holds its own rank's offloaded optimizer states, not
    both ranks' as eight GPUs of one node would share a host (Qwen3 14B: 33.4 GiB on the GPU, 68.8 GiB of states)."""
    values = {"mode": "training", "model": "qwen3-14b", "offload": "optimizer", "gpu": "dgx-spark", "gpus": "2",
              "seq": "2048", "batch": "1", "checkpointing": "layer"}
    workload, target = parse_workload(values), parse_target(values)
    rank = most_loaded(workload, 2)
    assert rank.total_bytes + rank.host_bytes < target.gpu.usable_bytes < rank.total_bytes + 2 * rank.host_bytes
    assert fits(workload, target)


def test_the_fewest_sparks_hold_each_ranks_offloaded_states_too():
    """ZeRO-3 with the optimizer offloaded over DGX Sparks: each Spark's one memory holds its rank's GPU part and
    its offloaded states. The fewest Sparks counted the GPU part alone: Qwen3 32B said 1 while 2 and 3 did not fit."""
    from vramcalc.analysis.solve import min_gpus

    values = {"mode": "training", "model": "qwen3-32b", "offload": "optimizer", "zero": "3", "gpu": "dgx-spark",
              "gpus": "2", "seq": "2048", "checkpointing": "layer"}
    workload, target = parse_workload(values), parse_target(values)
    fewest = min_gpus(workload, target)
    assert fewest is not None and fewest > 1
    at = {**values, "gpus": str(fewest)}
    assert fits(parse_workload(at), parse_target(at))
    below = {**values, "gpus": str(fewest - 1)}
    assert fewest - 1 < 2 or not fits(parse_workload(below), parse_target(below))


def test_llamacpp_on_a_mac_holds_ollamas_metal_figure_and_says_metal():
    """Ollama budgets 512 MiB a GPU on Metal and 457 MiB on CUDA and ROCm (llm/memory.go, engines.md): a Mac's
    overhead row said "CUDA or ROCm" and held the CUDA figure."""
    mac, card = (estimate(parse_workload(_values(slug))) for slug in ("apple-m4-max-128gb", "rtx-4090"))
    rows = {name: next(c for c in result.components if c.key == "overhead") for name, result in
            (("mac", mac), ("card", card))}
    assert (rows["mac"].bytes, rows["card"].bytes) == (512 * 2**20, 457 * 2**20)
    assert "Metal" in ENGLISH.say(rows["mac"].explain()) and "CUDA" in ENGLISH.say(rows["card"].explain())
    given = estimate(parse_workload(_values("apple-m4-max-128gb", overhead_gib="1")))
    assert "default: 0.50 GiB" in ENGLISH.say(next(c for c in given.components if c.key == "overhead").explain())


def test_the_overhead_fields_help_gives_both_llamacpp_defaults():
    """The field's help named only the CUDA figure; on a Mac the default is Metal's."""
    from vramcalc.engines.llamacpp import LLAMACPP_CUDA_OVERHEAD, LLAMACPP_METAL_OVERHEAD
    from vramcalc.render.i18n.en import EN
    from vramcalc.render.i18n.pt import PT

    for text in (EN["field.overhead_gib.help"], PT["field.overhead_gib.help"]):
        assert f"{LLAMACPP_CUDA_OVERHEAD // 2**20} MiB" in text and f"{LLAMACPP_METAL_OVERHEAD // 2**20} MiB" in text


def test_several_macs_under_llamacpp_say_they_are_machines_over_rpc():
    """`--gpus 2` with a Mac was answered as two GPUs of one machine; llama.cpp spans Macs only over its RPC
    backend, and the speed leaves out the network between them."""
    def keys(values: dict[str, str]) -> set[str]:
        return {note.key for note in breakdown_notes(parse_workload(values)) if hasattr(note, "key")}

    two = {**OSS, "gpu": "apple-m4-max-128gb", "gpus": "2"}
    assert "note.llamacpp_rpc" in keys(two)
    assert "note.llamacpp_rpc" not in keys({**two, "gpus": "1"}) | keys({**two, "gpu": "rtx-4090"})
    assert "note.llamacpp_rpc" not in keys({**two, "runtime": "ollama", "n_cpu_moe": "0"})  # Ollama: no RPC backend
