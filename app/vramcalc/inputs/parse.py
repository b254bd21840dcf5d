"""The one input layer. Form fields, link parameters, command-line options and
an imported config.json all become a frozen `Workload` here, through the same
parsers and the same messages. Keys are the names used in links and on the
command line (`kv_heads` there is `--kv-heads` on the command line)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Callable, Collection, Mapping
from typing import TypeVar

from ..core.choices import (
    GENERATING,
    GGUF_RUNTIMES,
    Checkpointing,
    Framework,
    LlamaCppProgram,
    Mode,
    Objective,
    Recipe,
    Reference,
    Rollout,
    Runtime,
)
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import MAX_SEQ
from ..core.phrase import phrase
from ..diffusion.imported import IMPORTED
from ..diffusion.pipelines import Pipeline
from ..diffusion.run import Request
from ..diffusion.run import check as check_run
from ..diffusion.training import Training
from ..engines import engine_for
from ..engines.cards import on_card
from ..engines.layouts import degrees, resolve_layout, seq_step
from ..engines.llamacpp import check_drafter_target, split_text
from ..engines.llamacpp_overrides import overrides_text
from ..engines.ollama import LLAMA_SERVER, version_of
from ..engines.transformers import as_loaded
from ..formats.file_weights import WeightsGiven, file_weights
from ..formats.file_weights import assumptions as file_assumptions
from ..formats.file_weights import notes as file_notes
from ..formats.weights import WeightFormat, check_format, file_format
from ..memory.speech import whisper_cpp_weight_type
from ..model.families.decoder import mtp
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.vision import VIDEO, image_tokens, llamacpp_image_tokens, video_tokens
from ..model.table import param_count
from ..parallel.layout import check, check_seq
from ..sources.custom import custom_model
from ..sources.gpus import GpuSpec, configure, gpu
from ..sources.hf_config import from_hf_config
from ..sources.presets import preset_spec
from ..sources.weight_file import spec_from_gguf
from ..training.frameworks import with_framework
from ..training.lora import QLORA_FORMATS
from ..training.lora import adapter_tensors as training_adapters
from ..training.step import allowed_impls
from ..workload import DEFAULT_OUTPUT_TOKENS, CapacityQuery, Machine, Target, Workload
from .options import (
    CAPACITY_PARSERS,
    CONFIG,
    CUSTOM,
    CUSTOM_KEYS,
    DEFAULTS,
    DIFFUSION_PARSERS,
    FIELD_ATTRIBUTE,
    FIELD_PARSERS,
    LAYOUT_KEYS,
    MAX_CONFIG_BYTES,
    OPTION,
    SPEED_PARSERS,
    TARGET_PARSERS,
    WEIGHTS,
    model_slug,
)

MAX_CONFIG_DEPTH = 32  # nesting of arrays and objects; real configs have 3 or 4

_T = TypeVar("_T")


def _checked(key: str, value: object, kind: type[_T]) -> _T:
    """A parsed value as the type its parser returns. The option table pairs each key with its parser,
    so a mismatch is a bug in the table, never the user's input."""
    if not isinstance(value, kind):
        raise TypeError(f"{key}: its parser returned {value!r}, expected {kind}")
    return value


def _checked_optional(key: str, value: object, kind: type[_T]) -> _T | None:
    """As `_checked`, for a key whose blank text parses to None."""
    return None if value is None else _checked(key, value, kind)


def parse_config_json(text: str) -> dict[str, object]:
    """The text of a config.json, checked for size and nesting before it is parsed (a deep nesting
    would exhaust the parser's stack: the page's interpreter dies of it) and for shape after."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ValidationError("config.json", f"{len(text):,} characters", f"at most {MAX_CONFIG_BYTES:,} characters")
    if nesting(text) > MAX_CONFIG_DEPTH:
        raise ValidationError("config.json", f"nested more than {MAX_CONFIG_DEPTH} levels deep",
                              f"at most {MAX_CONFIG_DEPTH} levels of arrays and objects")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValidationError("config.json", text[:40], f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValidationError("config.json", type(value).__name__, "expected a JSON object")
    return value


CUSTOM_REQUIRED = ("params", "hidden", "layers")  # a custom model's other keys have defaults (sources/custom.py)

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_DEPTH = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings skipped), without parsing it."""
    brackets = re.findall(r"[\[\]{}]", _STRINGS.sub("", text))
    return max(itertools.accumulate(map(_DEPTH.__getitem__, brackets)), default=0)


def _within_seq(field: str, seq: int) -> int:
    """A sequence its images or videos lengthen stays within what the seq field itself takes."""
    if seq > MAX_SEQ:
        raise ValidationError(field, f"a sequence of {seq:,} tokens", f"at most {MAX_SEQ:,} tokens with the prompt")
    return seq


def _parse_model(values: Mapping[str, str], config: Mapping[str, object] | None,
                 weights: WeightsGiven | None = None) -> ModelSpec:
    slug = values.get("model", DEFAULTS["model"])
    if slug == WEIGHTS:
        if weights is None:
            raise ValidationError("model", slug, "no weight file has been read")
        if weights.kind != "gguf":
            raise ValidationError("weights", weights.name, "a safetensors checkpoint does not say its architecture: "
                                                            "give its config.json too")
        return spec_from_gguf(weights.headers[0], weights.name)
    if slug == CONFIG:
        if config is None:
            raise ValidationError("model", slug, "no config.json has been imported")
        spec = from_hf_config(config)
        quantised = config.get("quantization_config")
        if isinstance(quantised, Mapping) and weights is None and not spec.native_format:
            # a quantised checkpoint's format is not read from its config: the weights are counted in 16-bit
            method = "".join(c for c in str(quantised.get("quant_method", "?"))[:30] if c.isprintable())
            if values.get("precision", "auto") == "native":
                raise ValidationError("precision", "native", f"config.json's quantization_config ({method}) is not "
                                      "read as the checkpoint's format: choose it (fp8, gptq-int4, awq-int4, nf4, ...)")
            if values.get("precision", "auto") in ("", "auto"):
                spec = dataclasses.replace(spec, assumptions=(*spec.assumptions, phrase("assumption.quantised",
                                                                                         method=method)))
        return spec
    if slug != CUSTOM:
        return preset_spec(model_slug(slug))
    numbers: dict[str, int | None] = {}
    for key in CUSTOM_KEYS:
        text = values.get(key, "")
        if key in CUSTOM_REQUIRED and text.strip() == "":
            raise ValidationError(key, text, "required for a custom model")
        numbers[key] = _checked_optional(key, OPTION[key].parse(text), int)  # blank: None, the model's own
    if numbers["params"] == 0:
        raise ValidationError("params", values.get("params"), "expected at least one parameter")
    # the required keys (CUSTOM_REQUIRED) are not None here, which a dict over CUSTOM_KEYS cannot say
    return custom_model(**numbers)  # type: ignore[arg-type]


def parse_workload(values: Mapping[str, str], *, config: Mapping[str, object] | None = None,
                   weights: WeightsGiven | None = None, given: Collection[str] = ()) -> Workload:
    """Strict: the first bad field raises ValidationError. Missing keys take their defaults. With
    `weights` (the headers of the user's weight files), the weights are the files' bytes, laid onto
    the model (a preset, a config, or, for model=weights, what a GGUF file's metadata says). `given`: the keys
    set on purpose, which a framework's defaults leave as they are (the command line's flags)."""
    values, framework_set = with_framework(values, DEFAULTS, given)
    fields = {**_parse_fields(FIELD_PARSERS, values, None), "framework_set": framework_set}
    model = _parse_model(values, config, weights)
    if weights is not None:
        if values.get("precision", "auto") not in ("", "auto"):
            raise ValidationError("precision", values["precision"], "the weight file says what its weights are: "
                                                                     "leave precision out (auto)")
        held = file_weights(weights.name, weights.headers, model)
        model = dataclasses.replace(model, notes=model.notes + file_notes(held),
                                    assumptions=model.assumptions + file_assumptions(held))
        fields = {**fields, "precision": file_format(held)}
    return _build(model, fields, _devices(values, fields))


def _devices(values: Mapping[str, str], fields: Mapping[str, object]) -> int:
    """How many GPUs the run has (`gpus`, or the cards `gpu` lists); 1 when they disagree (reported with the
    target's problems)."""
    try:
        return machine({"gpu": fields["gpu"], "gpus": TARGET_PARSERS["gpus"](values.get("gpus", DEFAULTS["gpus"]))})[1]
    except ValidationError:
        return 1


def parse_workload_lenient(
    values: Mapping[str, str], *, config: Mapping[str, object] | None = None, given: Collection[str] = ()
) -> tuple[Workload, list[ValidationError]]:
    """For links: every bad field falls back to its default, and is reported (`given` as parse_workload's)."""
    problems: list[ValidationError] = []
    values, framework_set = with_framework(values, DEFAULTS, given)
    fields = {**_parse_fields(FIELD_PARSERS, values, problems), "framework_set": framework_set}
    try:
        model = _parse_model(values, config)
    except ValidationError as error:
        problems.append(error)
        model = preset_spec(DEFAULTS["model"])
    reset: set[str] = set()
    while True:
        try:
            return _build(model, fields, _devices(values, fields)), problems
        except ValidationError as error:
            problems.append(error)
            if error.field in reset or error.field not in FIELD_PARSERS:
                # a rule between fields that resetting this one does not settle: every field to its default
                fields = {key: parse(DEFAULTS[key]) for key, parse in FIELD_PARSERS.items()}
                if "*" in reset:
                    raise  # the defaults themselves do not fit this model: a bug, not bad input
                reset.add("*")
                continue
            reset.add(error.field)
            fields[error.field] = FIELD_PARSERS[error.field](DEFAULTS[error.field])


def _parse_fields(
    parsers: Mapping[str, Callable[[str], object]], values: Mapping[str, str], problems: list[ValidationError] | None
) -> dict[str, object]:
    """Each key through its parser; missing keys take their defaults. Strict when `problems` is
    None (the first bad field raises); otherwise a bad field is reported there and takes its default."""
    fields: dict[str, object] = {}
    for key, parse in parsers.items():
        try:
            fields[key] = parse(values.get(key, DEFAULTS[key]))
        except ValidationError as error:
            if problems is None:
                raise
            problems.append(error)
            fields[key] = parse(DEFAULTS[key])
    return fields


def _cards(given: object) -> tuple[GpuSpec, ...]:
    """The cards `gpu` names: one, or a machine's list (options.parse_gpus)."""
    return given if isinstance(given, tuple) else (_checked("gpu", given, GpuSpec),)


def machine(fields: Mapping[str, object]) -> tuple[tuple[GpuSpec, ...], int]:
    """The machine `gpu` and `gpus` name: its cards when they differ (empty for one kind), and how many GPUs.
    A list of cards counts itself (gpus then 1, its default, or that number); a list of one kind of card is
    that many of it, as --gpus says it."""
    cards, count = _cards(fields["gpu"]), _checked("gpus", fields["gpus"], int)
    if len(cards) == 1:
        return (), count
    if count not in (1, len(cards)):
        raise ValidationError("gpus", str(count), f"gpu lists {len(cards)} cards: leave gpus out or give {len(cards)}")
    return (cards if len(set(cards)) > 1 else ()), len(cards)


def _target(fields: Mapping[str, object]) -> Target:
    card = configure(_cards(fields["gpu"])[0],
                     wired_limit_mb=_checked_optional("wired_limit_mb", fields["wired_limit_mb"], int),
                     macos=_checked("macos", fields["macos"], int))
    cards, count = machine(fields)
    return Target(gpu=card, count=count, cards=cards)


def _capacity_query(fields: Mapping[str, object]) -> CapacityQuery:
    return CapacityQuery(memory_bytes=_checked_optional("vram", fields["vram"], int),
                         headroom=_checked("headroom", fields["headroom"], float))


def parse_target(values: Mapping[str, str]) -> Target:
    """Strict, like parse_workload: `gpu` (a slug of data/gpus) and `gpus` (how many)."""
    return _target(_parse_fields(TARGET_PARSERS, values, None))


def parse_machine(values: Mapping[str, str], problems: list[ValidationError] | None = None) -> Machine:
    """The speed keys (strict unless `problems` is given: then a bad one is reported and takes its default)."""
    fields = _parse_fields(SPEED_PARSERS, values, problems)
    return Machine(gpu_bandwidth_gb_s=_checked_optional("gpu_bandwidth", fields["gpu_bandwidth"], float),
                   gpu_tflops=_checked_optional("gpu_tflops", fields["gpu_tflops"], float),
                   ram_bandwidth_gb_s=_checked_optional("ram_bandwidth", fields["ram_bandwidth"], float),
                   gpu_hour_usd=_checked_optional("gpu_hour_price", fields["gpu_hour_price"], float),
                   train_tokens=_checked_optional("train_tokens", fields["train_tokens"], int),
                   min_tokens_per_s=_checked("min_tokens_per_s", fields["min_tokens_per_s"], float),
                   max_run_hours=_checked_optional("max_run_hours", fields["max_run_hours"], float))


def parse_capacity_query(values: Mapping[str, str]) -> CapacityQuery:
    """Strict: `vram` (GB, optional) and `headroom` (percent)."""
    return _capacity_query(_parse_fields(CAPACITY_PARSERS, values, None))


def parse_link(
    values: Mapping[str, str], *, config: Mapping[str, object] | None = None, imported: Pipeline | None = None,
    given: Collection[str] = ()
) -> tuple[Workload, Target, CapacityQuery, list[ValidationError]]:
    """Everything a link carries; every bad field falls back to its default and is reported."""
    workload, problems = parse_workload_lenient(values, config=config, given=given)
    reported = {problem.field for problem in problems}
    fields = _parse_fields(TARGET_PARSERS, values, [])
    if workload.gpu != _cards(fields["gpu"])[0]:  # the machine as cleaned above (a refused one: the default)
        fields = {**fields, "gpu": workload.gpu}
    try:
        count = machine(fields)[1]
    except ValidationError:  # gpus disagrees with the cards listed (reported below): the list counts
        count = len(_cards(fields["gpu"]))
    target = Target(gpu=workload.gpu or gpu(DEFAULTS["gpu"]), count=count, cards=workload.cards)
    try:
        resolve_layout(workload, target.count)
    except ValidationError as error:  # a layout these GPUs cannot run: the mode's default layout instead
        named = [key for key in LAYOUT_KEYS if values.get(key, DEFAULTS[key]) != DEFAULTS[key]]
        # reported against the layout the link set (the GPU count stays as the link says)
        problems.append(ValidationError(named[0], values[named[0]], error.allowed) if named else error)
        workload = workload.but(**{key: FIELD_PARSERS[key](DEFAULTS[key]) for key in LAYOUT_KEYS})
    problems += [p for p in _target_problems(values) if p.field not in reported]
    problems = list({(p.field, str(p)): p for p in problems}.values())  # a rule retried reports once
    query = _capacity_query(_parse_fields(CAPACITY_PARSERS, values, problems))
    parse_machine(values, problems)
    parse_diffusion(values, problems, imported)
    return workload, target, query, problems


def parse_diffusion(values: Mapping[str, str], problems: list[ValidationError] | None = None,
                    imported: Pipeline | None = None) -> tuple[Pipeline, Request]:
    """A diffusion pipeline and its run (family=diffusion; the flags of `vramcalc diffusion`): empty width,
    height, frames and cfg are the pipeline's own; pipeline=config is `imported` (diffusion/imported.py
    import_pipeline). Lenient with `problems`, as _parse_fields."""
    fields = _parse_fields(DIFFUSION_PARSERS, values, problems)
    if fields["pipeline"] == IMPORTED:
        if imported is None:
            error = ValidationError("pipeline", IMPORTED, "no model_index.json has been imported")
            if problems is None:
                raise error
            problems.append(error)
        fields["pipeline"] = imported or DIFFUSION_PARSERS["pipeline"](DEFAULTS["pipeline"])
    while True:
        chosen = _checked("pipeline", fields["pipeline"], Pipeline)
        size = {key: _checked_optional(key, fields[key], int) or getattr(chosen, key)
                for key in ("width", "height", "frames")}
        request = Request(**size, batch=_checked("per_prompt", fields["per_prompt"], int),
                          cfg=chosen.cfg if fields["cfg"] is None else fields["cfg"] is True,
                          placement=str(fields["placement"]), precision=str(fields["denoiser_precision"]),
                          text_precision=str(fields["text_precision"]), vae_precision=str(fields["vae_precision"]),
                          vae_tiling=_checked_optional("vae_tiling", fields["vae_tiling"], int) or 0,
                          blocks_to_swap=_checked("blocks_to_swap", fields["blocks_to_swap"], int),
                          text_encoders=str(fields["text_encoders"]))
        try:
            check_run(chosen, request)  # a size or frame count the pipeline cannot take, named by its key
            return chosen, request
        except ValidationError as error:
            if problems is None or error.field not in ("width", "height", "frames", "vae_tiling") or (
                    fields[error.field] is None):
                raise
            problems.append(error)
            fields[error.field] = None  # the pipeline's own


def parse_diffusion_training(values: Mapping[str, str]) -> Training | None:
    """A pipeline's LoRA training step (train_lora a rank), or None for a generation (train_lora 0); the frozen base
    in denoiser_precision (diffusion/training.py train checks it)."""
    keys = ("train_lora", "train_lora_targets", "adapter_precision", "train_optimizer", "train_checkpointing",
            "cache_latents", "denoiser_precision")
    fields = _parse_fields({key: DIFFUSION_PARSERS[key] for key in keys}, values, None)
    rank = _checked("train_lora", fields["train_lora"], int)
    if not rank:
        return None
    return Training(rank=rank, targets=str(fields["train_lora_targets"]), base=str(fields["denoiser_precision"]),
                    adapters=str(fields["adapter_precision"]), optimizer=str(fields["train_optimizer"]),
                    checkpointing=fields["train_checkpointing"] == "on", cached=fields["cache_latents"] == "on")


def _target_problems(values: Mapping[str, str]) -> list[ValidationError]:
    problems: list[ValidationError] = []
    fields = _parse_fields({key: TARGET_PARSERS[key] for key in ("gpu", "gpus")}, values, problems)
    if not problems:
        try:
            machine(fields)
        except ValidationError as error:
            problems.append(error)
    return [problem for problem in problems if problem.field == "gpus"]


def _build(model: ModelSpec, fields: Mapping[str, object], devices: int = 1) -> Workload:
    attributes = {FIELD_ATTRIBUTE.get(key, key): value for key, value in fields.items()}
    attributes["devices"] = devices
    cards = _cards(attributes["gpu"])
    attributes["cards"] = cards if len(set(cards)) > 1 else ()
    attributes["gpu"] = configure(
        cards[0],
        wired_limit_mb=_checked_optional("wired_limit_mb", attributes.pop("wired_limit_mb"), int),
        macos=_checked("macos", attributes.pop("macos"), int))
    engine = engine_for(_checked("runtime", attributes["runtime"], Runtime))
    precision = attributes["precision"]
    if not isinstance(precision, (Precision, WeightFormat)):  # as in _checked: a bug in the option table
        raise TypeError(f"precision: its parser returned {precision!r}, expected a Precision or a WeightFormat")
    attributes["precision"] = run_format(model, precision, runtime=engine.runtime,
                                         training=attributes["mode"] is Mode.TRAINING,
                                         framework=_checked("framework", attributes["framework"], Framework))
    if (attributes["mode"] is Mode.TRAINING and attributes["recipe"] is Recipe.FP32 and not attributes["lora_rank"]
            and isinstance(attributes["precision"], Precision)):
        attributes["precision"] = Precision.FP32  # recipe fp32 keeps every weight in fp32 (training/recipes.py)
    if attributes.pop("quantise"):  # quantise=mlp: attention kept in 16-bit
        fmt = attributes["precision"]
        if not isinstance(fmt, WeightFormat) or fmt.kind != "gpu" or fmt.file is not None:
            raise ValidationError("quantise", "mlp", "keeps attention in 16-bit under a GPU format (fp8, nf4, "
                                  "gptq-int4, ...): choose one as the precision")
        attributes["precision"] = dataclasses.replace(fmt, mlp_only=True)
    if model.moe is not None and model.moe.zero_experts and engine.runtime is not Runtime.TRANSFORMERS:
        model = dataclasses.replace(model, moe=dataclasses.replace(model.moe, zero_slots=False))  # vLLM: no slots
    if attributes["mode"] is Mode.EMBEDDING:  # AutoModel, as an embedder loads it: no lm_head; a reranker scored on
        # its head's rows as its engine loads it (transformers: the causal LM; llama.cpp's GGUF: a row per token)
        model = model.as_embedder(keep_head=engine.runtime is Runtime.TRANSFORMERS,
                                  row_per_token=engine.runtime in GGUF_RUNTIMES)
    prompt, output = attributes["prompt_tokens"], attributes["output_tokens"]
    if prompt is not None or output is not None:  # the sequence is their sum unless it says more
        asked = _checked_optional("prompt_tokens", prompt, int) or 0
        asked += _checked_optional("output_tokens", output, int) or (DEFAULT_OUTPUT_TOKENS if prompt else 1)
        attributes["seq"] = max(_checked("seq", attributes["seq"], int), asked)
    if attributes["images"]:  # their tokens join each sequence: the prompt, the KV cache and the prefill grow
        if model.vision is None or attributes["text_only"]:
            raise ValidationError("images", attributes["images"], "this model has no vision part to read them"
                                  if model.vision is None else "text_only leaves the vision part out")
        per_image = llamacpp_image_tokens if engine.runtime is Runtime.LLAMACPP else image_tokens  # its cap
        tokens = _checked("images", attributes["images"], int) * per_image(
            model.vision, _checked("image_width", attributes["image_width"], int),
            _checked("image_height", attributes["image_height"], int))
        attributes["image_tokens"] = tokens
        attributes["seq"] = _within_seq("images", _checked("seq", attributes["seq"], int) + tokens)
        if prompt is not None:
            attributes["prompt_tokens"] = _checked("prompt_tokens", prompt, int) + tokens
    if attributes["videos"]:  # as images: each video's frame pairs and timestamps join each sequence
        if model.vision is None or model.vision.family not in VIDEO or attributes["text_only"]:
            raise ValidationError("videos", attributes["videos"], "text_only leaves the vision part out"
                                  if attributes["text_only"] and model.vision else
                                  "this model's processor takes no videos (Qwen2/2.5/3-VL, Qwen3.5 and GLM-4.xV do)")
        if engine.runtime in GGUF_RUNTIMES:
            raise ValidationError("videos", attributes["videos"], "llama.cpp's mtmd takes images, not videos")
        tokens = _checked("videos", attributes["videos"], int) * video_tokens(
            model.vision, _checked("video_seconds", attributes["video_seconds"], float),
            _checked("video_fps", attributes["video_fps"], float),
            _checked("image_width", attributes["image_width"], int),
            _checked("image_height", attributes["image_height"], int))
        attributes["video_tokens"] = tokens
        attributes["seq"] = _within_seq("videos", _checked("seq", attributes["seq"], int) + tokens)
        if attributes["prompt_tokens"] is not None:
            attributes["prompt_tokens"] = _checked("prompt_tokens", attributes["prompt_tokens"], int) + tokens
    if attributes["mtp"]:
        model = _with_mtp(model, attributes)
    attributes["overhead_given"] = attributes["overhead_bytes"] is not None
    if attributes["overhead_bytes"] is None:
        attributes["overhead_bytes"] = engine.default_overhead(attributes)
    # each value has its field's type (the option table pairs each key with its parser), which a dict
    # of every field cannot say to mypy short of a TypedDict repeating Workload's fields
    workload = Workload(model=model, **attributes)  # type: ignore[arg-type]
    check_consistency(workload)
    return on_card(workload)  # refused, or the engine's fallback, where its card cannot run the format


def with_named_layout(workload: Workload, named: Mapping[str, str]) -> Workload:
    """`workload` (one GPU) keeping the layout `named` for several GPUs (options.several_gpus_only), which one GPU
    drops: the fewest GPUs is searched under it (Workload.on_gpus). Raises on a layout no count of GPUs can run
    this model with, as the same values with more GPUs do; a sequence it cannot split (`check_seq`) is the search's
    to answer (analysis.fit.fewest_gpus), since the one-GPU answers take any length."""
    laid = workload.but(**{FIELD_ATTRIBUTE.get(key, key): FIELD_PARSERS[key](value) for key, value in named.items()})
    if laid.layout_given:
        check(degrees(laid), laid.model, training=laid.is_training)
    return workload.but(named_layout=laid.on_gpus(1).named_layout)


def run_format(model: ModelSpec, precision: Precision | WeightFormat, *, runtime: Runtime, training: bool,
               framework: Framework) -> Precision | WeightFormat:
    """The format `precision` runs in: the engine's (Engine.run_format: `auto` the checkpoint as published), and
    for training under transformers as its framework loads it (engines.transformers.as_loaded: bitsandbytes keeps
    a mixture of experts' fused experts in bf16 but under Unsloth)."""
    run = engine_for(runtime).run_format(model, precision, training=training)
    if runtime is Runtime.TRANSFORMERS and training:  # loaded by its framework
        run = as_loaded(model, run, framework)
    return run


def as_run(workload: Workload, precision: Precision | WeightFormat) -> Precision | WeightFormat:
    """`precision` as this workload's engine and framework run it (the reverse answers' candidates, as _build)."""
    return run_format(workload.model, precision, runtime=workload.runtime, training=workload.is_training,
                      framework=workload.framework)


def _with_mtp(model: ModelSpec, attributes: Mapping[str, object]) -> ModelSpec:
    """The model with the MTP layers its engine loads for `mtp` (model/families/decoder/mtp.py), or a refusal naming
    the key: another mode or engine, no MTP layers in the config, or layers the engine does not run."""
    tokens = _checked("mtp", attributes["mtp"], int)
    runtime = attributes["runtime"]
    if attributes["mode"] is not Mode.INFERENCE:
        raise ValidationError("mtp", tokens, "speculative decoding with MTP layers is for generating text "
                              "(mode inference)")
    if runtime not in (Runtime.VLLM, Runtime.LLAMACPP):
        raise ValidationError("mtp", tokens, "MTP layers are loaded for speculative decoding by vLLM and llama.cpp's "
                              "llama-server; transformers, Ollama and the other engines do not run them: set 0")
    if runtime is Runtime.LLAMACPP and attributes["llamacpp_program"] is not LlamaCppProgram.SERVER:
        raise ValidationError("mtp", tokens, "llama.cpp drafts with MTP layers in llama-server (--spec-type "
                              "draft-mtp): choose llamacpp_program llama-server")
    if attributes["draft_model"] is not None:
        raise ValidationError("mtp", tokens, "one kind of speculative decoding at a time: a draft model or the MTP "
                              "layers")
    if not model.mtp_layers:
        raise ValidationError("mtp", tokens, f"{model.display_name} has no multi-token-prediction layers in its "
                              "config (num_nextn_predict_layers, mtp_num_hidden_layers): set 0")
    types = mtp.VLLM_TYPES if runtime is Runtime.VLLM else mtp.LLAMACPP_TYPES
    if model.model_type not in types:
        why = ("its GGUF files have no MTP layers: llama.cpp's converter drops DeepSeek-V3's"
               if model.model_type == "deepseek_v3" and runtime is Runtime.LLAMACPP else
               f"the MTP layers of model_type {model.model_type!r} are not modelled for {runtime.value} yet")
        raise ValidationError("mtp", tokens, why)
    if runtime is Runtime.VLLM:  # vLLM shares the model's embedding and head with them, copies or not
        built = mtp.with_mtp(model, copies=False)
    else:  # llama.cpp loads the copies the GGUF holds, which it holds where the checkpoint does
        built = mtp.with_mtp(model, copies=model.model_type in mtp.CHECKPOINT_COPIES)
    return mtp.noted(built, param_count(built) - param_count(model), runtime.value, tokens)


# A Gemma 4 drafter beside its target: llama.cpp (gemma4-assistant) and vLLM 0.34 (an MTP proposer,
# config/speculative.py gemma4_assistant -> gemma4_mtp) run it; transformers 5.23's
# SinglePositionMultiTokenCandidateGenerator would, but Gemma4TextConfig.kv_sharing_modes raises for a config whose
# every layer reuses K/V, so the drafter cannot be built.
DRAFTER_ELSEWHERE = {
    Runtime.TRANSFORMERS: "transformers 5.23 cannot build a Gemma 4 drafter (Gemma4TextConfig.kv_sharing_modes "
                          "refuses a model whose every layer reuses K/V): runtime vllm or llamacpp counts it beside "
                          "its target",
}
DRAFT_RUNTIMES = (Runtime.LLAMACPP, Runtime.VLLM, Runtime.TRANSFORMERS)  # the engines a draft model is counted on


def _check_draft(workload: Workload) -> None:
    """A draft model where it is counted: generating text, on llama-server, vLLM or transformers' generate."""
    draft = workload.draft_model
    if draft is None:
        return
    if workload.mode is not Mode.INFERENCE:
        raise ValidationError("draft_model", draft.name, "speculative decoding with a draft model is for generating "
                              "text (mode inference)")
    if workload.runtime not in DRAFT_RUNTIMES:
        raise ValidationError("draft_model", draft.name, "speculative decoding with a draft model is modelled for "
                              "llama.cpp's llama-server (runtime llamacpp), vLLM and transformers")
    if draft.drafter_backbone and workload.runtime in DRAFTER_ELSEWHERE:
        raise ValidationError("draft_model", draft.name, DRAFTER_ELSEWHERE[workload.runtime])
    check_drafter_target(workload.model, draft)


def check_consistency(workload: Workload) -> None:
    """Rules that involve more than one field."""
    if workload.model.speech is not None:  # Whisper: generate on transformers, or whisper.cpp (ggml)
        if workload.is_training:
            raise ValidationError("mode", workload.mode.value, "a speech model's training is not counted here; "
                                                               "transcription is (mode speech)")
        if workload.mode is Mode.EMBEDDING:
            raise ValidationError("mode", workload.mode.value, "a speech model transcribes (mode speech); it makes "
                                                               "no embeddings")
        if workload.runtime not in (Runtime.TRANSFORMERS, Runtime.LLAMACPP, Runtime.FASTER_WHISPER):
            raise ValidationError("runtime", workload.runtime.value, "a speech model runs here on transformers, "
                                                                     "faster-whisper or whisper.cpp (runtime llamacpp)")
        if workload.runtime is Runtime.LLAMACPP:
            whisper_cpp_weight_type(workload)  # one ggml type for the whole file
    elif workload.mode is Mode.SPEECH:
        raise ValidationError("mode", workload.mode.value, "transcription needs a speech model (Whisper)")
    _check_draft(workload)
    engine_for(workload.runtime).check(workload)
    _check_machine(workload)
    fmt = workload.precision
    if isinstance(fmt, WeightFormat):
        check_format(workload.model, fmt, workload.group_size)
    if workload.is_training and isinstance(fmt, WeightFormat) and fmt.kind == "gguf":
        given = fmt.file is not None  # the user's weight file (--weights): "file" is no precision they typed
        raise ValidationError("weights" if given else "precision", "a GGUF file" if given else fmt.name,
                              "GGUF files are for llama.cpp inference; training needs fp32, fp16 or bf16 weights, "
                              "or nf4/nf4-dq under LoRA (QLoRA)")
    if workload.is_training:
        _check_training(workload)
    elif workload.fused_ce:
        raise ValidationError("fused_ce", "1", "fused cross-entropy applies to training only")
    elif workload.activation_offload:
        raise ValidationError("activation_offload", "1", "activation offloading applies to training only")
    elif workload.compile:
        raise ValidationError("compile", "1", "torch.compile's saved activations apply to training only")
    elif workload.ce_output_chunks:
        raise ValidationError("ce_output_chunks", str(workload.ce_output_chunks), "applies to training only")
    if workload.layout_given:
        check(degrees(workload), workload.model, training=workload.is_training)
    if seq_step(workload) > 1:  # Megatron's split of each sequence over the CP (and SP) ranks
        named = " and ".join(name for name, tokens in (("images", workload.image_tokens),
                                                        ("videos", workload.video_tokens)) if tokens) + "'"
        check_seq(degrees(workload), workload.seq, media=workload.image_tokens + workload.video_tokens,
                  media_name=named, shortest=workload.shortest_seq, longest=MAX_SEQ)


def _check_machine(workload: Workload) -> None:
    """What a machine of different cards, and llama.cpp's --tensor-split, are modelled with: llama.cpp's
    layer split (engines/llamacpp_fit_gpus.device_plan). vLLM and transformers shard a model evenly over
    GPUs of one kind (vLLM's tensor parallelism needs equal shards, the smallest card then limiting each):
    refused rather than answered for one card's size."""
    if workload.tensor_split and (workload.runtime is not Runtime.LLAMACPP or workload.embeds):
        raise ValidationError("tensor_split", split_text(workload.tensor_split), "llama.cpp's own flag (-ts) for "
                              "generating text: Ollama and the other engines split the model themselves")
    if workload.override_tensor and (workload.cards or workload.tensor_split):
        raise ValidationError("override_tensor", overrides_text(workload.override_tensor),
                              "not modelled with several kinds of card or --tensor-split: leave it empty")
    if not workload.cards:
        return
    names = ",".join(card.slug for card in workload.cards)
    if workload.runtime not in GGUF_RUNTIMES or workload.embeds:
        raise ValidationError("gpu", names, "different cards are modelled for llama.cpp and Ollama generating "
                              "text, which split the layers by each card's memory; vLLM and transformers shard "
                              "evenly over one kind of card: list one kind")
    if workload.runtime is Runtime.OLLAMA and version_of(workload) < LLAMA_SERVER:
        raise ValidationError("ollama_version", ".".join(map(str, version_of(workload))), "Ollama before v0.30 "
                              "places layers on different cards by its own estimate, not modelled: v0.30 or later")


def _check_in_backward(workload: Workload) -> None:
    """What torchtune's optimizer_in_bwd does not run with, and what is not modelled with it."""
    if workload.grad_accum > 1:
        raise ValidationError("grad_accum", workload.grad_accum, "the optimizer inside the backward steps every "
                              "micro-batch: no gradient accumulation (torchtune refuses both)")
    if workload.recipe is Recipe.MIXED or workload.mixed_precision:
        raise ValidationError("optimizer_in_backward", "1", "not modelled with an fp32 master copy; leave "
                              "mixed precision off (torchtune trains in bf16)")
    if workload.objective is not Objective.SFT:
        raise ValidationError("optimizer_in_backward", "1", "TRL's DPO, KTO, ORPO, GRPO, RLOO and PPO trainers step "
                              "after the backward")


def _check_grpo(workload: Workload) -> None:
    """TRL's GRPOConfig and RLOOConfig checks, and what the estimate needs."""
    name = workload.objective.value.upper()
    if workload.reference is Reference.PRECOMPUTED:
        raise ValidationError("reference", "precomputed", f"{name} scores new completions each step")
    if workload.reference is Reference.COPY and workload.lora:
        raise ValidationError("reference", "copy", f"under LoRA, TRL's {name} switches the adapters off instead")
    if workload.completion_tokens >= workload.seq:
        raise ValidationError("completion_tokens", str(workload.completion_tokens),
                              "the completion is part of --seq: leave at least one prompt token")
    steps, named = ((workload.grad_accum, "--grad-accum") if workload.steps_per_generation is None
                    else (workload.steps_per_generation, "--steps-per-generation"))
    total = workload.batch * workload.devices * steps  # TRL's generation_batch_size, over world_size GPUs
    if total % workload.generations:
        raise ValidationError("num_generations", str(workload.generations),
                              f"must divide the generation batch, --batch × GPUs × {named} = {total} "
                              f"(TRL's check); TRL's defaults are --batch 8 and {name}'s "
                              f"{8 if workload.objective is Objective.GRPO else 2} generations per prompt")
    if workload.rollout in (Rollout.VLLM_COLOCATE, Rollout.VLLM_COLOCATE_SLEEP) and workload.gpu is None:
        raise ValidationError("rollout", workload.rollout.value, "colocated vLLM claims a share of the card: "
                              "choose a GPU (--gpu)")


def _check_ppo(workload: Workload) -> None:
    """What TRL's PPOTrainer (trl 1.9.0, trl/experimental/ppo) runs, and what the estimate needs."""
    if workload.reference in (Reference.PRECOMPUTED, Reference.NONE):
        raise ValidationError("reference", workload.reference.value, "PPO scores each new rollout by its reference")
    if workload.completion_tokens >= workload.seq:
        raise ValidationError("completion_tokens", str(workload.completion_tokens),
                              "the response is part of --seq: leave at least one prompt token")
    refused = {key: value for key, value in (("checkpointing", workload.checkpointing.value),
                                             ("precision", workload.precision.value)) if key in workload.framework_set}
    if refused:  # the framework's defaults, not the user's settings (training/frameworks.py)
        raise ValidationError("framework", workload.framework.value, "its defaults (" + ", ".join(
            f"{key} {value}" for key, value in refused.items()) + ") are not what TRL's PPOTrainer runs: choose "
                              "trainer, or set checkpointing none and precision bf16")
    if workload.checkpointing is not Checkpointing.NONE:
        raise ValidationError("checkpointing", workload.checkpointing.value, "TRL's PPOTrainer never enables it")
    if not isinstance(workload.precision, Precision):
        raise ValidationError("precision", workload.precision.value, "PPO trains the whole value model, loaded as "
                              "the policy is: 16- or 32-bit weights")
    if workload.rollout is not Rollout.TRANSFORMERS:
        raise ValidationError("rollout", workload.rollout.value, "TRL's PPO generates with transformers")
    if workload.compile:
        raise ValidationError("compile", "1", "TRL's PPOTrainer does not compile the model (its Accelerator has no "
                              "dynamo plugin)")
    if workload.steps_per_generation or workload.num_iterations != 1:
        field = "steps_per_generation" if workload.steps_per_generation else "num_iterations"
        raise ValidationError(field, str(getattr(workload, field)), "GRPO's and RLOO's: PPO rolls out --batch × "
                              "--grad-accum prompts and trains on them num_ppo_epochs times")


def _check_cross_images(workload: Workload) -> None:
    """Llama 3.2 Vision trained on images: measured (tools/measure_mllama.py, tools/measure_mllama_lora.py) as
    transformers' Trainer runs a full fine-tune or peft's LoRA (QLoRA from it, bitsandbytes' current 4-bit matmul
    keeping what a frozen linear does), supervised, with per-layer checkpointing or none; the rest is refused,
    naming images."""
    why = ""
    if workload.lora is not None and workload.bnb_version is not None and workload.bnb_version < (0, 43, 2) and (
            workload.precision.value in QLORA_FORMATS):
        why = ("QLoRA on bitsandbytes before 0.43.2 keeps every 4-bit matmul's input, which is not modelled in the "
               "vision tower and the cross-attention layers")
    elif workload.objective is not Objective.SFT:
        why = "images are modelled for supervised steps (sft)"
    elif workload.checkpointing is Checkpointing.SQRT:
        why = "transformers checkpoints every layer (checkpointing layer) and never the vision tower"
    elif workload.activation_offload or workload.compile:
        why = "with images, activation offloading and torch.compile are not measured"
    elif workload.framework not in (Framework.TRAINER, Framework.AXOLOTL):
        why = "images are modelled as transformers' Trainer runs the model"
    if why:
        raise ValidationError("images", workload.images, f"{why}; a full fine-tune or LoRA with images, or a "
                              "text-only step (images 0), is counted")


def _check_training(workload: Workload) -> None:
    if workload.model.count_kind(AttentionKind.CROSS) and workload.images:
        _check_cross_images(workload)
    qlora = workload.lora is not None and workload.precision.value in QLORA_FORMATS
    if not workload.precision.is_float and not qlora:
        raise ValidationError(
            "precision",
            workload.precision.value,
            "training needs fp32, fp16 or bf16 weights, or nf4/nf4-dq under LoRA (QLoRA); quantised weights "
            "cannot be trained directly",
        )
    if workload.lora is not None:
        training_adapters(workload.model, workload.lora)  # ranks and targets the model has
        if workload.recipe is Recipe.MIXED or workload.mixed_precision:
            raise ValidationError("recipe" if workload.recipe is Recipe.MIXED else "mixed_precision",
                                  workload.recipe.value or "1", "LoRA keeps its fp32 adapters and needs no master copy")
    if workload.reference_model is Reference.ADAPTERS_OFF and not workload.lora:
        raise ValidationError("reference", "adapters-off", "needs LoRA adapters (--lora-rank)")
    if workload.optimizer_in_backward:
        _check_in_backward(workload)
    bnb = workload.bnb_version
    if bnb is not None and bnb < (0, 43, 2) and workload.framework in (Framework.TORCHTUNE, Framework.UNSLOTH):
        raise ValidationError("bnb_version", ".".join(map(str, bnb)), "torchtune quantises with "
                              "torchao's NF4 and Unsloth's LoRA kernels dequantise for themselves: neither runs "
                              "bitsandbytes' MatMul4Bit")
    if workload.framework in (Framework.TORCHTUNE, Framework.LITGPT) and workload.objective is not Objective.SFT:
        raise ValidationError("framework", workload.framework.value, "DPO, KTO, ORPO, GRPO, RLOO and PPO are modelled "
                              "as TRL's trainers run them: choose trainer, axolotl or unsloth")
    if workload.activation_offload and workload.objective is not Objective.SFT:
        raise ValidationError("activation_offload", "1", "modelled for supervised steps (sft)")
    if workload.activation_offload and workload.framework is Framework.UNSLOTH:  # training/offload.py reads neither
        raise ValidationError("activation_offload", "1", "Unsloth offloads through its own checkpointing "
                              "(checkpointing layer): leave activation_offload off")
    if workload.objective is not Objective.SFT and workload.fused_ce:
        raise ValidationError("fused_ce", "1", "DPO, KTO, GRPO and RLOO score tokens with TRL's own chunked head; "
                              "ORPO and PPO compute their losses over the whole logits")
    if workload.ce_output_chunks and (workload.fused_ce or workload.objective is not Objective.SFT):
        raise ValidationError("ce_output_chunks", str(workload.ce_output_chunks),
                              "one loss at a time: not with fused_ce, and for supervised steps (sft)")
    if workload.objective in GENERATING:
        _check_grpo(workload)
    elif workload.objective is Objective.PPO:
        _check_ppo(workload)
    elif workload.objective is Objective.ORPO:
        if workload.reference not in (Reference.DEFAULT, Reference.NONE):
            raise ValidationError("reference", workload.reference.value, "ORPO has no reference model")
    elif workload.reference is Reference.NONE and workload.objective is not Objective.SFT:  # SFT has none to read
        raise ValidationError("reference", "none", f"{workload.objective.value.upper()} needs its reference "
                              "(precomputed at least)")
    if workload.objective is Objective.KTO and workload.batch < 2:
        raise ValidationError("batch", str(workload.batch), "KTO's KL term needs per_device_train_batch_size > 1 "
                              "(TRL's check)")
    if workload.recipe in (Recipe.AMP, Recipe.MIXED) and workload.precision not in (Precision.BF16, Precision.FP16):
        raise ValidationError("precision", workload.precision.value,
                              f"recipe {workload.recipe.value} names the 16-bit compute dtype: bf16 or fp16")
    if workload.optimizer_impl not in allowed_impls(workload.optimizer):
        raise ValidationError("optimizer_impl", workload.optimizer_impl.value,
                              f"{workload.optimizer.value} runs as "
                              + " or ".join(i.value for i in allowed_impls(workload.optimizer) if i.value))
    if workload.recipe is not Recipe.LEGACY and workload.mixed_precision:
        raise ValidationError("mixed_precision", "1",
                              "a recipe says where the master copy is; leave mixed_precision off")
    if workload.mixed_precision and workload.precision is Precision.FP32:
        raise ValidationError(
            "mixed_precision", "1",
            "mixed precision needs fp16 or bf16 weights (fp32 weights are already the master copy)",
        )
