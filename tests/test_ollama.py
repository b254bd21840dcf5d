"""Ollama as its own runtime: llama.cpp's memory under Ollama's context and defaults
(docs/research/engines.md §1d, §4.2)."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.errors import ValidationError
from vramcalc.engines.ollama import num_ctx
from vramcalc.inputs.parse import parse_workload
from vramcalc.render.messages import ENGLISH
from vramcalc.speed.validation import backend

BASE = {"model": "llama-3.1-8b", "runtime": "ollama", "precision": "q4_k_m"}


@pytest.mark.parametrize(("gpu", "ctx"), [("rtx-4060-ti-16gb", 4096), ("rtx-4090", 32768), ("rtx-6000-ada", 32768),
                                          ("h100-80gb", 131072)])
def test_the_default_context_is_tiered_by_the_gpus_memory_and_capped_at_the_models(gpu, ctx):
    # 16 GB: 4,096; 24 GB (23.6 GiB) and 48 GB (44.4 GiB): 32,768; 80 GB: 262,144, capped at 131,072 (Llama 3.1)
    assert num_ctx(parse_workload({**BASE, "gpu": gpu})) == (ctx, False)


def test_its_cache_is_llamacpps_at_its_context_whatever_the_request():
    ollama = estimate(parse_workload({**BASE, "gpu": "rtx-4090", "seq": "2048"}))
    llamacpp = estimate(parse_workload({**BASE, "runtime": "llamacpp", "gpu": "rtx-4090", "seq": "32768"}))
    assert ollama.bytes_of("kv_cache") == llamacpp.bytes_of("kv_cache")
    assert ollama.total_bytes == llamacpp.total_bytes
    given = estimate(parse_workload({**BASE, "gpu": "rtx-4090", "num_ctx": "8192", "seq": "20000"}))
    kv = next(c for c in given.components if c.key == "kv_cache")
    assert "8,192 tokens per sequence (num_ctx)" in ENGLISH.say(kv.formula)
    assert "longer prompts are cut" in ENGLISH.say(kv.formula)


@pytest.mark.parametrize(("values", "field"), [({"kv_precision_k": "q8_0"}, "kv_precision_k"),
                                                ({"n_cpu_moe": "4"}, "n_cpu_moe"), ({"cpu_moe": "1"}, "cpu_moe"),
                                                ({"precision": "awq-int4"}, "precision")])
def test_what_ollama_cannot_set_is_refused_naming_the_field(values, field):
    with pytest.raises(ValidationError) as error:
        parse_workload({**BASE, **values})
    assert error.value.field == field


def test_its_speed_is_llamacpps():
    workload = parse_workload({**BASE, "gpu": "rtx-4090"})
    assert backend(workload) == "llamacpp-cuda"


@pytest.mark.parametrize(("version", "ctx"), [("0.5.13", 2048), ("v0.6.7", 4096), ("0.15.4", 4096),
                                              ("0.15.5", 32768), ("", 32768), ("0.40", 32768)])
def test_the_default_context_of_each_version(version, ctx):
    """44b466eeb (v0.6.7): 2,048 → 4,096; 0334ffa62 (v0.15.5): by the GPU's memory (a 24 GB card: 32,768);
    empty is the latest read, and a later version is taken to behave as it."""
    assert num_ctx(parse_workload({**BASE, "gpu": "rtx-4090", "ollama_version": version})) == (ctx, False)


@pytest.mark.parametrize(("version", "gpu", "sequences"), [
    ("0.1.48", "rtx-4090", 1),  # before 9929751cc: one
    ("0.6.6", "rtx-4090", 4),  # 4 × 2,048 fit a 24 GB card whole
    ("0.9.6", "rtx-4090", 2),  # fe5b9bb21: 2 × 4,096
    ("0.9.7", "rtx-4090", 1),  # 20c3266e9: one
    ("0.6.6", "rtx-3060-12gb", 1),  # Llama 3.1 70B does not fit at all: back to one
])
def test_before_v0_9_7_ollama_runs_as_many_sequences_as_fit_whole(version, gpu, sequences):
    """server/sched.go pickBestFullFitByLibrary: with OLLAMA_NUM_PARALLEL not set, the default number of
    sequences if the model then fits the GPU whole, else one; each sequence keeps num_ctx cells."""
    model = "llama-3.1-70b" if gpu == "rtx-3060-12gb" else "llama-3.1-8b"
    breakdown = estimate(parse_workload({**BASE, "model": model, "gpu": gpu, "ollama_version": version}))
    assert breakdown.runtime["n_seq"] == sequences
    one = estimate(parse_workload({**BASE, "model": model, "gpu": gpu, "runtime": "llamacpp",
                                   "seq": str(breakdown.runtime["n_ctx"])}))
    assert breakdown.bytes_of("kv_cache") == sequences * one.bytes_of("kv_cache")


def test_the_sequences_fall_back_to_one_when_several_would_not_fit_whole():
    """Llama 3.1 8B Q4_K_M at v0.6.6 with num_ctx 65,536: four such sequences (32 GiB of cache) do not fit a
    24 GB card whole, so Ollama runs one, and the answer says what it tried."""
    breakdown = estimate(parse_workload({**BASE, "gpu": "rtx-4090", "ollama_version": "0.6.6", "num_ctx": "65536"}))
    kv = ENGLISH.say(next(c for c in breakdown.components if c.key == "kv_cache").formula)
    assert breakdown.runtime["n_seq"] == 1 and "tries 4 sequences, then one" in kv


def test_versions_are_read_as_ollama_prints_them_and_bad_ones_name_the_field():
    assert parse_workload({**BASE, "ollama_version": "v0.12.3-rc1"}).ollama_version == (0, 12, 3)
    for text in ("0.x", "latest-ish", "0.0.9"):
        with pytest.raises(ValidationError) as error:
            parse_workload({**BASE, "ollama_version": text})
        assert error.value.field == "ollama_version"
    with pytest.raises(ValidationError) as error:  # OLLAMA_KV_CACHE_TYPE came with v0.4.8
        parse_workload({**BASE, "ollama_version": "0.4.7", "kv_precision": "q8_0"})
    assert error.value.field == "kv_precision"


def _weights_said(breakdown) -> str:
    return ENGLISH.say(next(c for c in breakdown.components if c.key == "weights").formula)


@pytest.mark.parametrize(("model", "card", "experts"), [("qwen3-32b", "rtx-4060-ti-16gb", False),
                                                         ("qwen3-30b-a3b", "rtx-3060-12gb", True)])
def test_since_v0_30_the_layers_are_where_llama_servers_fit_puts_them(model, card, experts):
    """num_gpu not set: Ollama starts llama-server without -ngl and its --fit moves layers (of a mixture of
    experts, experts) to system RAM until the card holds the rest: the breakdown is of that plan."""
    from vramcalc.analysis.speed_answers import fit_plan
    from vramcalc.engines.llamacpp import LlamaCppFacts
    from vramcalc.inputs.parse import parse_target

    values = {**BASE, "model": model, "gpu": card}
    workload = parse_workload(values)
    fitted = estimate(workload)
    plan = fit_plan(workload, parse_target(values))
    assert plan is not None and plan.changed and plan.fits and bool(plan.overrides) is experts
    assert isinstance(fitted.facts, LlamaCppFacts)
    assert fitted.facts.layout.layers_on_gpu + 1 == plan.gpu_layers and fitted.host_bytes > 0
    assert fitted.total_bytes <= workload.gpu.usable_bytes
    assert f"offloaded {plan.gpu_layers}/{workload.model.layers + 1} layers to GPU" in _weights_said(fitted)
    whole = estimate(workload.but(gpu_layers=workload.model.layers + 1))  # num_gpu set: as asked, all layers
    older = estimate(workload.but(ollama_version=(0, 29, 0)))  # its own runner then: not reproduced, all layers
    two = estimate(parse_workload({**values, "gpus": "2"}))  # its fit over two cards is not this one's
    for kept in (whole, older, two):
        assert kept.total_bytes > workload.gpu.usable_bytes and "offloaded" not in _weights_said(kept)


def test_the_searches_and_the_card_table_ask_for_the_model_whole():
    """The reverse answers and the table of cards ask what llama.cpp's do, the model whole on the card: the fit
    would answer "fits" on every card, at a fit per trial. The run itself is Ollama's, and it starts."""
    from vramcalc.analysis.fit import fit_all
    from vramcalc.analysis.solve import solve
    from vramcalc.analysis.speed_answers import speed_answers
    from vramcalc.inputs.parse import parse_target
    from vramcalc.workload import Machine

    values = {**BASE, "model": "qwen3-32b", "gpu": "rtx-4060-ti-16gb"}
    workload, target = parse_workload(values), parse_target(values)
    whole = workload.but(gpu_layers=workload.model.layers + 1)
    assert solve(workload, target) == solve(whole, target)
    row = next(f for f in fit_all(estimate(workload)) if f.gpu.slug == "rtx-4060-ti-16gb")
    assert row.utilization > 1 and row == next(f for f in fit_all(estimate(whole)) if f.gpu == row.gpu)
    answers = speed_answers(workload, target, Machine())
    assert answers.fits and answers.fastest_format == speed_answers(whole, target, Machine()).fastest_format


def test_a_model_the_card_holds_stays_whole():
    fitted = estimate(parse_workload({**BASE, "gpu": "rtx-4090"}))
    assert fitted.host_bytes < 10**9 and "offloaded" not in _weights_said(fitted)  # the token embeddings only


def test_its_speed_is_of_the_prompt_its_context_holds():
    """A request longer than num_ctx is cut to it: the speed is that of the prompt Ollama keeps."""
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    def timed(values):
        workload = parse_workload({**BASE, "gpu": "rtx-4060-ti-16gb", **values})
        return speed_of(estimate(workload), workload.gpu, 1, Machine())

    cut, kept = timed({"seq": "8192", "output_tokens": "256"}), timed({"seq": "4096", "output_tokens": "256"})
    assert cut.prompt_tokens == kept.prompt_tokens == 4096 - 256 and cut.ttft_s == kept.ttft_s
    assert cut.decode_tokens_per_s == kept.decode_tokens_per_s
    assert timed({"seq": "8192", "output_tokens": "6000"}).output_tokens == 2048  # half the context at most


@pytest.mark.parametrize(("precision", "said"), [("auto", True), ("f16", True), ("q4_k_m", False)])
def test_a_16_bit_file_says_ollamas_tags_are_q4_k_m(precision, said):
    """`ollama run gemma4:31b` downloads Q4_K_M; the calculator's auto for a GGUF engine is the 16-bit file, a size
    three times that: the answer says so rather than leave the 16-bit total as Ollama's."""
    workload = parse_workload({"model": "gemma-4-31b-it", "runtime": "ollama", "precision": precision})
    assert ("note.ollama_tags" in [note.key for note in estimate(workload).notes]) is said
