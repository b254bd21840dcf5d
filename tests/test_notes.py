"""Notes an answer carries for the card it runs on."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate

QLORA = {"mode": "training", "model": "llama-3.1-8b", "framework": "unsloth", "lora_rank": "16", "seq": "1024"}


def keys(values: dict[str, str]) -> list[str]:
    return [getattr(note, "key", "") for note in estimate(parse_workload(values)).notes]


@pytest.mark.parametrize("values", [
    QLORA,  # 4-bit weights compute in bf16
    {"model": "llama-3.1-8b", "precision": "bf16"},
    {"model": "llama-3.1-8b", "precision": "bf16", "runtime": "vllm"},
])
def test_a_card_without_bf16_says_what_runs_instead(values):
    assert "note.no_bf16" in keys({**values, "gpu": "tesla-t4"})
    assert "note.no_bf16" not in keys({**values, "gpu": "l4"})
    assert "note.no_bf16" not in keys(values)


def test_no_note_where_nothing_is_bf16():
    assert "note.no_bf16" not in keys({"model": "llama-3.1-8b", "precision": "fp16", "gpu": "tesla-t4"})


def test_vllm_on_a_card_without_bf16_loads_gemma_in_fp32():
    """vLLM refuses float16 for Gemma 2 and 3 (config/model.py _FLOAT16_NOT_SUPPORTED_MODELS), so on a T4 its auto
    dtype is float32: the note does not say the memory is as shown, but that the weights double."""
    gemma = {"model": "gemma-3-12b-it", "runtime": "vllm", "gpu": "tesla-t4"}
    assert "note.no_bf16_fp32" in keys(gemma) and "note.no_bf16" not in keys(gemma)
    assert "note.no_bf16_fp32" not in keys({**gemma, "runtime": "transformers"})
    assert "note.no_bf16" in keys({**gemma, "model": "qwen3-8b"})


def test_vllm_refuses_float16_for_gemma_by_name():
    """vLLM's _check_valid_dtype raises for an explicit float16 on Gemma 2 and 3, PLaMo 2 and GLM-4 (config/model.py):
    the answer had counted the run as if it started. It names the precision; bf16 and fp32 run."""
    from vramcalc.core.errors import ValidationError

    gemma = {"model": "gemma-3-4b-it", "runtime": "vllm", "precision": "fp16"}
    with pytest.raises(ValidationError) as refused:
        parse_workload(gemma)
    assert refused.value.field == "precision" and "float16" in str(refused.value)
    for runs in ({**gemma, "precision": "bf16"}, {**gemma, "precision": "fp32"}, {**gemma, "runtime": "transformers"},
                 {**gemma, "model": "qwen3-8b"}):
        assert keys(runs) is not None
