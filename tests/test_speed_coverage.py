"""Issue 24's coverage: every mode, engine and layout gives its speed and cost, or says why not, and the figures
agree with each other and with their basis (tools/speed_coverage.py runs the whole grid; docs/accuracy.md,
"Speed and cost coverage")."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

from vramcalc.analysis.speed_answers import evaluate_speed, speed_answers
from vramcalc.cli import main
from vramcalc.inputs.parse import parse_target, parse_workload
from vramcalc.render.messages import Words
from vramcalc.render.speed import present_speed
from vramcalc.workload import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import speed_coverage


def cli_json(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize("card", ["24gb", "apple-m4-max-128gb", "rtx-3090,rtx-4060-ti-16gb"])
def test_a_card_without_a_price_says_why_there_is_no_cost(card):
    data = cli_json("--model", "llama-3.1-8b", "--runtime", "llamacpp", "--gpu", card)
    assert data["cost"]["usd_per_hour"] is None
    assert len(data["cost_basis"]) == 1 and "--gpu-hour-price" in data["cost_basis"][0]
    workload = parse_workload({"model": "llama-3.1-8b", "runtime": "llamacpp", "gpu": card})
    target = parse_target({"gpu": card})
    for language in ("en", "pt"):
        basis = present_speed(workload, evaluate_speed(workload, target, Machine()), words=Words(language)).basis
        assert any("--gpu-hour-price" in line for line in basis), language


def test_a_priced_card_says_where_its_price_comes_from():
    data = cli_json("--model", "llama-3.1-8b", "--gpu", "h100-80gb")
    assert data["cost"]["usd_per_hour"] and "cloud price" in data["cost_basis"][0]
    given = cli_json("--model", "llama-3.1-8b", "--gpu", "24gb", "--gpu-hour-price", "0.4")
    assert given["cost"]["usd_per_hour"] == 0.4 and "given" in given["cost_basis"][0]


def test_ollamas_concurrency_says_the_model_is_not_whole_not_that_one_sequence_is_slow():
    """Ollama runs the model with layers in RAM (it fits), but the reverse answers ask for it whole on the card:
    "one sequence alone is slower than 10 tokens/s" was said beside a decode of 16.6 tokens/s."""
    values = {"model": "qwen3-30b-a3b", "runtime": "ollama", "precision": "f16", "gpu": "rtx-4090"}
    workload, target = parse_workload(values), parse_target(values)
    result = evaluate_speed(workload, target, Machine())
    assert result.answers.fits and not result.answers.searched_fits
    assert result.speed.decode_tokens_per_s > 10 and result.answers.max_concurrency is None
    said = dict((key, value) for key, _, value in present_speed(workload, result).figures)
    assert said["max_concurrency"] == "none: one sequence does not fit with every layer on the GPU"


def test_the_format_asked_for_is_ranked_when_the_ladder_lacks_it():
    """An AWQ Qwen3-30B-A3B fits a 4090 on transformers, but none of transformers' ladder (bf16, bnb-int8, nf4) does:
    "the fastest weights that fit" said none, beside the speed of the one that runs."""
    values = {"model": "qwen3-30b-a3b", "runtime": "transformers", "precision": "awq-int4", "gpu": "rtx-4090"}
    workload, target = parse_workload(values), parse_target(values)
    assert speed_answers(workload, target, Machine()).fastest_format == "awq-int4"


def test_fit_gives_its_speed_and_answers_in_words():
    """`fit --json` carries a speed and a cost: their basis too, and each answer in words, a null one's reason."""
    data = cli_json("fit", "--model", "llama-3.1-70b", "--runtime", "ollama", "--gpu", "rtx-4090")
    assert data["speed_basis"] and data["cost_basis"]
    assert data["max_concurrency"] is None
    assert data["speed_figures"]["max_concurrency"] == "none: one sequence does not fit with every layer on the GPU"


def test_a_pipeline_gives_its_cost_and_says_why_it_is_not_timed():
    """`diffusion --json` had a null speed and no cost: on a card given as 24gb it did not say why, and no run
    was priced. Now its words say why, --gpu-tflops times the card, and the cost is the time at the price."""
    untimed = cli_json("diffusion", "--gpu", "24gb")
    assert untimed["speed"] is None and "tensor rate" in untimed["speed_basis"][0]
    assert untimed["cost"] == {"usd_per_hour": None, "usd_per_output": None}
    assert "--gpu-hour-price" in untimed["cost_basis"][0]
    timed = cli_json("diffusion", "--gpu", "24gb", "--gpu-tflops", "142", "--gpu-hour-price", "0.5")
    per_image = timed["speed"]["per_output_s"]
    assert timed["speed"]["tflops"] == 142 and timed["speed_basis"]
    assert timed["cost"]["usd_per_output"] == pytest.approx(0.5 * per_image / 3600, rel=1e-3)
    priced = cli_json("diffusion", "--gpu", "h100-80gb")
    assert priced["cost"]["usd_per_hour"] > 0 and "cloud price" in priced["cost_basis"][0]
    training = cli_json("diffusion", "--train-lora", "16", "--gpu", "h100-80gb")
    assert training["speed"] is None and "not modelled" in training["speed_basis"][0]


def test_the_page_prices_a_pipeline_on_a_priced_card():
    from vramcalc.diffusion.pipelines import pipeline
    from vramcalc.diffusion.run import Request, evaluate
    from vramcalc.render.diffusion import present_diffusion
    from vramcalc.sources.gpus import gpu

    chosen = pipeline("flux.1-dev")
    run = evaluate(chosen, Request(width=chosen.width, height=chosen.height, frames=chosen.frames, batch=1,
                                   cfg=chosen.cfg, placement="gpu", precision="bf16", text_precision="bf16",
                                   vae_precision="bf16"))
    for language in ("en", "pt"):
        notes = present_diffusion(run, gpu=gpu("h100-80gb"), words=Words(language)).notes
        assert any("US$0.0092" in note or "US$0,0092" in note for note in notes), language
        unpriced = present_diffusion(run, gpu=gpu("rtx-4060-ti-16gb"), words=Words(language)).notes
        assert any("--gpu-hour-price" in note for note in unpriced), language


def test_the_whole_grid_is_clean():
    """Every combination of tools/speed_coverage.py (modes, engines, layouts, cards, formats), its monotonic pairs
    and a sample of its fit answers: no figure missing without a reason, none NaN or negative, none disagreeing."""
    argvs = list(dict.fromkeys(speed_coverage.grid()))
    results = speed_coverage.audit([*argvs, *speed_coverage.diffusion_grid()])
    assert not results["tracebacks"]
    assert results["runs"] > 750 and results["refused"] <= 60  # vLLM on a Mac, and a few refused as TRL refuses
    flags = [f"{' '.join(argv)}: {flag}" for argv, flag in results["flags"]]
    for name, low, high, key, sign in [*speed_coverage.pairs(), *speed_coverage.diffusion_pairs()]:
        flag = speed_coverage.monotonic(name, low, high, key, sign)
        if flag:
            flags.append(flag)
    for argv in argvs[::15]:
        flags += speed_coverage.fit_check(argv)[0]
    assert not flags, "\n".join(flags)


def test_the_checks_can_fail():
    """The grid's checks on a made-up answer: each inconsistency is caught."""
    argv = ("--model", "x", "--gpu", "24gb")
    good = {"speed": {"prefill_tokens_per_s": 1000.0, "decode_tokens_per_s": 50.0, "output_tokens_per_s": 40.0,
                      "ttft_s": 1.0, "tpot_s": 0.02, "bound": "memory", "step_s": None, "train_tokens_per_s": None,
                      "mfu": None, "rollout_s": None, "prompt_tokens": 1000, "output_tokens": 256, "sequences": 1,
                      "requests_per_s": None, "transcribe_s": None, "real_time_factor": None},
            "cost": {"usd_per_hour": 1.0, "usd_per_million_output_tokens": 1e6 / (40 * 3600), "run_hours": None,
                     "run_usd": None},
            "cost_basis": ["Costs at the price per GPU-hour given."], "speed_basis": [],
            "per_gpu": {"layout": "one GPU"}}
    assert speed_coverage.check(argv, good) == []
    for key, value in (("tpot_s", 0.03), ("ttft_s", 2.0), ("output_tokens_per_s", 60.0),
                       ("decode_tokens_per_s", float("nan")), ("prefill_tokens_per_s", None)):
        assert speed_coverage.check(argv, {**good, "speed": {**good["speed"], key: value}}), key
    assert speed_coverage.check(argv, {**good, "cost": {**good["cost"], "usd_per_million_output_tokens": 9.0}})
    assert speed_coverage.check(argv, {**good, "cost": {**good["cost"], "usd_per_hour": None}, "cost_basis": []})
    lying = {**good, "speed_basis": ["Memory-bound: 1 GB read per step (30.0 ms per token on average)."]}
    assert speed_coverage.check(argv, lying)


@pytest.mark.parametrize("argv", [
    ("--precision", "fp32", "--gpu", "rtx-4090"),  # transformers: its launches overlap the read, not added to it
    ("--model", "llama-3.1-70b", "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "2", "--tp", "2"),  # per GPU
    ("--model", "qwen3-30b-a3b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4060-ti-8gb",
     "--n-cpu-moe", "10"),  # experts in RAM, read at llama.cpp's share of its bandwidth
    ("--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "h100-80gb", "--parallel", "64", "--prompt-tokens",
     "1000", "--output-tokens", "500"),  # a cache read at a lower share than the weights
])
def test_the_memory_bound_basis_adds_up_to_its_step(argv):
    """The basis said 32.14 GB at 90% of 1,008 GB/s plus 24 ms per step, 59 ms, beside a 35.4 ms step; 141.65 GB at
    95% of 3,350 GB/s (44 ms) beside 29 ms on two GPUs; and left out the experts read from RAM and the cache's lower
    share: its numbers now add up as the step is computed."""
    line = cli_json("--model", "llama-3.1-8b", *argv)["speed_basis"][0]
    found = speed_coverage.MEMORY.search(line)
    assert found, line
    assert speed_coverage._memory_flags(argv, [float(g.replace(",", "")) if g else 0.0 for g in found.groups()]) == []


def test_the_ram_bound_basis_names_the_share_of_the_ram_it_reads_at():
    line = cli_json("--model", "llama-3.1-70b", "--runtime", "ollama", "--gpu", "rtx-4090")["speed_basis"][0]
    assert line.startswith("Bound by system RAM: 120.36 GB read per step from RAM at 75% of 64 GB/s")


@pytest.mark.parametrize("argv", [
    ("--model", "llama-3.1-8b", "--lora-rank", "16", "--gpu", "rtx-4090", "--seq", "2048"),  # recompute beside MFU
    ("--model", "qwen3-0.6b", "--gpu", "rtx-3060", "--seq", "512"),  # was "0.0 PFLOP at 68% of 26 TFLOPS"
    ("--model", "qwen3-0.6b", "--gpu", "apple-m1-8gb", "--seq", "512"),  # 2.6 TFLOPS shown as 3
    ("--model", "qwen3-1.7b", "--objective", "grpo", "--batch", "8", "--gpu", "h100-80gb", "--seq", "1024"),
])
def test_the_training_basis_gives_the_step(argv):
    """The basis gave the FLOPs with the recompute beside a utilisation of the model's FLOPs only (0.1 PFLOP at 68%
    of 165 TFLOPS: 0.89 s, beside a 0.57 s step), to one decimal (0.0 PFLOP) and the card's TFLOPS rounded to a
    whole number: the model's FLOPs over their utilisation of the card now give the step."""
    data = cli_json("--mode", "training", *argv)
    found = speed_coverage.TRAINING_STEP.search(data["speed_basis"][0])
    assert found, data["speed_basis"][0]
    pflop, mfu, tflops = (float(g.replace(",", "")) for g in found.groups())
    assert pflop * 1e15 / (mfu / 100 * tflops * 1e12) == pytest.approx(data["speed"]["step_s"], rel=0.02)


@pytest.mark.parametrize("argv", [
    ("--model", "llama-3.1-8b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4090"),
    ("--model", "llama-3.1-70b", "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "2", "--tp", "2"),
    ("--model", "bge-m3", "--mode", "embedding", "--runtime", "llamacpp", "--gpu", "l4", "--batch", "32", "--seq",
     "512"),
    ("--model", "bge-m3", "--mode", "embedding", "--gpu", "l4", "--gpus", "2"),
])
def test_the_prompt_basis_gives_the_first_token(argv):
    """The prompt's basis gave its matmuls only (llama.cpp on a 4090: 0.74 s of them beside a first token at 1.0 s),
    at one GPU's rate under tensor parallelism (twice the time), and an embedder's FLOPs to one decimal (0.3 TFLOP):
    it now says what the rest of the time is and gives each GPU's rate."""
    assert speed_coverage.check(argv, cli_json(*argv)) == []


@pytest.mark.parametrize("runtime", ["transformers", "faster-whisper"])
def test_a_short_transcriptions_basis_adds_up(runtime):
    """Its parts were given to 0.1 s: 20 s of audio read "0.0 + 1.6 + 0.1 s" beside 1.73 s, and 120 tokens of
    13.2 ms as 1.6 s. Three significant figures now."""
    argv = ("--model", "whisper-small", "--mode", "speech", "--runtime", runtime, "--gpu", "l4", "--audio-seconds",
            "20")
    data = cli_json(*argv)
    assert speed_coverage.SPEECH_BASIS.search(data["speed_basis"][0]) and speed_coverage.check(argv, data) == []


@pytest.mark.parametrize(("values", "key", "figure"), [
    ({"model": "bge-m3", "mode": "embedding", "gpu": "l4", "batch": "32", "seq": "512"}, "usd_per_million_input_tokens",
     "cost_embed"),
    ({"model": "whisper-small", "mode": "speech", "gpu": "l4", "gpus": "2"}, "usd_per_audio_hour", "cost_audio"),
])
def test_an_embedder_and_a_transcriber_have_a_cost(values, key, figure):
    """An embedder or a speech model on a priced card had a price per hour and no cost of its work: it makes no output
    tokens. Their cost is per million tokens embedded and per hour of audio (each GPU transcribes its own)."""
    argv = [f"--{name}={value}" for name, value in values.items()]
    data = cli_json(*argv)
    speed, cost = data["speed"], data["cost"]
    expected = (cost["usd_per_hour"] / (speed["prefill_tokens_per_s"] * 3600) * 1e6 if key.endswith("tokens")
                else cost["usd_per_hour"] / 2 * speed["real_time_factor"])
    assert cost[key] == pytest.approx(expected, rel=1e-4)
    workload, target = parse_workload(values), parse_target(values)
    for language in ("en", "pt"):
        view = present_speed(workload, evaluate_speed(workload, target, Machine()), words=Words(language))
        assert figure in [name for name, _, _ in view.figures], language
