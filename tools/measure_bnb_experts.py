"""Measure what bitsandbytes converts when transformers loads a mixture of experts in 4 or 8 bits, for the
golden tests (tests/golden/measured_bnb_experts.json).

A developer tool, not run by CI. For each small MoE config (random bf16 weights, saved, then loaded with
`BitsAndBytesConfig` on the CPU), the bytes of every parameter are summed by (routed experts or not, dtype).
transformers 5 stores the routed experts as fused 3-D parameters (`experts.gate_up_proj`, `experts.down_proj`),
and its bitsandbytes integration replaces `nn.Linear` modules only (integrations/bitsandbytes.py
replace_with_bnb_linear), so those stay in bf16 (bitsandbytes#1849). Buffers (rotary tables) are left out.

About a minute on two CPU cores.

Usage: python tools/measure_bnb_experts.py [--out tests/golden/measured_bnb_experts.json]
Needs: pip install torch==2.13.0 transformers==5.23.0 bitsandbytes==0.50.2
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter

import torch

COMMON = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "vocab_size": 1000, "tie_word_embeddings": False}
CONFIGS = {
    "qwen3_moe": {**COMMON, "model_type": "qwen3_moe", "head_dim": 32, "moe_intermediate_size": 128,
                  "num_experts": 8, "num_experts_per_tok": 2},
    "mixtral": {**COMMON, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2},
    "llama4_text": {**COMMON, "model_type": "llama4_text", "head_dim": 32, "num_local_experts": 4,
                    "num_experts_per_tok": 1, "intermediate_size_mlp": 256, "moe_layers": [0, 1],
                    "interleave_moe_layer_step": 1},
}


def measure(config: dict, quantization) -> dict[str, int]:
    from transformers import AutoConfig, AutoModelForCausalLM

    values = {key: value for key, value in config.items() if key != "model_type"}
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(config["model_type"], **values),
                                             dtype=torch.bfloat16)
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        loaded = AutoModelForCausalLM.from_pretrained(folder, quantization_config=quantization,
                                                      dtype=torch.bfloat16, device_map="cpu")
    sums: Counter[str] = Counter()
    for name, tensor in loaded.named_parameters():
        part = "experts" if ".experts." in name else "other"
        sums[f"{part} {str(tensor.dtype).removeprefix('torch.')}"] += tensor.numel() * tensor.element_size()
    return dict(sorted(sums.items()))


def main() -> None:
    import bitsandbytes
    import transformers
    from transformers import BitsAndBytesConfig

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/golden/measured_bnb_experts.json")
    args = parser.parse_args()
    formats = {"nf4": BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                         bnb_4bit_compute_dtype=torch.bfloat16),
               "bnb-int8": BitsAndBytesConfig(load_in_8bit=True)}
    cases = [{"config": config, "precision": name, "bytes": measure(config, quantization)}
             for config in CONFIGS.values() for name, quantization in formats.items()]
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "bitsandbytes": bitsandbytes.__version__}
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"_measured_with": versions, "cases": cases}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
