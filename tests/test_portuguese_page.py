"""The Portuguese page says everything in Portuguese, with decimal commas: every preset's model line
and results, each engine's formulas, the reverse answers, and what a config.json or the custom model
made the engine assume. Names (models, Hugging Face ids, formats, flags) are left as they are."""

from __future__ import annotations

import re

import pytest

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.parse import parse_target
from vramcalc.render.catalog import facts
from vramcalc.render.messages import Words
from vramcalc.render.view import present, present_target
from vramcalc.sources.catalog import entries
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import load_presets

PT = Words("pt")
WORKLOADS = {
    "generate": {},
    "vllm": {"runtime": "vllm", "gpu": "h100-80gb"},
    "vllm on 2 GPUs": {"runtime": "vllm", "precision": "fp8", "gpu": "h100-80gb", "gpus": "2"},
    "llama.cpp": {"runtime": "llamacpp", "precision": "q4_k_m", "gpu_layers": "10"},
    "training": {"mode": "training", "seq": "1024", "checkpointing": "full"},
    "LoRA": {"mode": "training", "lora_rank": "16", "seq": "1024"},
    "QLoRA": {"mode": "training", "lora_rank": "16", "precision": "nf4", "seq": "1024"},
    "tensor parallel": {"gpus": "4", "tp": "4", "precision": "awq-int4", "runtime": "vllm"},
}
# English words no Portuguese sentence of ours has; each would mean a sentence left in English
ENGLISH = re.compile(r"\b(the|of|and|with|per|layers|parameters|weights|not|is|are|from|only|keeps?|at)\b")
# English-style numbers: a decimal point (14.96 GiB; a Portuguese thousands dot has groups of three,
# 4.096 tokens) or a thousands comma (4,096 tokens; Portuguese writes 14,96 GiB)
ENGLISH_DECIMAL = re.compile(r"(?<![\w.:,-])(\d+\.(?!\d{3}(?![\d]))\d+|[1-9]\d{0,2}(,\d{3})+(?![\d,]))(?![\w])")
NAMES = sorted({name for entry in entries() for name in (entry.name, entry.hf_id, entry.slug)} |
               {"llama.cpp", "vLLM", "transformers", "bitsandbytes", "LLM.int8()", "GGUF", "NCCL", "cuBLAS"},
               key=len, reverse=True)


# a library's version ("peft 0.21", "transformers 5.23") is a name, written the same in both languages
VERSION = re.compile(r"\b(peft|transformers|vLLM|PyTorch|torch|bitsandbytes|llama\.cpp|CUDA|kernels|Triton) "
                     r"\(?\d+(\.\d+)*")
NOT_SHOWN = {"key", "kind", "id_", "path", "slug", "unit", "verdict",
             "command"}  # identifiers, SVG geometry and the command to run (its flags are no language): not words


def _without_names(text: str) -> str:
    text = VERSION.sub("·", text)
    for name in NAMES:
        text = text.replace(name, "·")
    return re.sub(r"\b[a-z0-9_]+(-[a-z0-9_]+)+\b|--[\w-]+|\b\w+_\w+\b", "·", text)  # slugs, flags, keys


def _strings(value: object):
    """Every string a view holds, however deep."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            if name not in NOT_SHOWN:
                yield from _strings(getattr(value, name))


def assert_portuguese(texts, where: str) -> None:
    for text in texts:
        plain = _without_names(text)
        assert not ENGLISH.search(plain), f"{where}: English in {text!r}"
        assert not ENGLISH_DECIMAL.search(plain), f"{where}: an English decimal in {text!r}"


@pytest.mark.parametrize("slug", list(load_presets()))
def test_every_preset_in_portuguese(slug):
    assert_portuguese([facts(slug, words=PT)], f"{slug} model line")
    for name, values in WORKLOADS.items():
        merged = {**DEFAULTS, "model": slug, **values}
        try:
            workload = parse_workload(merged)
        except Exception:  # a workload this model cannot run (e.g. a layout it does not divide)
            continue
        gpus = parse_target(merged).count
        assert_portuguese(_strings(present(estimate(workload), gpus, words=PT)), f"{slug}, {name}")


@pytest.mark.parametrize("slug", list(load_presets())[::9])
@pytest.mark.parametrize("name", ["generate", "llama.cpp", "QLoRA", "vllm on 2 GPUs"])
def test_the_reverse_answers_in_portuguese(slug, name):
    merged = {**DEFAULTS, "model": slug, **WORKLOADS[name]}
    try:
        workload = parse_workload(merged)
    except ValidationError as error:  # a run this model refuses (whisper.cpp has no q4_k_m files), said in English
        pytest.skip(f"{slug} refuses {name}: {error}")
    target = parse_target(merged)
    assert_portuguese(_strings(present_target(workload, target, words=PT)), f"{slug}, {name}")


CONFIG = {"hidden_size": 2048, "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 4,
          "intermediate_size": 5632, "vocab_size": 32000}


@pytest.mark.parametrize(("config", "field"), [
    ({**CONFIG, "model_type": "brand_new_lm"}, "assumptions"),  # a type not read exactly
    ({**CONFIG}, "assumptions"),  # no model_type
    ({**CONFIG, "model_type": "olmo2", "kv_lora_rank": 512}, "assumptions"),  # a key not understood
    ({"model_type": "gemma3", "text_config": {**CONFIG, "model_type": "gemma3_text"}}, "notes"),  # multimodal
    ({**CONFIG, "model_type": "deepseek_v3", "num_nextn_predict_layers": 1, "kv_lora_rank": 512,
      "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128}, "notes"),
])
def test_what_a_config_json_made_us_assume_in_portuguese(config, field):
    spec = from_hf_config(config)
    said = [PT.say(item) for item in getattr(spec, field)]
    assert said
    assert_portuguese(said, f"config.json {field}")


def test_the_custom_models_assumptions_in_portuguese():
    workload = parse_workload({**DEFAULTS, "model": "custom", "params": "7", "hidden": "4096", "layers": "32"})
    assert_portuguese(_strings(present(estimate(workload), words=PT)), "custom model")


def test_a_pipeline_stage_is_named_in_portuguese():
    # the analysis labels a stage "stage 2 of 2" (its JSON's words); gpt2-xl's 25 heads split into two stages on vLLM
    test_the_reverse_answers_in_portuguese("gpt2-xl", "vllm on 2 GPUs")
