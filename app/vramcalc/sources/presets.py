"""Where a `ModelSpec` comes from: a preset (a Hugging Face config.json stored
verbatim under data/models/, with its source), any config.json a user supplies
(read by `hf_config`), or the original calculator's custom numbers."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..model.families.decoder.spec import ModelSpec
from .folders import read_folder
from .hf_config import from_hf_config

# ---------------------------------------------------------------- presets


@dataclasses.dataclass(frozen=True, kw_only=True)
class Preset:
    slug: str
    display_name: str
    config: Mapping[str, object]
    source: str = ""  # where the config comes from; the browser's copy leaves it out (tools/precompile.mjs)
    hf_id: str = ""
    family: str = ""
    published_params: str = ""
    native_format: str = ""  # the checkpoint's own weight format when it is not 16-bit
    notes: tuple[Phrase, ...] = ()  # what is known of the checkpoint but not counted (MTP layers, vision)
    hf_overrides: Mapping[str, object] = dataclasses.field(default_factory=dict)  # what its users pass to vLLM
    # (`--hf_overrides`): Qwen3-Reranker's classifier_from_token, read over the config (sources/reranker.py)

    def spec(self) -> ModelSpec:
        return from_hf_config({**self.config, **self.hf_overrides}, name=self.slug, display_name=self.display_name,
                              notes=self.notes, native_format=self.native_format)


@functools.cache
def load_presets() -> Mapping[str, Preset]:
    """Every file in data/models/, by slug (the file name), in the order of data/models/order.json."""
    presets = {}
    for slug, raw in read_folder("models"):
        raw["notes"] = tuple(phrase(note.pop("key"), **note) for note in raw.get("notes", ()))
        presets[slug] = Preset(slug=slug, **raw)
    return presets


def preset_spec(slug: str) -> ModelSpec:
    presets = load_presets()
    if slug not in presets:
        raise ValidationError("model", slug, "expected one of: " + ", ".join(presets))
    return _preset_spec_cached(slug)


@functools.cache
def _preset_spec_cached(slug: str) -> ModelSpec:
    return load_presets()[slug].spec()
