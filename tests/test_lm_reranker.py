"""Decoder rerankers (Qwen3-Reranker): how a config says it is one (vLLM's keys, a preset's hf_overrides, a converted
checkpoint's architectures), and what each engine loads and computes for it. The transformers forward is held to
tools/measure_lm_reranker.py's measurements (tests/golden/lm_reranker.json, transformers 5.23 on the CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import ValidationError, estimate, parse_workload
from vramcalc.model.table import param_count
from vramcalc.render.command import command_lines
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import preset_spec

GOLDEN = json.loads((Path(__file__).parent / "golden" / "lm_reranker.json").read_text(encoding="utf-8"))
ORIGINAL = {"architectures": ["Qwen3ForSequenceClassification"], "classifier_from_token": ["no", "yes"],
            "is_original_qwen3_reranker": True}  # vLLM's hf_overrides for Qwen/Qwen3-Reranker-*
CONVERTED = {"architectures": ["Qwen3ForSequenceClassification"], "num_labels": 1}  # tomaarsen/*-seq-cls
AS_MEASURED = {"model": {}, "causal": ORIGINAL, "seqcls": CONVERTED}
QWEN3_8B = preset_spec("qwen3-reranker-8b")
HEAD = 151669 * 4096  # Qwen3-Reranker-8B's untied lm_head


def _run(config=None, **values):
    fields = {"mode": "embedding", **{key: str(value) for key, value in values.items()}}
    if config is not None:
        return estimate(parse_workload({"model": "config", **fields}, config=config))
    return estimate(parse_workload({"model": "qwen3-reranker-8b", **fields}))


NAMES = [f"{c['class']}-{c['config']['hidden_size']}-{c['dtype']}-{c['attention']}-{c['batch']}x{c['seq']}"
         for c in GOLDEN["cases"]]


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=NAMES)
def test_the_transformers_forward_is_the_measured_peak(case):
    """AutoModelForCausalLM (the original checkpoint, as its card runs it): the KV cache its forward builds plus every
    position's logits beside the final norm's output, exactly; AutoModel and a converted classifier (whose score
    gives one value per position): the prefill's peak with that cache, within 2 % (1.016 at most, docs/accuracy.md)."""
    result = _run({**case["config"], **AS_MEASURED[case["class"]]}, runtime="transformers", precision=case["dtype"],
                  batch=case["batch"], seq=case["seq"], attention="eager" if case["attention"] == "eager" else "flash")
    got = result.bytes_of("activations") + result.bytes_of("kv_cache") + result.bytes_of("logits")
    if case["class"] == "causal":
        assert got == case["peak_above_start_bytes"]
    else:
        assert result.bytes_of("logits") == 0
        assert got == pytest.approx(case["peak_above_start_bytes"], rel=0.02)


def test_vllms_keys_say_which_reranker_a_config_is():
    plain = {k: v for k, v in GOLDEN["cases"][0]["config"].items()}
    assert from_hf_config(plain).reranker is None
    original = from_hf_config({**plain, **ORIGINAL}).reranker
    assert original is not None and (original.tokens, original.labels, original.method) == (
        ("no", "yes"), 1, "from_2_way_softmax")
    kept = from_hf_config({**plain, "classifier_from_token": ["Yes"], "method": "no_post_processing"}).reranker
    assert kept is not None and kept.labels == 1 and kept.architecture == "Qwen3ForSequenceClassification"
    converted = from_hf_config({**plain, **CONVERTED, "tie_word_embeddings": False})
    assert converted.reranker is not None and converted.reranker.scored and converted.tie_embeddings
    assert param_count(converted) == param_count(from_hf_config(plain)) + 256  # its 1 × h score, no head


@pytest.mark.parametrize(("extra", "field"), [
    ({"is_original_qwen3_reranker": True}, "classifier_from_token"),
    ({"classifier_from_token": ["no", "yes"]}, "method"),
    ({"classifier_from_token": ["no", "yes", "maybe"], "method": "from_2_way_softmax"}, "classifier_from_token"),
    ({"classifier_from_token": "yes", "method": "no_post_processing"}, "classifier_from_token"),
    ({"classifier_from_token": ["yes"], "method": "softmax"}, "method"),
])
def test_a_reranker_key_vllm_would_refuse_is_refused_by_name(extra, field):
    with pytest.raises(ValidationError) as error:
        from_hf_config({**GOLDEN["cases"][0]["config"], **extra})
    assert error.value.field == field


def test_the_preset_is_the_causal_lm_until_an_engine_loads_it():
    """The checkpoint holds the 8B's untied head (MTEB's n_parameters); vLLM replaces it by the 'yes' row minus the
    'no' row (1 × h), llama.cpp's converter by the two rows (cls.output, 2 × h); transformers keeps it."""
    assert param_count(QWEN3_8B) == 8_188_548_096
    assert param_count(QWEN3_8B.as_embedder(keep_head=True)) == 8_188_548_096
    assert param_count(QWEN3_8B.as_embedder()) == 8_188_548_096 - HEAD + 4096
    assert param_count(QWEN3_8B.as_embedder(row_per_token=True)) == 8_188_548_096 - HEAD + 2 * 4096


def test_transformers_keeps_the_head_and_every_positions_logits():
    result = _run(runtime="transformers", batch=8, seq=512)
    assert result.bytes_of("weights") == 2 * 8_188_548_096
    assert result.bytes_of("activations") + result.bytes_of("logits") == 8 * 512 * (151669 + 4096) * 2
    assert "AutoModelForCausalLM" in " ".join(command_lines(result.workload))
    converted = _run({**QWEN3_8B_CONFIG, **CONVERTED}, runtime="transformers", batch=8, seq=512)
    assert converted.bytes_of("logits") == 0 and converted.bytes_of("weights") == 2 * (8_188_548_096 - HEAD + 4096)
    assert "AutoModelForSequenceClassification" in " ".join(command_lines(converted.workload))


def test_vllm_holds_a_score_row_and_runs_no_sampler():
    """vLLM's pooling runner: the from_2_way_softmax score (1 × h) and no head; its profiling run pools instead of
    sampling (GPUModelRunner.profile_run), so no vocabulary-wide buffers, for a reranker as for an embedder."""
    result = _run(runtime="vllm", gpu="h100-sxm")
    assert result.bytes_of("weights") == 2 * (8_188_548_096 - HEAD + 4096)
    generating = estimate(parse_workload({"model": "qwen3-reranker-8b", "runtime": "vllm", "gpu": "h100-sxm"}))
    assert result.bytes_of("activations") < generating.bytes_of("activations")
    command = " ".join(command_lines(result.workload))
    assert "--runner pooling" in command and '"is_original_qwen3_reranker": true' in command
    embedder = estimate(parse_workload({"model": "qwen3-embedding-8b", "runtime": "vllm", "gpu": "h100-sxm",
                                        "mode": "embedding"}))
    assert embedder.bytes_of("activations") == result.bytes_of("activations")


def test_llama_cpp_reranks_with_the_two_rows_its_converter_keeps():
    """convert_hf_to_gguf.py (Qwen3Model._get_cls_out_tensor) writes the 'yes' and 'no' rows as cls.output and no
    output.weight; llama.cpp then reads the head from token_embd (TENSOR_DUPLICATED) and pools RANK."""
    result = _run(runtime="llamacpp", precision="f16")
    assert param_count(result.workload.model) == 8_188_548_096 - HEAD + 2 * 4096
    assert result.workload.model.tie_embeddings
    assert "--reranking" in " ".join(command_lines(result.workload))


@pytest.mark.parametrize(("runtime", "words"), [("tei", "#643"), ("ollama", "#3368")])
def test_tei_and_ollama_cannot_rerank_with_it(runtime, words):
    with pytest.raises(ValidationError) as error:
        _run(runtime=runtime, precision="fp16" if runtime == "tei" else "f16")
    assert error.value.field == "runtime" and words in error.value.allowed


QWEN3_8B_CONFIG = {k: v for k, v in json.loads(
    (Path(__file__).parents[1] / "app" / "vramcalc" / "data" / "models" / "qwen3-reranker-8b.json").read_text(
        encoding="utf-8"))["config"].items()}





@pytest.mark.parametrize("slug", ["qwen3-reranker-0.6b", "qwen3-reranker-8b"])
def test_transformers_times_the_head_it_keeps(slug):
    """The causal LM multiplies every position by its head, tied (0.6B: the embedding table, which an embedder only
    gathers) or not: 2 × vocabulary × h FLOPs a token more than the backbone as vLLM holds it (a 1 × h score)."""
    from vramcalc.speed.hardware import device
    from vramcalc.speed.inference import placement_of, prefill
    from vramcalc.workload import Machine

    spec = preset_spec(slug)
    kept = estimate(parse_workload({"model": slug, "mode": "embedding", "runtime": "transformers", "batch": "8",
                                    "seq": "512", "gpu": "h100-sxm"}))
    backbone = estimate(kept.workload.but(model=spec.as_embedder()))
    card = device(kept.workload.gpu, Machine())
    flops = [prefill(one.workload, card, Machine(), placement_of(one, 1, 1), batch=8, prompt=512).flops
             for one in (kept, backbone)]
    head = spec.vocab * spec.hidden - spec.hidden
    assert flops[0] - flops[1] == pytest.approx(2 * head * 8 * 512, rel=1e-6)
