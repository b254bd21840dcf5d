"""The speed model (speed/): its physics on small cases, and its error against the published runs of
tests/data/speed/ (the numbers docs/accuracy.md reports, recomputed here so they cannot drift)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.solve import fits
from vramcalc.analysis.speed_answers import speed_answers
from vramcalc.formats.weights import parse_format
from vramcalc.inputs.parse import parse_machine, parse_target, parse_workload
from vramcalc.render.messages import ENGLISH
from vramcalc.speed import cost_of, speed_of
from vramcalc.speed.hardware import calibration
from vramcalc.workload import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import validate_speed


def speed(values: dict[str, str], gpus: int = 1, machine: Machine | None = None):
    workload = parse_workload(values)
    return speed_of(estimate(workload), workload.gpu, gpus, machine or Machine())


LLAMA = {"model": "llama-3.1-8b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4090",
         "prompt_tokens": "512", "output_tokens": "128"}


def test_a_quarter_of_the_bytes_decodes_faster_but_not_four_times():
    q4, f16 = speed(LLAMA), speed({**LLAMA, "precision": "f16"})
    ratio = q4.decode_tokens_per_s / f16.decode_tokens_per_s
    assert 2.0 < ratio < 3.6  # 3.4x fewer bytes; the fixed cost per layer and slower k-quant kernels stay


def test_an_moe_reads_only_its_active_experts():
    moe = speed({**LLAMA, "model": "qwen3-30b-a3b", "precision": "q8_0", "gpu": "dgx-spark"})
    dense = speed({**LLAMA, "model": "qwen3-32b", "precision": "q8_0", "gpu": "dgx-spark"})
    assert moe.decode_tokens_per_s > 4 * dense.decode_tokens_per_s


def test_metal_pays_llamacpps_routing_kernels_per_moe_layer(monkeypatch):
    """llama.cpp's router, top-k and expert-sum kernels cost a fixed time per MoE layer on Metal (build_moe_ffn), on
    top of the dense layer's; a dense model and a CUDA card are not charged it."""
    rates = calibration()["engines"]["llamacpp"]
    cost = rates["moe_layer_overhead_s"]["metal"]
    mac = {**LLAMA, "gpu": "apple-m2-ultra-192gb", "output_tokens": "1"}
    cases = {"moe": {**mac, "model": "qwen3-30b-a3b", "precision": "q8_0"}, "dense": {**mac, "precision": "q8_0"},
             "cuda": {**LLAMA, "model": "qwen3-30b-a3b", "precision": "q8_0", "gpu": "dgx-spark"}}
    charged = {name: speed(values).tpot_s for name, values in cases.items()}
    monkeypatch.setitem(rates, "moe_layer_overhead_s", {})
    free = {name: speed(values).tpot_s for name, values in cases.items()}
    assert charged["moe"] - free["moe"] == pytest.approx(48 * cost)  # Qwen3-30B-A3B: 48 MoE layers
    assert charged["dense"] == free["dense"] and charged["cuda"] == free["cuda"]


def test_moe_decode_on_metal_holds_out_on_an_older_builds_runs():
    """Fitted on llama.cpp's own M2 Ultra benches (one build, February 2026), the cost per MoE layer brings discussion
    #15396's gpt-oss rows (August 2025, five Apple chips, held out) from 28 % too fast at the median to within 15 %."""
    found = [r for r in validate_speed.results("disc15396", kinds=("decode",)) if r["group"] == "llamacpp-metal"]
    errors = sorted(r["error"] for r in found)
    assert len(errors) == 6
    assert abs(errors[len(errors) // 2]) <= 0.15 and max(map(abs, errors)) <= 0.2


def test_layers_in_system_ram_are_read_at_its_bandwidth():
    on_gpu = speed(LLAMA)
    half = speed({**LLAMA, "gpu_layers": "17"})
    assert half.bound == "host_memory" and half.decode_tokens_per_s < on_gpu.decode_tokens_per_s / 3
    faster_ram = speed({**LLAMA, "gpu_layers": "17"}, machine=Machine(ram_bandwidth_gb_s=128))
    assert faster_ram.decode_tokens_per_s > half.decode_tokens_per_s * 1.5


def test_the_users_figures_win():
    base = speed({**LLAMA, "gpu": "24gb"})
    assert base.decode_tokens_per_s is None and "--gpu-bandwidth" in ENGLISH.say(base.unknown)
    given = speed({**LLAMA, "gpu": "24gb"}, machine=Machine(gpu_bandwidth_gb_s=1008, gpu_tflops=165.2))
    listed = speed(LLAMA)
    assert given.ttft_s is not None and given.decode_tokens_per_s == pytest.approx(listed.decode_tokens_per_s, 0.01)
    slower = speed(LLAMA, machine=Machine(gpu_bandwidth_gb_s=504))
    assert slower.decode_tokens_per_s < 0.7 * listed.decode_tokens_per_s


def test_a_longer_context_decodes_slower():
    curve = speed({**LLAMA, "seq": "32768", "prompt_tokens": "30000"}).curve
    rates = [rate for _, rate in curve]
    assert rates == sorted(rates, reverse=True) and rates[0] > rates[-1]


def test_training_has_a_step_and_no_decode():
    result = speed({"model": "llama-3.1-8b", "mode": "training", "lora_rank": "16", "gpu": "h100-80gb"})
    assert result.decode_tokens_per_s is None and result.step_s and result.train_tokens_per_s and 0 < result.mfu < 1
    cost = cost_of(result, parse_workload({"gpu": "h100-80gb"}).gpu, 1, Machine(train_tokens=10**8))
    assert cost.run_hours == pytest.approx(10**8 / result.train_tokens_per_s / 3600)
    assert cost.run_usd == pytest.approx(cost.run_hours * cost.usd_per_hour)


TRAIN = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "gpu": "h200", "seq": "1024", "batch": "8"}


def test_dpo_trains_on_both_answers_and_runs_the_reference_forward():
    sft, dpo = speed(TRAIN), speed({**TRAIN, "objective": "dpo", "batch": "4"})  # 4 pairs: 8 sequences, as SFT's
    precomputed = speed({**TRAIN, "objective": "dpo", "batch": "4", "reference": "precomputed"})
    assert precomputed.step_s == pytest.approx(sft.step_s)  # the same tokens through the same passes
    assert dpo.step_s == pytest.approx(sft.step_s * 1.5, rel=0.05)  # LoRA's 4N per token, plus the reference's 2N
    assert any(p.key == "speed.basis.reference" for p in dpo.basis) and dpo.rollout_s is None


def test_kto_trains_on_its_completions_and_runs_three_forwards_without_gradients():
    sft, kto = speed(TRAIN), speed({**TRAIN, "objective": "kto"})  # 8 unpaired completions, as SFT's 8 sequences
    precomputed = speed({**TRAIN, "objective": "kto", "reference": "precomputed"})
    # LoRA's 4N per token, plus 2N for each no-grad forward: the policy's KL batch, the reference's KL batch and
    # completions (precomputed: the policy's KL batch only)
    assert kto.step_s == pytest.approx(sft.step_s * 10 / 4, rel=0.05)
    assert precomputed.step_s == pytest.approx(sft.step_s * 6 / 4, rel=0.05)


def test_orpo_trains_on_both_answers_without_a_reference_forward():
    sft, orpo = speed({**TRAIN, "batch": "8"}), speed({**TRAIN, "batch": "4", "objective": "orpo"})
    assert orpo.step_s == pytest.approx(sft.step_s, rel=0.02)  # 4 pairs are SFT's 8 sequences, and nothing more
    assert not any(p.key == "speed.basis.reference" for p in orpo.basis)


def test_grpo_waits_for_its_rollout():
    grpo = speed({**TRAIN, "objective": "grpo"})
    vllm = speed({**TRAIN, "objective": "grpo", "rollout": "vllm-colocate"})
    decode = speed({"model": "qwen3-8b", "gpu": "h200", "batch": "8", "prompt_tokens": "512",
                    "output_tokens": "512", "seq": "1024"})
    # the generation batch's prompts prefilled, then 512 decode steps of 8 sequences, as inference times them
    assert grpo.rollout_s == pytest.approx(512 * decode.tpot_s + 8 * 512 / decode.prefill_tokens_per_s, rel=0.02)
    assert grpo.rollout_s < grpo.step_s < grpo.rollout_s + speed(TRAIN).step_s * 1.6
    assert vllm.rollout_s < grpo.rollout_s / 3  # vLLM's decode steps against generate's eager ones
    assert speed({**TRAIN, "objective": "grpo", "completion_tokens": "256"}).rollout_s < 0.6 * grpo.rollout_s
    english = ENGLISH.say(speed({**TRAIN, "objective": "grpo"}).basis[1])
    assert "8 completions of 512 tokens" in english


def test_a_cost_needs_a_price():
    values = {**LLAMA, "gpu": "rtx-4060-ti-16gb"}
    result = speed(values)
    card = parse_workload(values).gpu
    assert cost_of(result, card, 1, Machine()).usd_per_hour is None  # no cloud price for a 4060 Ti
    cost = cost_of(result, card, 1, Machine(gpu_hour_usd=0.5))
    assert cost.usd_per_million_output_tokens == pytest.approx(0.5 / (result.output_tokens_per_s * 3600) * 1e6)


def test_bad_speed_input_names_its_field():
    with pytest.raises(Exception, match="gpu_bandwidth"):
        parse_machine({"gpu_bandwidth": "0"})
    with pytest.raises(Exception, match="train_tokens"):
        parse_machine({"train_tokens": "1e9"})


def test_the_sequence_holds_the_prompt_and_the_output():
    workload = parse_workload({"prompt_tokens": "9000", "output_tokens": "1000"})
    assert (workload.prompt, workload.output, workload.seq) == (9000, 1000, 10000)
    default = parse_workload({"seq": "4096"})
    assert default.prompt + default.output == 4096


# ---------------------------------------------------------------- the reverse questions


def test_the_fastest_format_that_fits_is_a_4_bit_one_that_fits():
    workload = parse_workload(LLAMA)
    answers = speed_answers(workload, parse_target({"gpu": "rtx-4090"}), Machine())
    assert answers.fastest_format == "q4_k_m"  # never below 4 bits; iq4_xs and q4_k_s are within 10 % of it
    small = speed_answers(parse_workload({**LLAMA, "model": "llama-3.1-70b"}), parse_target({"gpu": "rtx-4090"}),
                          Machine())
    assert small.fastest_format is None  # no 4-bit 70B fits 24 GB


@pytest.mark.parametrize(("nf4_gain", "named"), [(1.05, "bf16"), (1.099, "bf16"), (1.11, "nf4")])
def test_formats_within_ten_percent_are_not_ranked(monkeypatch, nf4_gain, named):
    """The rule itself, on decode rates given: nf4 faster than bf16 by less than 10 % is not named, by more it is."""
    from vramcalc.analysis import speed_answers as answers

    rates = {"bf16": 100.0, "bnb-int8": 50.0, "nf4": 100.0 * nf4_gain}
    monkeypatch.setattr(answers, "_decode", lambda candidate, target, machine: rates[candidate.precision.value])
    workload = parse_workload({"model": "llama-3.2-1b", "gpu": "h100-80gb"})
    assert answers.fastest_format(workload, parse_target({"gpu": "h100-80gb"}), Machine()) == named


def test_transformers_names_bf16_where_bitsandbytes_decodes_slower():
    """Bound by the host's work per layer, transformers decodes nf4 no faster than bf16 (bitsandbytes' layers add
    their own, speed/bnb.py): bf16 is named, not a format that trades precision for nothing."""
    workload = parse_workload({"model": "llama-3.2-1b", "gpu": "h100-80gb"})
    target, machine = parse_target({"gpu": "h100-80gb"}), Machine()
    assert speed_answers(workload, target, machine).fastest_format == "bf16"
    bf16 = speed_of(estimate(workload), target.gpu, 1, machine).decode_tokens_per_s
    nf4 = speed_of(estimate(workload.but(precision=parse_format("nf4"))), target.gpu, 1, machine).decode_tokens_per_s
    assert nf4 < bf16


def test_the_most_sequences_keep_the_speed_asked():
    workload = parse_workload({**LLAMA, "seq": "4096", "prompt_tokens": "2048"})
    target = parse_target({"gpu": "rtx-4090"})
    answer = speed_answers(workload, target, Machine(min_tokens_per_s=20)).max_concurrency
    assert answer and answer > 1
    rate = speed_of(estimate(workload.but(parallel=answer)), target.gpu, 1, Machine()).decode_tokens_per_s
    beyond = speed_of(estimate(workload.but(parallel=answer + 1)), target.gpu, 1, Machine()).decode_tokens_per_s
    assert rate >= 20 and (beyond < 20 or not fits(workload.but(parallel=answer + 1), target))


def test_the_fewest_gpus_finish_the_run_in_time():
    workload = parse_workload({"model": "llama-3.1-8b", "mode": "training", "lora_rank": "16", "seq": "2048",
                               "gpu": "h100-80gb"})
    target = parse_target({"gpu": "h100-80gb"})
    machine = Machine(train_tokens=10**9, max_run_hours=10)
    count = speed_answers(workload, target, machine).min_gpus_for_run
    hours = lambda n: 10**9 / speed_of(estimate(workload), target.gpu, n, machine).train_tokens_per_s / 3600  # noqa: E731
    assert count and hours(count) <= 10 and (count == 1 or hours(count - 1) > 10)


# ---------------------------------------------------------------- against published runs


@pytest.fixture(scope="module")
def table():
    return validate_speed.summary(validate_speed.results())


@pytest.mark.parametrize("group", ["llamacpp-cuda decode", "llamacpp-metal decode"])
def test_decode_meets_the_goal(table, group):
    stats = table[group]
    assert stats["rows"] >= 90
    assert stats["median"] <= validate_speed.GOALS["decode"]
    assert stats["within_2x"] == stats["rows"]  # no row off by 2x


def test_prefill_on_macs_meets_the_goal(table):
    assert table["llamacpp-metal prefill"]["median"] <= validate_speed.GOALS["prefill"]


def test_prefill_on_cuda_meets_the_goal(table):
    """llama.cpp's prompt speed on CUDA as its source runs it (speed/inference.py llamacpp_prefill): the
    median within the 25 % goal, in-sample; the 6 rows still off by 2x are PROMPT_OFF_BY_2X, each with its reason
    (docs/accuracy.md, "llama.cpp's prompt rows off by 2x, against its source")."""
    stats = table["llamacpp-cuda prefill"]
    assert stats["rows"] >= 370
    assert stats["median"] <= validate_speed.GOALS["prefill"]
    assert stats["within_2x"] >= stats["rows"] - 6 and stats["worst"] <= 1.5


# The llama.cpp CUDA prompt rows still off by 2x (2026-12-07, issue 24), each with its reason (docs/accuracy.md,
# "llama.cpp's prompt rows off by 2x, against its source"): (card, GPUs, model, weights, test) -> reason. A row
# named here that comes within 2x fails its strict xfail; a row off by 2x that is not named fails the set test.
# 70B Q4_K_M over 4 GPUs (builds 2824-2843): against its one-GPU pp4096/pp512 (about 0.85) it gained 1.2-1.5x of
# the pipeline's 2.29x, where 8B Q4_K_M on the same machines and builds gained 2.0-2.5x and the same model and type
# on 6 x 3090 and 8 x 4090 (build 2824, as 4 x 4090's) 2.0-2.2x; the scheduler read (ggml-backend.c,
# compute_splits: per-copy events; a re-allocation syncs) gives no cause for this model and type alone.
PIPELINE = "70B Q4_K_M on 4 GPUs gained 1.2-1.5x of the pipeline's 2.29x; no cause found in the source"
# gpt-oss-20b: the rate does not follow the card's tensor rate (RTX 4080 SUPER 8,171 = RTX 4090 8,022 tokens/s) and a
# 2026 build on an RTX 3090 is no faster (PR #20586: 4,739 at pp512); suspected MoE MMQ at 64 tokens per expert
# (tile width, PR #15525's host sync before 2025-08-23), unsized: gpt-oss-120b on 4 x 4090 is within 22 %.
GPT_OSS = "gpt-oss-20b's expert matmuls in MMQ's MUL_MAT_ID at 64 tokens per expert: no CUDA MoE cost modelled"
PROMPT_OFF_BY_2X = {
    ("rtx-3090", "4", "llama-3-70b", "q4_k_m", "pp4096"): PIPELINE,
    ("rtx-3090", "4", "llama-3-70b", "q4_k_m", "pp8192"): PIPELINE,
    ("a40", "4", "llama-3-70b", "q4_k_m", "pp4096"): PIPELINE,
    ("l40s", "4", "llama-3-70b", "q4_k_m", "pp4096"): PIPELINE,
    ("rtx-4090", "1", "gpt-oss-20b", "mxfp4", "pp2048"): GPT_OSS,
    ("rtx-5090", "1", "gpt-oss-20b", "mxfp4", "pp2048"): GPT_OSS,
}
PROMPT_ROWS = [row for row in validate_speed.results("xiongjiedai_llama3", kinds=("prefill",))
               + validate_speed.results("disc15396", kinds=("prefill",)) if row["group"] == "llamacpp-cuda"]


def _prompt_key(row: dict) -> tuple[str, str, str, str, str]:
    return row["gpu"], str(row["gpus"]), row["model"], row["weights"], row["test"]


def test_the_prompt_rows_off_by_2x_are_the_named_ones():
    off = {_prompt_key(r) for r in validate_speed.results(kinds=("prefill",))
           if r["group"] == "llamacpp-cuda" and not 0.5 < 1 + r["error"] < 2}
    assert off == set(PROMPT_OFF_BY_2X)


@pytest.mark.parametrize("row", [
    pytest.param(row, id="-".join(_prompt_key(row)),
                 marks=pytest.mark.xfail(strict=True, reason=PROMPT_OFF_BY_2X[_prompt_key(row)]))
    for row in PROMPT_ROWS if _prompt_key(row) in PROMPT_OFF_BY_2X])
def test_each_prompt_row_off_by_2x_stays_named(row):
    assert 0.5 < 1 + row["error"] < 2


@pytest.mark.parametrize(("group", "goal"), [("llamacpp-rocm decode", "decode"), ("llamacpp-rocm prefill", "prefill")])
def test_rocm_meets_the_goal(table, group, goal):
    """llama.cpp's ROCm build on nine AMD cards (discussion #15021's scoreboard, Strix Halo): RDNA cards take
    CUDA's workstation prompt share unfitted; CDNA's and Strix Halo's shares and ROCm's per-layer costs are
    fitted to these rows (docs/accuracy.md gives each left out in turn)."""
    stats = table[group]
    assert stats["rows"] >= 9
    assert stats["median"] <= validate_speed.GOALS[goal]
    assert stats["within_2x"] == stats["rows"]


def test_rdna_cards_take_cudas_workstation_prompt_share_unfitted():
    """docs/accuracy.md ("llama.cpp on AMD cards") and the CHANGELOG say the RDNA cards' ROCm prompt share is CUDA's
    workstation share, not fitted (tools/fit_speed.py --rocm fits only CDNA's and Strix Halo's): the two entries
    of data/speed.json must stay one value, or a refit of CUDA's would leave the RDNA rows on the old one."""
    rates = calibration()["engines"]["llamacpp"]
    assert rates["prefill_compute_rocm"]["gddr"] == rates["prefill_compute"]["gddr"]
    import fit_speed  # tools/, on the path above

    assert not any(path == ("prefill_compute_rocm", "gddr") for path, _ in fit_speed.PARAMETERS_ROCM)


def test_a_run_with_no_known_rate_says_speed_not_prompt_speed_unknown():
    """A card with no TFLOPS (Apple M5: no published clock): a training run's whole speed is unknown, a served
    run's prompt alone (its decode reads memory)."""
    from vramcalc.render.messages import ENGLISH

    values = {"model": "qwen3-8b", "gpu": "apple-m5-max-128gb", "seq": "1024"}
    trained = parse_workload({**values, "mode": "training"})
    unknown = speed_of(estimate(trained), trained.gpu, 1, Machine()).unknown
    assert unknown is not None and ENGLISH.say(unknown).startswith("Speed unknown: ")
    served = parse_workload({**values, "prompt_tokens": "512", "output_tokens": "128"})
    speed = speed_of(estimate(served), served.gpu, 1, Machine())
    assert speed.decode_tokens_per_s and any(ENGLISH.say(p).startswith("Prompt speed unknown") for p in speed.basis)


def test_an_error_line_says_when_no_published_run_was_on_this_kind_of_card():
    """vLLM's ROCm rows are all MI300X (HBM): on an RDNA card the line says so instead of claiming their error."""
    from vramcalc.render.messages import ENGLISH
    from vramcalc.speed.validation import expected_error

    served = {"model": "llama-3.1-8b", "runtime": "vllm", "prompt_tokens": "512", "output_tokens": "128"}
    on_rdna = ENGLISH.say(expected_error(parse_workload({**served, "gpu": "rx-7900-xtx"})))
    on_cdna = ENGLISH.say(expected_error(parse_workload({**served, "gpu": "mi300x"})))
    assert "all on HBM cards: none on this kind of card" in on_rdna
    assert "vllm-rocm" in on_cdna and "none on this kind" not in on_cdna


def test_an_error_line_says_when_every_published_run_used_more_gpus():
    """vLLM's ROCm rows are all Llama 3.1 405B on 8 MI300X, where the all-reduces carry the fixed cost per step and
    the per-layer cost fits at 0: on one GPU a small model's answer (Qwen3 0.6B on an MI210 faster than on an RTX
    5090) is an extrapolation, and the line says so; on 8 it claims their error, and CUDA's 1-GPU rows speak."""
    from vramcalc.render.messages import ENGLISH
    from vramcalc.speed.validation import expected_error

    served = {"model": "qwen3-0.6b", "runtime": "vllm", "prompt_tokens": "512", "output_tokens": "128"}
    one = ENGLISH.say(expected_error(parse_workload({**served, "gpu": "mi210"}), 1))
    eight = ENGLISH.say(expected_error(parse_workload({**served, "gpu": "mi300x"}), 8))
    cuda = ENGLISH.say(expected_error(parse_workload({**served, "gpu": "h100-80gb"}), 1))
    assert "all on 8 GPUs or more" in one and "likely too fast for a small model" in one
    assert "vllm-rocm" in eight and "GPUs or more" not in eight
    assert "vllm-cuda" in cuda and "GPUs or more" not in cuda
    assert calibration()["validation"]["vllm-rocm"]["gpus"] == [8]


def test_a_vulkan_build_keeps_cudas_prompt_share_on_an_amd_card():
    """Strix Halo's published runs: Vulkan 882 prompt tokens/s, ROCm 344 (Llama 2 7B Q4_0, pp512): the ROCm
    build's share is its own, the Vulkan build's the CUDA class's."""
    values = {**PROMPT, "gpu": "strix-halo", "precision": "q4_0", "prompt_tokens": "512", "seq": "513"}
    workload = parse_workload(values)
    def rate(vulkan: bool) -> float:
        run = workload.but(llamacpp_vulkan=vulkan)
        result = speed_of(estimate(run), run.gpu, 1, Machine()).prefill_tokens_per_s
        assert result is not None
        return result
    assert rate(True) > 2 * rate(False)


def test_training_meets_the_goal(table):
    """torchtune's published runs, each with its own activation checkpointing (docs/accuracy.md)."""
    stats = table["train-cuda train"]
    assert stats["rows"] >= 15
    assert stats["median"] <= validate_speed.GOALS["train"]
    assert stats["within_2x"] == stats["rows"]


def test_rows_left_out_say_why():
    """A published cell is left out of the table only with its reason written in its file, and few are."""
    left = [row for _, row in validate_speed.rows() if row.get("anomalous")]
    assert len(left) == 29 and all(len(str(row["anomalous"])) > 40 for row in left)


def test_rows_the_calculator_refuses_are_models_and_formats_it_does_not_know():
    """A row the form refuses is left out of the table (tools/validate_speed.py prints them): only for a model
    without a preset or config, or a file type it does not list; 47 gpt-oss rows once dropped so, as `mxfp4`."""
    counts = validate_speed.refused()
    assert counts == {}  # LLaMA 7B, Yi-6B, Sheared-LLaMA-1.3B, Nemotron 3 Nano 4B, q4_k and ud-q4_k_xl: 22 rows once
    assert ("precision", "mxfp4") not in counts


def test_a_row_whose_quant_is_not_published_is_counted_apart_not_as_a_precision_none():
    """llm-tracker's Llama 4 Scout rows on Strix Halo were transcribed without their quant ("weights": null): no
    format to predict them in; they were refused as precision 'none', a name no user types."""
    assert validate_speed.unweighed() == 2
    assert ("precision", "none") not in validate_speed.refused()


NEW_PRESET_ROWS = {  # model: (rows predicted, worst |error| allowed), as measured on 2026-12-07 (docs/accuracy.md)
    "llama-7b": (6, 0.85),  # M2 Ultra, llama.cpp of August 2023: decode +13-20 %, its prompt +80 % (older kernels)
    "nemotron-3-nano-4b": (2, 0.25),  # DGX Spark: decode +0.8 %, prompt +21 %
    "yi-6b": (3, 1.05),  # A10G, bitsandbytes 0.41: 16-bit +33 %, LLM.int8() +103 %
    "sheared-llama-1.3b": (3, 0.8),  # A10G: 16-bit +17 %, LLM.int8() +78 %
}


@pytest.mark.parametrize("model", sorted(NEW_PRESET_ROWS))
def test_the_rows_of_the_models_once_refused_are_predicted(model):
    rows, worst = NEW_PRESET_ROWS[model]
    found = [r for r in validate_speed.results() if r["model"] == model]
    assert len(found) == rows and max(abs(r["error"]) for r in found) <= worst


def test_the_rows_of_the_file_types_once_refused_are_predicted():
    """Nemotron 3 Super's `Q4_K` on the DGX Spark (llama-quantize's alias of Q4_K_M) and Qwen3-30B-A3B's Unsloth
    UD-Q4_K_XL on Strix Halo (sized as Q4_K_M): decode within 15 %; Vulkan's prompt 2.5 times faster than
    measured (a build the secondary transcription does not name; docs/accuracy.md)."""
    found = [r for r in validate_speed.results() if r["weights"] in ("q4_k", "ud-q4_k_xl")]
    assert len(found) == 8
    assert all(abs(r["error"]) <= 0.15 for r in found if r["kind"] == "decode")
    assert all(abs(r["error"]) <= 0.3 for r in found if r["kind"] == "prefill" and r["group"] != "llamacpp-vulkan")


PROMPT = {**LLAMA, "model": "llama-3-8b", "output_tokens": "1"}


def test_llamacpp_splits_a_long_prompt_into_a_pipeline_over_gpus():
    """Layers split over GPUs: the micro-batches of one llama_decode call (n_batch 2048 / ubatch 512) overlap
    across the cards, so 4 GPUs take (4 + 3) / 16 of one card's time on a long prompt, none on one micro-batch."""
    for prompt, gain in (("512", 1.0), ("4096", 16 / 7)):
        one = speed({**PROMPT, "prompt_tokens": prompt, "seq": str(int(prompt) + 1)})
        four = speed({**PROMPT, "prompt_tokens": prompt, "seq": str(int(prompt) + 1)}, gpus=4)
        assert four.prefill_tokens_per_s / one.prefill_tokens_per_s == pytest.approx(gain, rel=0.05)


def test_attention_without_flash_writes_its_scores():
    """Without flash attention the scores of every cached cell are written and read: a long prompt slows more."""
    values = {**PROMPT, "prompt_tokens": "8192", "seq": "8193"}
    flash, eager = speed(values), speed({**values, "attention": "eager"})
    short = {**PROMPT, "prompt_tokens": "512", "seq": "513"}
    assert eager.prefill_tokens_per_s < 0.8 * flash.prefill_tokens_per_s
    assert speed({**short, "attention": "eager"}).prefill_tokens_per_s > 0.9 * speed(short).prefill_tokens_per_s


def test_a_cublas_build_dequantises_quantised_weights_only():
    """GGML_CUDA_FORCE_CUBLAS (and builds before June 2024): quantised weights are dequantised to f16 per
    micro-batch, f16 ones are not; today's int8 kernels (MMQ) run at the card's share like f16's cuBLAS."""
    def rate(precision: str, cublas: bool) -> float:
        workload = parse_workload({**PROMPT, "precision": precision}).but(llamacpp_cublas=cublas)
        result = speed_of(estimate(workload), workload.gpu, 1, Machine()).prefill_tokens_per_s
        assert result is not None
        return result
    assert rate("q4_k_m", True) < 0.85 * rate("q4_k_m", False)
    assert rate("f16", True) == rate("f16", False)
    assert rate("q4_k_m", False) == pytest.approx(rate("f16", False), rel=0.05)  # the read floor aside


# The serving rows still off by 2x (2026-12-07), each with its reason read from the row's own numbers (duration,
# mean TTFT and TPOT as its source prints them; docs/accuracy.md "Serving rows off by 2x"): (card, model, test).
SERVING_OFF_BY_2X = {
    # +123 %: TTFT 18.3 of 22.7 s and TPOT 525 ms an 8192-token step put ~14 s in the API server before the
    # engine's burst (14 ms a request; host_s 5 ms) and the prefill at ~42 % of the H100's dense peak (0.75
    # modelled; the lab's other H100 Qwen3-14B rows are +67..+77 %, its A100 ones +9..+31 %)
    ("h100-80gb", "qwen3-14b", "random 128/4"),
    # +130 %: TTFT 19.4 of 22.1 s, TPOT 352 ms: ~16.5 ms a request in the API server, the engine ~5.6 s
    ("h200", "deepseek-r1", "random 128/4"),
    # -61 %: TPOT 62 ms a 2048-token step where the model takes 125: fused MoE at a flat 0.3 of peak, while
    # gpt-oss-20b's 32 experts get 256 rows each a step (gpt-oss-120b's 128 get 64: 183 ms measured, 184
    # modelled); and ~1.4 ms a request in the server (gpt-oss's prompt rendered by openai_harmony, no Jinja)
    ("a100-80gb", "gpt-oss-20b", "random 128/4"),
    # +106 % (SGLang, Modal): mean TTFT 2.73 s of a mean E2E 8.43 s for a 512-token prompt, TPOT 5.57 ms against
    # 3.6 modelled: a third of each request is a wait the simulation has no part for
    ("h100-80gb", "gpt-oss-20b", "random 512/1024 c4"),
}


@pytest.mark.parametrize(("group", "rows"), [("vllm-cuda serve", 70), ("vllm-rocm serve", 11)])
def test_serving_throughput_meets_the_goal(table, group, rows):
    """vLLM and SGLang serving runs (GPUStack's Performance Lab, Oracle's MI300X tables, an RTX 4090 sweep, a
    B200 run, SGLang on an H100): output tokens/s within 25 % at the median. In-sample: docs/accuracy.md
    gives the split by source; the rows still off by 2x are SERVING_OFF_BY_2X, each with its reason."""
    stats = table[group]
    assert stats["rows"] >= rows
    assert stats["median"] <= validate_speed.GOALS["serve"]
    assert stats["within_2x"] >= stats["rows"] - len(SERVING_OFF_BY_2X) and stats["worst"] <= 1.35


def test_the_serving_rows_off_by_2x_are_the_named_ones():
    """No serving row is off by 2x without its reason written above, and a named one that comes within 2x
    loses its entry (Qwen3-32B 4000/200 on an A100 did, with the prefix cache after a preemption)."""
    off = {(r["gpu"], r["model"], r["test"]) for r in validate_speed.results(kinds=("serve",))
           if not 0.5 < 1 + r["error"] < 2}
    assert off == SERVING_OFF_BY_2X


def test_a_served_prompt_costs_output_rate():
    """Serving: each sequence's prompt is prefilled between decode steps, so longer prompts lower the rate
    of all sequences, and it never beats the decode steps alone."""
    values = {"model": "llama-3.1-8b", "runtime": "vllm", "gpu": "h100-80gb", "batch": "32", "output_tokens": "200"}
    short, long = speed({**values, "prompt_tokens": "200"}), speed({**values, "prompt_tokens": "8000"})
    assert long.output_tokens_per_s < 0.7 * short.output_tokens_per_s
    assert short.output_tokens_per_s < 32 * short.decode_tokens_per_s


def test_the_stored_errors_are_the_measured_ones(table):
    stored = calibration()["validation"]
    for name, stats in table.items():
        group, kind = name.split()
        if kind in ("decode", "train", "serve") and stats["rows"] < validate_speed.MIN_ROWS:
            assert group not in stored, group  # too few runs to speak for the group: its answers say "not checked"
        elif kind in ("decode", "train", "serve"):
            assert stored[group]["rows"] == stats["rows"]
            assert stored[group]["median"] == pytest.approx(stats["median"], abs=0.0015), group


def test_every_published_row_names_its_source():
    for path in validate_speed.DATA.glob("*.json"):
        data = json.loads(path.read_text())
        assert data["source"] and all(row.get("quoted") for row in data["rows"]), path.name


def test_a_run_that_does_not_fit_says_so_before_its_speed():
    from vramcalc.analysis.speed_answers import evaluate_speed
    from vramcalc.render.speed import present_speed

    def present_speed_for(workload, target, machine):
        return present_speed(workload, evaluate_speed(workload, target, machine))

    workload = parse_workload({**LLAMA, "model": "llama-3.1-70b"})
    view = present_speed_for(workload, parse_target({"gpu": "rtx-4090"}), Machine())
    assert view.basis[0].startswith("It does not fit")
    assert "does not fit" in dict((key, value) for key, _, value in view.figures)["max_concurrency"]
    fitting = present_speed_for(parse_workload(LLAMA), parse_target({"gpu": "rtx-4090"}), Machine())
    assert not any("does not fit" in line for line in fitting.basis)


# ---------------------------------------------------------------- llama.cpp's experts in RAM (--n-cpu-moe)


def _exps_bytes(spec, ftype: str, layers: int) -> int:
    """The bytes of the tensors llama.cpp's --n-cpu-moe moves, chosen as it does: by the name pattern
    blk.i.ffn_(up|down|gate)_exps (common/arg.cpp) over the GGUF plan, not by the engine's roles."""
    import re

    from vramcalc.formats.gguf import tensor_bytes
    from vramcalc.formats.weights import _gguf_plan
    from vramcalc.model.families.decoder.tensors import model_tensors

    pattern = re.compile(r"blk\.(\d+)\.ffn_(up|down|gate)_exps")
    total = 0
    for tensor, ggml_type in _gguf_plan(spec, model_tensors(spec), ftype):
        match = pattern.match(tensor.name)
        if match and int(match.group(1)) < layers:
            total += tensor_bytes(tensor, ggml_type)
    return total


@pytest.mark.parametrize(("model", "n"), [("qwen3-30b-a3b", 20), ("gpt-oss-20b", 24), ("mixtral-8x7b", 5)])
def test_n_cpu_moe_moves_exactly_the_expert_tensors(model, n):
    values = {"model": model, "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4090"}
    base = estimate(parse_workload(values))
    moved = estimate(parse_workload({**values, "n_cpu_moe": str(n)}))
    spec = base.workload.model
    shift = base.bytes_of("weights") - moved.bytes_of("weights")
    assert shift == pytest.approx(_exps_bytes(spec, "q4_k_m", n), abs=2)
    assert moved.host_bytes - base.host_bytes == pytest.approx(shift, abs=2)
    every = estimate(parse_workload({**values, "cpu_moe": "1"}))
    assert base.bytes_of("weights") - every.bytes_of("weights") == pytest.approx(
        _exps_bytes(spec, "q4_k_m", spec.layers), abs=2)


def test_a_dense_model_has_no_experts_to_move():
    values = {**LLAMA, "n_cpu_moe": "10"}
    moved = estimate(parse_workload(values))
    assert moved.total_bytes == estimate(parse_workload(LLAMA)).total_bytes
    assert any(getattr(note, "key", "") == "note.no_experts_to_move" for note in moved.notes)  # said, not silent
    moe = estimate(parse_workload({**values, "model": "qwen3-30b-a3b"}))
    assert not any(getattr(note, "key", "") == "note.no_experts_to_move" for note in moe.notes)


def test_experts_in_ram_trade_speed_for_memory_and_the_fewest_that_fit_is_answered():
    values = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4060-ti-16gb",
              "prompt_tokens": "512", "output_tokens": "128", "seq": "8192"}
    target = parse_target(values)
    rates = [speed({**values, "n_cpu_moe": str(n)}).decode_tokens_per_s for n in (0, 12, 24, 48)]
    assert rates == sorted(rates, reverse=True)
    answer = speed_answers(parse_workload(values), target, Machine()).min_n_cpu_moe
    assert answer is not None and 0 < answer < 48
    assert fits(parse_workload({**values, "n_cpu_moe": str(answer)}), target)
    assert not fits(parse_workload({**values, "n_cpu_moe": str(answer - 1)}), target)


def test_the_n_cpu_moe_curve_trades_memory_for_speed():
    values = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4060-ti-16gb"}
    curve = speed_answers(parse_workload(values), parse_target(values), Machine()).n_cpu_moe_curve
    layers = [n for n, _, _ in curve]
    assert layers[0] == 0 and layers[-1] == 48 and layers == sorted(layers)
    memory = [b for _, b, _ in curve]
    rates = [r for _, _, r in curve]
    assert memory == sorted(memory, reverse=True) and rates == sorted(rates, reverse=True)
    dense = speed_answers(parse_workload(LLAMA), parse_target(LLAMA), Machine()).n_cpu_moe_curve
    assert dense == ()


def test_data_parallel_traffic_slows_a_step_over_pcie_not_over_nvlink():
    def step(gpu: str, gpus: int, seq: str = "2048"):
        values = {"model": "llama-3.1-8b", "mode": "training", "gpu": gpu, "gpus": str(gpus), "seq": seq,
                  "checkpointing": "layer"}
        return speed(values, gpus)

    one, eight = step("rtx-4090", 1, "512"), step("rtx-4090", 8, "512")
    # ZeRO-3 over PCIe 4.0: 8 x 4090s gather 16 GB of 16-bit weights twice a step, 4x the compute of 512 tokens
    assert eight.train_tokens_per_s < 3 * one.train_tokens_per_s
    assert any(p.key == "speed.basis.sync" for p in eight.basis)
    h1, h8 = step("h100-80gb", 1), step("h100-80gb", 8)
    assert h8.train_tokens_per_s == pytest.approx(8 * h1.train_tokens_per_s, rel=0.01)  # NVLink keeps up


def test_the_llamacpp_log_line_adds_up_to_the_engines_bytes():
    import re

    from vramcalc.core.units import MIB
    from vramcalc.render.view import present

    workload = parse_workload({"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m",
                               "seq": "4096", "n_cpu_moe": "20"})
    breakdown = estimate(workload)
    line = present(breakdown).runtime_lines[1]
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line.split("MiB:")[1])]
    gpu_self, model, context, compute, host, host_model, host_context, host_compute = numbers
    runtime = breakdown.runtime
    assert gpu_self == pytest.approx((runtime["device_bytes"] - breakdown.bytes_of("overhead")) / MIB, abs=1)
    assert host == pytest.approx(runtime["host_bytes"] / MIB, abs=1)
    assert abs(model + context + compute - gpu_self) <= 2 and abs(host_model + host_context + host_compute - host) <= 2


def test_the_cheapest_card_is_the_lowest_price_per_token_that_fits():
    from vramcalc.analysis.speed_answers import cheapest_card
    from vramcalc.sources.gpus import gpu
    from vramcalc.speed import default_prices

    workload = parse_workload({"model": "llama-3.1-70b", "runtime": "vllm", "precision": "fp8", "batch": "16",
                               "gpu": "h100-80gb"})
    target = parse_target({"gpu": "h100-80gb", "gpus": "2"})
    slug, usd = cheapest_card(workload, target, Machine())
    for other, price in default_prices().items():
        moved = workload.but(gpu=gpu(other))
        there = parse_target({"gpu": other, "gpus": "2"})
        if fits(moved, there):
            rate = speed_of(estimate(moved), there.gpu, 2, Machine()).output_tokens_per_s
            assert price * 2 / (rate * 3600) * 1e6 >= usd - 1e-9, other
    assert fits(workload.but(gpu=gpu(slug)), parse_target({"gpu": slug, "gpus": "2"}))


def test_the_prompt_line_says_when_its_rate_is_fp16_accumulate():
    """llama.cpp's prompt on a GeForce card runs at its FP16-accumulate rate, twice the listed 16-bit one: the
    line says so, so 330 TFLOPS on a 4090 is not read as a wrong --gpu-tflops."""
    geforce, a100 = speed(LLAMA), speed({**LLAMA, "gpu": "a100-80gb"})
    keys = [[p.key for p in s.basis if p.key in ("speed.basis.prefill", "speed.basis.prefill_acc16")]
            for s in (geforce, a100)]
    assert keys == [["speed.basis.prefill_acc16"], ["speed.basis.prefill"]]
    assert "330 TFLOPS" in ENGLISH.say(next(p for p in geforce.basis if p.key == "speed.basis.prefill_acc16"))


def test_the_prompt_line_says_what_copying_layers_from_ram_costs():
    """With layers in system RAM, llama.cpp copies them to the GPU for every micro-batch of the prompt: on a
    model that does not fit, that copy is most of the time to first token, and the basis says how much."""
    whole = speed({**LLAMA, "prompt_tokens": "4096"})
    assert not [p for p in whole.basis if p.key == "speed.basis.prefill_host"]
    split = speed({**LLAMA, "model": "llama-3.1-70b", "prompt_tokens": "4096", "gpu_layers": "40"})
    said = ENGLISH.say(next(p for p in split.basis if p.key == "speed.basis.prefill_host"))
    assert "each of its 8 micro-batches" in said and "GB/s over PCIe" in said
    copy, total = (float(x) for x in re.findall(r"([0-9.]+) s", said)[1::-1])
    assert 0.5 * total < copy < total


def test_the_all_sequences_rate_says_what_the_prompts_take():
    """Under a steady load the engine also prefills new requests' prompts: 32 sequences at 38 tokens/s each give
    fewer than 32 × 38 output tokens/s, and the basis says by how much, not a bare lower number."""
    values = {"model": "qwen3-32b", "runtime": "vllm", "gpu": "h100-80gb", "batch": "32", "seq": "8192"}
    s = speed(values, gpus=2)
    said = ENGLISH.say(next(p for p in s.basis if p.key == "speed.basis.output"))
    assert f"{s.output_tokens_per_s:,.0f} output tokens/s" in said
    assert f"would give {32 / s.tpot_s:,.0f}" in said
    share = 1 - s.output_tokens_per_s * s.tpot_s / 32
    assert f"about {share:.0%} of the engine's time" in said and 0 < share < 1
    assert not [p for p in speed(LLAMA).basis if p.key == "speed.basis.output"]  # one sequence: no such figure


def test_vllm_steps_follow_its_scheduler():
    """speed/serving.py `simulate`, vLLM V1's rules: no step over max_num_batched_tokens, every prompt token and
    every output token computed once when the KV pool holds them all; a small pool preempts (the last running
    request recomputed, less what the prefix cache still holds of it), which costs tokens and never speeds the run
    up; with sliding-window layers a preempted request keeps less to hit, so it recomputes at least as much."""
    import dataclasses

    from vramcalc.speed.serving import simulate

    workload = parse_workload({"model": "llama-3.1-8b", "runtime": "vllm", "gpu": "h100-80gb",
                               "prompt_tokens": "3000", "output_tokens": "50", "seq": "3050"})
    roomy = simulate(workload, requests=40, concurrency=None, max_num_seqs=16, budget=2048, pool_tokens=10**9)
    assert max(tokens for tokens, _ in roomy.tokens) <= 2048
    assert roomy.total_tokens == 40 * (3000 + 50 - 1) and roomy.output == 40 * 50 and roomy.rows == 40 * 50
    tight = simulate(workload, requests=40, concurrency=None, max_num_seqs=16, budget=2048, pool_tokens=8000)
    assert tight.output == roomy.output and tight.total_tokens > roomy.total_tokens and tight.steps > roomy.steps
    # 512-token chunks admit many prompts that outgrow the pool: many preemptions, yet the prefix cache keeps
    # the work under one prompt more (recomputed from the start, it was 2.4 times the roomy run's)
    chunked = simulate(workload, requests=40, concurrency=None, max_num_seqs=16, budget=512, pool_tokens=8000)
    assert roomy.total_tokens < chunked.total_tokens < roomy.total_tokens + 3000
    windowed = workload.but(model=dataclasses.replace(workload.model, sliding_window=1024))
    slid = simulate(windowed, requests=40, concurrency=None, max_num_seqs=16, budget=512, pool_tokens=8000)
    assert slid.output == roomy.output and slid.total_tokens > chunked.total_tokens
    # a client keeping 4 requests in flight takes more steps than all 40 sent at once
    paced = simulate(workload, requests=40, concurrency=4, max_num_seqs=16, budget=2048, pool_tokens=10**9)
    assert paced.total_tokens == roomy.total_tokens and paced.steps > 1.5 * roomy.steps


def test_vllm_hybrid_preemption_resumes_from_its_replay_boundary_or_nothing():
    """vLLM 0.34 on a hybrid model (Gated DeltaNet or Mamba beside attention): prefix caching is on in
    mamba_cache_mode "align" (config/model.py is_prefix_caching_supported, models/config.py MambaModelConfig), the
    block is the enlarged hybrid block B, the one the memory side pads the state to, and the recurrent state is kept
    only at the prompt's replay boundary (P - 1) // B · B (kv_cache_coordinator.py replay_boundaries, retention 0):
    a preempted request resumes there or, its state block evicted, from its first token. Attention-only models keep
    their 64-token blocks (0.34 on CUDA); a model of recurrent layers alone caches nothing ("attention_free")."""
    import dataclasses

    from vramcalc.engines.vllm import vllm_hybrid_block_tokens, vllm_state_bytes
    from vramcalc.model.families.decoder.spec import AttentionKind
    from vramcalc.sources.gpus import gpu
    from vramcalc.speed.serving import simulate

    def run(model: str, prompt: int, output: int, budget: int, pool: int, **change: object) -> float:
        workload = parse_workload({"model": model, "runtime": "vllm", "gpu": "h100-80gb", "prompt_tokens": str(prompt),
                                   "output_tokens": str(output), "seq": str(prompt + output)})
        if change:
            workload = workload.but(model=dataclasses.replace(workload.model, **change))
        steps = simulate(workload, requests=2, concurrency=None, max_num_seqs=2, budget=budget, pool_tokens=pool)
        assert steps.output == 2 * output
        return steps.total_tokens

    qwen = parse_workload({"model": "qwen3.5-27b", "runtime": "vllm"})
    kv = qwen.effective_kv_precision
    # 0.34 rounds by the block before alignment, 64 on CUDA: 64 · ceil(3,207,168 B of state / (64 · 4,096 B)); ROCm's
    # ROCM_ATTN keeps 16 (rocm_attn.py names Qwen3.5's 784), as did 0.33 everywhere
    assert vllm_hybrid_block_tokens(qwen.model, kv) == 832 == vllm_hybrid_block_tokens(qwen.model, kv, gpu("h100-80gb"))
    assert vllm_hybrid_block_tokens(qwen.model, kv, gpu("mi300x")) == 784  # 16 · ceil(3,207,168 / (16 · 4,096))
    assert vllm_state_bytes(qwen.model, kv) == 48 * 832 * 4096  # each of 48 states padded to one block's page
    assert vllm_hybrid_block_tokens(parse_workload({"model": "llama-3.1-8b", "runtime": "vllm"}).model, kv) == 0
    # two prompts of 1,000 fill a pool of 2,040 after 20 tokens each; the second is preempted with 1,020 computed and
    # the first's next 19 tokens take 19 of them: attention-only, it resumes from 960 of its 1,021 (1,000 + 21), the
    # whole 64-token blocks of the 1,001 left
    assert run("llama-3.1-8b", 1000, 40, 4096, 2040) == (1000 + 39) + (1020 + 61 + 18)
    # a hybrid's state at 832 was freed as it computed past it, to the free queue ahead of its other blocks, and the
    # first request's next token evicted it: all 1,021 recomputed
    for model in ("qwen3.5-27b", "nemotron-3-nano-30b-a3b"):
        assert run(model, 1000, 40, 4096, 2040) == (1000 + 39) + (1020 + 1021 + 18), model
    # preempted in the step after its chunk crossed 832 (1,300 of 1,500 computed), it still holds that state: it
    # resumes from 832, where attention-only resumes from 1,280 of the 1,292 left cached
    assert run("llama-3.1-8b", 1500, 10, 1400, 2801) == (1500 + 9) + (1300 + 220 + 9)
    assert run("qwen3.5-27b", 1500, 10, 1400, 2801) == (1500 + 9) + (1300 + 668 + 9)
    # the same with 600 out: the first request's 598 more tokens take the preempted one's freed blocks from its 1,300
    # down to 702, below 832, so its state, held with them, goes too: all 1,500 recomputed (attention-only: 640 kept)
    assert run("llama-3.1-8b", 1500, 600, 1400, 2801) == (1500 + 599) + (1300 + 860 + 599)
    assert run("qwen3.5-27b", 1500, 600, 1400, 2801) == (1500 + 599) + (1300 + 1500 + 599)
    # recurrent layers alone: no prefix cache
    assert run("qwen3.5-27b", 1000, 40, 4096, 2040, kinds=(AttentionKind.LINEAR,) * 64) == 1039 + 1020 + 1021 + 18


def test_routed_experts_are_the_unused_parameters_scaled():
    """A token multiplies k of E routed experts: routed_params · (E − k) / k is what it leaves unused."""
    from vramcalc.model.table import active_param_count, param_count
    from vramcalc.speed.serving import routed_params

    model = parse_workload({"model": "qwen3-235b-a22b", "runtime": "vllm"}).model
    assert model.moe is not None
    unused = param_count(model) - active_param_count(model)
    moe = model.moe
    assert routed_params(model) * (moe.experts - moe.per_token) / moe.per_token == pytest.approx(unused)
    assert 10e9 < routed_params(model) < active_param_count(model)
    assert routed_params(parse_workload({"model": "llama-3.1-8b"}).model) == 0


def test_vllm_batch_defaults_keep_the_a100_small():
    """vLLM's get_batch_defaults (tests/engine/test_arg_utils.py): 8192 tokens and 1024 sequences per step from
    70 GiB, except on an A100, which keeps 2048 and 256."""
    from vramcalc.engines.vllm import vllm_batch_defaults
    from vramcalc.sources.gpus import gpu

    h100, a100 = gpu("h100-80gb"), gpu("a100-80gb")
    assert vllm_batch_defaults(h100.usable_bytes, h100.display_name) == (8192, 1024)
    assert vllm_batch_defaults(a100.usable_bytes, a100.display_name) == (2048, 256)


def test_a_moe_serves_slower_than_its_active_size_alone_says():
    """The routed experts' grouped matmuls run at moe_compute of the 16-bit rate (fused MoE), below a dense GEMM's
    share: a prompt-heavy load of a mixture of experts is slower than the same FLOPs at the dense share."""
    from vramcalc.speed import hardware

    values = {"model": "qwen3-30b-a3b", "runtime": "vllm", "gpu": "h100-80gb", "batch": "64",
              "prompt_tokens": "4000", "output_tokens": "100"}
    rates = hardware.calibration()["engines"]["vllm"]
    base = speed(values).output_tokens_per_s
    kept = rates["moe_compute"]
    try:
        rates["moe_compute"] = 10.0  # as if the experts ran at a dense GEMM's rate and more
        fast = speed(values).output_tokens_per_s
    finally:
        rates["moe_compute"] = kept
    assert fast > 1.1 * base


def test_the_verdicts_speed_line_says_when_the_run_cannot_start():
    """The verdict of a model the card cannot hold said 'About 98 tokens/s per sequence' as if it ran."""
    from vramcalc.analysis.speed_answers import evaluate_speed
    from vramcalc.inputs.parse import parse_machine, parse_target
    from vramcalc.render.speed import present_speed

    def line(gpu: str) -> str:
        values = {**LLAMA, "model": "qwen3.6-35b-a3b", "gpu": gpu}
        workload = parse_workload(values)
        return present_speed(workload, evaluate_speed(workload, parse_target(values), parse_machine(values))).line

    assert line("rtx-4070").endswith(", if it fit.") and not line("rtx-5090").endswith(", if it fit.")


def test_zero3_gathers_the_policy_for_its_passes_and_a_model_for_each_forward_without_gradients():
    # TRL shards the reference as it shards the policy (dpo_trainer.py `_prepare_deepspeed`): under ZeRO-3 a DPO
    # micro-step gathers the policy for its forward and backward and the reference once, 3 models' weights, not
    # the 4 of gathering everything the GPUs hold twice; precomputed log-probabilities leave the policy's 2; KTO's
    # KL forward by the policy and the reference's two make 5
    from vramcalc.memory.states import weights_bytes
    from vramcalc.speed.training import gathered_bytes

    base = {"model": "mistral-7b", "mode": "training", "gpu": "h100-80gb", "gpus": "8", "zero": "3",
            "recipe": "mixed", "batch": "8", "seq": "1024"}
    for objective, reference, models in (("sft", "", 2), ("dpo", "", 3), ("dpo", "precomputed", 2), ("kto", "", 5),
                                         ("kto", "precomputed", 3), ("orpo", "", 2)):
        workload = parse_workload({**base, "objective": objective, "reference": reference})
        held = estimate(workload).sizes["weights"]
        policy = weights_bytes(workload).bytes
        assert gathered_bytes(workload, held) == pytest.approx(models * policy), (objective, reference)
    lora = parse_workload({**base, "objective": "dpo", "lora_rank": "16", "recipe": ""})  # the reference: adapters off
    assert gathered_bytes(lora, estimate(lora).sizes["weights"]) == pytest.approx(3 * weights_bytes(lora).bytes)
