"""Measure what a decoder reranker's forward holds, for the golden tests (tests/golden/lm_reranker.json).

A developer tool, not run by CI. Qwen3-Reranker's card (and MTEB's wrapper) loads `AutoModelForCausalLM` and reads
`model(**inputs).logits[:, -1, :]`: the forward computes the logits of every position. A checkpoint converted to a
sequence classifier (tomaarsen/Qwen3-Reranker-*-seq-cls: `Qwen3ForSequenceClassification`, `num_labels` 1, the
"yes" row minus the "no" row as its `score`) is loaded with `AutoModelForSequenceClassification`, whose `score`
also runs on every position (num_labels values each) before the last one is picked. This builds tiny random Qwen3s
three ways, as `AutoModel` (what an embedder loads), `AutoModelForCausalLM` and
`AutoModelForSequenceClassification`, and measures each forward's peak above weights and inputs under
`torch.no_grad()` on the CPU with tools/measure_peak.py's PeakTracker, batch × seq tokens with no padding, and the
DynamicCache the forward builds (`use_cache`, the config's default) at its end. Two shapes: one whose KV cache per
token equals its width (h 256, 2 layers, 2 KV heads of 32) and one where it does not (h 192, 3 layers, 3 KV heads of
32), so the two cannot be mistaken for each other.

Usage: python tools/measure_lm_reranker.py [--out tests/golden/lm_reranker.json]
       python tools/measure_lm_reranker.py --explain causal wide bf16 sdpa 4 256
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import DTYPES, forward_peak, write_golden

SHAPES = {
    "tied": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
             "head_dim": 32, "intermediate_size": 688, "vocab_size": 32000, "tie_word_embeddings": True},
    "wide": {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3,
             "head_dim": 32, "intermediate_size": 512, "vocab_size": 24000, "tie_word_embeddings": False},
}
CLASSES = {"model": AutoModel, "causal": AutoModelForCausalLM, "seqcls": AutoModelForSequenceClassification}


def peak(kind: str, shape: str, dtype: str, attention: str, batch: int, seq: int, explain: bool = False) -> int:
    extra = {"num_labels": 1, "pad_token_id": 0} if kind == "seqcls" else {}
    cfg = AutoConfig.for_model("qwen3", **SHAPES[shape], **extra)
    torch.manual_seed(0)
    model = CLASSES[kind].from_config(cfg, attn_implementation=attention).to(DTYPES[dtype]).eval()
    ids, mask = torch.randint(5, 20000, (batch, seq)), torch.ones(batch, seq, dtype=torch.long)
    return forward_peak(model, ids, mask, explain)


def plan() -> list[tuple[str, str, str, str, int, int]]:
    return [(kind, shape, dtype, attention, batch, seq) for shape in SHAPES for kind in CLASSES
            for dtype in DTYPES for attention in ("eager", "sdpa") for batch, seq in ((1, 128), (4, 256))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/golden/lm_reranker.json")
    parser.add_argument("--explain", nargs=6, metavar=("CLASS", "SHAPE", "DTYPE", "ATTENTION", "BATCH", "SEQ"))
    args = parser.parse_args()
    if args.explain:
        kind, shape, dtype, attention, batch, seq = args.explain
        print(f"{peak(kind, shape, dtype, attention, int(batch), int(seq), explain=True):,}")
        return
    cases = []
    print("class shape dtype attention batch seq | peak | tokens*(vocab+h)*bytes")
    for kind, shape, dtype, attention, batch, seq in plan():
        got = peak(kind, shape, dtype, attention, batch, seq)
        size = 4 if dtype == "fp32" else 2
        logits = batch * seq * (SHAPES[shape]["vocab_size"] + SHAPES[shape]["hidden_size"]) * size
        cases.append({"class": kind, "config": {"model_type": "qwen3", **SHAPES[shape]}, "dtype": dtype,
                      "attention": attention, "batch": batch, "seq": seq, "peak_above_start_bytes": got})
        print(kind, shape, dtype, attention, batch, seq, f"| {got:,} | {logits:,}")
    write_golden(args.out, "measure_lm_reranker.py", {"cases": cases})


if __name__ == "__main__":
    main()
