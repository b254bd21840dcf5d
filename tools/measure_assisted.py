"""Measure transformers' assisted generation (generate(assistant_model=...)) for the golden tests
(tests/golden/measured_assisted.json): the assistant's weights and the cache it keeps of its own.

A developer tool, not run by CI. Two random Llama models in bf16 on the CPU (a target and a smaller assistant of the
same vocabulary) generate greedily; every candidate round's assistant cache (AssistedCandidateGenerator's
assistant_kwargs["past_key_values"], a DynamicCache of its own) is summed in tensor bytes and its length in tokens
kept, the largest over the run and the last. Then a batch of two is tried, which transformers refuses.

A few seconds on two CPU cores.

Usage: python tools/measure_assisted.py [--out tests/golden/measured_assisted.json]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import json

import torch
import transformers
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.generation import candidate_generator

VOCAB = 2048
TARGET = {"hidden_size": 512, "intermediate_size": 2048, "num_hidden_layers": 6, "num_attention_heads": 8,
          "num_key_value_heads": 4, "head_dim": 64}
ASSISTANT = {"hidden_size": 128, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 32}
# (prompt, new tokens, assistant_confidence_threshold: 0.4 is the default; 0 never stops the drafting early)
RUNS = ((64, 32, 0.4), (300, 100, 0.4), (300, 100, 0.0))


def build(shape: dict[str, int]) -> LlamaForCausalLM:
    config = LlamaConfig(**shape, vocab_size=VOCAB, max_position_embeddings=4096, tie_word_embeddings=False)
    return LlamaForCausalLM(config).to(torch.bfloat16).eval()


def cache_size(cache) -> tuple[int, int]:
    """(bytes, tokens) of a DynamicCache's keys and values."""
    total, tokens = 0, 0
    for layer in cache.layers:
        for tensor in (layer.keys, layer.values):
            total += tensor.numel() * tensor.element_size()
            tokens = max(tokens, tensor.shape[-2])
    return total, tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/golden/measured_assisted.json")
    out = parser.parse_args().out
    torch.manual_seed(0)
    target, assistant = build(TARGET), build(ASSISTANT)
    seen: list[tuple[int, int]] = []
    drafted: list[int] = []
    budget: list[int] = []
    generate = candidate_generator.AssistedCandidateGenerator._generate_candidates

    def watched(self, args):  # every round's assistant cache right after it drafted, before the target checks
        result = generate(self, args)
        seen.append(cache_size(self.assistant_kwargs["past_key_values"]))
        drafted.append(int(result[0].shape[1] - args[self.input_ids_key].shape[1]))
        budget.append(int(self.num_assistant_tokens))
        return result

    candidate_generator.AssistedCandidateGenerator._generate_candidates = watched
    rows = []
    for prompt, new, threshold in RUNS:
        assistant.generation_config.assistant_confidence_threshold = threshold
        seen.clear()
        drafted.clear()
        ids = torch.randint(0, VOCAB, (1, prompt))
        out_ids = target.generate(ids, attention_mask=torch.ones_like(ids), assistant_model=assistant,
                                  max_new_tokens=new, min_new_tokens=new, do_sample=False)
        largest = max(seen)
        rows.append({"prompt": prompt, "new_tokens": new, "assistant_confidence_threshold": threshold,
                     "sequence": int(out_ids.shape[1]), "rounds": len(seen),
                     "most_drafted": max(drafted), "mean_drafted": round(sum(drafted) / len(drafted), 2),
                     "largest_cache_bytes": largest[0], "largest_cache_tokens": largest[1],
                     "last_cache_bytes": seen[-1][0], "last_cache_tokens": seen[-1][1]})
    refused = ""
    try:
        ids = torch.randint(0, VOCAB, (2, 8))
        target.generate(ids, attention_mask=torch.ones_like(ids), assistant_model=assistant, max_new_tokens=4)
    except ValueError as error:
        refused = str(error)
    result = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
              "vocab": VOCAB, "target": TARGET, "assistant": ASSISTANT,
              "assistant_params": sum(p.numel() for p in assistant.parameters()),
              "assistant_weight_bytes": sum(p.numel() * p.element_size() for p in assistant.parameters()),
              "num_assistant_tokens": sorted(set(budget)),
              "runs": rows, "batch_2": refused}
    with open(out, "w", encoding="utf-8") as file:
        json.dump(result, file, indent=1)
        file.write("\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
