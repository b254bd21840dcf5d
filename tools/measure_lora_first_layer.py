"""Measure what the first decoder layer saves under LoRA with frozen embeddings (issue 28).

A developer tool, not run by CI, built on tools/measure_lora.py (`measure`: peft, bf16 model, the same
SavedBytes count and module attribution). Each case runs at 2 and at 4 decoder layers, so that the
per-layer bytes are (4 layers − 2 layers) / 2 and the first layer's difference is
2 layers − 2 × per-layer; and lists the saved storages by decoder layer (the module running when
autograd packed them), which names what layer 0 keeps and does not.

Without checkpointing peft leaves the embedding output as it is: it needs no gradient (the embedding is
frozen), so in layer 0 whatever autograd would keep only for the gradient w.r.t. the layer's input is not
kept. With checkpointing (transformers' `gradient_checkpointing_enable` + `enable_input_require_grads`) the
embedding output requires grad and layer 0 saves as the others.

Usage: python tools/measure_lora_first_layer.py [--out tests/golden/measured_lora_first_layer.json]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import ClassVar

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_lora as L
import measure_reference as M
import peft
# isort: on

# q,v and all seven; then adapters that leave layer 0's attention (or more) without a gradient
TARGETS = ("qv", "all-linear", ["o_proj"], ["gate_proj", "up_proj", "down_proj"], ["down_proj"],
           ["k_proj"])
LAYER = re.compile(r"\.layers\.(\d+)\.")


def _by_layer(tensors):
    """Saved storage bytes per decoder layer index ("outside" for the rest), and layer 0's tensors by module."""
    totals, first = {}, {}
    for t in tensors:
        match = LAYER.search(t["module"] + ".")
        key = match.group(1) if match else "outside"
        totals[key] = totals.get(key, 0) + t["storage_bytes"]
        if key in ("0", "1"):
            name = LAYER.split(t["module"] + ".", maxsplit=1)[-1].rstrip(".")
            entry = first.setdefault(key, {})
            label = f"{name} [{t['role']}] {t['dtype']}"
            entry[label] = entry.get(label, 0) + t["storage_bytes"]
    return totals, first


class _Counted(L.AttributedSaved):
    """AttributedSaved that remembers every instance: the forward's, then one per checkpointed layer's recompute."""
    made: ClassVar[list] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _Counted.made.append(self)


def case(family, layers, checkpointing, targets, dropout, fp32, batch=1, seq=128, attention=None, precision="bf16"):
    original, dtype, attributed = M.FAMILIES[family], L.DTYPE, L.AttributedSaved
    M.FAMILIES[family] = dict(original, num_hidden_layers=layers)
    L.DTYPE, L.AttributedSaved, _Counted.made = precision, _Counted, []
    attention = attention or M._any_attention(family)
    try:
        config, measured = L.measure(family, attention, batch, seq, checkpointing, 8, targets, dropout, fp32,
                                     detail=True)
    finally:
        M.FAMILIES[family], L.DTYPE, L.AttributedSaved = original, dtype, attributed
    totals, first = _by_layer(measured.pop("saved_tensors"))
    recomputes = [r.bytes for r in _Counted.made[1:]]  # in backward order: the last layer's first
    return {"family": family, "layers": layers, "checkpointing": checkpointing, "target_modules": targets,
            "attention": attention, "precision": precision, "lora_dropout": dropout,
            "adapter_dtype": "fp32" if fp32 or precision == "fp32" else "bf16", "batch": batch, "seq": seq,
            "config": config, "saved_bytes": measured["saved_bytes"], "recompute_bytes_by_layer": recomputes[::-1],
            "forward_saved_bytes": measured["forward_saved_bytes"],
            "recompute_bytes_per_layer": measured["recompute_bytes_per_layer"],
            "forward_by_layer": totals, "layer_tensors": first}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_lora_first_layer.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cases = []

    def pair(family, checkpointing, targets, dropout, fp32, **kwargs):
        """The case at 2 and at 4 layers, with the per-layer bytes and the first layer's difference."""
        two, four = (case(family, n, checkpointing, targets, dropout, fp32, **kwargs) for n in (2, 4))
        per_layer = (four["saved_bytes"] - two["saved_bytes"]) // 2
        # 2 layers = outside + layer 0 + one more; outside the same at 2 and 4 layers. Layer 0 also holds what all
        # layers share (the rotary tables), saved once
        first = two["saved_bytes"] - per_layer - two["forward_by_layer"]["outside"]
        for c in (two, four):
            c["per_layer_from_difference"] = per_layer
            c["first_layer_difference"] = first - per_layer
        cases.extend((two, four))
        print(family, two["attention"], two["precision"], checkpointing, targets, dropout, two["adapter_dtype"],
              "2L", two["saved_bytes"], "4L", four["saved_bytes"], "per-layer", per_layer,
              "first-layer diff", first - per_layer, "by layer(2L)", two["forward_by_layer"], file=sys.stderr)

    for family in ("llama", "qwen3"):
        for checkpointing in ("none", "layer"):
            for targets in TARGETS:
                for dropout in (0.0, 0.05):
                    for fp32 in (False, True):
                        if (family == "qwen3" or not isinstance(targets, str)) and fp32:
                            continue
                        pair(family, checkpointing, targets, dropout, fp32)
    for precision in ("bf16", "fp32"):  # eager attention: what q·kᵀ and probs·v keep depends on which need grads
        for targets in (["q_proj"], ["k_proj"], ["v_proj"], ["q_proj", "v_proj"], "all-linear"):
            pair("llama", "none", targets, 0.0, False, attention="eager", precision=precision)
    result = {**M.provenance("tools/measure_lora_first_layer.py"), "peft": peft.__version__, "cases": cases}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
