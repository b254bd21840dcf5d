"""LoRA and QLoRA against published real-GPU runs (docs/research/finetune-published.md has every
row, its source and what its figure means). litgpt prints torch.cuda.max_memory_allocated() / 1e9:
allocated bytes at the peak, no allocator cache, no CUDA context, so the overhead is set to 0."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.inputs.parse import parse_workload
from vramcalc.sources.hf_config import from_hf_config

TOLERANCE = 0.15
LITGPT_TABLES = "Lightning-AI/litgpt tutorials/resource-tables.md @ 26857050 (Alpaca, longest sample 1,304 tokens)"
LITGPT_HUB = "Lightning-AI/litgpt config_hub/finetune/README.md @ 26857050 (Alpaca2k, max_seq_length 512)"
LLAMA_2_7B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
              "max_position_embeddings": 4096, "tie_word_embeddings": False}

# (source, model, precision, LoRA rank, targets, micro-batch, tokens, published GB)
LORA_RUNS = [
    (LITGPT_TABLES, "llama-2-7b", "bf16", 8, "q,v", 1, 1304, 21.30),
    (LITGPT_TABLES, "llama-2-7b", "bf16", 8, "q,v", 2, 1304, 29.07),
    (LITGPT_TABLES, "llama-2-13b", "bf16", 8, "q,v", 1, 1304, 38.12),
    (LITGPT_HUB, "llama-3-8b", "bf16", 32, "q,v", 1, 512, 19.73),
    (LITGPT_HUB, "mistral-7b", "bf16", 32, "q,v", 2, 512, 20.66),
]
QLORA_RUNS = [
    (LITGPT_TABLES, "llama-2-7b", "nf4", 8, "q,v", 1, 1304, 14.14),
    (LITGPT_TABLES, "llama-2-7b", "nf4-dq", 8, "q,v", 1, 1304, 13.84),
    (LITGPT_TABLES, "llama-2-13b", "nf4", 8, "q,v", 1, 1304, 23.14),
    (LITGPT_TABLES, "llama-2-13b", "nf4-dq", 8, "q,v", 1, 1304, 22.55),
]


def _estimate(model, precision, rank, targets, batch, seq, **extra):
    values = {**extra, "mode": "training", "precision": precision, "recipe": "bf16", "lora_rank": str(rank),
              "lora_targets": targets, "lora_dtype": "bf16", "lora_dropout": "0.05", "batch": str(batch),
              "seq": str(seq), "attention": "flash", "overhead_gib": "0", "optimizer": "adamw"}
    if model == "llama-2-7b":
        import dataclasses
        workload = parse_workload({**values, "model": "llama-2-13b"})
        return estimate(dataclasses.replace(workload, model=from_hf_config(LLAMA_2_7B)))
    return estimate(parse_workload({**values, "model": model}))


@pytest.mark.parametrize("run", LORA_RUNS, ids=[f"{r[1]}-r{r[3]}-b{r[5]}x{r[6]}" for r in LORA_RUNS])
def test_lora_matches_published_runs(run):
    source, model, precision, rank, targets, batch, seq, published_gb = run
    breakdown = _estimate(model, precision, rank, targets, batch, seq)
    assert breakdown.total_bytes == pytest.approx(published_gb * 1e9, rel=TOLERANCE), source


@pytest.mark.parametrize("run", QLORA_RUNS, ids=[f"{r[1]}-{r[2]}" for r in QLORA_RUNS])
def test_qlora_matches_published_runs_with_their_bitsandbytes(run):
    """litgpt measured with bitsandbytes 0.41.1, which kept every 4-bit matmul's input for backward (fixed in
    0.43.2): `bnb_version`. With a current bitsandbytes the same run is below the published figure."""
    source, model, precision, rank, targets, batch, seq, published_gb = run
    breakdown = _estimate(model, precision, rank, targets, batch, seq, bnb_version="0.41.1")
    assert breakdown.total_bytes == pytest.approx(published_gb * 1e9, rel=0.10), source
    assert _estimate(model, precision, rank, targets, batch, seq).total_bytes < published_gb * 1e9


def test_nf4_double_quantisation_saves_what_litgpt_saw():
    # litgpt's table: nf4 → nf4-dq saves 0.30 GB on Llama 2 7B and 0.59 GB on 13B (scales of scales).
    for model, saved_gb in (("llama-2-7b", 0.30), ("llama-2-13b", 0.59)):
        nf4 = _estimate(model, "nf4", 8, "q,v", 1, 1304).total_bytes
        dq = _estimate(model, "nf4-dq", 8, "q,v", 1, 1304).total_bytes
        assert (nf4 - dq) / 1e9 == pytest.approx(saved_gb, abs=0.15)


# litgpt config-hub rows whose configs adapt every linear layer and the head (lora_head: true), LoRA in bf16-true,
# 2 × 512 / 4 × 512 (an upper bound); Gemma 2 held untied, as litgpt's GPT holds it
# (docs/research/finetune-published.md)
# (model, untied, rank, dropout, micro-batch, attention, published GB)
HEAD_RUNS = [
    ("phi-3-mini", False, 8, 0.05, 4, "flash", 19.75),  # config_hub/finetune/phi-3/lora.yaml
    ("gemma-2-2b", True, 8, 0.1, 2, "eager", 14.31),  # config_hub/finetune/gemma2-2b/lora.yaml
]


@pytest.mark.parametrize("run", HEAD_RUNS, ids=[r[0] for r in HEAD_RUNS])
def test_litgpt_rows_with_lora_on_the_head(run):
    import dataclasses
    import json
    from pathlib import Path

    model, untied, rank, dropout, batch, attention, published_gb = run
    values = {"mode": "training", "model": model, "precision": "bf16", "recipe": "bf16", "lora_rank": str(rank),
              "lora_dtype": "bf16", "lora_dropout": str(dropout), "batch": str(batch), "seq": "512",
              "attention": attention, "overhead_gib": "0", "optimizer": "adamw"}
    totals = {}
    for targets in ("all-linear", "all-linear,head"):
        workload = parse_workload({**values, "lora_targets": targets})
        if untied:
            preset = Path(__file__).parents[1] / "app" / "vramcalc" / "data" / "models" / f"{model}.json"
            config = json.loads(preset.read_text(encoding="utf-8"))["config"]
            workload = dataclasses.replace(workload, model=from_hf_config({**config, "tie_word_embeddings": False}))
        totals[targets] = estimate(workload).total_bytes
    assert totals["all-linear,head"] == pytest.approx(published_gb * 1e9, rel=TOLERANCE), LITGPT_HUB
    # the head's adapter (vocab × r + r × h) and its saved input are not what separates these rows from ours
    assert 0 < totals["all-linear,head"] - totals["all-linear"] < 0.005 * published_gb * 1e9
