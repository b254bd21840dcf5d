"""A diffusers pipeline from its files (issue 27): model_index.json (`_class_name`, each component's [library,
class]) and the config.json of its denoiser, text encoders and VAE; the rest (scheduler, tokenizers...) is not
counted (`ignored`). The run's defaults come from the preset of the same class that the id or folder names, else the
one sharing most config values, else the first (`defaults_of`); model_index.json's own keys are its options."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import replace
from typing import Any

from ..core.errors import ValidationError
from .pipelines import DENOISERS, Part, Pipeline, load_pipelines
from .run import PLACEMENTS, Request, evaluate
from .tensors import CLASSES

IMPORTED = "config"  # the slug and the link's pipeline=config, as model=config for a language model's config.json
INDEX = "model_index.json"
MAX_JSON_CHARS = 1_000_000
MAX_DEPTH = 32  # nesting of arrays and objects; real configs have 3 or 4
MAX_COUNT = 1_000  # layers, blocks, experts, a list's items: above any pipeline's (Qwen2.5-VL 72B: 80 layers)
MAX_INT = 10**9
MAX_COMPONENTS = 64
_COUNTS = re.compile(r"layers|blocks|experts|depth")


def _json(field: str, text: str) -> dict[str, Any]:
    if not isinstance(text, str) or len(text) > MAX_JSON_CHARS:
        raise ValidationError(field, f"{len(text):,} characters" if isinstance(text, str) else type(text).__name__,
                              f"JSON text of at most {MAX_JSON_CHARS:,} characters")
    depth = 0
    for char in re.sub(r'"(?:[^"\\]|\\.)*"', "", text):
        depth += (char in "[{") - (char in "]}")
        if depth > MAX_DEPTH:
            raise ValidationError(field, f"nested more than {MAX_DEPTH} levels deep", f"at most {MAX_DEPTH} levels")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValidationError(field, text[:40], f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValidationError(field, type(value).__name__, "expected a JSON object")
    return value


def _check_numbers(field: str, value: object, key: str = "") -> None:
    """Numbers finite, integers within 10^9, counts (from -1) and lists at most MAX_COUNT (tensors are listed one
    by one)."""
    if isinstance(value, dict):
        for inner, item in value.items():
            _check_numbers(field, item, str(inner))
    elif isinstance(value, list):
        if len(value) > MAX_COUNT:
            raise ValidationError(f"{field} {key}", f"{len(value):,} items", f"at most {MAX_COUNT:,}")
        for item in value:
            _check_numbers(field, item, key)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValidationError(f"{field} {key}", value, "a finite number")
    elif isinstance(value, int) and not isinstance(value, bool):
        low, high = (-1, MAX_COUNT) if _COUNTS.search(key) else (-MAX_INT, MAX_INT)  # ignore_index: -100
        if not low <= value <= high:
            raise ValidationError(f"{field} {key}", value, f"an integer from {low:,} to {high:,}")


def counted(role: str) -> bool:
    return role in DENOISERS or role.startswith("text_encoder") or role == "vae"


def _named(name: str, candidate: Pipeline) -> bool:
    """The repository id (ORG/NAME) or a folder named as its repository, as git clone or the Hub's cache names it."""
    wanted, repo = name.strip().rstrip("/").lower().partition("@")[0], candidate.hf_id.lower()
    last = wanted.rsplit("/", 1)[-1]
    return bool(wanted) and (wanted == repo or last in (repo.rsplit("/", 1)[-1], "models--" + repo.replace("/", "--"))
                             or f"/models--{repo.replace('/', '--')}/" in wanted + "/")


def _shared(parts: Mapping[str, Part], candidate: Pipeline) -> int:
    return sum(key in part.config and part.config[key] == value for part in candidate.parts
               for key, value in parts[part.role].config.items())


def import_pipeline(model_index: str, configs: Mapping[str, str], name: str = "") -> Pipeline:
    """model_index.json's text, each counted component's config.json text by folder, the id or folder read."""
    index = _json(INDEX, model_index)
    class_name = str(index.get("_class_name"))
    presets = [p for p in load_pipelines().values() if p.pipeline_class == class_name]
    if not presets:
        classes = sorted({p.pipeline_class for p in load_pipelines().values()})
        raise ValidationError(f"{INDEX} _class_name", class_name,
                              f"a pipeline class with a preset: {', '.join(classes)}")
    if len(index) > MAX_COMPONENTS:
        raise ValidationError(INDEX, f"{len(index)} keys", f"at most {MAX_COMPONENTS}")
    parts: dict[str, Part] = {}
    ignored: list[tuple[str, str]] = []
    options: dict[str, Any] = {}
    for role, entry in index.items():
        if role.startswith("_"):
            continue
        if not (isinstance(entry, list) and len(entry) == 2):  # the pipeline's own keys (register_to_config)
            if entry is not None and not isinstance(entry, (bool, int, float, str)):
                raise ValidationError(f"{INDEX} {role}", entry, "a component's [library, class], or a number, "
                                                                  "a string or true/false")
            _check_numbers(INDEX, entry, role)
            options[role] = entry
            continue
        if entry == [None, None]:  # an optional component left out
            continue
        if not all(isinstance(item, str) and len(item) <= 200 for item in entry):
            raise ValidationError(f"{INDEX} {role}", entry, "[library, class], two names")
        cls = entry[1]
        if not counted(role):
            ignored.append((role, cls))
            continue
        if cls not in CLASSES:
            raise ValidationError(role, cls, f"a class this calculator counts: {', '.join(CLASSES)}")
        field = f"{role}/config.json"
        if role not in configs:
            raise ValidationError(field, "missing", f"the {role} folder's config.json, beside {INDEX}")
        config = _json(field, configs[role])
        _check_numbers(field, config)
        parts[role] = Part(role=role, class_name=cls, config=config, source=field)
    roles = set(parts)
    fitting = [p for p in presets if {part.role for part in p.parts} == roles]
    if not fitting:
        wanted = sorted({part.role for part in presets[0].parts} ^ roles)
        raise ValidationError(wanted[0], "absent" if wanted[0] not in roles else parts[wanted[0]].class_name,
                              f"{class_name} as its presets have it: " + ", ".join(
                                  f"{part.role} {part.class_name}" for part in presets[0].parts))
    best = max(fitting, key=lambda p: (_named(name, p), _shared(parts, p), -fitting.index(p)))
    for part in best.parts:
        if parts[part.role].class_name != part.class_name:
            raise ValidationError(part.role, parts[part.role].class_name,
                                  f"{class_name} as its presets have it: {part.class_name}")
    imported = Pipeline(
        slug=IMPORTED, display_name=name or class_name, hf_id=name, pipeline_class=class_name,
        parts=tuple(parts[part.role] for part in best.parts), text_tokens=best.text_tokens, cfg=best.cfg,
        width=best.width, height=best.height, frames=best.frames, steps=best.steps, options=options,
        defaults_of=best.slug, ignored=tuple(ignored))
    _dry_run(imported)
    return imported


def _dry_run(imported: Pipeline) -> None:
    """Each part's tensors, a run under each placement, its time and a LoRA step: a config without the keys its class
    reads (a string for a number, a zero width) is refused here, naming the component, not in a later count."""
    errors = (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError, AttributeError)
    for part in imported.parts:
        try:
            shapes = [t.shape for t in part.tensors]
            if not shapes or any(not isinstance(n, int) or n < 1 for shape in shapes for n in shape):
                raise ValueError("a tensor of no element")
        except errors as error:
            raise ValidationError(part.source, part.class_name, f"a {part.class_name} config.json with the keys "
                                                                f"its class reads ({type(error).__name__}: {error})"
                                  ) from None
    from ..sources.gpus import gpu
    from .speed import speed_of
    from .training import Training, train

    request = Request(width=imported.width, height=imported.height, frames=imported.frames, batch=1, cfg=imported.cfg,
                      placement="gpu", precision="bf16", text_precision="bf16", vae_precision="bf16")
    try:
        for placement in PLACEMENTS:
            run = evaluate(imported, replace(request, placement=placement))
            if any(s.total_bytes < 0 or (s.working_bytes or 0) < 0 for s in run.stages):
                raise ValueError("a stage of negative bytes")
        speed_of(run, gpu("h100-80gb"), imported.steps)
        with suppress(ValidationError):  # a denoiser that does not train
            train(imported, request, Training(rank=16, targets="all", base="bf16", adapters="bf16",
                                              optimizer="adamw", checkpointing=True, cached=True))
    except ValidationError:
        raise
    except errors as error:
        raise ValidationError(INDEX, imported.pipeline_class, f"configs this calculator can run as "
                                                              f"{imported.defaults_of} ({type(error).__name__}: "
                                                              f"{error})") from None
