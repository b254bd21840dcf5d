"""vLLM serving an embedder or a reranker (`--runner pooling`), as vLLM 0.34's source runs it (docs/accuracy.md,
"vLLM's pooling runner, read"). An encoder (BERT, XLM-R, ModernBERT, nomic-bert) has no KV-cache spec, so vLLM
neither profiles nor builds a pool for it; it runs every prompt in one step (no chunked prefill), so its token budget
holds max_model_len; and a step is the requests' tokens flattened with varlen attention, nothing in seq². A decoder
embedder keeps the generator's path: a pool, the card's budget, a profiling run that pools instead of sampling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import ValidationError, estimate, parse_workload
from vramcalc.model.families.encoder import vllm_forward_bytes

GOLDEN = json.loads((Path(__file__).parent / "golden" / "encoders.json").read_text(encoding="utf-8"))
REMOTE = {case["name"]: case["config"] for case in GOLDEN["remote"]}
NOMIC = REMOTE["nomic_bert/nomic-embed-text-v1.5"]
JINA = REMOTE["jina-bert-v2/jina-embeddings-v2-base-en"]


def _run(config=None, **values):
    fields = {"mode": "embedding", "runtime": "vllm", **{key: str(value) for key, value in values.items()}}
    if config is not None:
        return estimate(parse_workload({"model": "config", **fields}, config=config))
    return estimate(parse_workload(fields))


def test_an_encoder_gets_no_pool_and_no_note_of_one():
    """v1/engine/core.py `_initialize_kv_caches`: no KV-cache spec, no determine_available_memory, no blocks; so
    neither the pool's facts nor the note that vLLM claims its utilization share are given."""
    result = _run(model="bge-m3", gpu="h100-sxm")
    assert result.bytes_of("kv_cache") == 0 and result.facts is None
    assert "note.vllm_fit" not in [note.key for note in result.notes]
    decoder = _run(model="qwen3-embedding-0.6b", gpu="h100-sxm")
    assert decoder.facts.pool.kv_pool_bytes > 0 and "note.vllm_fit" in [note.key for note in decoder.notes]


@pytest.mark.parametrize("gpu, seq, tokens", [("rtx-4090", 8192, 8192), ("rtx-4090", 1024, 2048),
                                              ("h100-sxm", 512, 8192), ("b200", 8192, 16384)])
def test_an_encoders_budget_holds_its_max_model_len(gpu, seq, tokens):
    """Chunked prefill is off for a bidirectional pooling model (config/model.py is_chunked_prefill_supported), and
    then max_num_batched_tokens defaults to max(max_model_len, the card's default) (engine/arg_utils.py): a 24 GB
    card's 2,048 becomes 8,192 for bge-m3 at its full length. bge-m3 in bf16: h 1,024, I 4,096, the intermediate and
    its GELU beside three hidden states, (3 × 1,024 + 2 × 4,096) × 2 = 22,528 B a token."""
    assert _run(model="bge-m3", gpu=gpu, seq=seq).bytes_of("activations") == tokens * 22_528


def test_the_default_budget_is_at_most_max_num_seqs_prompts():
    """engine/arg_utils.py caps the default budget at max_num_seqs × max_model_len ("does not exceed model limit"):
    one 512-token sequence a step on a 24 GB card is a step of 512 tokens, not the card's 2,048."""
    assert _run(model="bge-m3", gpu="rtx-4090", seq=512, max_num_seqs=1).bytes_of("activations") == 512 * 22_528
    assert _run(model="bge-m3", gpu="rtx-4090", seq=512, max_num_seqs=3).bytes_of("activations") == 1536 * 22_528
    decoder = _run(model="qwen3-embedding-0.6b", gpu="rtx-4090", seq=512, max_num_seqs=2)
    assert decoder.facts.max_num_batched_tokens == 1024


def test_a_decoder_embedder_keeps_the_cards_budget():
    """Qwen3-Embedding pools the last token, so vLLM chunks its prompts and keeps the card's default budget."""
    result = _run(model="qwen3-embedding-0.6b", gpu="rtx-4090", seq=32768)
    assert result.facts.max_num_batched_tokens == 2048 and result.facts.pool.kv_pool_bytes > 0


def test_a_budget_below_max_model_len_is_refused_for_an_encoder():
    """config/scheduler.py verify_max_model_len: without chunked prefill vLLM stops at start."""
    with pytest.raises(ValidationError) as refused:
        _run(model="bge-m3", seq=8192, max_num_batched_tokens=4096)
    assert refused.value.field == "max_num_batched_tokens"
    assert _run(model="bge-m3", seq=4096, max_num_batched_tokens=4096).bytes_of("activations") == 4096 * 22_528
    _run(model="qwen3-embedding-0.6b", seq=8192, max_num_batched_tokens=2048)  # a decoder chunks: accepted


@pytest.mark.parametrize("model, config", [("bge-m3", None), ("gte-modernbert-base", None),
                                           ("all-minilm-l6-v2", None), ("config", NOMIC)])
def test_no_term_grows_with_a_sequences_square(model, config):
    """FlashAttention varlen over each request's span: no scores, mask or ALiBi bias. The step's peak is linear in
    its tokens and the same whatever the sequences' length within it (transformers' ModernBERT is not: its SDPA call
    adds the window's mask per token, s × s a sequence)."""
    def peak(tokens, seq):
        return _run(config, model=model, seq=seq, max_num_batched_tokens=tokens).bytes_of("activations")

    assert peak(16384, 512) == peak(16384, 16384) == 2 * peak(8192, 8192) == 4 * peak(4096, 512)
    if model == "gte-modernbert-base":
        transformers = [estimate(parse_workload({"model": model, "mode": "embedding", "seq": str(s)})).bytes_of(
            "activations") for s in (4096, 8192)]
        assert transformers[1] > 2 * transformers[0]


def test_each_family_peaks_at_the_moment_its_code_reaches():
    """Worked per token in bf16 (e = 2), 8,192 tokens. ModernBERT (h 768, I 1,152): the GeGLU's Wi (2·I), GELU and
    product (4·I) beside five hidden states, (5 × 768 + 4 × 1,152) × 2 = 16,896 B, above attention's 7·h·e + 4·heads
    (10,800). nomic-embed-text-v1.5 (h 768, I 3,072, SwiGLU): down_proj's output beside gate_up and SiluAndMul,
    (5 × 768 + 3 × 3,072) × 2 = 26,112 B. all-MiniLM-L6-v2 (h 384, I 1,536): (3 × 384 + 2 × 1,536) × 2 = 8,448 B."""
    for model, config, per_token in (("gte-modernbert-base", None, 16_896), ("config", NOMIC, 26_112),
                                     ("all-minilm-l6-v2", None, 8_448)):
        result = _run(config, model=model, seq=8192, gpu="h100-sxm")
        assert result.bytes_of("activations") == 8192 * per_token, model
    # BertOutput's moment (dense, add and LayerNorm beside the GELU: 6·h + I) leads when I is small beside h
    assert vllm_forward_bytes(1024, 1024, 16, "bert", e=4, tokens=1) == 7 * 1024 * 4


def test_jina_bert_v2_is_refused_by_vllm():
    """models/registry.py 0.34 has no JinaBERT v2 (ALiBi, remote code); transformers still runs it."""
    with pytest.raises(ValidationError) as refused:
        _run(JINA, model="config")
    assert refused.value.field == "runtime"
    assert estimate(parse_workload({"model": "config", "mode": "embedding"}, config=JINA)).bytes_of("activations")
