"""Speculative decoding with a draft model under vLLM and transformers (issues 23 and 24): the draft counted as each
engine holds it, refused only where the engine refuses, its command printed with the engine's own flags.

vLLM 0.34 sources read: config/speculative.py, v1/worker/gpu/spec_decode/{speculator_config.py, speculator.py,
standalone_ar/, autoregressive/, target_dependent_ar/, gemma4/}, v1/kv_cache_interface.py, v1/worker/gpu/
model_runner.py, model_executor/models/gemma4_mtp.py. transformers 5.23: generation/candidate_generator.py,
generation/utils.py, measured by tools/measure_assisted.py (tests/golden/measured_assisted.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import preset_spec

VLLM = {"model": "qwen3-8b", "runtime": "vllm", "precision": "bf16", "seq": "8192", "gpu": "h100-80gb"}
HF = {"model": "qwen3-8b", "runtime": "transformers", "precision": "bf16", "seq": "8192", "gpu": "h100-80gb"}
DRAFT = "qwen3-0.6b"  # 28 layers × 8 KV heads × 128, Qwen3 8B's vocabulary of 151,936
DRAFT_PER_TOKEN = 28 * 8 * 128 * 2 * 2  # K and V in bf16
MEASURED = json.loads((Path(__file__).parent / "golden" / "measured_assisted.json").read_text(encoding="utf-8"))


def _run(values):
    result = estimate(parse_workload(values))
    return {c.key: c.bytes for c in result.components}, result


def _said(result, key):
    return ENGLISH.say(next(c for c in result.components if c.key == key).formula)


# ---------------------------------------------------------------- vLLM


def test_vllm_loads_the_draft_in_the_models_dtype_unquantized():
    """DraftModelSpeculatorConfig.configure: ModelConfig(dtype=target.dtype, quantization=spec.quantization), None
    unless given: an FP8 model's draft is still 16-bit."""
    for precision in ("bf16", "fp8"):
        without, _ = _run({**VLLM, "precision": precision})
        with_draft, result = _run({**VLLM, "precision": precision, "draft_model": DRAFT})
        assert with_draft["weights"] - without["weights"] == 2 * param_count(preset_spec(DRAFT))
        assert "Qwen3 0.6B in bf16" in _said(result, "weights") or precision == "fp8"


def test_vllm_puts_the_drafts_layers_in_every_block_of_the_pool():
    """get_kv_cache_spec returns the draft's attention layers beside the model's; UniformTypeKVCacheSpecs sums their
    page sizes (v1/kv_cache_interface.py page_size_bytes), so each block holds both and the pool holds fewer tokens."""
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.vllm import vllm_block_bytes

    without, plain = _run(VLLM)
    with_draft, result = _run({**VLLM, "draft_model": DRAFT})
    assert with_draft["kv_cache"] - without["kv_cache"] == DRAFT_PER_TOKEN * 8192
    pool = result.runtime["kv_pool_bytes"]
    block = vllm_block_bytes(preset_spec("qwen3-8b"), Precision.BF16, 64) + 64 * DRAFT_PER_TOKEN
    assert result.runtime["kv_tokens"] == pool // block * 64
    assert result.runtime["kv_tokens"] < plain.runtime["kv_tokens"] * 0.8  # Qwen3 8B's 36 layers and the draft's 28
    assert "Qwen3 0.6B's layers in every block" in _said(result, "kv_cache")


def test_vllm_draft_s_cache_follows_the_models_cache_type():
    """SpeculativeConfig.kv_cache_dtype None: the draft inherits --kv-cache-dtype (_DRAFT_VLLM_CONFIG_OVERRIDES)."""
    without, _ = _run({**VLLM, "kv_precision": "fp8"})
    with_draft, _ = _run({**VLLM, "kv_precision": "fp8", "draft_model": DRAFT})
    assert with_draft["kv_cache"] - without["kv_cache"] == DRAFT_PER_TOKEN // 2 * 8192


def test_vllm_speculator_buffers_are_added_outside_the_budget():
    """T = 8,192 batched tokens and R = 1,024 sequences on an H100, K = 3: InputBuffers, DraftModelSpeculator's,
    AutoRegressiveSpeculator's and StandaloneARSpeculator's tensors (one KV group)."""
    t, r, k = 8192, 1024, 3
    expected = (t * 13 + 4 * (r + 1) + 8 * r + 20 * r + 12 * r * k + 8 * r) + 4 * (r + 1) + (t + r) * (4 + 8 + 8)
    without, _ = _run(VLLM)
    with_draft, result = _run({**VLLM, "draft_model": DRAFT})
    assert with_draft["activations"] - without["activations"] == expected
    assert "draft speculator's buffers" in _said(result, "activations")


def test_vllm_runs_a_gemma_4_drafter_as_an_mtp_proposer_reading_the_models_cache():
    """gemma4_assistant -> gemma4_mtp (config/speculative.py hf_config_override); Gemma4Speculator sets every draft
    layer's kv_sharing_target_layer_name, so no block grows; lm_head keeps the drafter's tied embedding, so all its
    weights stay; TargetDependentARSpeculator holds [T, backbone width] hidden states."""
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.vllm import vllm_block_bytes

    base = {**VLLM, "model": "gemma-4-e2b-it"}
    drafter = preset_spec("gemma-4-e2b-it-assistant")
    without, plain = _run(base)
    with_drafter, result = _run({**base, "draft_model": "gemma-4-e2b-it-assistant"})
    assert with_drafter["kv_cache"] == without["kv_cache"]
    block = vllm_block_bytes(preset_spec("gemma-4-e2b-it"), Precision.BF16, 64)  # the model's layers alone
    assert result.runtime["kv_tokens"] == result.runtime["kv_pool_bytes"] // block * 64 < plain.runtime["kv_tokens"]
    assert with_drafter["weights"] - without["weights"] == 2 * param_count(drafter)
    assert with_drafter["activations"] - without["activations"] > 8192 * 1536 * 2  # the hidden states buffer
    assert "keeps no cache" in _said(result, "kv_cache") and "hidden states" in _said(result, "activations")


@pytest.mark.parametrize(("values", "says"), [
    # verify_equal_vocab_size_if_draft_model: 262,144 against 262,208 (llama.cpp takes a difference up to 128)
    ({"model": "gemma-3-27b-it", "draft_model": "gemma-3-1b-it"}, "vocabulary size (262,144)"),
    # ModelConfig.verify_with_parallel_config on the draft's parallel config: Llama 3.2 3B's 24 heads over TP 16
    ({"model": "llama-3.1-70b", "draft_model": "llama-3.2-3b", "gpus": "16", "tp": "16"}, "24 attention heads"),
    # ... an MTP drafter's too (SpeculativeConfig._verify_args): Gemma 4 E2B's 8 heads take TP 8, its drafter's 4 not
    ({"model": "gemma-4-e2b-it", "draft_model": "gemma-4-e2b-it-assistant", "gpus": "8", "tp": "8"}, "4 attention"),
    ({"draft_model": DRAFT, "gpus": "2", "pp": "2"}, "last pipeline stage"),  # not modelled, said so
    ({"draft_model": DRAFT, "mode": "embedding"}, "mode inference"),
])
def test_vllm_refuses_what_vllm_refuses(values, says):
    with pytest.raises(ValidationError) as raised:
        workload = parse_workload({**VLLM, **values})
        from vramcalc.render.command import command_lines
        command_lines(workload, int(values.get("gpus", "1")))  # a layout over several GPUs is resolved here
    assert raised.value.field == "draft_model" and says in str(raised.value)


def test_llama_cpp_still_takes_the_gemma_3_pair_vllm_refuses():
    parse_workload({**VLLM, "runtime": "llamacpp", "precision": "q4_k_m", "model": "gemma-3-27b-it",
                    "draft_model": "gemma-3-1b-it"})


def test_vllm_tensor_parallel_splits_the_draft_with_the_model():
    """draft_tensor_parallel_size defaults to the model's (_verify_and_get_draft_tp): each of 2 GPUs holds about half
    of the draft's weights and its heads' share of every block."""
    from vramcalc.analysis.ranks import most_loaded

    one = most_loaded(parse_workload({**VLLM, "draft_model": DRAFT, "gpus": "2"}), 2)
    plain = most_loaded(parse_workload({**VLLM, "gpus": "2"}), 2)
    added = one.components["weights"] - plain.components["weights"]
    assert abs(added - param_count(preset_spec(DRAFT))) < 0.05 * param_count(preset_spec(DRAFT))  # 2 B / 2 GPUs
    assert one.pool is not None and plain.pool is not None and one.pool.kv_tokens < plain.pool.kv_tokens


def test_vllm_command_names_the_method_and_the_draft():
    from vramcalc.render.command import command_lines

    line = command_lines(parse_workload({**VLLM, "draft_model": DRAFT}))[0]
    assert ("--speculative-config '{\"method\": \"draft_model\", \"model\": \"Qwen/Qwen3-0.6B\", "
            "\"num_speculative_tokens\": 3}'") in line
    line = command_lines(parse_workload({**VLLM, "model": "gemma-4-e2b-it",
                                         "draft_model": "gemma-4-e2b-it-assistant"}))[0]
    assert "\"method\": \"mtp\", \"model\": \"google/gemma-4-E2B-it-assistant\"" in line


# ---------------------------------------------------------------- transformers


def test_transformers_adds_the_assistants_weights_and_its_own_cache():
    """AssistedCandidateGenerator: the assistant's own DynamicCache (assistant_kwargs["past_key_values"], from its
    own generation config: never the model's quantized cache), of at most the sequence."""
    without, _ = _run({**HF, "kv_precision": "int8"})
    with_draft, result = _run({**HF, "kv_precision": "int8", "draft_model": DRAFT})
    assert with_draft["weights"] - without["weights"] == 2 * param_count(preset_spec(DRAFT))
    assert with_draft["kv_cache"] - without["kv_cache"] == DRAFT_PER_TOKEN * 8192  # bf16, not int8
    assert "assistant's own cache" in _said(result, "kv_cache")


def test_transformers_logits_are_the_checked_candidates_and_the_assistants_scores():
    """_assisted_decoding: logits_to_keep = candidate_length + 1, upcast to fp32; the candidates' scores kept
    (output_scores); num_assistant_tokens 20 by default."""
    with_draft, _ = _run({**HF, "draft_model": DRAFT})
    assert with_draft["logits"] == 4 * (21 * 151936 + 20 * 151936)


def test_the_assistants_cache_matches_the_measured_one():
    """Two random Llama models on the CPU: the assistant's cache after each round of drafting never held more than
    the sequence less 2 tokens, 20 drafted a round or 1; its bytes are the formula's at that length."""
    from vramcalc.engines.transformers import assistant_cache

    shape = {**MEASURED["assistant"], "vocab_size": MEASURED["vocab"], "model_type": "llama",
             "architectures": ["LlamaForCausalLM"], "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    draft = from_hf_config(shape, name="assistant")
    assert param_count(draft) == MEASURED["assistant_params"]
    for run in MEASURED["runs"]:
        workload = parse_workload({**HF, "model": "llama-3.2-1b"}).but(draft_model=draft)
        assert run["largest_cache_tokens"] <= run["sequence"]
        assert assistant_cache(workload.but(seq=run["largest_cache_tokens"])) == run["largest_cache_bytes"]
    assert MEASURED["num_assistant_tokens"] == [20]
    assert max(run["most_drafted"] for run in MEASURED["runs"]) == 20


@pytest.mark.parametrize(("values", "field", "says"), [
    ({"batch": "2"}, "batch", MEASURED["batch_2"]),  # generation/utils.py, as measured
    ({"gpus": "2"}, "draft_model", "one GPU"),
    ({"model": "gemma-4-e2b-it", "draft_model": "gemma-4-e2b-it-assistant"}, "draft_model", "kv_sharing_modes"),
])
def test_transformers_refuses_what_it_cannot_run(values, field, says):
    with pytest.raises(ValidationError) as raised:
        parse_workload({**HF, "draft_model": DRAFT, **values})
    assert raised.value.field == field and says in str(raised.value)


def test_transformers_command_loads_the_assistant():
    from vramcalc.render.command import command_lines

    lines = command_lines(parse_workload({**HF, "draft_model": DRAFT}))
    assert lines[1].startswith('assistant = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-0.6B", dtype="bfloat16"')
    assert lines[1].endswith("assistant_model=assistant)")
    # a different vocabulary: Universal Assisted Decoding, both tokenizers passed (generation/utils.py)
    other = command_lines(parse_workload({**HF, "draft_model": "llama-3.2-1b"}))
    assert other[1].endswith("assistant_model=assistant, tokenizer=..., assistant_tokenizer=...)")


# ---------------------------------------------------------------- speed, link and page


def test_each_engine_drafts_its_own_count_in_its_own_dtype():
    from vramcalc.speed.speculative import draft_run, speculation

    for values, drafted in ((VLLM, 3), (HF, 20), ({**VLLM, "runtime": "llamacpp", "precision": "q4_k_m"}, 3)):
        workload = parse_workload({**values, "draft_model": DRAFT})
        plan = speculation(workload)
        assert plan is not None and plan.drafted == drafted
    vllm = parse_workload({**VLLM, "draft_model": DRAFT})
    assert draft_run(vllm, preset_spec(DRAFT)).precision.value == "bf16"  # llama.cpp's would be q8_0


def test_the_link_keeps_the_draft_for_vllm_and_transformers():
    from vramcalc.inputs.link import decode
    from vramcalc.inputs.options import OPTION

    for runtime in ("vllm", "transformers"):
        decoded = decode(f"model=qwen3-8b&runtime={runtime}&draft_model={DRAFT}&spec_acceptance=0.6")
        assert decoded.values.get("draft_model") == DRAFT and decoded.values.get("spec_acceptance") == "0.6"
        shown = {**DEFAULTS, "runtime": runtime, "draft_model": DRAFT}
        assert OPTION["draft_model"].shown(shown) and OPTION["spec_acceptance"].shown(shown)
        assert not OPTION["draft_precision"].shown(shown)  # a GGUF type: llama.cpp's alone
    assert not OPTION["draft_model"].shown({**DEFAULTS, "runtime": "tei"})


def test_the_draft_speeds_vllm_up():
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    def decode(values):
        workload = parse_workload({**DEFAULTS, **values})
        rate = speed_of(estimate(workload), workload.gpu, workload.devices, Machine()).decode_tokens_per_s
        assert rate is not None
        return rate
    assert decode({**VLLM, "draft_model": DRAFT}) > decode(VLLM)  # 2.53 tokens a step at the assumed 0.7


def test_the_largest_batch_of_assisted_generation_is_the_one_sequence_it_runs():
    """fit answered "largest batch 77" for Gemma 3 27B with Gemma 3 1B's assistance on an H100, a batch the same
    command then refused (transformers' assisted generation runs one sequence): the search stops at 1."""
    from vramcalc.analysis.solve import max_batch
    from vramcalc.inputs.parse import parse_target
    from vramcalc.render.charts import sweep

    values = {**DEFAULTS, **HF, "model": "gemma-3-27b-it", "draft_model": "gemma-3-1b-it", "seq": "512"}
    workload, target = parse_workload(values), parse_target(values)
    assert max_batch(workload, target) == 1
    chart = sweep(workload, target, "batch", 1)  # its axis ends at that sequence, ticked in whole sequences
    assert [tick.label for tick in chart.x_ticks] == ["0", "", "", "", "1"]
    alone = {**values, "draft_model": ""}
    assert max_batch(parse_workload(alone), parse_target(alone)) > 1  # without the assistant, many


def test_vllm_tensor_parallel_replicates_a_drafts_few_kv_heads_as_the_models():
    """vLLM gives each rank max(1, kv_heads // tp) heads of every attention layer, the draft's too: Gemma 3 4B's 4 KV
    heads at TP 8 (beside Gemma 3 27B's 16) are one a rank, as at TP 4. The draft's share was taken as the model's
    eighth: its cache half counted and the pool 21 % too many tokens (716,864 against 589,888)."""
    from vramcalc.analysis.ranks import most_loaded
    from vramcalc.engines.vllm import vllm_block_bytes, vllm_kv_block

    target = {**VLLM, "model": "gemma-3-27b-it", "draft_model": "gemma-3-4b-it"}

    def draft_part(gpus):
        values = {**target, "gpus": gpus, "tp": gpus}
        alone = most_loaded(parse_workload({**values, "draft_model": ""}), int(gpus))
        rank = most_loaded(parse_workload(values), int(gpus))
        return rank.components["kv_cache"] - alone.components["kv_cache"], rank

    at_4, _ = draft_part("4")
    at_8, rank = draft_part("8")
    assert at_8 == at_4 > 0  # a head a rank either way
    workload = parse_workload({**target, "gpus": "8", "tp": "8"})
    block = vllm_kv_block(workload.model, workload.effective_kv_precision, workload.gpu)
    model, draft = (vllm_block_bytes(spec, workload.effective_kv_precision, block)
                    for spec in (workload.model, workload.draft_model))
    per_block = model * 2 / 16 + draft * 1 / 4  # 2 of the model's 16 KV heads a rank, 1 of the draft's 4
    assert rank.pool is not None and rank.pool.kv_tokens == int(rank.pool.kv_pool_bytes // per_block) * block
    same = draft_part("2")[0]  # 2 heads a rank: each rank holds its half of the draft's heads, as before
    assert same == 2 * at_4
