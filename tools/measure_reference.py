"""Measure the bytes real model implementations hold, for the golden tests.

A developer tool, not run by CI. It builds small random-weight models with
PyTorch (CPU) and Hugging Face transformers from their configs and measures:

- parameters (unique tensors, a tied head once) and weight bytes;
- gradient bytes after one backward pass;
- AdamW state bytes after one step (exp_avg + exp_avg_sq; the per-tensor `step`
  scalars are left out, as they are a few bytes per tensor);
- KV-cache bytes after a prefill of `seq` tokens;
- training activations: every tensor autograd saves for backward during the
  forward pass (`torch.autograd.graph.saved_tensors_hooks`), each storage once,
  parameters excluded, plus the logits the model returns; with per-layer
  checkpointing (`gradient_checkpointing_enable`, reentrant), what the forward
  keeps plus one layer's recompute during backward.

CPU PyTorch keeps a dropout mask in the activation dtype; CUDA's fused kernel
keeps one byte per element. The tool replaces dropout by a function that saves
a bool mask, as CUDA does, so the numbers are the GPU's. For SDPA runs the
attention dropout is set to 0: on GPU the flash kernels regenerate the mask from
a seed and store nothing for it, while CPU SDPA with dropout falls back to the
math path, which stores the s × s matrix.

Usage: python tools/measure_reference.py [--out tests/golden/measured.json]
Needs: pip install torch==2.13.0 transformers
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys

import torch
import transformers
from torch.nn import functional as F
from transformers import AutoConfig, AutoModelForCausalLM

VOCAB = 1000
SMALL = {"hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2,
         "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": VOCAB}
FAMILIES = {
    "gpt2": {"model_type": "gpt2", "n_embd": 256, "n_layer": 2, "n_head": 8, "vocab_size": VOCAB, "n_positions": 512},
    "llama": {"model_type": "llama", **SMALL},
    "llama-mha": {"model_type": "llama", **SMALL, "num_key_value_heads": 8},
    "mistral": {"model_type": "mistral", **SMALL},
    "mixtral": {"model_type": "mixtral", **SMALL, "num_local_experts": 4, "num_experts_per_tok": 2},
    "qwen2": {"model_type": "qwen2", **SMALL},
    "gemma2": {"model_type": "gemma2", **SMALL, "head_dim": 64, "attn_logit_softcapping": 50.0,
               "final_logit_softcapping": 30.0},
    "phi3": {"model_type": "phi3", **SMALL, "num_key_value_heads": 8, "pad_token_id": 0},
}
ATTENTION = {"eager": "eager", "flash": "sdpa"}
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


class _BoolMaskDropout(torch.autograd.Function):
    """Dropout that saves a one-byte mask, like CUDA's fused native_dropout."""

    @staticmethod
    def forward(ctx, x, p):
        mask = torch.rand(x.shape, device=x.device) >= p
        scale = 1.0 / (1.0 - p)
        ctx.save_for_backward(mask)
        ctx.scale = scale
        return x * mask * scale

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None


def _dropout(input, p=0.5, training=True, inplace=False):
    if not training or p == 0.0:
        return input
    return _BoolMaskDropout.apply(input, p)


F.dropout = _dropout
torch.nn.functional.dropout = _dropout


def build(family: str, attention: str, dtype: torch.dtype, **extra):
    config_dict = dict(FAMILIES[family], **extra)
    if family == "gpt2" and attention == "flash":
        config_dict["attn_pdrop"] = 0.0  # see the module docstring
    model_type = config_dict["model_type"]
    kwargs = {k: v for k, v in config_dict.items() if k != "model_type"}
    config = AutoConfig.for_model(model_type, **kwargs)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, attn_implementation=ATTENTION[attention], dtype=dtype)
    return model, config_dict


def unique_params(model):
    seen, count, nbytes = set(), 0, 0
    for p in model.parameters():
        if p.data_ptr() not in seen:
            seen.add(p.data_ptr())
            count += p.numel()
            nbytes += p.numel() * p.element_size()
    return count, nbytes


class SavedBytes:
    """Unique storages saved for backward, parameters excluded.

    Every counted storage is kept alive until the run ends, so that the allocator
    cannot hand its address to a later tensor and make it look already counted."""

    def __init__(self, model, already=None):
        self.param_ptrs = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.seen = already.seen if already else set()
        self.alive = already.alive if already else []
        self.bytes = 0

    def pack(self, tensor):
        storage = tensor.untyped_storage()
        ptr = storage.data_ptr()
        if ptr not in self.param_ptrs and ptr not in self.seen:
            self.seen.add(ptr)
            self.alive.append(storage)
            self.bytes += storage.nbytes()
        return tensor

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda tensor: tensor)

    def add_tensor(self, tensor):
        self.pack(tensor)


def measure_training(family, attention, dtype_name, batch, seq, checkpointing):
    model, config = build(family, attention, DTYPES[dtype_name])
    model.train()
    if checkpointing == "layer":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    ids = torch.randint(0, VOCAB, (batch, seq))
    saved = SavedBytes(model)
    handles = []
    if checkpointing == "layer":
        # A checkpointed layer keeps a reference to its input until backward; the
        # checkpoint holds it outside autograd's saved tensors, so record it here.
        def keep_input(module, args, kwargs):
            hidden = args[0] if args else kwargs["hidden_states"]
            saved.add_tensor(hidden)
        for layer in _decoder_layers(model):
            handles.append(layer.register_forward_pre_hook(keep_input, with_kwargs=True))
    with saved.hooks():
        out = model(input_ids=ids, labels=ids, use_cache=False)
    for handle in handles:
        handle.remove()
    saved.add_tensor(out.logits)  # held by the caller until backward
    forward_bytes = saved.bytes
    recomputes = []
    original_backward = torch.utils.checkpoint.CheckpointFunction.backward

    def counted_backward(ctx, *grads):
        # One call per checkpointed layer: what its recompute saves is live until
        # that layer's backward ends, so count it per call and keep the largest.
        recompute = SavedBytes(model, already=saved)
        with recompute.hooks():
            result = original_backward(ctx, *grads)
        recomputes.append(recompute.bytes)
        return result

    torch.utils.checkpoint.CheckpointFunction.backward = staticmethod(counted_backward)
    try:
        out.loss.backward()
    finally:
        torch.utils.checkpoint.CheckpointFunction.backward = staticmethod(original_backward)
    one_layer_recompute = max(recomputes, default=0)
    grads = sum(p.grad.numel() * p.grad.element_size() for p in {id(p): p for p in model.parameters()}.values()
                if p.grad is not None)
    return config, {"saved_bytes": forward_bytes + one_layer_recompute, "forward_saved_bytes": forward_bytes,
                    "recompute_bytes_per_layer": one_layer_recompute, "gradient_bytes": grads}


def _any_attention(family):
    return "eager" if family == "gemma2" else "flash"  # Gemma 2 refuses SDPA in transformers 5


def _decoder_layers(model):
    base = model.base_model
    return base.h if hasattr(base, "h") else base.layers


def measure_states(family):
    model, config = build(family, _any_attention(family), torch.float32)
    model.train()
    params, weight_bytes = unique_params(model)
    ids = torch.randint(0, VOCAB, (1, 16))
    model(input_ids=ids, labels=ids, use_cache=False).loss.backward()
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    optimizer.step()
    state = sum(t.numel() * t.element_size() for s in optimizer.state.values()
                for k, t in s.items() if k in ("exp_avg", "exp_avg_sq"))
    return config, {"params": params, "weight_bytes_fp32": weight_bytes, "gradient_bytes_fp32": grads,
                    "adamw_state_bytes": state}


def measure_kv(family, batch, seq):
    model, config = build(family, _any_attention(family), torch.bfloat16)
    model.eval()
    ids = torch.randint(0, VOCAB, (batch, seq))
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
    nbytes = 0
    for layer in cache.layers:
        for t in (layer.keys, layer.values):
            nbytes += t.numel() * t.element_size()
    return config, {"kv_cache_bytes": nbytes}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured.json")
    args = parser.parse_args(argv)
    cases = []
    for family in FAMILIES:
        config, measured = measure_states(family)
        cases.append({"kind": "states", "family": family, "config": config, "measured": measured})
        for batch, seq in ((1, 128), (3, 40)):
            config, measured = measure_kv(family, batch, seq)
            cases.append({"kind": "kv_cache", "family": family, "config": config, "precision": "bf16",
                          "batch": batch, "seq": seq, "measured": measured})
        attentions = ("eager",) if family == "gemma2" else ("eager", "flash")
        for attention in attentions:
            for dtype_name, batch, seq, checkpointing in (
                ("bf16", 1, 128, "none"), ("bf16", 4, 64, "none"), ("bf16", 2, 256, "none"),
                ("fp32", 2, 64, "none"), ("bf16", 2, 128, "layer"),
            ):
                config, measured = measure_training(family, attention, dtype_name, batch, seq, checkpointing)
                cases.append({"kind": "training", "family": family, "config": config, "attention": attention,
                              "precision": dtype_name, "batch": batch, "seq": seq,
                              "checkpointing": checkpointing, "measured": measured})
                print(family, attention, dtype_name, batch, seq, checkpointing, measured, file=sys.stderr)
    result = {
        "generated": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tool": "tools/measure_reference.py",
        "cases": cases,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
