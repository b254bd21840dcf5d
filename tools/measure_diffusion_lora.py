"""Measure the bytes one LoRA training step of a diffusion transformer holds, for the golden tests.

A developer tool, not run by CI. It builds small random-weight FluxTransformer2DModel, Flux2Transformer2DModel and
WanTransformer3DModel configs (diffusers 0.42), wraps them as the LoRA trainers of 2026 do and runs two training
steps on the CPU under tools/measure_peak.py's tracker (every storage an ATen op makes, freed with it); the second
step's phases are recorded, as tools/measure_peak.py records a language model's.

The step, as kohya-ss sd-scripts (flux_train_network.py), musubi-tuner (wan_train_network.py) and ostris ai-toolkit
run it with cached latents and text embeddings (the VAE and text encoders are not on the GPU during the step):
noise and a timestep per sample, the noisy latents (1 - t) x0 + t noise, the denoiser's prediction, the
flow-matching loss mse(pred.float(), (noise - x0).float()), backward, AdamW (torch, foreach) over the adapters,
zero_grad(set_to_none=True). The cached latents and text embeddings are made before the tracker starts.

- LoRA: peft (diffusers' `add_adapter(LoraConfig(r, lora_alpha=r, target_modules=...))`) on every nn.Linear inside
  the transformer blocks: Flux's transformer_blocks and single_transformer_blocks (attention q/k/v/out and the
  context ones, the MLPs, proj_mlp/proj_out and the AdaLN modulation linears: sd-scripts' and ai-toolkit's
  default; musubi-tuner leaves the modulation out) and Wan's blocks (self- and cross-attention q/k/v/out, the FFN:
  musubi-tuner's WanAttentionBlock linears). FLUX.2 as ai-toolkit trains it (extensions_built_in/diffusion_models/
  flux2, BFL's blocks): each double block's q, k and v fused into one Linear per stream (diffusers'
  fuse_projections, the separate ones removed), then every nn.Linear of the double and single blocks.
- Adapters `bf16` (a pure-bf16 step, as musubi-tuner's --full_bf16 or ai-toolkit's dtype bf16) or `fp32` with the
  step under `torch.autocast(bfloat16)` (accelerate's --mixed_precision bf16, the trainers' default). The adapters
  take their bf16 input as it is (peft's input casting off: sd-scripts' and musubi-tuner's LoRA modules call
  lora_down on the input as it comes, and autocast runs it in bf16). CPU autocast is not CUDA's: CUDA's also runs
  LayerNorm in fp32 (its "autocast to float32" list), CPU's does not, so a GPU's autocast step keeps some fp32
  LayerNorm outputs these cases do not see (docs/accuracy.md).
- Base `bf16` or `fp8`: diffusers' `enable_layerwise_casting(float8_e4m3fn, compute bfloat16)` before the
  adapters are added (what sd-scripts' and musubi-tuner's --fp8_base does: Linear weights stored in one byte,
  cast to bf16 for each module's forward); the adapters are then cast back to their dtype (peft gives a new
  adapter the base layer's dtype).
- The class's `_keep_in_fp32_modules` stay in fp32, as from_pretrained(torch_dtype=bfloat16) leaves them
  (Wan's time embedder, modulation tables and norms).
- Checkpointing: diffusers' `enable_gradient_checkpointing()` (torch.utils.checkpoint, non-reentrant, one
  checkpoint per transformer block), or none.

Each case records weight_bytes (the frozen denoiser), trainable params and bytes, the phases of the second step
(start, peak, end of forward, backward, optimizer) and the peak. `--explain N` prints the storages live at the
peak of case N.

Usage: python tools/measure_diffusion_lora.py [--out tests/golden/diffusion_lora.json] [--explain N]
Needs: pip install torch==2.13.0 diffusers==0.42.1 peft
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_peak as P  # patches dropout to the bool-mask version (measure_reference)
import measure_reference as M

import diffusers
import peft
from peft import LoraConfig
# isort: on

warnings.filterwarnings("ignore")
diffusers.logging.set_verbosity_error()

FLUX = {"num_layers": 2, "num_single_layers": 3, "num_attention_heads": 4, "attention_head_dim": 32,
        "joint_attention_dim": 64, "pooled_projection_dim": 32, "in_channels": 64, "axes_dims_rope": [8, 12, 12],
        "guidance_embeds": True}
WAN = {"num_layers": 3, "num_attention_heads": 4, "attention_head_dim": 32, "ffn_dim": 346, "text_dim": 64,
       "freq_dim": 32, "cross_attn_norm": True}
FLUX2 = {"num_layers": 2, "num_single_layers": 3, "num_attention_heads": 4, "attention_head_dim": 32,
         "joint_attention_dim": 64, "in_channels": 64, "timestep_guidance_channels": 32, "axes_dims_rope": [8, 8, 8, 8]}
BLOCKS = {"FluxTransformer2DModel": ("transformer_blocks.", "single_transformer_blocks."),
          "Flux2Transformer2DModel": ("transformer_blocks.", "single_transformer_blocks."),
          "WanTransformer3DModel": ("blocks.",)}

# (class, config, batch, latent (channels, [frames,] height, width), text tokens, rank, base, adapters, checkpointing)
CASES = [
    ("FluxTransformer2DModel", FLUX, 1, (16, 64, 64), 128, 16, "bf16", "bf16", False),
    ("FluxTransformer2DModel", FLUX, 1, (16, 64, 64), 128, 16, "bf16", "bf16", True),
    ("FluxTransformer2DModel", FLUX, 2, (16, 96, 96), 256, 16, "bf16", "bf16", False),
    ("FluxTransformer2DModel", FLUX, 2, (16, 96, 96), 256, 16, "bf16", "bf16", True),
    ("FluxTransformer2DModel", FLUX, 1, (16, 128, 128), 128, 32, "bf16", "bf16", True),
    ("FluxTransformer2DModel", FLUX, 1, (16, 64, 64), 128, 16, "fp8", "bf16", False),
    ("FluxTransformer2DModel", FLUX, 1, (16, 96, 96), 128, 16, "fp8", "bf16", True),
    ("FluxTransformer2DModel", FLUX, 1, (16, 64, 64), 128, 16, "bf16", "fp32", False),
    ("FluxTransformer2DModel", FLUX, 1, (16, 96, 96), 256, 16, "fp8", "fp32", True),
    ("WanTransformer3DModel", WAN, 1, (16, 5, 32, 32), 128, 16, "bf16", "bf16", False),
    ("WanTransformer3DModel", WAN, 1, (16, 5, 32, 32), 128, 16, "bf16", "bf16", True),
    ("WanTransformer3DModel", WAN, 2, (16, 9, 48, 48), 256, 16, "bf16", "bf16", False),
    ("WanTransformer3DModel", WAN, 2, (16, 9, 48, 48), 256, 16, "bf16", "bf16", True),
    ("WanTransformer3DModel", {**WAN, "ffn_dim": 746}, 1, (16, 9, 48, 48), 512, 32, "bf16", "bf16", True),
    ("WanTransformer3DModel", WAN, 1, (16, 5, 48, 48), 128, 16, "fp8", "bf16", False),
    ("WanTransformer3DModel", WAN, 1, (16, 9, 48, 48), 128, 16, "fp8", "bf16", True),
    ("WanTransformer3DModel", WAN, 1, (16, 5, 32, 32), 128, 16, "bf16", "fp32", False),
    ("WanTransformer3DModel", WAN, 1, (16, 9, 48, 48), 256, 16, "fp8", "fp32", True),
    # FLUX.2 as ai-toolkit trains it: q, k and v fused (BFL's qkv), adapters on the blocks' linears
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 64, 64), 128, 16, "bf16", "bf16", False),
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 64, 64), 128, 16, "bf16", "bf16", True),
    ("Flux2Transformer2DModel", FLUX2, 2, (16, 96, 96), 256, 16, "bf16", "bf16", False),
    ("Flux2Transformer2DModel", FLUX2, 2, (16, 96, 96), 256, 16, "bf16", "bf16", True),
    ("Flux2Transformer2DModel", {**FLUX2, "num_attention_heads": 2, "attention_head_dim": 64, "mlp_ratio": 2.0,
                                 "axes_dims_rope": [16, 16, 16, 16], "guidance_embeds": False},
     1, (16, 128, 128), 128, 32, "bf16", "bf16", True),
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 64, 64), 128, 16, "fp8", "bf16", False),
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 96, 96), 128, 16, "fp8", "bf16", True),
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 64, 64), 128, 16, "bf16", "fp32", False),
    ("Flux2Transformer2DModel", FLUX2, 1, (16, 96, 96), 256, 16, "fp8", "fp32", True),
]


def _frame():
    """The innermost diffusers or peft frame on the stack: file:function:line."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        for root in ("/diffusers/", "/peft/", "/torch/utils/checkpoint"):
            if root in name:
                return f"{name.split(root)[-1]}:{frame.f_code.co_name}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


P._frame = _frame


def block_linears(model, class_name: str) -> list[str]:
    """Every nn.Linear inside the transformer blocks (peft matches a full module name exactly)."""
    return [name for name, module in model.named_modules()
            if isinstance(module, torch.nn.Linear) and name.startswith(BLOCKS[class_name])]


def inputs(class_name: str, config: dict, batch: int, latent: tuple, text_tokens: int):
    """Cached latents and text embeddings, as the trainers load them (bf16)."""
    dtype = torch.bfloat16
    text = torch.randn(batch, text_tokens, config.get("joint_attention_dim", config.get("text_dim")), dtype=dtype)
    if class_name == "FluxTransformer2DModel":
        c, h, w = latent
        tokens = (h // 2) * (w // 2)
        x0 = torch.randn(batch, tokens, 4 * c, dtype=dtype)  # the packed latents
        extra = {"pooled_projections": torch.randn(batch, config["pooled_projection_dim"], dtype=dtype),
                 "img_ids": torch.zeros(tokens, 3), "txt_ids": torch.zeros(text_tokens, 3),
                 "guidance": torch.ones(batch, dtype=dtype)}
    elif class_name == "Flux2Transformer2DModel":  # Flux2Pipeline's packing and (t, h, w, l) ids
        c, h, w = latent
        tokens = (h // 2) * (w // 2)
        x0 = torch.randn(batch, tokens, 4 * c, dtype=dtype)
        grid = torch.cartesian_prod(torch.arange(1), torch.arange(h // 2), torch.arange(w // 2), torch.arange(1))
        words = torch.cartesian_prod(torch.arange(1), torch.arange(1), torch.arange(1), torch.arange(text_tokens))
        extra = {"img_ids": grid.expand(batch, -1, -1), "txt_ids": words.expand(batch, -1, -1),
                 "guidance": torch.ones(batch, dtype=dtype) if config.get("guidance_embeds", True) else None}
    else:
        x0 = torch.randn(batch, *latent, dtype=dtype)
        extra = {}
    return x0, text, extra


def fuse_qkv(model) -> None:
    """BFL's (and ai-toolkit's) FLUX.2 double blocks project q, k and v with one Linear per stream: diffusers'
    fuse_projections, the separate projections then removed."""
    for block in model.transformer_blocks:
        block.attn.fuse_projections()
        for name in ("to_q", "to_k", "to_v", "add_q_proj", "add_k_proj", "add_v_proj"):
            delattr(block.attn, name)


def measure(class_name, config, batch, latent, text_tokens, rank, base, adapters, checkpointing, explain=False):
    torch.manual_seed(0)
    model = getattr(diffusers, class_name).from_config(config).to(torch.bfloat16)
    keep = getattr(model, "_keep_in_fp32_modules", None) or []
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:  # as from_pretrained keeps them
        if any(part in keep for part in name.split(".")) and tensor.is_floating_point():
            tensor.data = tensor.data.float()
    if class_name == "Flux2Transformer2DModel":
        fuse_qkv(model)
    model.requires_grad_(False)
    if base == "fp8":
        model.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.bfloat16)
    targets = block_linears(model, class_name)
    model.add_adapter(LoraConfig(r=rank, lora_alpha=rank, target_modules=targets, init_lora_weights="gaussian"))
    trainable = [p for p in model.parameters() if p.requires_grad]
    for p in trainable:
        p.data = p.data.to(torch.float32 if adapters == "fp32" else torch.bfloat16)
    for module in model.modules():  # the adapters take the bf16 input as it is, as sd-scripts' LoRA modules do
        if isinstance(module, peft.tuners.lora.LoraLayer):
            module.cast_input_dtype_enabled = False
    if checkpointing:
        model.enable_gradient_checkpointing()
    model.train()
    optimizer = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    x0, text, extra = inputs(class_name, config, batch, latent, text_tokens)
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if adapters == "fp32" else contextlib.nullcontext
    tracker = P.PeakTracker(explain=explain)
    tracker.track_all([*model.parameters(), *model.buffers(), x0, text,
                       *(v for v in extra.values() if isinstance(v, torch.Tensor))])
    with tracker:
        for step in (1, 2):
            with tracker.in_phase(f"{step}.forward"):
                noise = torch.randn_like(x0)
                t = torch.rand(batch, dtype=torch.bfloat16)
                shape = (batch,) + (1,) * (x0.dim() - 1)
                noisy = (1 - t.view(shape)) * x0 + t.view(shape) * noise
                with autocast():
                    pred = model(hidden_states=noisy, encoder_hidden_states=text, timestep=t, **extra,
                                 return_dict=False)[0]
                loss = torch.nn.functional.mse_loss(pred.float(), (noise - x0).float())
            with tracker.in_phase(f"{step}.backward"):
                loss.backward()
            del pred, loss, noise, noisy, t
            with tracker.in_phase(f"{step}.optimizer"):
                optimizer.step()
            with tracker.in_phase(f"{step}.zero_grad"):
                optimizer.zero_grad(set_to_none=True)
    if explain:
        P.explain_peak(tracker, top=60)
    phases = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("2.")}
    weights = [b for b in [*model.parameters(), *model.buffers()] if not b.requires_grad]
    return {
        "weight_bytes": sum(w.numel() * w.element_size() for w in weights),
        "trainable_params": sum(p.numel() for p in trainable),
        "trainable_bytes": sum(p.numel() * p.element_size() for p in trainable),
        "adapted_linears": len(targets),
        "input_bytes": sum(t.numel() * t.element_size() for t in [x0, text]),
        "phases": phases,
        "peak_bytes": max(v["peak"] for v in phases.values()),
        "peak_phase": max(phases, key=lambda k: phases[k]["peak"]),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/diffusion_lora.json")
    parser.add_argument("--explain", type=int, help="measure case N only and print the storages live at its peak")
    parser.add_argument("--only", type=int, nargs="+", help="measure these cases and print them (writes nothing)")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.explain is not None:
        print(measure(*CASES[args.explain], explain=True), file=sys.stderr)
        return
    cases = []
    for index, (cls, config, batch, latent, text_tokens, rank, base, adapters, ckpt) in enumerate(CASES):
        if args.only and index not in args.only:
            continue
        measured = measure(cls, config, batch, latent, text_tokens, rank, base, adapters, ckpt)
        cases.append({"class": cls, "config": config, "batch": batch, "latent": list(latent),
                      "text_tokens": text_tokens, "rank": rank, "base": base, "adapters": adapters,
                      "checkpointing": ckpt, **measured})
        print(index, cls, batch, latent, text_tokens, base, adapters, ckpt, measured["peak_bytes"],
              measured["peak_phase"], file=sys.stderr)
    if args.only:
        return
    result = {**M.provenance("tools/measure_diffusion_lora.py"), "diffusers": diffusers.__version__,
              "peft": peft.__version__, "device": "cpu", "attention": "sdpa", "optimizer": "torch AdamW (foreach)",
              "cases": cases}
    M.write_json(args.out, result)


if __name__ == "__main__":
    main()
