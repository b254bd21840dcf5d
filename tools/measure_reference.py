"""Measure the bytes real model implementations hold, for the golden tests.

A developer tool, not run by CI. It builds small random-weight models with
PyTorch (CPU) and Hugging Face transformers from their configs and measures:

- parameters (unique tensors, a tied head once) and weight bytes;
- gradient bytes after one backward pass;
- AdamW state bytes after one step (exp_avg + exp_avg_sq; the per-tensor `step`
  scalars are left out, as they are a few bytes per tensor);
- KV-cache bytes after a prefill of `seq` tokens; for the families added after the first
  eight, also the bytes per layer and every tensor the cache holds (keys/values, the
  conv and recurrent states of linear-attention layers), with shapes, dtypes and the
  bytes of their storages, each storage once (a sliding-window layer's K/V are a view of
  the last W-1 positions of the whole prefill's K/V, which stay allocated until the next
  token is appended; from then on the storage holds W positions);
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

For SDPA runs of models with a sliding window or attention chunks, transformers passes
the window as an explicit mask: on those layers the SDPA kernel saves an additive mask of
batch × seq × seq in the activation dtype, and K/V are repeated to every query head
(`repeat_kv`) instead of using `enable_gqa`. FlashAttention-2 would take the window as an
argument and save neither.

Usage: python tools/measure_reference.py [--out tests/golden/measured.json] [--families NAME ...]
Needs: pip install torch==2.13.0 transformers
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time

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
# The families above were measured first; their cases keep the original schema. The
# families below add `kv_cache_layer_bytes` and the cache details to their KV cases.
LEGACY_FAMILIES = frozenset(FAMILIES)
WINDOW = 32  # sliding window / attention chunk: below most sequence lengths measured
FAMILIES.update({
    # q/k RMSNorm per head; head_dim 64 while hidden / heads = 32
    "qwen3": {"model_type": "qwen3", **SMALL, "head_dim": 64},
    # layer 0 dense (mlp_only_layers), layers 1-2 MoE
    "qwen3_moe": {"model_type": "qwen3_moe", **SMALL, "num_hidden_layers": 3, "head_dim": 64,
                  "moe_intermediate_size": 128, "num_experts": 4, "num_experts_per_tok": 2,
                  "decoder_sparse_step": 1, "mlp_only_layers": [0], "norm_topk_prob": True},
    # routed experts plus a sigmoid-gated shared expert; q/k/v biases
    "qwen2_moe": {"model_type": "qwen2_moe", **SMALL, "moe_intermediate_size": 128, "num_experts": 4,
                  "num_experts_per_tok": 2, "shared_expert_intermediate_size": 384, "qkv_bias": True},
    # Gated DeltaNet (linear attention) on layers 0 and 2, gated full attention on 1 and 3; MoE + shared expert
    "qwen3_next": {"model_type": "qwen3_next", **SMALL, "num_hidden_layers": 4, "head_dim": 64,
                   "full_attention_interval": 2, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 32,
                   "linear_value_head_dim": 48, "linear_num_key_heads": 4, "linear_num_value_heads": 8,
                   "moe_intermediate_size": 128, "shared_expert_intermediate_size": 192, "num_experts": 4,
                   "num_experts_per_tok": 2, "decoder_sparse_step": 1},
    # MLA with a query LoRA; layer 0 dense, layers 1-2 MoE with a shared expert and group-limited routing
    "deepseek_v3": {"model_type": "deepseek_v3", **SMALL, "num_hidden_layers": 3, "num_key_value_heads": 8,
                    "q_lora_rank": 96, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16,
                    "v_head_dim": 32, "moe_intermediate_size": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
                    "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 2, "topk_group": 1},
    # MLA without the query LoRA; two shared experts, greedy routing. v_head_dim equals
    # qk_nope + qk_rope here, so that CPU SDPA runs its fused kernel (see MATH_SDPA)
    "deepseek_v2": {"model_type": "deepseek_v2", **SMALL, "num_hidden_layers": 3, "num_key_value_heads": 8,
                    "q_lora_rank": None, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16,
                    "v_head_dim": 48, "moe_intermediate_size": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
                    "n_shared_experts": 2, "first_k_dense_replace": 1, "topk_method": "greedy"},
    # sliding layers 0-1, full layer 2; q/k norm; tied embeddings
    "gemma3_text": {"model_type": "gemma3_text", **SMALL, "num_hidden_layers": 3, "head_dim": 64,
                    "query_pre_attn_scalar": 64, "sliding_window": WINDOW,
                    "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]},
    # sliding / full alternating, attention sinks, MoE with biases (experts in the model dtype, not MXFP4)
    "gpt_oss": {"model_type": "gpt_oss", **SMALL, "intermediate_size": 256, "head_dim": 64, "num_local_experts": 4,
                "num_experts_per_tok": 2, "sliding_window": WINDOW,
                "layer_types": ["sliding_attention", "full_attention"]},
    # MoE (routed + shared expert, intermediate_size) on layers 1 and 3, dense MLP (intermediate_size_mlp)
    # on 0 and 2; chunked attention on the RoPE layers 0-2, NoPE full attention on layer 3
    "llama4_text": {"model_type": "llama4_text", **SMALL, "num_hidden_layers": 4, "head_dim": 32,
                    "intermediate_size": 256, "intermediate_size_mlp": 688, "num_local_experts": 4,
                    "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "attention_chunk_size": WINDOW,
                    "no_rope_layer_interval": 4, "use_qk_norm": True},
    # phi-2 style: LayerNorm, gelu_new, partial rotary, biases, parallel attention + MLP, residual dropout
    "phi": {"model_type": "phi", **SMALL, "num_key_value_heads": 8, "hidden_act": "gelu_new",
            "partial_rotary_factor": 0.5, "resid_pdrop": 0.1, "embd_pdrop": 0.0, "attention_dropout": 0.0},
    # RMSNorm after attention and MLP, q/k RMSNorm over the whole projection
    "olmo2": {"model_type": "olmo2", **SMALL},
    # embedding / residual / attention / logits multipliers, tied embeddings
    "granite": {"model_type": "granite", **SMALL, "embedding_multiplier": 12.0, "logits_scaling": 8.0,
                "residual_multiplier": 0.22, "attention_multiplier": 0.0078125, "tie_word_embeddings": True},
    # parallel attention + MLP, one LayerNorm, per-head q/k LayerNorm, tied embeddings
    "cohere": {"model_type": "cohere", **SMALL, "use_qk_norm": True},
    # sliding layers 0-2, full (NoPE) layer 3
    "cohere2": {"model_type": "cohere2", **SMALL, "num_hidden_layers": 4, "sliding_window": WINDOW,
                "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]},
    # partial rotary, q/k norm, attention biases; layer 0 dense, layers 1-2 MoE with a shared expert
    "glm4_moe": {"model_type": "glm4_moe", **SMALL, "num_hidden_layers": 3, "moe_intermediate_size": 128,
                 "n_routed_experts": 8, "num_experts_per_tok": 2, "n_shared_experts": 1, "first_k_dense_replace": 1,
                 "n_group": 1, "topk_group": 1, "use_qk_norm": True, "attention_bias": True},
    # NoPE on every 2nd layer, tied embeddings
    "smollm3": {"model_type": "smollm3", **SMALL, "no_rope_layer_interval": 2, "pad_token_id": 0},
    # LayerNorm, attention biases, lm_head bias, sparsemixer routing
    "phimoe": {"model_type": "phimoe", **SMALL, "intermediate_size": 256, "num_local_experts": 4,
               "num_experts_per_tok": 2, "attention_bias": True, "lm_head_bias": True},
    # Mistral with a sliding window on every layer
    "mistral-swa": {"model_type": "mistral", **SMALL, "sliding_window": WINDOW},
    # sliding layer 0, full layer 1
    "ministral": {"model_type": "ministral", **SMALL, "head_dim": 32, "sliding_window": WINDOW,
                  "layer_types": ["sliding_attention", "full_attention"]},
    # the text model of Mistral 3 (Ministral3ForCausalLM); head_dim 64 while hidden / heads = 32
    "ministral3": {"model_type": "ministral3", **SMALL, "head_dim": 64},
})
# Families whose attention has no SDPA path in transformers 5 (`_supports_sdpa = False` or refused).
EAGER_ONLY = frozenset({"gemma2", "gpt_oss"})
# Families whose SDPA call falls back to the math path on CPU, which saves the s × s probabilities
# in fp32: CPU's fused kernel needs the same head dim for K and V, and DeepSeek V3's MLA has
# qk_nope + qk_rope = 48 against v_head_dim = 32 (as 192 against 128 in the real model). On GPU,
# SDPA would use the memory-efficient kernel, so these training runs are measured with eager only.
MATH_SDPA = frozenset({"deepseek_v3"})
ATTENTION = {"eager": "eager", "flash": "sdpa"}
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


class _BoolMaskDropout(torch.autograd.Function):
    """Dropout that saves a one-byte mask, like CUDA's fused native_dropout, and makes no more than its kernels
    (native_dropout, native_dropout_backward) do: the mask is drawn in place as bools, and the scale applied in place,
    one output each way. Until 2026-12-07 `torch.rand(...) >= p` made an fp32 tensor of the input's shape first and
    `x * mask * scale` a second copy, transient, in the forward and in the backward, which can be the layers' peak
    (LoRA with dropout: docs/accuracy.md)."""

    @staticmethod
    def forward(ctx, x, p):
        mask = torch.empty(x.shape, dtype=torch.bool, device=x.device).bernoulli_(1.0 - p)
        scale = 1.0 / (1.0 - p)
        ctx.save_for_backward(mask)
        ctx.scale = scale
        return x.mul(mask).mul_(scale)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad.mul(mask).mul_(ctx.scale), None


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


def _attentions(family):
    return ("eager",) if family in EAGER_ONLY | MATH_SDPA else ("eager", "flash")


def _any_attention(family):
    return _attentions(family)[-1]  # SDPA where the model has it


def _decoder_layers(model):
    base = model.base_model
    if base is model:  # Llama 4's CausalLM holds its base model as `model` under the prefix "language_model"
        base = model.model
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


# What a cache layer holds per token or per sequence; other tensors (e.g. the sliding window
# size kept as a 0-d tensor) are bookkeeping and only enter the storage total.
CACHE_STATE_ATTRIBUTES = ("keys", "values", "conv_states", "recurrent_states", "indexer_keys")


def _cache_tensors(obj):
    """(name, tensor) for every tensor an object holds in its attributes, dicts, lists and tuples."""
    found = []

    def visit(name, value):
        if isinstance(value, torch.Tensor):
            found.append((name, value))
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(f"{name}[{key}]", item)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                visit(f"{name}[{index}]", item)

    for name, value in vars(obj).items():
        if name != "layers":
            visit(name, value)
    return found


def measure_kv(family, batch, seq):
    model, config = build(family, _any_attention(family), torch.bfloat16)
    model.eval()
    ids = torch.randint(0, VOCAB, (batch, seq))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    cache = out.cache if getattr(out, "cache", None) is not None else out.past_key_values
    if family in LEGACY_FAMILIES:
        nbytes = 0
        for layer in cache.layers:
            for t in (layer.keys, layer.values):
                nbytes += t.numel() * t.element_size()
        return config, {"kv_cache_bytes": nbytes}
    # Every tensor the cache holds, each storage once: a sliding-window layer keeps a view of the
    # last W-1 positions of the prefill's concatenated K/V, so its storage is larger than the view.
    layer_types = getattr(model.config.get_text_config(decoder=True), "layer_types", None)
    seen = set()

    def describe(obj):
        state_bytes, storage_bytes, tensors = 0, 0, {}
        for name, t in _cache_tensors(obj):
            storage = t.untyped_storage()
            new_storage = storage.data_ptr() not in seen
            seen.add(storage.data_ptr())
            nbytes = t.numel() * t.element_size()
            if name.split("[")[0] in CACHE_STATE_ATTRIBUTES:
                state_bytes += nbytes
            storage_bytes += storage.nbytes() if new_storage else 0
            tensors[name] = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "bytes": nbytes,
                             "storage_bytes": storage.nbytes() if new_storage else 0}
        return state_bytes, storage_bytes, tensors

    _, storage_total, tensors = describe(cache)  # tensors held by the cache object itself: none so far
    layers = [{"holder": "cache", "tensors": tensors}] if tensors else []
    layer_bytes = []
    for index, layer in enumerate(cache.layers):
        state_bytes, storage_bytes, tensors = describe(layer)
        layer_bytes.append(state_bytes)
        storage_total += storage_bytes
        entry = {"class": type(layer).__name__}
        if layer_types is not None:
            entry["layer_type"] = layer_types[index]
        entry["tensors"] = tensors
        layers.append(entry)
    return config, {"kv_cache_bytes": sum(layer_bytes), "kv_cache_layer_bytes": layer_bytes,
                    "kv_cache_storage_bytes": storage_total, "kv_cache_layers": layers}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured.json")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), metavar="FAMILY",
                        help="measure only these (for development; the golden file holds all of them)")
    args = parser.parse_args(argv)
    cases = []
    for family in args.families or FAMILIES:
        started = time.monotonic()
        config, measured = measure_states(family)
        cases.append({"kind": "states", "family": family, "config": config, "measured": measured})
        print(family, "states", measured, file=sys.stderr)
        kv_points = ((1, 128), (3, 40)) if family in LEGACY_FAMILIES else ((1, 128), (3, 40), (2, 24))
        for batch, seq in kv_points:
            config, measured = measure_kv(family, batch, seq)
            cases.append({"kind": "kv_cache", "family": family, "config": config, "precision": "bf16",
                          "batch": batch, "seq": seq, "measured": measured})
            print(family, "kv", batch, seq, measured["kv_cache_bytes"], measured.get("kv_cache_layer_bytes", ""),
                  file=sys.stderr)
        for attention in _attentions(family):
            for dtype_name, batch, seq, checkpointing in (
                ("bf16", 1, 128, "none"), ("bf16", 4, 64, "none"), ("bf16", 2, 256, "none"),
                ("fp32", 2, 64, "none"), ("bf16", 2, 128, "layer"),
            ):
                config, measured = measure_training(family, attention, dtype_name, batch, seq, checkpointing)
                cases.append({"kind": "training", "family": family, "config": config, "attention": attention,
                              "precision": dtype_name, "batch": batch, "seq": seq,
                              "checkpointing": checkpointing, "measured": measured})
                print(family, attention, dtype_name, batch, seq, checkpointing, measured, file=sys.stderr)
        print(family, f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    write_json(args.out, {**provenance("tools/measure_reference.py"), "cases": cases})


def provenance(tool: str) -> dict:
    """When, where and with what versions a golden file was measured."""
    return {"generated": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
            "torch": torch.__version__, "transformers": transformers.__version__, "tool": tool}


def write_json(path: str, result: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
