"""Speculative decoding with a draft model on llama.cpp (llama-server -md; issue 25): the draft's context is counted
as common/speculative.cpp creates it, beside the model's."""

from __future__ import annotations

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB

BASE = {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m", "seq": "32768"}


def _components(values):
    result = estimate(parse_workload(values))
    return {c.key: c.bytes for c in result.components}, result


def test_the_draft_gets_its_own_context_as_long_as_the_models_in_its_own_cache_type():
    without, plain = _components({**BASE, "kv_precision": "q8_0"})
    with_draft, result = _components({**BASE, "kv_precision": "q8_0", "draft_model": "qwen3-0.6b"})
    # Qwen3 0.6B: 28 layers x 8 KV heads x 128 x (K + V) in f16 (-ctkd/-ctvd's default, not the model's q8_0), for
    # the model's 32,768 cells (cparams.n_ctx = llama_n_ctx(ctx_tgt))
    kv = with_draft["kv_cache"] - without["kv_cache"]
    assert kv == 28 * 8 * 128 * 2 * 2 * 32768 == 3.5 * GIB
    weights = with_draft["weights"] - without["weights"]
    assert 0.55 * GIB < weights < 0.7 * GIB  # 0.6B in q8_0, 8.5 bits
    assert with_draft["activations"] > without["activations"]  # its compute buffer, and the model's drafted rows
    added = result.runtime["device_bytes"] - plain.runtime["device_bytes"]
    assert added == sum(with_draft.values()) - sum(without.values())
    assert weights + kv < result.runtime["draft_device_bytes"] <= added  # the model may reserve more logits rows


def test_the_draft_cache_type_is_its_own_key():
    f16, _ = _components({**BASE, "draft_model": "qwen3-0.6b"})
    q8, _ = _components({**BASE, "draft_model": "qwen3-0.6b", "draft_kv_precision": "q8_0"})
    assert (f16["kv_cache"] - q8["kv_cache"]) == 28 * 8 * 128 * 2 * 32768 * (2 - 34 / 32)  # q8_0: 34 bytes per 32


def test_the_models_logits_rows_grow_with_the_drafted_tokens():
    """common_speculative_get_output_limits: each slot's sampled token and its --spec-draft-n-max (3) drafted ones."""
    from vramcalc.engines.llamacpp import DRAFT_N_MAX, target_outputs

    workload = parse_workload({**BASE, "draft_model": "qwen3-0.6b"})
    assert target_outputs(workload) == 4 * (1 + DRAFT_N_MAX)  # llama-server's 4 auto slots
    most = parse_workload({**BASE, "draft_model": "qwen3-0.6b", "parallel": "256"})  # LLAMA_MAX_SEQ
    assert target_outputs(most) == 256 * (1 + DRAFT_N_MAX) <= 2048  # under -b (n_batch) at llama.cpp's most slots


def test_the_draft_s_layers_on_the_gpu_move_its_weights_to_system_ram():
    all_on, all_result = _components({**BASE, "draft_model": "qwen3-0.6b"})
    none_on, none_result = _components({**BASE, "draft_model": "qwen3-0.6b", "draft_gpu_layers": "0"})
    assert none_on["weights"] < all_on["weights"] and none_result.host_bytes > all_result.host_bytes


@pytest.mark.parametrize(("values", "says"), [
    ({"draft_model": "llama-3.2-1b"}, "vocabulary"),  # 128,256 tokens against Qwen3's 151,936
    ({"draft_model": "qwen3-0.6b", "runtime": "ollama"}, "llama-server"),
    ({"draft_model": "qwen3-0.6b", "gpus": "2"}, "one GPU"),
    ({"draft_model": "whisper-small"}, "decoder"),
    ({"draft_model": "no-such-model"}, "preset"),
    ({"draft_model": "qwen3-0.6b", "draft_precision": "awq"}, "GGUF"),
])
def test_a_draft_llama_cpp_would_not_run_is_named(values, says):
    with pytest.raises(ValidationError) as raised:
        parse_workload({**BASE, **values})
    assert raised.value.field in ("draft_model", "draft_precision") and says in str(raised.value)


def test_the_command_loads_the_draft():
    from vramcalc.engines.llamacpp_engine import ENGINE
    from vramcalc.parallel.layout import Layout

    workload = parse_workload({**BASE, "draft_model": "qwen3-0.6b", "draft_kv_precision": "q8_0"})
    line = ENGINE.command(workload, Layout(), "qwen3-32b-Q4_K_M.gguf")[0]
    assert "-md qwen3-0.6b-Q8_0.gguf --spec-type draft-simple -ngld 999 -ctkd q8_0 -ctvd q8_0" in line


def test_llama_cpp_runs_at_most_256_sequences():
    """llama_context refuses n_seq_max above LLAMA_MAX_SEQ (256, llama-cparams.h): "n_seq_max must be <= 256"; the
    calculator took --parallel up to 4,096 and answered "most --parallel 4,096" for a small model."""
    from vramcalc.core.errors import ValidationError

    with pytest.raises(ValidationError) as refused:
        parse_workload({**BASE, "parallel": "257"})
    assert refused.value.field == "parallel" and "256" in str(refused.value)
    parse_workload({**BASE, "parallel": "256"})
