"""Write small GGUF files of FLUX.2 and HiDream transformers as city96's tools make them, for the golden tests.

A developer tool, not run by CI. For small random-weight Flux2Transformer2DModel and HiDreamImageTransformer2DModel
configs (diffusers 0.42) it takes the state dict in bf16 under the original checkpoint's names (FLUX.2: BFL's, the
inverse of diffusers' `convert_flux2_transformer_checkpoint_to_diffusers`, q, k and v fused again; HiDream: its
diffusers names are its checkpoint's), picks each tensor's type as city96/ComfyUI-GGUF does, by the original name:

- `tools/convert.py` (795e451): 1-D tensors, tensors of at most 1,024 values and the arch's `keys_hiprec` in F32,
  the rest in BF16; FLUX.2 is detected as "flux" (double_blocks.0.img_attn.proj.weight), HiDream as "hidream".
- `tools/lcpp.patch` (llama-quantize; FLUX.2's two lines on branch auto_convert, ec7506d): quantises a tensor whose
  name ends in "weight", of two dimensions, without "_norm.weight", outside the arch's list (flux: txt_in., img_in.,
  time_in., vector_in., guidance_in., final_layer., single_stream_modulation., double_stream_modulation_; hidream:
  p_embedder., t_embedder., x_embedder., final_layer., .ff_i.gate.weight, caption_projection.); Q4_0 and Q5_0 go
  one type up (Q4_1, Q5_1) on the FFN down projections its img_tensor_get_type lists.

It quantises each tensor with gguf-py (`gguf.quants.quantize`), writes the file with `GGUFWriter`, reads it back
with `GGUFReader` and records the sum of its tensors' bytes per file type (tests/golden/diffusion_gguf.json), which
tests/test_diffusion.py holds vramcalc/diffusion/weights.py to. The rules above are transcribed here from the
original names, independently of the engine's tables, which are written over diffusers' names.

Usage: python tools/measure_diffusion_gguf.py [--out tests/golden/diffusion_gguf.json]
Needs: pip install torch==2.13.0 diffusers==0.42.1 gguf==0.19.0
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import tempfile

import diffusers
import gguf
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_reference as M

FILE_TYPES = ("q8_0", "q5_1", "q5_0", "q4_1", "q4_0")
CASES = [
    ("Flux2Transformer2DModel", {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 2,
                                 "attention_head_dim": 64, "joint_attention_dim": 96, "in_channels": 64,
                                 "timestep_guidance_channels": 64, "axes_dims_rope": [16, 16, 16, 16]}),
    ("Flux2Transformer2DModel", {"num_layers": 1, "num_single_layers": 3, "num_attention_heads": 3,
                                 "attention_head_dim": 32, "joint_attention_dim": 64, "in_channels": 32,
                                 "out_channels": 16, "mlp_ratio": 2.0, "guidance_embeds": False,
                                 "timestep_guidance_channels": 32, "axes_dims_rope": [8, 8, 8, 8]}),
    ("HiDreamImageTransformer2DModel", {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 2,
                                        "attention_head_dim": 64, "caption_channels": [64, 96], "text_emb_dim": 64,
                                        "in_channels": 16, "out_channels": 16, "num_routed_experts": 3,
                                        "num_activated_experts": 1, "llama_layers": [0, 1, 2, 3],
                                        "axes_dims_rope": [32, 16, 16], "patch_size": 2}),
    ("HiDreamImageTransformer2DModel", {"num_layers": 1, "num_single_layers": 1, "num_attention_heads": 2,
                                        "attention_head_dim": 64, "caption_channels": [64, 64], "text_emb_dim": 32,
                                        "in_channels": 16, "patch_size": 2, "num_routed_experts": 0,
                                        "llama_layers": [0, 0], "axes_dims_rope": [32, 16, 16]}),
]

FLUX2_TOP = {"x_embedder": "img_in", "context_embedder": "txt_in",
             "time_guidance_embed.timestep_embedder.linear_1": "time_in.in_layer",
             "time_guidance_embed.timestep_embedder.linear_2": "time_in.out_layer",
             "time_guidance_embed.guidance_embedder.linear_1": "guidance_in.in_layer",
             "time_guidance_embed.guidance_embedder.linear_2": "guidance_in.out_layer",
             "double_stream_modulation_img.linear": "double_stream_modulation_img.lin",
             "double_stream_modulation_txt.linear": "double_stream_modulation_txt.lin",
             "single_stream_modulation.linear": "single_stream_modulation.lin",
             "norm_out.linear": "final_layer.adaLN_modulation.1", "proj_out": "final_layer.linear"}
FLUX2_DOUBLE = {"attn.norm_q": "img_attn.norm.query_norm", "attn.norm_k": "img_attn.norm.key_norm",
                "attn.to_out.0": "img_attn.proj", "ff.linear_in": "img_mlp.0", "ff.linear_out": "img_mlp.2",
                "attn.norm_added_q": "txt_attn.norm.query_norm", "attn.norm_added_k": "txt_attn.norm.key_norm",
                "attn.to_add_out": "txt_attn.proj", "ff_context.linear_in": "txt_mlp.0",
                "ff_context.linear_out": "txt_mlp.2"}
FLUX2_SINGLE = {"attn.to_qkv_mlp_proj": "linear1", "attn.to_out": "linear2", "attn.norm_q": "norm.query_norm",
                "attn.norm_k": "norm.key_norm"}


def flux2_original(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """BFL's names for a diffusers Flux2Transformer2DModel state dict (norm weights are BFL's `scale`)."""
    out: dict[str, torch.Tensor] = {}
    for name, tensor in state.items():
        module, _, kind = name.rpartition(".")
        head, _, rest = module.partition(".")
        if head == "transformer_blocks":
            index, _, inner = rest.partition(".")
            if inner in ("attn.to_k", "attn.to_v", "attn.add_k_proj", "attn.add_v_proj"):
                continue  # fused into qkv with to_q / add_q_proj
            if inner in ("attn.to_q", "attn.add_q_proj"):
                stream, parts = ("img", ("to_q", "to_k", "to_v")) if inner == "attn.to_q" else (
                    "txt", ("add_q_proj", "add_k_proj", "add_v_proj"))
                out[f"double_blocks.{index}.{stream}_attn.qkv.{kind}"] = torch.cat(
                    [state[f"transformer_blocks.{index}.attn.{p}.{kind}"] for p in parts])
                continue
            new = f"double_blocks.{index}.{FLUX2_DOUBLE[inner]}"
        elif head == "single_transformer_blocks":
            index, _, inner = rest.partition(".")
            new = f"single_blocks.{index}.{FLUX2_SINGLE[inner]}"
        else:
            new = FLUX2_TOP[module]
        out[f"{new}.{'scale' if 'norm.' in new else kind}"] = tensor
    return out


KEYS_HIPREC = {"flux": (), "hidream": (".ff_i.gate.weight", "img_emb.emb_pos")}
NOT_QUANTISED = {
    "flux": ("txt_in.", "img_in.", "time_in.", "vector_in.", "guidance_in.", "final_layer.",
             "single_stream_modulation.", "double_stream_modulation_"),
    "hidream": ("p_embedder.", "t_embedder.", "x_embedder.", "final_layer.", ".ff_i.gate.weight",
                "caption_projection."),
}


def ffn_down(name: str) -> bool:
    """lcpp.patch img_tensor_get_type's "Rules for ffn"."""
    return any(part in name for part in ("ffn_down", ".ffn.2.weight", ".ff.net.2.weight", ".mlp.layer2.weight",
                                         ".adaln_modulation_mlp.2.weight", ".feed_forward.w2.weight")) or (
        "experts." in name and ".w2.weight" in name)


def qtype(name: str, array: np.ndarray, arch: str, ftype: str) -> gguf.GGMLQuantizationType:
    T = gguf.GGMLQuantizationType
    kind = T.BF16  # convert.py
    if array.ndim == 1 or array.size <= 1024 or any(key in name for key in KEYS_HIPREC[arch]):
        kind = T.F32
    n_dims = len(np.trim_zeros(np.array(array.shape) - 1, "f")) if array.ndim else 0  # ggml_n_dims
    quantise = (name.endswith("weight") and n_dims == 2 and "_norm.weight" not in name
                and not any(key in name for key in NOT_QUANTISED[arch]))
    if not quantise:
        return kind
    up = {"q4_0": "q4_1", "q5_0": "q5_1"}
    return T[(up.get(ftype, ftype) if ffn_down(name) else ftype).upper()]


def measure(class_name: str, config: dict) -> dict:
    torch.manual_seed(0)
    model = getattr(diffusers, class_name).from_config(config).to(torch.bfloat16)
    state = {k: v for k, v in model.state_dict().items()}
    arch = "flux" if class_name == "Flux2Transformer2DModel" else "hidream"
    original = flux2_original(state) if arch == "flux" else state
    detect = "double_blocks.0.img_attn.proj.weight" if arch == "flux" else "caption_projection.0.linear.weight"
    assert detect in original, detect
    result: dict[str, object] = {}
    for ftype in FILE_TYPES:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.gguf")
            writer = gguf.GGUFWriter(path, arch)
            for name, tensor in original.items():
                array = tensor.float().numpy()
                kind = qtype(name, array, arch, ftype)
                writer.add_tensor(name, gguf.quants.quantize(array, kind), raw_dtype=kind)
            writer.write_header_to_file()
            writer.write_kv_data_to_file()
            writer.write_tensors_to_file()
            writer.close()
            reader = gguf.GGUFReader(path)
            result[ftype] = int(sum(int(t.n_bytes) for t in reader.tensors))
            result[f"{ftype}_types"] = sorted({t.tensor_type.name for t in reader.tensors})
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/diffusion_gguf.json")
    args = parser.parse_args(argv)
    diffusers.logging.set_verbosity_error()
    cases = []
    for class_name, config in CASES:
        measured = measure(class_name, config)
        print(class_name, {k: v for k, v in measured.items() if not k.endswith("_types")}, file=sys.stderr)
        cases.append({"class": class_name, "config": config,
                      "bytes": {f: measured[f] for f in FILE_TYPES},
                      "types": {f: measured[f"{f}_types"] for f in FILE_TYPES}})
    M.write_json(args.out, {**M.provenance("tools/measure_diffusion_gguf.py"), "diffusers": diffusers.__version__,
                            "gguf": importlib.metadata.version("gguf"), "cases": cases})


if __name__ == "__main__":
    main()
