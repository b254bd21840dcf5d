"""Count the FLOPs of the diffusion presets' stages with PyTorch's FlopCounterMode, on the meta device.

Each preset's denoiser (one forward over one sample at its size and at a second size), each text encoder (one prompt)
and the VAE decode are built from the preset's config.json with the diffusers or transformers class and run on
`torch.device("meta")` (shapes only, so full-size models cost nothing); FlopCounterMode adds up every matmul,
convolution and attention (2 FLOPs per multiply-add). `tests/test_diffusion_speed.py` holds
`vramcalc.diffusion.flops` to these counts.

    /work/mvenv/bin/python tools/measure_diffusion_flops.py   # writes tests/golden/diffusion_flops.json
    ... --pipelines flux.2-dev,flux.2-klein-4b   # counts only those presets' rows, keeps the others'
"""

from __future__ import annotations

import datetime
import json
import platform
import sys
from pathlib import Path

import diffusers
import torch
import transformers
from torch.utils.flop_counter import FlopCounterMode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))
sys.path.insert(0, str(ROOT / "tools"))

from measure_diffusion import build  # noqa: E402
from vramcalc.diffusion.pipelines import Pipeline, load_pipelines  # noqa: E402
from vramcalc.diffusion.run import (  # noqa: E402
    HUNYUAN15_CROP_START,
    HUNYUAN15_IMAGE_TOKENS,
    sequence_text_tokens,
)
from vramcalc.diffusion.stages import image_tokens, latent_shape  # noqa: E402

META, DTYPE = torch.device("meta"), torch.bfloat16
# (pipeline, width, height, frames, vae tile): the second size of each denoiser, and the decodes counted
OTHER_SIZES = [("flux.1-dev", 768, 512, 1), ("sd3.5-large", 768, 1280, 1), ("sd3.5-medium", 512, 512, 1),
               ("sdxl", 768, 1280, 1), ("sd1.5", 768, 512, 1), ("wan2.1-t2v-1.3b", 480, 832, 33),
               ("wan2.1-t2v-14b", 832, 480, 81), ("hunyuanvideo", 960, 544, 65), ("hunyuanvideo1.5-480p", 256, 192, 9),
               ("hunyuanvideo1.5-480p", 320, 320, 5), ("qwen-image", 1664, 928, 1), ("wan2.2-ti2v-5b", 832, 480, 41),
               ("ltx-video-0.9.7-dev", 768, 512, 97), ("flux.2-dev", 768, 1360, 1), ("flux.2-klein-4b", 512, 512, 1)]
# the second expert of a pipeline that has one (Wan 2.2 A14B's transformer_2), at the pipeline's size
EXPERTS = ["wan2.2-t2v-a14b"]
DECODES = [("flux.1-dev", 1024, 1024, 1, 0), ("flux.1-dev", 1024, 1024, 1, 512), ("sdxl", 1024, 1024, 1, 0),
           ("sd1.5", 512, 512, 1, 0), ("sd1.5", 768, 512, 1, 256), ("wan2.1-t2v-1.3b", 832, 480, 81, 0),
           ("wan2.1-t2v-1.3b", 512, 512, 9, 256), ("hunyuanvideo", 256, 256, 33, 0),
           ("hunyuanvideo", 1280, 720, 129, 256), ("hunyuanvideo", 512, 384, 13, 0), ("qwen-image", 1024, 1024, 1, 0),
           ("qwen-image", 1328, 1328, 1, 512), ("wan2.2-ti2v-5b", 1280, 704, 121, 0),
           ("wan2.2-ti2v-5b", 512, 512, 9, 256), ("ltx-video-0.9.7-dev", 704, 512, 161, 0),
           ("ltx-video-0.9.7-dev", 256, 192, 9, 0), ("ltx-video-0.9.7-dev", 256, 256, 1, 0),
           ("flux.2-dev", 1024, 1024, 1, 0), ("flux.2-dev", 1360, 768, 1, 512)]


def _t(*shape: int) -> torch.Tensor:
    return torch.empty(*shape, device=META, dtype=DTYPE)


def _counted(run) -> int:
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        run()
    return int(counter.get_total_flops())


# HunyuanVideo 1.5's transformer, counted at this size on the CPU (its preset's other keys kept)
HUNYUAN15_SMALL = {"num_layers": 2, "num_refiner_layers": 1, "num_attention_heads": 2, "attention_head_dim": 32,
                   "rope_axes_dim": [8, 12, 12]}
# HiDream's transformer too: its MoE (moe_infer) counts each expert's tokens on the host, which the meta device cannot
# give; on the CPU the gate routes real activations (the preset's experts, text widths and Llama layers kept)
HIDREAM_SMALL = {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 2, "attention_head_dim": 32,
                 "axes_dims_rope": [16, 8, 8], "llama_layers": [0, 1, 30, 31]}
SMALL = {"HunyuanVideo15Transformer3DModel": HUNYUAN15_SMALL, "HiDreamImageTransformer2DModel": HIDREAM_SMALL}
HIDREAM_SIZES = [("hidream-i1-full", 1344, 768, 1)]  # a size HiDreamImagePipeline keeps: padded to 4,096 tokens


def denoiser_flops(pipeline: Pipeline, width: int, height: int, frames: int, role: str = "") -> int:
    part = next(p for p in pipeline.denoisers if p.role == role) if role else pipeline.denoiser
    config = part.config
    config = {**config, **SMALL.get(part.class_name, {})}
    model = build(part.class_name, config).to(DTYPE)
    latent = latent_shape(pipeline.vae.class_name, pipeline.vae.config, width, height, frames)
    text = sequence_text_tokens(pipeline)
    c, t = config, _t(1)
    if part.class_name == "UNet2DConditionModel":
        inputs = {"sample": _t(1, *latent), "timestep": t, "encoder_hidden_states": _t(1, 77, c["cross_attention_dim"])}
        if c.get("addition_embed_type") == "text_time":
            pooled = c["projection_class_embeddings_input_dim"] - 6 * c["addition_time_embed_dim"]
            inputs["added_cond_kwargs"] = {"text_embeds": _t(1, pooled), "time_ids": _t(1, 6)}
    elif part.class_name == "FluxTransformer2DModel":
        ch, h, w = latent
        tokens = (h // 2) * (w // 2)
        inputs = {"hidden_states": _t(1, tokens, 4 * ch),
                  "encoder_hidden_states": _t(1, text, c["joint_attention_dim"]),
                  "pooled_projections": _t(1, c["pooled_projection_dim"]), "timestep": t,
                  "img_ids": torch.empty(tokens, 3, device=META), "txt_ids": torch.empty(text, 3, device=META)}
        if c.get("guidance_embeds"):
            inputs["guidance"] = t
    elif part.class_name == "Flux2Transformer2DModel":  # as Flux2Pipeline calls it: 2 x 2-patched latents packed
        ch, h, w = latent
        tokens = (h // 2) * (w // 2)
        inputs = {"hidden_states": _t(1, tokens, 4 * ch),
                  "encoder_hidden_states": _t(1, text, c["joint_attention_dim"]), "timestep": t,
                  "img_ids": torch.zeros(1, tokens, 4, dtype=torch.int64, device=META),
                  "txt_ids": torch.zeros(1, text, 4, dtype=torch.int64, device=META),
                  "guidance": t if c.get("guidance_embeds", True) else None}
    elif part.class_name == "SD3Transformer2DModel":
        inputs = {"hidden_states": _t(1, *latent), "encoder_hidden_states": _t(1, text, c["joint_attention_dim"]),
                  "pooled_projections": _t(1, c["pooled_projection_dim"]), "timestep": t}
    elif part.class_name == "WanTransformer3DModel":
        inputs = {"hidden_states": _t(1, *latent), "encoder_hidden_states": _t(1, text, c.get("text_dim", 4096)),
                  "timestep": t}
        if pipeline.options.get("expand_timesteps"):  # Wan 2.2 TI2V: a timestep per latent token, as WanPipeline
            inputs["timestep"] = _t(1, image_tokens(part.class_name, c, latent))
    elif part.class_name == "QwenImageTransformer2DModel":  # as QwenImagePipeline calls it (one prompt: no mask)
        ch, h, w = latent
        inputs = {"hidden_states": _t(1, (h // 2) * (w // 2), 4 * ch),
                  "encoder_hidden_states": _t(1, text, c.get("joint_attention_dim", 3584)), "timestep": t,
                  "img_shapes": [[(1, h // 2, w // 2)]]}
    elif part.class_name == "HiDreamImageTransformer2DModel":  # as HiDreamImagePipeline calls it, on the CPU
        torch.manual_seed(0)
        model = getattr(diffusers, part.class_name).from_config(config).to(DTYPE).eval()
        llama_part = next(p for p in pipeline.parts if p.role == "text_encoder_4")
        prompt, layers = pipeline.text_tokens["text_encoder_4"], llama_part.config["num_hidden_layers"]
        t5, llama = c["caption_channels"]
        cpu = {"hidden_states": torch.randn(1, *latent, dtype=DTYPE), "timesteps": torch.ones(1, dtype=DTYPE),
               "encoder_hidden_states_t5": torch.randn(1, pipeline.text_tokens["text_encoder_3"], t5, dtype=DTYPE),
               "encoder_hidden_states_llama3": torch.randn(layers, 1, prompt, llama, dtype=DTYPE),
               "pooled_embeds": torch.randn(1, c["text_emb_dim"], dtype=DTYPE)}
        return _counted_math_attention(lambda: model(**cpu, return_dict=False))
    elif part.class_name == "LTXVideoTransformer3DModel":  # as LTXPipeline calls it: latents packed (patch 1)
        ch, f, h, w = latent
        inputs = {"hidden_states": _t(1, f * h * w, ch), "encoder_hidden_states": _t(1, text, c["caption_channels"]),
                  "encoder_attention_mask": torch.ones(1, text, dtype=torch.int64, device=META), "timestep": t,
                  "num_frames": f, "height": h, "width": w, "rope_interpolation_scale": (8 / 25, 32, 32)}
    elif part.class_name == "HunyuanVideoTransformer3DModel":
        inputs = {"hidden_states": _t(1, *latent), "encoder_hidden_states": _t(1, text, c.get("text_embed_dim", 4096)),
                  "encoder_attention_mask": torch.ones(1, text, dtype=torch.int64, device=META),
                  "pooled_projections": _t(1, c.get("pooled_projection_dim", 768)), "timestep": t, "guidance": t}
    else:  # HunyuanVideo15Transformer3DModel, as HunyuanVideo15Pipeline calls it (text-to-video)
        mllm = pipeline.text_tokens["text_encoder"] - HUNYUAN15_CROP_START
        glyph = pipeline.text_tokens["text_encoder_2"]
        channels = (latent[0] * 2 + 1, *latent[1:])
        inputs = {"hidden_states": _t(1, *channels),
                  "encoder_hidden_states": _t(1, mllm, c.get("text_embed_dim", 3584)),
                  "encoder_attention_mask": torch.ones(1, mllm, dtype=torch.int64, device=META),
                  "encoder_hidden_states_2": _t(1, glyph, c.get("text_embed_2_dim", 1472)),
                  "encoder_attention_mask_2": torch.ones(1, glyph, dtype=torch.int64, device=META),
                  "image_embeds": _t(1, HUNYUAN15_IMAGE_TOKENS, c.get("image_embed_dim", 1152)), "timestep": t}
        # its forward reorders the tokens by their masks (boolean indexing, which the meta device cannot size): a
        # small config (HUNYUAN15_SMALL) runs on the CPU with real zeros instead, and the prompt's masks all ones
        model = getattr(diffusers, part.class_name).from_config(config).to(DTYPE)
        inputs = {key: torch.zeros(value.shape, dtype=value.dtype) if value.dtype == DTYPE else torch.ones(
            value.shape, dtype=value.dtype) for key, value in inputs.items()}
        return _counted_math_attention(lambda: model(**inputs, return_dict=False))
    return _counted(lambda: model(**inputs, return_dict=False))


def _counted_math_attention(run) -> int:
    """On the CPU, SDPA reaches a kernel FlopCounterMode does not count: it is run as the two matmuls it is."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    torch.nn.functional.scaled_dot_product_attention = _math_attention
    try:
        return _counted(run)
    finally:
        torch.nn.functional.scaled_dot_product_attention = sdpa


def _math_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                    attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0, is_causal: bool = False,
                    scale: float | None = None, enable_gqa: bool = False) -> torch.Tensor:
    scores = query @ key.transpose(-2, -1) * (scale or query.shape[-1] ** -0.5)
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    return scores.softmax(-1) @ value


def encoder_flops(class_name: str, config: dict, tokens: int) -> int:
    model = build(class_name, config).to(DTYPE)
    ids = torch.zeros(1, tokens, dtype=torch.int64, device=META)
    return _counted(lambda: model(input_ids=ids))


def decode_flops(pipeline: Pipeline, width: int, height: int, frames: int, tile: int) -> int:
    vae = pipeline.vae
    model = build(vae.class_name, vae.config).to(DTYPE)
    latent = latent_shape(vae.class_name, vae.config, width, height, frames)
    if tile and vae.class_name in ("AutoencoderKL", "AutoencoderKLFlux2"):
        model.enable_tiling()
        model.tile_sample_min_size, model.tile_latent_min_size = tile, tile // 8
    elif tile:
        model.enable_tiling(tile_sample_min_height=tile, tile_sample_min_width=tile,
                            tile_sample_stride_height=tile * 3 // 4, tile_sample_stride_width=tile * 3 // 4)
    z = _t(1, latent[0], 1, *latent[1:]) if vae.class_name == "AutoencoderKLQwenImage" else _t(1, *latent)
    if vae.config.get("timestep_conditioning"):  # LTX-Video 0.9.1 on: LTXPipeline passes its decode_timestep
        return _counted(lambda: model.decode(z, _t(1), return_dict=False))
    return _counted(lambda: model.decode(z, return_dict=False))


class _Rows(list):
    """The rows, each counted, or (a preset left out of --pipelines) kept as the file has it: `append` is given the
    row with a `flops` function."""

    def __init__(self, old: list[dict], chosen: set[str] | None) -> None:
        super().__init__()
        self.old, self.chosen = old, chosen

    def append(self, row: dict) -> None:
        count = row.pop("flops")
        if self.chosen and row["pipeline"] not in self.chosen:
            kept = next((r for r in self.old if {k: v for k, v in r.items() if k != "flops"} == row), None)
            if kept is not None:
                super().append(kept)
                return
        super().append({**row, "flops": count() if callable(count) else count})


def main() -> None:
    """--pipelines a,b: count only those presets' rows, keep the others' as tests/golden/diffusion_flops.json has
    them."""
    pipelines = load_pipelines()
    path = ROOT / "tests" / "golden" / "diffusion_flops.json"
    chosen = set(sys.argv[sys.argv.index("--pipelines") + 1].split(",")) if "--pipelines" in sys.argv else None
    old = json.loads(path.read_text(encoding="utf-8"))["rows"] if chosen else []
    rows: list[dict] = _Rows(old, chosen)
    sizes = [(slug, p.width, p.height, p.frames) for slug, p in pipelines.items()  # 1.5's small config: small sizes
             if p.denoiser.class_name != "HunyuanVideo15Transformer3DModel"] + OTHER_SIZES + HIDREAM_SIZES
    for slug, width, height, frames in sizes:
        rows.append({"stage": "denoise", "pipeline": slug, "width": width, "height": height, "frames": frames,
                     "flops": lambda s=slug, w=width, h=height, f=frames: denoiser_flops(pipelines[s], w, h, f)})
        if pipelines[slug].denoiser.class_name in SMALL:
            rows[-1]["config"] = SMALL[pipelines[slug].denoiser.class_name]
        print(rows[-1], flush=True)
    for slug in EXPERTS:
        p = pipelines[slug]
        for part in p.denoisers[1:]:
            rows.append({"stage": "denoise", "pipeline": slug, "role": part.role, "width": p.width, "height": p.height,
                         "frames": p.frames,
                         "flops": lambda p=p, r=part.role: denoiser_flops(p, p.width, p.height, p.frames, r)})
            print(rows[-1], flush=True)
    for slug, pipeline in pipelines.items():
        for part in pipeline.parts:
            if part.is_text_encoder:
                tokens = pipeline.text_tokens[part.role]
                rows.append({"stage": f"encode:{part.role}", "pipeline": slug, "tokens": tokens,
                             "flops": lambda part=part, n=tokens: encoder_flops(part.class_name, part.config, n)})
                print(rows[-1], flush=True)
    for slug, width, height, frames, tile in DECODES:
        rows.append({"stage": "decode", "pipeline": slug, "width": width, "height": height, "frames": frames,
                     "tile": tile, "flops": lambda s=slug, w=width, h=height, f=frames, t=tile: decode_flops(
                         pipelines[s], w, h, f, t)})
        print(rows[-1], flush=True)
    document = {"measured": {"date": datetime.date.today().isoformat(), "machine": platform.platform(),
                             "torch": torch.__version__, "diffusers": diffusers.__version__,
                             "transformers": transformers.__version__, "device": "meta",
                             "counter": "torch.utils.flop_counter.FlopCounterMode, batch 1"},
                "rows": rows}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
