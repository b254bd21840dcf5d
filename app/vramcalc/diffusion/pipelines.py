"""Pipeline presets (data/diffusion/<slug>.json): each part's diffusers or transformers class and its config.json as
upstream spells it, with the source of that config; the request a pipeline is run with by default."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..core.errors import ValidationError
from ..sources.folders import read_folder
from .tensors import PARAMETER_KINDS, Tensor, tensors

# the role diffusers' pipelines give their denoiser; Wan 2.2 A14B's WanPipeline has a second one, transformer_2 (the
# low-noise expert: pipeline_wan.py runs `transformer` while the timestep is at least boundary_ratio x 1000, then it)
DENOISERS = ("transformer", "unet", "transformer_2")


@dataclass(frozen=True, slots=True, kw_only=True)
class Part:
    role: str  # the pipeline's attribute: text_encoder, text_encoder_2, transformer, unet, vae
    class_name: str
    config: dict[str, Any]
    source: str  # where its config.json was read (the page's copy leaves it out: tools/precompile.mjs)

    @property
    def tensors(self) -> tuple[Tensor, ...]:
        return tensors(self.class_name, self.config)

    @property
    def params(self) -> int:
        return sum(t.numel for t in self.tensors if t.kind in PARAMETER_KINDS)

    @property
    def is_denoiser(self) -> bool:
        return self.role in DENOISERS

    @property
    def is_text_encoder(self) -> bool:
        return self.role.startswith("text_encoder")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pipeline:
    slug: str
    display_name: str
    hf_id: str
    pipeline_class: str
    parts: tuple[Part, ...]
    text_tokens: dict[str, int]  # per text encoder: the sequence length the pipeline pads the prompt to
    cfg: bool  # classifier-free guidance by default (a guidance-distilled model runs one pass)
    width: int
    height: int
    frames: int
    steps: int  # num_inference_steps: the pipeline's default (FLUX.1 [schnell]: its model card's 4)
    # the pipeline's own model_index.json keys (WanPipeline's boundary_ratio, expand_timesteps)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    # an imported pipeline (imported.py): the preset whose defaults it runs with, and the components not counted
    defaults_of: str = ""
    ignored: tuple[tuple[str, str], ...] = ()  # (role, class): scheduler, tokenizer, feature_extractor, ...

    @property
    def denoiser(self) -> Part:
        """The first (or only) denoiser: Wan 2.2 A14B's high-noise expert."""
        return next(part for part in self.parts if part.is_denoiser)

    @property
    def denoisers(self) -> tuple[Part, ...]:
        return tuple(part for part in self.parts if part.is_denoiser)

    @property
    def vae(self) -> Part:
        return next(part for part in self.parts if part.role == "vae")

    @property
    def is_video(self) -> bool:
        return self.vae.class_name in ("AutoencoderKLWan", "AutoencoderKLHunyuanVideo", "AutoencoderKLHunyuanVideo15",
                                       "AutoencoderKLLTXVideo")


@cache
def load_pipelines() -> dict[str, Pipeline]:
    """Every preset, in data/diffusion/order.json's order. A checkpoint of another's tensors (FLUX.1 [schnell],
    HiDream-I1 Dev and Fast) names it in `same_parts` and gives only what differs: its name, CFG and steps."""
    pipelines: dict[str, Pipeline] = {}
    for slug, entry in read_folder("diffusion"):
        base = pipelines[entry["same_parts"]] if "same_parts" in entry else None
        pipelines[slug] = dataclasses.replace(base, slug=slug, display_name=entry["display_name"],
                                              hf_id=entry["hf_id"], cfg=entry["cfg"], steps=entry["steps"]) \
            if base is not None else Pipeline(
            slug=slug, display_name=entry["display_name"], hf_id=entry["hf_id"], pipeline_class=entry["pipeline"],
            parts=tuple(Part(role=role, class_name=part["class"], config=part["config"], source=part.get("source", ""))
                        for role, part in entry["components"].items()),
            text_tokens=entry["text_tokens"], cfg=entry["cfg"], width=entry["width"], height=entry["height"],
            frames=entry["frames"], steps=entry["steps"], options=entry.get("pipeline_config", {}))
    return pipelines


def pipeline(slug: str) -> Pipeline:
    pipelines = load_pipelines()
    if slug not in pipelines:
        raise ValidationError("pipeline", slug, f"one of: {', '.join(pipelines)}")
    return pipelines[slug]
