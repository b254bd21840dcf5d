"""Measure what LoRA on the output head alone saves (issue 28): peft target_modules=["lm_head"], every decoder
layer and the embedding frozen.

A developer tool, not run by CI, built on tools/measure_lora_first_layer.py (`case`: peft, bf16 model, the
same SavedBytes count, saved storages by decoder layer). Llama and Qwen3, SDPA, bf16 adapters, dropout 0 and
0.05, with and without per-layer checkpointing, each at 2 and 4 decoder layers.

Without checkpointing nothing before the head needs a gradient, so autograd records nothing in the layers:
only the head's adapter input (the final norm's output) and the loss's tensors are saved. With
checkpointing, transformers' enable_input_require_grads makes the embedding output require grad: the
checkpoints keep the layer inputs and each layer's recompute saves what a trained layer does.

Usage: python tools/measure_lora_head_only.py [--out tests/golden/measured_lora_head_only.json]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_lora_first_layer as F
import measure_reference as M
import peft
# isort: on


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_lora_head_only.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cases = []
    for family in ("llama", "qwen3"):
        for checkpointing in ("none", "layer"):
            for dropout in (0.0, 0.05):
                for layers in (2, 4):
                    c = F.case(family, layers, checkpointing, ["lm_head"], dropout, False)
                    c.pop("layer_tensors")
                    cases.append(c)
                    print(family, checkpointing, dropout, layers, c["saved_bytes"], c["forward_saved_bytes"],
                          c["recompute_bytes_per_layer"], c["forward_by_layer"], file=sys.stderr)
    result = {**M.provenance("tools/measure_lora_head_only.py"), "peft": peft.__version__, "cases": cases}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
