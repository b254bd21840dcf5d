"""Measure what a training step of Llama 3.2 Vision (MllamaForConditionalGeneration) saves with images, for the
golden tests (tests/golden/measured_mllama.json).

A developer tool, not run by CI, built on tools/measure_reference.py (its bool-mask dropout, its `SavedBytes`:
every storage autograd saves for backward, each once, parameters excluded, plus the logits) and
tools/measure_peak.py (`PeakTracker`: live storages through the step). A small random-weight mllama
(4 text layers, cross-attention layers 1 and 3, GQA 8/2 heads; a 2 + 1 layer vision tower on 56-pixel tiles of
14-pixel patches, 4 tiles) is fed what MllamaProcessor makes: fp32 pixel_values padded to max_num_tiles tiles per image,
aspect_ratio_ids / aspect_ratio_mask for the tiles used, and a cross_attention_mask letting every text token
attend to every image's used tiles (the image token first).

Each case records:
- `saved_bytes`: the forward's saved storages plus the logits (no checkpointing), or with per-layer checkpointing
  (transformers 5.23's default, non-reentrant) what lives at the forward's end less what lived before it, the
  loss and the logits included (`forward_live_bytes`), and `step_peak_bytes` (PeakTracker over the step above
  the weights and inputs);
- `by_region`: the saved bytes by module (vision tower, projector, each text layer, the rest), a storage
  credited to the first module that saves it;
- the same model's text-only step (`text_only_saved_bytes`: no pixel_values, no cross_attention_mask).

LoRA cases wrap the model with peft (`target_modules` as named: a list is matched by suffix anywhere in the model,
so ["q_proj", "v_proj"] also adapts the vision tower's and the cross-attention's projections); peft has no default
targets for mllama (its mapping has no "mllama" entry), so they must be named.

Findings (2026-12-07, transformers 5.23.0, torch 2.13.0+cpu): the tiles an image uses change nothing (every image is
padded to max_num_tiles); a text-only batch skips the cross-attention layers (they save nothing); the vision tower's
layers are no GradientCheckpointingLayer, so per-layer checkpointing keeps the whole tower's saved tensors; peft's
["q_proj", "v_proj"] and "all-linear" adapt the tower's projections too, so under LoRA the tower still saves. CPU's
LayerNorm keeps mean and 1/std in bf16 where CUDA's keeps fp32 (the engine counts CUDA's).

About 3 minutes on two CPU cores.

Usage: python tools/measure_mllama.py [--out tests/golden/measured_mllama.json] [--quick]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_reference as M  # patches dropout to the bool-mask version
import measure_peak as P

import transformers
from transformers import MllamaConfig, MllamaForConditionalGeneration
# isort: on

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

VOCAB = 1000
CONFIG = {
    "model_type": "mllama",
    "text_config": {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
                    "num_key_value_heads": 2, "cross_attention_layers": [1, 3], "vocab_size": VOCAB,
                    "pad_token_id": 0},
    "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_global_layers": 1,
                      "attention_heads": 4, "image_size": 56, "patch_size": 14, "max_num_tiles": 4,
                      "intermediate_layers_indices": [0], "vision_output_dim": 128},
    "image_token_index": VOCAB + 1,
}
ATTENTION = {"eager": "eager", "flash": "sdpa"}
TILE_IDS = {1: 1, 2: 2, 3: 3, 4: 6}  # supported_aspect_ratios [1,1],[1,2],[1,3],[1,4],[2,1],[2,2]: id - 1 the index


def build(attention, dtype):
    config = MllamaConfig(text_config=CONFIG["text_config"], vision_config=CONFIG["vision_config"],
                          image_token_index=CONFIG["image_token_index"])
    torch.manual_seed(0)
    model = MllamaForConditionalGeneration._from_config(config, attn_implementation=ATTENTION[attention],
                                                        dtype=dtype)
    return model


def inputs(model, batch, seq, images, tiles):
    """What MllamaProcessor hands the model: every image padded to max_num_tiles tiles."""
    v = model.config.vision_config
    torch.manual_seed(1)
    ids = torch.randint(1, VOCAB, (batch, seq))
    if not images:
        return {"input_ids": ids, "labels": ids}
    most = v.max_num_tiles
    pixel = torch.randn(batch, images, most, 3, v.image_size, v.image_size)  # fp32, as MllamaProcessor gives them
    ratio_ids = torch.full((batch, images), TILE_IDS[tiles], dtype=torch.long)
    ratio_mask = torch.zeros(batch, images, most, dtype=torch.long)
    ratio_mask[:, :, :tiles] = 1
    cross = torch.zeros(batch, seq, images, most, dtype=torch.long)
    cross[:, :, :, :tiles] = 1
    return {"input_ids": ids, "labels": ids, "pixel_values": pixel, "aspect_ratio_ids": ratio_ids,
            "aspect_ratio_mask": ratio_mask, "cross_attention_mask": cross}


def _regions(model):
    """(name, module) of the parts whose saved bytes are told apart: the tower, the projector, each text layer."""
    inner = model.model
    yield "vision", inner.vision_model
    yield "projector", inner.multi_modal_projector
    for index, layer in enumerate(inner.language_model.layers):
        yield f"layer{index}" + ("_cross" if index in inner.language_model.cross_attention_layers else ""), layer


def _wrap(model, lora, checkpointing):
    if checkpointing == "layer":
        model.gradient_checkpointing_enable()  # transformers 5.23's default: use_reentrant=False
    if lora is None:
        return model
    from peft import LoraConfig, get_peft_model
    config = LoraConfig(r=8, lora_alpha=16, target_modules=lora, lora_dropout=0.0, bias="none")
    top = get_peft_model(model, config, autocast_adapter_dtype=False)
    return top


def saved(attention, dtype_name, batch, seq, images, tiles, lora=None):
    """No checkpointing: autograd's saved storages (each once, parameters excluded) by region, plus the logits."""
    model = build(attention, M.DTYPES[dtype_name])
    model.train()
    top = _wrap(model, lora, "none")
    feed = inputs(model, batch, seq, images, tiles)
    counter, out, by_region = forward_by_region(model, top, feed)
    forward = counter.bytes
    counter.add_tensor(out.logits)
    logits = counter.bytes - forward
    out.loss.backward()
    trainable = sum(p.numel() for p in top.parameters() if p.requires_grad)
    grads = sum(p.grad.numel() * p.grad.element_size() for p in top.parameters() if p.grad is not None)
    vision_grads = any(p.grad is not None for n, p in top.named_parameters() if "vision_model" in n)
    return {"saved_bytes": counter.bytes, "logits_bytes": logits, "by_region": dict(sorted(by_region.items())),
            "gradient_bytes": grads, "trainable_params": trainable, "vision_tower_gets_gradients": vision_grads}


def tracked(attention, dtype_name, batch, seq, images, tiles, checkpointing, lora=None):
    """PeakTracker over one step (the second of two): the forward's end and the step's peak above the start."""
    dtype = M.DTYPES[dtype_name]
    model = build(attention, dtype)
    model.train()
    top = _wrap(model, lora, checkpointing)
    feed = inputs(model, batch, seq, images, tiles)
    return tracked_step(top, feed)


def forward_by_region(model, top, feed, regions=None):
    """The forward under autograd's saved-tensor hooks, each saved storage's bytes credited to the region (vision
    tower, projector, text layers: `regions`, by default `_regions`) running when it was saved: (counter, output,
    bytes by region)."""
    counter = M.SavedBytes(top)
    stack = ["outside"]
    by_region = {}
    handles = []
    for region, module in (regions or _regions)(model):
        handles.append(module.register_forward_pre_hook(lambda *_, r=region: stack.append(r)))
        handles.append(module.register_forward_hook(lambda *_: stack.pop() and None))
    pack = counter.pack

    def attributed(tensor):
        before = counter.bytes
        pack(tensor)
        by_region[stack[-1]] = by_region.get(stack[-1], 0) + counter.bytes - before
        return tensor
    counter.pack = attributed
    with counter.hooks():
        out = top(**feed, use_cache=False)
    for handle in handles:
        handle.remove()
    counter.pack = pack
    return counter, out, by_region


def tracked_step(top, feed):
    """PeakTracker over two steps of `top` on `feed`; the second's forward end and peak, and its step's peak, above
    the start."""
    tracker = P.PeakTracker()
    tracker.track_all(top.parameters())
    tracker.track_all(top.buffers())
    tracker.track_all(feed.values())
    result = {}
    with tracker:
        for step in (1, 2):
            start = tracker.live
            with tracker.in_phase(f"{step}.forward"):
                out = top(**feed, use_cache=False)
            with tracker.in_phase(f"{step}.backward"):
                out.loss.backward()
            del out
            for p in top.parameters():
                p.grad = None
            phases = tracker.phases
            result = {"forward_live_bytes": phases[f"{step}.forward"]["end"] - start,
                      "forward_peak_bytes": phases[f"{step}.forward"]["peak"] - start,
                      "step_peak_bytes": max(phases[f"{step}.forward"]["peak"],
                                             phases[f"{step}.backward"]["peak"]) - start}
    return result


CASES = [  # attention, dtype, batch, seq, images, tiles, checkpointing, lora
    ("flash", "bf16", 1, 64, 1, 4, "none", None),
    ("flash", "bf16", 1, 64, 1, 1, "none", None),
    ("flash", "bf16", 1, 64, 2, 2, "none", None),
    ("flash", "bf16", 1, 256, 1, 4, "none", None),
    ("flash", "bf16", 2, 128, 1, 3, "none", None),
    ("flash", "fp32", 1, 64, 1, 4, "none", None),
    ("eager", "bf16", 1, 64, 1, 4, "none", None),
    ("eager", "bf16", 1, 256, 2, 4, "none", None),
    ("eager", "fp32", 2, 64, 1, 2, "none", None),
    ("flash", "bf16", 1, 64, 1, 4, "none", ["q_proj", "v_proj"]),
    ("flash", "bf16", 1, 256, 2, 4, "none", ["q_proj", "v_proj"]),
    ("flash", "bf16", 1, 64, 1, 4, "none", "all-linear"),
    ("eager", "bf16", 1, 128, 1, 4, "none", ["q_proj", "v_proj"]),
    ("flash", "bf16", 1, 64, 1, 4, "layer", None),
    ("flash", "bf16", 1, 256, 2, 4, "layer", None),
    ("eager", "fp32", 1, 128, 1, 4, "layer", None),
    ("flash", "bf16", 1, 128, 1, 4, "layer", ["q_proj", "v_proj"]),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_mllama.json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    cases = []
    for attention, dtype, batch, seq, images, tiles, checkpointing, lora in CASES[:3] if args.quick else CASES:
        case = {"attention": attention, "precision": dtype, "batch": batch, "seq": seq, "images": images,
                "tiles": tiles, "checkpointing": checkpointing, "lora": lora}
        measured = {}
        if checkpointing == "none":
            measured.update(saved(attention, dtype, batch, seq, images, tiles, lora))
            text = saved(attention, dtype, batch, seq, 0, 0, lora)
            measured["text_only_saved_bytes"] = text["saved_bytes"]
            measured["text_only_by_region"] = text["by_region"]
        measured.update(tracked(attention, dtype, batch, seq, images, tiles, checkpointing, lora))
        measured["text_only"] = tracked(attention, dtype, batch, seq, 0, 0, checkpointing, lora)
        case["measured"] = measured
        cases.append(case)
        print(case, file=sys.stderr)
    M.write_json(args.out, {**M.provenance("tools/measure_mllama.py"), "config": CONFIG, "cases": cases})


if __name__ == "__main__":
    main()
