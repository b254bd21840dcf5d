"""Ollama as its own runtime: llama.cpp's memory under Ollama's context and defaults
(docs/research/engines.md §1d, §4.2)."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.errors import ValidationError
from vramcalc.engines.ollama import num_ctx
from vramcalc.inputs.parse import parse_workload
from vramcalc.render.messages import ENGLISH
from vramcalc.speed.validation import backend

BASE = {"model": "llama-3.1-8b", "runtime": "ollama", "precision": "q4_k_m"}


@pytest.mark.parametrize(("gpu", "ctx"), [("rtx-4060-ti-16gb", 4096), ("rtx-4090", 32768), ("rtx-6000-ada", 32768),
                                          ("h100-80gb", 131072)])
def test_the_default_context_is_tiered_by_the_gpus_memory_and_capped_at_the_models(gpu, ctx):
    # 16 GB: 4,096; 24 GB (23.6 GiB) and 48 GB (44.4 GiB): 32,768; 80 GB: 262,144, capped at 131,072 (Llama 3.1)
    assert num_ctx(parse_workload({**BASE, "gpu": gpu})) == (ctx, False)


def test_its_cache_is_llamacpps_at_its_context_whatever_the_request():
    ollama = estimate(parse_workload({**BASE, "gpu": "rtx-4090", "seq": "2048"}))
    llamacpp = estimate(parse_workload({**BASE, "runtime": "llamacpp", "gpu": "rtx-4090", "seq": "32768"}))
    assert ollama.bytes_of("kv_cache") == llamacpp.bytes_of("kv_cache")
    assert ollama.total_bytes == llamacpp.total_bytes
    given = estimate(parse_workload({**BASE, "gpu": "rtx-4090", "num_ctx": "8192", "seq": "20000"}))
    kv = next(c for c in given.components if c.key == "kv_cache")
    assert "8,192 tokens per sequence (num_ctx)" in ENGLISH.say(kv.formula)
    assert "longer prompts are cut" in ENGLISH.say(kv.formula)


@pytest.mark.parametrize(("values", "field"), [({"kv_precision_k": "q8_0"}, "kv_precision_k"),
                                                ({"n_cpu_moe": "4"}, "n_cpu_moe"), ({"cpu_moe": "1"}, "cpu_moe"),
                                                ({"precision": "awq-int4"}, "precision")])
def test_what_ollama_cannot_set_is_refused_naming_the_field(values, field):
    with pytest.raises(ValidationError) as error:
        parse_workload({**BASE, **values})
    assert error.value.field == field


def test_its_speed_is_llamacpps():
    workload = parse_workload({**BASE, "gpu": "rtx-4090"})
    assert backend(workload) == "llamacpp-cuda"
