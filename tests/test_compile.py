"""torch.compile (`compile`): what each compiled layer saves for backward, against the bytes measured on
transformers' layers under inductor (tests/golden/measured_compile.json, written by tools/measure_compile.py), and
torchtune's own layer measured beside them for the framework's note."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vramcalc import ValidationError, parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention
from vramcalc.memory.activations import compiled
from vramcalc.memory.logits import chunked_output_loss
from vramcalc.model.families.decoder.saved import compile_measured, layers_saved
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.training.lora import Lora, layer_matrices

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_compile.json").read_text(encoding="utf-8"))
TRANSFORMERS = [case for case in GOLDEN["cases"] if case["family"] != "torchtune"]
TORCHTUNE = [case for case in GOLDEN["cases"] if case["family"] == "torchtune"]
TARGETS = {"q,v,o,gate,up,down": ("q", "v", "o", "gate", "up", "down"), "all-linear": ("all-linear",)}


def _id(case):
    lora = case["lora"]
    c = case["config"]
    return f"{case['family']}-h{c['hidden_size']}-d{c['head_dim']}" + (f"-lora-{lora['targets']}" if lora else "")


def _layer(case, *, compiled_layer: bool) -> int:
    model = from_hf_config({**case["config"], "vocab_size": 256, "num_hidden_layers": 1})
    lora = case["lora"]
    matrices = ()
    if lora:
        spec = Lora(rank=lora["rank"], targets=TARGETS[lora["targets"]])
        matrices = layer_matrices(model, spec)
    assert compile_measured(model, 2, Attention.FLASH)
    return layers_saved(model, 2, Attention.FLASH, case["seq"], matrices, lora["rank"] if lora else 0, 0.0, 2,
                        compiled=compiled_layer)[1]


@pytest.mark.parametrize("case", TRANSFORMERS, ids=[_id(c) for c in TRANSFORMERS])
def test_a_compiled_layer_saves_what_inductor_keeps(case):
    assert _layer(case, compiled_layer=True) == case["compiled_bytes_per_token"]
    assert _layer(case, compiled_layer=False) == case["eager_bytes_per_token"]  # the hook sees what the tracker did


def test_torchtunes_own_layer_saves_what_its_note_says():
    """The framework's note: torchtune's layers keep 7 to 16 % more than transformers' (K and V repeated to every
    query head, an fp32 copy more in each RMSNorm), eager and compiled."""
    assert TORCHTUNE
    for case in TORCHTUNE:
        config = {**case["config"], "model_type": "llama"}
        ratios = [case[f"{way}_bytes_per_token"] / _layer({**case, "config": config}, compiled_layer=way == "compiled")
                  for way in ("eager", "compiled")]
        assert all(1.07 <= r <= 1.16 for r in ratios), (_id(case), ratios)
    notes = estimate(parse_workload({"mode": "training", "model": "llama-3.2-1b", "framework": "torchtune"})).notes
    assert any("7 to 16 %" in ENGLISH.say(n) for n in notes)


TRAINING = {"mode": "training", "model": "llama-3.2-3b", "batch": "2", "seq": "2048", "precision": "bf16",
            "recipe": "bf16"}


def test_compile_lowers_the_activations_and_says_so():
    eager, fast = (estimate(parse_workload({**TRAINING, **extra})) for extra in ({}, {"compile": "1"}))
    assert fast.bytes_of("activations") < 0.75 * eager.bytes_of("activations")
    said = [ENGLISH.say(n) for n in fast.notes]
    assert any("torch.compile: each layer keeps 90,216 B per token, 131,176 B without it" in n for n in said)


@pytest.mark.parametrize("extra", [
    {"model": "mixtral-8x7b"},  # experts: not measured
    {"model": "gemma-2-9b"},  # sliding layers, Gemma's norms
    {"attention": "eager"},
    {"lora_rank": "16", "lora_targets": "q,v", "lora_dtype": "bf16"},  # the MLP's inputs not adapted
    {"lora_rank": "16"},  # peft's fp32 adapters
])
def test_where_compile_is_not_measured_the_layers_count_as_eager_and_the_answer_says_so(extra):
    values = {**TRAINING, **extra}
    eager, asked = (estimate(parse_workload({**values, **more})) for more in ({}, {"compile": "1"}))
    assert not compiled(asked.workload) and asked.total_bytes == eager.total_bytes
    assert any("torch.compile is measured for dense Llama-style layers" in ENGLISH.say(a) for a in asked.assumptions)


def test_lora_on_every_input_is_measured_under_compile():
    run = parse_workload({**TRAINING, "compile": "1", "lora_rank": "16", "lora_dtype": "bf16"})
    assert compiled(run)
    said = [ENGLISH.say(n) for n in estimate(run).notes]  # LoRA's layer, compiled and not (r·e per matrix more)
    assert any("keeps 90,440 B per token, 119,112 B without it" in n for n in said)


def test_compile_is_a_training_setting():
    with pytest.raises(ValidationError) as error:
        parse_workload({"model": "llama-3.2-3b", "compile": "1"})
    assert error.value.field == "compile"


CHUNKED = json.loads((Path(__file__).parent / "golden" / "measured_chunked_loss.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CHUNKED["cases"], ids=lambda c: f"{c['batch']}x{c['seq']}-v{c['vocab']}-{c['chunks']}")
def test_torchtunes_chunked_output_loss(case):
    """CEWithChunkedOutputLoss (torchtune 0.6.1's own file) measured on the CPU (tools/measure_chunked_loss.py):
    eager, the forward's worst (the bf16 chunks, every chunk's fp32 log-softmax and the last chunk's fp32 copy) and the
    loss backward's (the log-softmax and one chunk's two fp32 gradients); compiled, what the compiled loss keeps."""
    base = parse_workload({"mode": "training", "model": "llama-3.2-1b", "precision": "bf16", "recipe": "bf16"})
    run = base.but(model=dataclasses.replace(base.model, vocab=case["vocab"]), batch=case["batch"], seq=case["seq"],
                   ce_output_chunks=case["chunks"])
    kept, in_loss, transient = chunked_output_loss(run)
    assert kept + transient // 2 == pytest.approx(case["forward_peak"], rel=0.005)
    assert in_loss + transient == pytest.approx(case["backward_peak"], rel=0.005)
    assert chunked_output_loss(run.but(compile=True))[0] == pytest.approx(case["compiled_saved"], rel=0.005)


def test_torchtunes_defaults_are_its_release():
    """torchtune 0.6.1 (what pip installs) runs CEWithChunkedOutputLoss with 8 chunks; fused_ce stays for its main
    branch's LinearCrossEntropyLoss, and one loss is chosen at a time."""
    run = parse_workload({**TRAINING, "framework": "torchtune"})
    assert run.ce_output_chunks == 8 and not run.fused_ce
    main_branch = parse_workload({**TRAINING, "framework": "torchtune", "fused_ce": "1"})  # LinearCrossEntropyLoss
    assert main_branch.fused_ce and not main_branch.ce_output_chunks
    short = estimate(parse_workload({**TRAINING, "framework": "torchtune", "seq": "4"}))  # h.chunk(8): 4 chunks
    assert "(4 chunks)" in _logits_said(short)
    with pytest.raises(ValidationError) as error:
        parse_workload({**TRAINING, "fused_ce": "1", "ce_output_chunks": "8"})
    assert error.value.field == "ce_output_chunks"


def test_in_fp32_the_chunked_loss_copies_nothing_and_says_4_bytes():
    run = estimate(parse_workload({"mode": "training", "model": "llama-3.2-1b", "precision": "fp32", "seq": "1024",
                                   "ce_output_chunks": "8"}))
    said = _logits_said(run)
    assert "× 8 B" in said and "fp32 logits" in said
    assert run.size_of("logits") == 1024 * 128_256 * 8


def _logits_said(run) -> str:
    return " ".join(ENGLISH.say(p) for p in next(c for c in run.components if c.key == "logits").formula)
