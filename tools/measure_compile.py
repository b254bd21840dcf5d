"""Measure what one decoder layer saves for backward under torch.compile, for the golden tests.

A developer tool, not run by CI (torch, transformers and peft from the measurement environment; a C++ compiler
for inductor's CPU kernels). Each case builds one transformers decoder layer with random bf16 weights and runs its
forward twice on the same input, as written (eager) and under `torch.compile(layer)` (inductor; AOTAutograd's
min-cut partitioner decides what the compiled forward keeps for the backward). A `saved_tensors_hooks` pack hook
sees every tensor autograd keeps, the compiled function's included (torchtune's activation offloading rides the
same hook); each storage counts once, the layer's parameters and the rotary tables (shared by the batch) excluded,
the layer's input included (the compiled layer keeps it; eager's does not).

torchtune compiles each decoder layer (training.compile_model) and runs SDPA; so do these cases: `sdpa`, no mask
(packed and causal). The partitioner runs before inductor picks kernels for a device; the CPU's SDPA
(`_scaled_dot_product_flash_attention_for_cpu`) keeps what CUDA's flash kernel keeps (its output, in the
(b, s, heads, d) layout o_proj reads, and the log-sum-exp).

    /work/mvenv/bin/python tools/measure_compile.py > tests/golden/measured_compile.json

With `--torchtune DIR` it measures torchtune's own Llama 3.2 layer too (family `torchtune`; its attention repeats K
and V to every head, its RMSNorm computes in fp32): DIR holds the unpacked wheels of torchtune 0.6.1, torchao 0.11.0,
omegaconf 2.4.0 and antlr4-python3-runtime 4.9.3 (pip download; torchtune's package __init__ and its tokenizer
dependencies are bypassed: only torchtune.models and torchtune.modules are used).
"""

from __future__ import annotations

import json
import platform
import sys

import torch
import transformers
from peft import LoraConfig, get_peft_model

FAMILIES = {"llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3"}
SHAPES = [(256, 768, 8, 2, 32, 64), (384, 1000, 6, 6, 64, 48), (512, 1536, 8, 2, 96, 32)]
LORA = {"q,v,o,gate,up,down": ["q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        "all-linear": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}
BATCH = 2


def _classes(family: str):
    module = getattr(transformers.models, family)
    name = FAMILIES[family]
    modeling = getattr(module, f"modeling_{family}")
    return (getattr(transformers, f"{name}Config"), getattr(modeling, f"{name}DecoderLayer"),
            getattr(modeling, f"{name}RotaryEmbedding"))


def measure(family: str, shape: tuple[int, ...], lora: str | None, rank: int = 16) -> dict:
    hidden, ffn, heads, kv_heads, head_dim, seq = shape
    config_class, layer_class, rope_class = _classes(family)
    config = {"model_type": family, "hidden_size": hidden, "intermediate_size": ffn, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "head_dim": head_dim, "num_hidden_layers": 1, "vocab_size": 256}
    cfg = config_class(**{k: v for k, v in config.items() if k != "model_type"})
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    layer = layer_class(cfg, 0).to(torch.bfloat16)
    if lora:  # adapters in bf16, no dropout: torchtune's LoRA recipes
        holder = torch.nn.Module()
        holder.layer = layer
        peft_model = get_peft_model(holder, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=LORA[lora],
                                                       lora_dropout=0.0), autocast_adapter_dtype=False)
        layer = peft_model.base_model.model.layer.to(torch.bfloat16)
    rope = rope_class(cfg)
    x = torch.randn(BATCH, seq, hidden, dtype=torch.bfloat16, requires_grad=True)
    positions = torch.arange(seq)[None].expand(BATCH, seq)
    cos, sin = (t.detach() for t in rope(x, positions))
    skip = {t.untyped_storage().data_ptr() for t in (cos, sin, *layer.parameters())}
    return {"family": family, "config": config, "batch": BATCH, "seq": seq,
            "lora": {"rank": rank, "targets": lora} if lora else None,
            **_saved_per_token(layer, x, skip, attention_mask=None, position_embeddings=(cos, sin),
                               position_ids=positions)}


def _saved_per_token(layer: torch.nn.Module, x: torch.Tensor, skip: set[int], **kwargs: object) -> dict[str, float]:
    out = {}
    for name, run in (("eager", layer), ("compiled", torch.compile(layer, dynamic=False))):
        seen: dict[int, int] = {}

        def pack(t: torch.Tensor, seen: dict[int, int] = seen) -> torch.Tensor:
            storage = t.untyped_storage()
            seen[storage.data_ptr()] = storage.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            run(x, **kwargs)
        out[f"{name}_bytes_per_token"] = sum(n for ptr, n in seen.items() if ptr not in skip) / x.shape[:2].numel()
    return out


def measure_torchtune(directory: str, shape: tuple[int, ...], lora: int = 0) -> dict:
    import types

    class Stub(types.ModuleType):
        def __getattr__(self, name: str) -> type:
            if name.startswith("__"):
                raise AttributeError(name)
            return type(name, (), {})

    sys.path.insert(0, directory)
    for name in ("sentencepiece", "tiktoken", "tiktoken.load", "blobfile", "kagglehub"):
        sys.modules.setdefault(name, Stub(name))
    package = types.ModuleType("torchtune")
    package.__path__ = [f"{directory}/torchtune"]
    sys.modules.setdefault("torchtune", package)
    from torchtune.models.llama3_2._component_builders import llama3_2, lora_llama3_2

    hidden, ffn, heads, kv_heads, head_dim, seq = shape
    sizes = {"vocab_size": 256, "num_layers": 1, "num_heads": heads, "num_kv_heads": kv_heads, "embed_dim": hidden,
             "max_seq_len": 512, "intermediate_dim": ffn}
    torch.manual_seed(0)
    if lora:  # torchtune's 3B LoRA recipe: q, v, output_proj and the MLP, no dropout
        model = lora_llama3_2(lora_attn_modules=["q_proj", "v_proj", "output_proj"], apply_lora_to_mlp=True,
                              lora_rank=lora, lora_alpha=2 * lora, lora_dropout=0.0, **sizes)
        for name, p in model.named_parameters():
            p.requires_grad_("lora_" in name)
    else:
        model = llama3_2(**sizes)
    layer = model.to(torch.bfloat16).layers[0]
    x = torch.randn(BATCH, seq, hidden, dtype=torch.bfloat16, requires_grad=True)
    skip = {t.untyped_storage().data_ptr() for t in (*layer.parameters(), *layer.buffers())}
    config = {"hidden_size": hidden, "intermediate_size": ffn, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "head_dim": head_dim}
    return {"family": "torchtune", "config": config, "batch": BATCH, "seq": seq,
            "lora": {"rank": lora, "targets": "q,v,o,gate,up,down"} if lora else None,
            **_saved_per_token(layer, x, skip)}


def main() -> None:
    torch._dynamo.config.cache_size_limit = 64
    cases = [measure(family, shape, None) for family in FAMILIES for shape in SHAPES]
    cases += [measure(family, SHAPES[i], lora) for family in ("llama", "qwen3") for i in (0, 2) for lora in LORA]
    if "--torchtune" in sys.argv:
        directory = sys.argv[sys.argv.index("--torchtune") + 1]
        cases += [measure_torchtune(directory, shape, lora) for shape in (SHAPES[0], (512, 1536, 8, 2, 64, 32))
                  for lora in (0, 16)]
    json.dump({"tool": "tools/measure_compile.py", "torch": torch.__version__,
               "transformers": transformers.__version__, "python": platform.python_version(),
               "machine": platform.machine(), "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
