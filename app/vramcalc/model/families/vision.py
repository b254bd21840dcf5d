"""A multimodal model's vision part: the vision tower and its projector, a named part beside the language
model (its parameters counted apart from `param_count`), and the tokens an image becomes."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Vision:
    family: str  # the multimodal config's model_type (qwen2_5_vl, gemma3, llama4, mistral3, ...)
    params: int  # the vision tower and projector: AutoModelForImageTextToText's parameters less the language model's
    patch: int = 14  # pixels per patch side
    merge: int = 1  # patches merged into one token, per side (Qwen's spatial_merge_size, Mistral 3's)
    size: int = 0  # Llama 4's tile side, Pixtral's longest edge, Gemma 3's image side
    tokens: int = 0  # tokens of every image, whatever its size (Gemma 3's mm_tokens_per_image)
