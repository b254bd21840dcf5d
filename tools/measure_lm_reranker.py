"""Measure what a reranker scored on its LM head's logits (Qwen3-Reranker) holds beyond the embedder's forward.

A developer tool, not run by CI. Qwen3-Reranker's card (and MTEB's wrapper) loads `AutoModelForCausalLM` and reads
`model(**inputs).logits[:, -1, :]`: the forward computes the logits of every position. This builds one tiny random
Qwen3 twice, as `AutoModel` (what `--mode embedding` counts for a decoder) and as `AutoModelForCausalLM`, and
measures each forward's peak above weights and inputs under `torch.no_grad()` on the CPU with
tools/measure_peak.py's PeakTracker, batch × seq tokens with no padding; the difference is printed beside
batch × seq × vocab × bytes.

Usage: python tools/measure_lm_reranker.py
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import os
import sys

import torch
from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import PeakTracker

TINY = {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 32, "intermediate_size": 688, "vocab_size": 32000, "tie_word_embeddings": True}


def peak(auto, dtype, attention, batch, seq) -> int:
    cfg = AutoConfig.for_model("qwen3", **TINY)
    torch.manual_seed(0)
    model = auto.from_config(cfg, attn_implementation=attention).to(dtype).eval()
    ids, mask = torch.randint(5, 30000, (batch, seq)), torch.ones(batch, seq, dtype=torch.long)
    tracker = PeakTracker()
    tracker.track_all(model.parameters())
    tracker.track_all(model.buffers())
    tracker.track_all([ids, mask])
    start = tracker.live
    with torch.no_grad(), tracker, tracker.in_phase("forward"):
        out = model(input_ids=ids, attention_mask=mask)
    del out
    return tracker.phases["forward"]["peak"] - start


def main():
    print("dtype attention batch seq | AutoModel | AutoModelForCausalLM | difference | batch*seq*vocab*bytes")
    for dtype, size in ((torch.float32, 4), (torch.bfloat16, 2)):
        for attention in ("eager", "sdpa"):
            for batch, seq in ((1, 128), (4, 256)):
                embed = peak(AutoModel, dtype, attention, batch, seq)
                causal = peak(AutoModelForCausalLM, dtype, attention, batch, seq)
                logits = batch * seq * TINY["vocab_size"] * size
                print(f"{dtype} {attention} {batch} {seq} | {embed} | {causal} | {causal - embed} | {logits}")


if __name__ == "__main__":
    main()
