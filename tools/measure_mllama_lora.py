"""Measure what a LoRA training step of Llama 3.2 Vision (MllamaForConditionalGeneration) saves with images, for
the golden tests (tests/golden/measured_mllama_lora.json); tools/measure_mllama.py's model, inputs and counters.

peft matches a list of `target_modules` by suffix anywhere in the model, so the engine's --lora-targets names
(q, k, v, o -> q_proj, k_proj, v_proj, o_proj) adapt the vision tower's attention as well as the text layers', and
the cross-attention layers' k_proj / v_proj read the vision states; gate, up and down (gate_proj, up_proj,
down_proj) exist in the text layers only (the tower's MLP is fc1 / fc2); "all-linear" adapts every nn.Linear but
lm_head: the tower's q/k/v/o_proj and fc1/fc2 and the multi_modal_projector too. A regex case (TEXT_ONLY) adapts
the text model's q_proj and v_proj only: the engine's options cannot say that; it is recorded for the comparison.
Adapters as peft makes them: `adapter_dtype` fp32 is get_peft_model's default (autocast_adapter_dtype=True), bf16
keeps them in the model's dtype.

Each case records tools/measure_mllama.py's `saved_bytes` / `by_region` (here the tower split into its local and
global layers and the rest), `forward_live_bytes`, `step_peak_bytes`, the trainable parameters and the gradient
bytes, with images and text-only.

Findings (2026-12-07, transformers 5.23.0, peft 0.21.2, torch 2.13.0+cpu; docs/accuracy.md): nothing before the
first adapter needs a gradient, so the frozen tower saves from its first adapted projection on, and nothing at all
under gate/up/down; SDPA's output is o_proj's input; a matmul keeps an operand only for the other's gradient (eager
attention's first layer, the cross layers' q and softmax cast); with checkpointing transformers'
enable_input_require_grads makes the patch embedding's output (MllamaVisionModel.get_input_embeddings) and the token
embeddings ask for a gradient, so the whole tower saves, adapters or not.

Usage: python tools/measure_mllama_lora.py [--out tests/golden/measured_mllama_lora.json]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_mllama as ML  # patches dropout to the bool-mask version (measure_reference)
import measure_reference as M
import peft
# isort: on

TEXT_ONLY = r".*language_model.*\.(q_proj|v_proj)"


def _regions(model):
    inner = model.model
    vision = inner.vision_model
    yield "vision", vision
    for index, layer in enumerate(vision.transformer.layers):
        yield f"vision_local{index}", layer
    for index, layer in enumerate(vision.global_transformer.layers):
        yield f"vision_global{index}", layer
    yield from ((name, module) for name, module in ML._regions(model) if name != "vision")


def _wrap(model, targets, adapter_dtype, checkpointing, dropout):
    if checkpointing == "layer":
        model.gradient_checkpointing_enable()
    config = peft.LoraConfig(r=8, lora_alpha=16, target_modules=targets, lora_dropout=dropout, bias="none")
    return peft.get_peft_model(model, config, autocast_adapter_dtype=adapter_dtype == "fp32")


def saved(attention, dtype_name, batch, seq, images, targets, adapter_dtype, dropout):
    model = ML.build(attention, M.DTYPES[dtype_name])
    model.train()
    top = _wrap(model, targets, adapter_dtype, "none", dropout)
    feed = ML.inputs(model, batch, seq, images, 4)
    counter, out, by_region = ML.forward_by_region(model, top, feed, _regions)
    counter.add_tensor(out.logits)
    out.loss.backward()
    named = list(top.named_parameters())
    return {"saved_bytes": counter.bytes, "by_region": dict(sorted((k, v) for k, v in by_region.items() if v)),
            "trainable_params": sum(p.numel() for _, p in named if p.requires_grad),
            "vision_trainable_params": sum(p.numel() for n, p in named if p.requires_grad and "vision_model" in n),
            "projector_trainable_params": sum(p.numel() for n, p in named
                                              if p.requires_grad and "multi_modal_projector" in n),
            "gradient_bytes": sum(p.grad.numel() * p.grad.element_size() for _, p in named if p.grad is not None)}


def tracked(attention, dtype_name, batch, seq, images, checkpointing, targets, adapter_dtype, dropout):
    model = ML.build(attention, M.DTYPES[dtype_name])
    model.train()
    top = _wrap(model, targets, adapter_dtype, checkpointing, dropout)
    feed = ML.inputs(model, batch, seq, images, 4)
    result = ML.tracked_step(top, feed)
    return {key: result[key] for key in ("forward_live_bytes", "step_peak_bytes")}


QV, QKVO, MLP = ["q_proj", "v_proj"], ["q_proj", "k_proj", "v_proj", "o_proj"], ["gate_proj", "up_proj", "down_proj"]
CASES = [  # attention, dtype, batch, seq, images, checkpointing, targets, adapter dtype(, lora_dropout)
    ("flash", "bf16", 1, 64, 1, "none", QV, "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", QKVO, "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", "all-linear", "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", MLP, "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", ["o_proj"], "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", ["k_proj"], "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", ["v_proj", "down_proj"], "bf16"),
    ("flash", "bf16", 1, 256, 2, "none", QV, "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", QV, "fp32"),
    ("flash", "bf16", 1, 64, 2, "none", "all-linear", "fp32"),
    ("flash", "fp32", 1, 64, 1, "none", QV, "fp32"),
    ("eager", "bf16", 1, 128, 1, "none", QV, "bf16"),
    ("eager", "bf16", 1, 64, 1, "none", "all-linear", "fp32"),
    ("eager", "fp32", 2, 64, 1, "none", QKVO, "fp32"),
    ("flash", "bf16", 1, 64, 1, "none", TEXT_ONLY, "bf16"),
    ("flash", "bf16", 1, 128, 1, "layer", QV, "bf16"),
    ("flash", "bf16", 1, 256, 2, "layer", "all-linear", "fp32"),
    ("eager", "fp32", 1, 128, 1, "layer", QV, "fp32"),
    ("flash", "bf16", 1, 128, 1, "layer", MLP, "bf16"),
    ("flash", "bf16", 1, 64, 1, "none", QV, "bf16", 0.1),
    ("eager", "bf16", 1, 64, 2, "none", "all-linear", "fp32", 0.05),
    ("flash", "bf16", 1, 64, 1, "none", ["o_proj"], "bf16", 0.1),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_mllama_lora.json")
    args = parser.parse_args(argv)
    cases = []
    for attention, dtype, batch, seq, images, checkpointing, targets, adapter_dtype, *rest in CASES:
        dropout = rest[0] if rest else 0.0
        case = {"attention": attention, "precision": dtype, "batch": batch, "seq": seq, "images": images,
                "checkpointing": checkpointing, "target_modules": targets, "r": 8, "lora_dropout": dropout,
                "adapter_dtype": adapter_dtype}
        measured = {}
        if checkpointing == "none":
            measured.update(saved(attention, dtype, batch, seq, images, targets, adapter_dtype, dropout))
            text = saved(attention, dtype, batch, seq, 0, targets, adapter_dtype, dropout)
            measured["text_only_saved_bytes"] = text["saved_bytes"]
            measured["text_only_by_region"] = text["by_region"]
        measured.update(tracked(attention, dtype, batch, seq, images, checkpointing, targets, adapter_dtype, dropout))
        measured["text_only"] = tracked(attention, dtype, batch, seq, 0, checkpointing, targets, adapter_dtype,
                                            dropout)
        case["measured"] = measured
        cases.append(case)
        print(case, file=sys.stderr, flush=True)
    M.write_json(args.out, {**M.provenance("tools/measure_mllama_lora.py"), "peft": peft.__version__,
                            "config": ML.CONFIG, "cases": cases})


if __name__ == "__main__":
    main()
