"""Formats a card cannot run on an engine (engines/cards.py): refused naming the field, or counted as the engine
falls back to them; and the reverse answers and the table of cards never propose them. Sources: docs/accuracy.md,
"Formats a card cannot run"."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import breakdown_notes, estimate
from vramcalc.analysis.fit import Verdict, fit_all
from vramcalc.analysis.solve import best_format, best_kv_format
from vramcalc.core.errors import ValidationError
from vramcalc.engines import engine_for
from vramcalc.inputs.parse import parse_target
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.gpus import GpuKind, gpu, load_gpus


def _weights(workload):
    return estimate(workload).bytes_of("weights")


def _notes(workload):
    return " ".join(ENGLISH.say(note) for note in breakdown_notes(workload))


def _rules_off(monkeypatch, runtime):
    monkeypatch.setattr(type(engine_for(parse_workload({"runtime": runtime}).runtime)), "card_rules", ())


def test_every_card_names_its_architecture():
    for slug, card in load_gpus().items():
        assert (card.compute_capability is None) != (card.gfx is None), slug
    assert gpu("tesla-t4").capability == (7, 5)
    assert gpu("mi300x").capability == (9, 4)  # as torch on ROCm, and vLLM's _capability_from_gcn_arch
    assert gpu("mi210").capability == (9, 0)
    assert gpu("rx-7900-xtx").capability == (11, 0)
    assert gpu("24gb").capability is None


def test_vllm_refuses_an_fp8_cache_before_ampere():
    with pytest.raises(ValidationError) as error:
        parse_workload({"runtime": "vllm", "gpu": "tesla-t4", "kv_precision": "fp8"})
    assert error.value.field == "kv_precision" and "8.0" in str(error.value)
    for card in ("a10g", "l4", "rx-7900-xtx", "24gb"):
        parse_workload({"runtime": "vllm", "gpu": card, "kv_precision": "fp8"})


def test_vllm_runs_fp8_awq_gptq_and_nvfp4_weights_on_a_t4():
    """Marlin's weight-only kernels from compute capability 7.5: the bytes are those on any card."""
    for precision in ("fp8", "fp8-block", "awq-int4", "gptq-int4", "nvfp4"):
        on_t4 = parse_workload({"runtime": "vllm", "gpu": "tesla-t4", "precision": precision})
        on_l4 = parse_workload({"runtime": "vllm", "gpu": "l4", "precision": precision})
        assert on_t4.asked_precision is None and _weights(on_t4) == _weights(on_l4), precision


def test_the_refusal_names_the_format_left_at_auto():
    """gpt-oss with precision left at auto runs its checkpoint as published: the message says MXFP4, not the
    word "native" the user never typed."""
    with pytest.raises(ValidationError) as error:
        parse_workload({"runtime": "vllm", "gpu": "tesla-t4", "model": "gpt-oss-20b"})
    assert "got 'native'" not in str(error.value) and "mxfp4 (the checkpoint as published)" in str(error.value)


def test_vllm_refuses_mxfp4_before_ampere():
    for values in ({"model": "gpt-oss-20b"}, {"precision": "mxfp4"}):
        with pytest.raises(ValidationError) as error:
            parse_workload({"runtime": "vllm", "gpu": "tesla-t4", **values})
        assert error.value.field == "precision" and "Mxfp4Config" in str(error.value)
        parse_workload({"runtime": "vllm", "gpu": "a10g", **values})


@pytest.mark.parametrize("card", ["tesla-t4", "a100-80gb", "rtx-3090"])
def test_transformers_dequantises_fp8_before_ada(card):
    bf16 = parse_workload({"gpu": card, "precision": "bf16"})
    for precision in ("fp8", "fp8-block"):
        workload = parse_workload({"gpu": card, "precision": precision})
        assert workload.asked_precision is not None and workload.asked_precision.value == precision
        assert _weights(workload) == _weights(bf16)
        assert "dequantises" in _notes(workload)
    on_ada = parse_workload({"gpu": "l4", "precision": "fp8"})
    assert on_ada.asked_precision is None and _weights(on_ada) < 0.6 * _weights(bf16)


@pytest.mark.parametrize("precision", ["fp8", "fp8-block", "mxfp4"])
def test_transformers_refuses_quantising_on_load_on_a_mac(precision):
    """A 16-bit checkpoint quantised as it loads: without CUDA or XPU transformers stops ("No GPU or XPU found",
    "Quantizing a model using MXFP4 requires model on cuda/xpu/cpu"); only a published checkpoint is dequantised."""
    with pytest.raises(ValidationError) as error:
        parse_workload({"model": "qwen3-8b", "gpu": "apple-m3-max-128gb", "precision": precision})
    assert error.value.field == "precision"  # MXFP4 beyond gpt-oss is refused on every card (test_mxfp4_experts.py)
    assert ("gpt-oss's experts alone" if precision == "mxfp4" else "quantis") in str(error.value)
    published = parse_workload({"model": "gpt-oss-20b" if precision == "mxfp4" else "qwen3-235b-a22b-fp8",
                                "gpu": "apple-m3-max-128gb"})
    assert published.asked_precision is not None and published.precision.value == "bf16"


def test_transformers_dequantises_gpt_oss_on_a_mac_only():
    mac = parse_workload({"model": "gpt-oss-20b", "gpu": "apple-m3-max-128gb"})
    t4 = parse_workload({"model": "gpt-oss-20b", "gpu": "tesla-t4"})
    bf16 = parse_workload({"model": "gpt-oss-20b", "gpu": "apple-m3-max-128gb", "precision": "bf16"})
    assert _weights(mac) == _weights(bf16) and "MPS" in _notes(mac)
    assert t4.asked_precision is None and _weights(t4) < 0.4 * _weights(bf16)


def test_transformers_quantises_nvfp4_on_blackwell_only():
    # AMD's too: torch on ROCm gives gfx1100 as (11, 0) and gfx1201 as (12, 0), past the major >= 10 check, but
    # NVFP4's block-scaled tensor cores (the kernels-community/nvfp4-gemm kernel) are NVIDIA Blackwell's
    for card in ("h100-80gb", "rtx-4090", "tesla-t4", "apple-m4-max-128gb", "rx-7900-xtx", "rx-9070", "mi300x"):
        with pytest.raises(ValidationError) as error:
            parse_workload({"gpu": card, "precision": "nvfp4"})
        assert error.value.field == "precision" and "sm100" in str(error.value)
    for card in ("b200", "rtx-5090", "dgx-spark"):
        parse_workload({"gpu": card, "precision": "nvfp4"})


def test_the_most_precise_cache_is_one_the_card_keeps(monkeypatch):
    """A cache that fits a T4 in fp8 but not in bf16: vLLM there keeps neither (without the rule: fp8)."""
    workload = parse_workload({"runtime": "vllm", "gpu": "tesla-t4", "precision": "awq-int4", "seq": "16384",
                               "batch": "4"})
    target = parse_target({"gpu": "tesla-t4"})
    assert best_kv_format(workload, target) is None
    _rules_off(monkeypatch, "vllm")
    assert best_kv_format(workload, target) == "fp8"


def test_the_most_precise_weights_are_ones_the_card_runs(monkeypatch):
    """gpt-oss-20b on two T4s: vLLM cannot load its MXFP4 checkpoint there, and no smaller format takes it."""
    workload = parse_workload({"runtime": "vllm", "gpu": "tesla-t4", "precision": "fp8",
                               "model": "gpt-oss-20b", "seq": "4096"})
    target = parse_target({"gpu": "tesla-t4", "gpus": "2"})
    assert best_format(workload, target) is None  # the smaller formats cannot take its 2,880-wide layers
    _rules_off(monkeypatch, "vllm")
    assert best_format(workload, target) == "native"


def test_the_fallback_is_not_proposed_as_the_most_precise(monkeypatch):
    """gpt-oss on a 36 GB Mac under transformers: bf16 does not fit, and its MXFP4 checkpoint would be dequantised
    to bf16 there, so "as published" is no answer (without the rule: native, counted in MXFP4)."""
    workload = parse_workload({"model": "gpt-oss-20b", "gpu": "apple-m3-max-36gb", "precision": "bf16"})
    target = parse_target({"gpu": "apple-m3-max-36gb"})
    assert best_format(workload, target) is None
    _rules_off(monkeypatch, "transformers")
    assert best_format(workload, target) == "native"


def test_each_row_of_the_table_runs_what_its_card_runs():
    cache = fit_all(estimate(parse_workload({"runtime": "vllm", "gpu": "h100-80gb", "kv_precision": "fp8"})))
    by_slug = {fit.gpu.slug: fit for fit in cache}
    t4 = by_slug["tesla-t4"]
    assert t4.refused and "kv_precision" in t4.refused and t4.count is None and t4.verdict is Verdict.DOES_NOT_FIT
    # the others keep it (a Mac's GPU is no vLLM device at all)
    assert all(fit.refused is None for fit in cache if fit.gpu.slug != "tesla-t4" and fit.gpu.kind is not GpuKind.APPLE)

    fp8 = {fit.gpu.slug: fit for fit in fit_all(estimate(parse_workload({"gpu": "h100-80gb", "precision": "fp8"})))}
    bf16 = {fit.gpu.slug: fit for fit in fit_all(estimate(parse_workload({"gpu": "h100-80gb", "precision": "bf16"})))}
    for slug in ("tesla-t4", "a100-80gb", "rtx-3090"):  # dequantised there: the bf16 row
        assert fp8[slug].utilization == pytest.approx(bf16[slug].utilization), slug
    assert fp8["l4"].utilization < 0.7 * bf16["l4"].utilization
    # and from a T4's form, the cards that run FP8 count it in FP8
    from_t4 = {fit.gpu.slug: fit for fit in fit_all(estimate(parse_workload({"gpu": "tesla-t4", "precision": "fp8"})))}
    assert from_t4["l4"].utilization == pytest.approx(fp8["l4"].utilization)
    assert from_t4["tesla-t4"].utilization == pytest.approx(bf16["tesla-t4"].utilization)


def test_a_mac_is_no_card_of_capability():
    assert all(card.kind is not GpuKind.APPLE for card in load_gpus().values())


def test_the_cheapest_card_runs_the_format(monkeypatch):
    """Qwen3 14B in FP8 under transformers: the RTX 3090 (8.6, the cheapest priced card) would dequantise it to
    bf16, which does not fit its 24 GB; an Ada card keeps FP8 (without the rule: the 3090, counted in FP8)."""
    from vramcalc.analysis.speed_answers import cheapest_card
    from vramcalc.workload import Machine

    workload = parse_workload({"model": "qwen3-14b", "gpu": "h100-80gb", "precision": "fp8", "seq": "2048"})
    target = parse_target({"gpu": "h100-80gb"})
    found = cheapest_card(workload, target, Machine())
    assert found is not None and found[0] != "rtx-3090"
    _rules_off(monkeypatch, "transformers")
    found = cheapest_card(workload, target, Machine())
    assert found is not None and found[0] == "rtx-3090"


def test_transformers_quantises_nvfp4_on_one_gpu_only():
    """quantizer_nvfp4.py (transformers 5.23) raises for a device_map over several CUDA devices and for tensor
    parallelism: Llama 3.1 405B in NVFP4 on B200s answered "fewest GPUs 2"; vLLM shards it."""
    from vramcalc.analysis.ranks import per_gpu
    from vramcalc.analysis.solve import solve

    values = {"model": "llama-3.1-405b", "precision": "nvfp4", "gpu": "b200"}
    workload, target = parse_workload(values), parse_target(values)
    assert solve(workload, target).min_gpus is None
    with pytest.raises(ValidationError, match="one CUDA device"):
        per_gpu(estimate(workload), 2)
    vllm = {**values, "runtime": "vllm"}
    assert solve(parse_workload(vllm), parse_target(vllm)).min_gpus == 2
