"""llama.cpp's --embedding and --reranking compute buffers, measured on a CPU build
(tests/golden/llamacpp_embedding.json, docs/accuracy.md): an encoder's graph to the byte (encoder.py
`ggml_forward_bytes`); a decoder embedder's is its logits over every token of the micro-batch, which the engine's
decoder buffer now reserves; a Qwen3 reranker's (RANK pooling, --reranking) is the same graph, its head's logits
included, which the engine counts for it too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.dtypes import Precision
from vramcalc.engines.llamacpp import llamacpp_layout
from vramcalc.model.families.encoder import ggml_forward_bytes
from vramcalc.render.command import command_lines
from vramcalc.sources.hf_config import from_hf_config

GOLDEN = json.loads((Path(__file__).parent / "golden" / "llamacpp_embedding.json").read_text(encoding="utf-8"))
MODELS = GOLDEN["models"]
ENCODERS = [case for case in GOLDEN["cases"] if MODELS[case["model"]]["kind"] == "encoder"]
DECODERS = [case for case in GOLDEN["cases"] if MODELS[case["model"]]["kind"] == "decoder"]
MODERN = [case for case in GOLDEN["cases"] if MODELS[case["model"]]["kind"] == "modernbert"]
RERANKERS = [case for case in GOLDEN["cases"] if MODELS[case["model"]]["kind"] == "decoder-rerank"]
REMOTE = [case for case in GOLDEN["cases"] if MODELS[case["model"]]["kind"] in ("nomic-bert", "jina-bert-v2")]


def _id(case: dict) -> str:
    return f"{case['model']} {case['args']}"


@pytest.mark.parametrize("case", ENCODERS, ids=[_id(case) for case in ENCODERS])
def test_an_encoder_graph_is_counted_to_the_byte(case):
    model = MODELS[case["model"]]
    assert ggml_forward_bytes(model["hidden"], model["ffn"], model["heads"], tokens=case["n_ubatch"],
                              seqs=case["seqs"], flash=case["flash"], pooling=model["pooling"]) == case["bytes"]


@pytest.mark.parametrize("case", MODERN, ids=[_id(case) for case in MODERN])
def test_a_modernbert_graph_is_counted_to_the_byte(case):
    """Exact but where the golden file says by how much and why: a 3-layer model whose only global layer is the
    first (its mask freed after it: the formula above), and a last layer whose FFN found no hole (4·n·h below)."""
    model = MODELS[case["model"]]
    counted = ggml_forward_bytes(model["hidden"], model["ffn"], model["heads"], tokens=case["n_ubatch"],
                                 seqs=case["seqs"], flash=case["flash"], pooling=model["pooling"], family="modernbert",
                                 gated=True)
    assert counted - case["bytes"] == case.get("formula_over", 0)
    n, over = case["n_ubatch"], case.get("formula_over", 0)
    if over > 0:  # at most the freed global mask, of a 3-layer model only
        assert model["layers"] == 3 and over <= (2 if case["flash"] else 4) * n * n
    elif over:
        assert over == -4 * n * model["hidden"]


def test_modernbert_rank_keeps_the_ids_as_cls_does():
    """A ModernBERT reranker (--reranking, its classifier) logs the CLS embedder's bytes at every grid point."""
    rank = {case["args"]: case["bytes"] for case in MODERN if case["model"] == "mb-rerank"}
    assert rank == {f"{case['args']} --reranking": case["bytes"] for case in MODERN if case["model"] == "mb-small"}
    assert len(rank) == 9


def test_the_engine_counts_modernbert_with_its_own_graph():
    """llama.cpp --embedding of gte-modernbert-base (h 768, 12 heads, FFN 1152): modern-bert.cpp's graph, not
    BERT's, for 512 tokens over 4 slots with flash attention (the server's default on CUDA)."""
    result = estimate(parse_workload({"model": "gte-modernbert-base", "runtime": "llamacpp", "precision": "f16",
                                      "seq": "512"}))
    n, h = 512, 768
    expected = 12 * n + 32 + 2 * 2 * n * n + max(30 * n * h, 12 * n * h + 12 * n * 1152)
    assert result.bytes_of("activations") == expected
    bert = ggml_forward_bytes(h, 1152, 12, tokens=n, seqs=4, flash=True, pooling="cls")
    assert expected - bert == 2 * n * n + 6 * n * h  # the window's mask, and attention's 30·n·h over BERT's 24


@pytest.mark.parametrize("case", REMOTE, ids=[_id(case) for case in REMOTE])
def test_nomic_and_jina_graphs_are_counted_to_the_byte(case):
    """nomic-bert (rotary Q and K from a fused QKV, SwiGLU) and JinaBERT v2 (ALiBi, GEGLU; and the qk-post-norm
    layout of jina-embeddings-v2-base-code) through bert.cpp, F16 and Q8_0 alike: every measured run exactly but
    one, where the golden file says why: the formula's FFN moment holds a freed n × h hole below layer 0's FFN
    input (ModernBERT's too), and in that run ggml-alloc placed the input with none, 4·n·h lower."""
    model = MODELS[case["model"]]
    counted = ggml_forward_bytes(model["hidden"], model["ffn"], model["heads"], tokens=case["n_ubatch"],
                                 seqs=case["seqs"], flash=case["flash"], pooling=model["pooling"],
                                 family=model["family"], gated=True)
    assert counted - case["bytes"] == case.get("formula_over", 0) in (0, 4 * case["n_ubatch"] * model["hidden"])


def test_nomic_and_jina_are_not_counted_as_bert():
    """BERT's formula, which the engine used for them, gives 0.47 to 1.09 of the measured bytes and only one run
    exactly (nb-narrow at 128 tokens without flash attention, where the scores fit in the freed QKV); and the grid
    reaches both moments of each graph, attention (the narrow models, FFN h / 2) and the gated FFN, with flash
    attention and without."""
    ratios = []
    moments = set()
    for case in REMOTE:
        model, n, flash = MODELS[case["model"]], case["n_ubatch"], case["flash"]
        bert = ggml_forward_bytes(model["hidden"], model["ffn"], model["heads"], tokens=n, seqs=case["seqs"],
                                  flash=flash, pooling=model["pooling"])
        ratios.append(bert / case["bytes"])
        ids = (8 if model["kind"] == "jina-bert-v2" else 12) * n
        pooled = 4 * n * case["seqs"] if model["pooling"] == "mean" else -(-4 * case["seqs"] // 32) * 32
        ffn = ids + pooled + (2 if flash else 4) * n * n + 12 * n * model["hidden"] + 12 * n * model["ffn"]
        moments.add((model["kind"], flash, case["bytes"] + case.get("formula_over", 0) == ffn))
    assert len(REMOTE) == 81 and sum("formula_over" in case for case in REMOTE) == 1
    assert sum(ratio == 1 for ratio in ratios) == 1 and 0.46 < min(ratios) < 0.48 and 1.08 < max(ratios) < 1.09
    both = {(kind, flash, peak) for kind in ("nomic-bert", "jina-bert-v2") for flash in (False, True)
            for peak in (False, True)}
    assert moments == both


def test_the_engine_counts_nomic_and_jina_with_their_graphs():
    """nomic-embed-text-v1.5 and jina-embeddings-v2-base-en (h 768, 12 heads, FFN 3072) under llama.cpp
    --embedding, 512 tokens over 4 slots with flash attention: the SwiGLU's or GEGLU's FFN, 12·n·h + 12·n·3072,
    above the inputs (jina's without positions), as measured; 12.6 MiB over the BERT formula it used."""
    remote = {case["name"]: case["config"] for case in json.loads(
        (Path(__file__).parent / "golden" / "encoders.json").read_text(encoding="utf-8"))["remote"]}
    n, h = 512, 768
    for name, ids in (("nomic_bert/nomic-embed-text-v1.5", 12), ("jina-bert-v2/jina-embeddings-v2-base-en", 8)):
        result = estimate(parse_workload({"model": "config", "runtime": "llamacpp", "mode": "embedding",
                                          "precision": "f16", "seq": "512"}, config=remote[name]))
        expected = ids * n + 32 + 2 * n * n + 12 * n * h + 12 * n * 3072
        assert result.bytes_of("activations") == expected
        bert = ggml_forward_bytes(h, 3072, 12, tokens=n, seqs=4, flash=True, pooling="cls")
        assert expected - bert == 8 * n * 3072 + (ids - 12) * n


@pytest.mark.parametrize("case", DECODERS, ids=[_id(case) for case in DECODERS])
def test_a_decoder_embedder_reserves_the_logits_of_every_token(case):
    """The engine's buffer (the logits of n_ubatch rows and the final norm, as a CUDA device holds them) against
    the CPU's, which also holds the graph's inputs (ids, positions, the KV indices and the n_kv × n mask) that a
    CUDA build keeps in its host buffer; where no hole below them holds the last layer's output, 4·n·h more."""
    model, n, seqs = MODELS[case["model"]], case["n_ubatch"], case["seqs"]
    h, flash, n_kv = model["hidden"], case["flash"], case["n_ctx"] // seqs
    spec = from_hf_config({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": h,
                           "intermediate_size": model["ffn"], "num_attention_heads": model["heads"],
                           "num_key_value_heads": model["kv_heads"], "head_dim": model["head_dim"],
                           "vocab_size": model["vocab"], "num_hidden_layers": 2, "tie_word_embeddings": True,
                           "max_position_embeddings": 32768})
    layout = llamacpp_layout(spec, seq=n_kv, n_seq=seqs, ubatch=n, flash=flash, type_k=Precision.FP16,
                             type_v=Precision.FP16, gpu_layers=None, n_outputs=n)
    assert layout.compute_bytes == 4 * n * (model["vocab"] + h)
    _holds_the_rest(case, layout.compute_bytes)


def _holds_the_rest(case: dict, counted: int) -> None:
    """The CPU buffer less the engine's: the graph's inputs (ids, positions, the KV indices, the n_kv × n mask, the
    output and pooling ids), and 4·n·h more where the last layer's output found no hole (48 B of padding at n = 300)."""
    model, n, seqs, flash = MODELS[case["model"]], case["n_ubatch"], case["seqs"], case["flash"]
    h, n_kv = model["hidden"], case["n_ctx"] // seqs
    v_idxs = 8 * n if flash else 8 * n * model["kv_heads"] * model["head_dim"]
    inputs = 20 * n + v_idxs + (2 if flash else 4) * n_kv * n + 32 * -(-4 * seqs // 32)  # ids, pos, k_idxs, out_ids
    extra = case["bytes"] - counted - inputs
    assert extra in (0, 4 * n * h) or (n % 32 and 0 < extra - 4 * n * h * (extra > 4 * n * h) <= 64)


@pytest.mark.parametrize("case", RERANKERS, ids=[_id(case) for case in RERANKERS])
def test_a_qwen3_reranker_computes_every_tokens_logits_as_the_embedder(case):
    """convert_hf_to_gguf.py writes the head's yes/no rows as cls.output and keeps token_embd (an untied lm_head is
    dropped: llama.cpp reads the head from token_embd); qwen3.cpp still multiplies every token by the whole head
    before RANK's get_rows and cls.output, so the engine's reranker (a config with vLLM's keys, as the presets give
    them, under --reranking) reserves the embedder's n_ubatch × vocabulary logits, not the two rows'."""
    model, n, seqs = MODELS[case["model"]], case["n_ubatch"], case["seqs"]
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": model["hidden"],
              "intermediate_size": model["ffn"], "num_attention_heads": model["heads"],
              "num_key_value_heads": model["kv_heads"], "head_dim": model["head_dim"], "vocab_size": model["vocab"],
              "num_hidden_layers": model["layers"], "tie_word_embeddings": model["tied"],
              "max_position_embeddings": 32768, "classifier_from_token": ["no", "yes"],
              "is_original_qwen3_reranker": True}
    result = estimate(parse_workload({
        "model": "config", "runtime": "llamacpp", "mode": "embedding", "precision": "f16",
        "seq": str(case["n_ctx"] // seqs), "parallel": str(seqs), "ubatch": str(n),
        "attention": "flash" if case["flash"] else "eager"}, config=config))
    assert result.workload.model.reranker is not None and "--reranking" in " ".join(command_lines(result.workload))
    assert result.bytes_of("activations") == 4 * n * (model["vocab"] + model["hidden"])
    _holds_the_rest(case, result.bytes_of("activations"))


def test_rank_pooling_logs_the_last_embedders_bytes():
    """Tied or untied, a Qwen3 reranker logs the bytes of the LAST-pooled embedder of its size at every grid point:
    RANK's two-row cls.output and soft_max add nothing at the peak, which the logits hold."""
    embedders = {(case["model"], case["args"]): case["bytes"] for case in DECODERS}
    twin = {"qwen3-reranker-small": "qwen3-emb-small", "qwen3-reranker-untied": "qwen3-emb-small",
            "qwen3-reranker-odd": "qwen3-odd"}
    for case in RERANKERS:
        assert case["bytes"] == embedders[twin[case["model"]], case["args"].removesuffix(" --reranking")]
    assert len(RERANKERS) == 27


def test_bge_reranker_v2_m3_as_gpustack_ran_it():
    """gpustack/gpustack#2412: bge-reranker-v2-m3 F16, -c 8192 -ngl 99, 926 MiB used: a 512-token micro-batch with
    flash attention (llama-server's default on CUDA), 4 slots, RANK pooling."""
    result = estimate(parse_workload({"model": "bge-reranker-v2-m3", "runtime": "llamacpp", "precision": "f16",
                                      "seq": "8192"}))
    n, h = 512, 1024
    assert result.bytes_of("activations") == 12 * n + 2 * n * n + 12 * n * h + 4 * n * 4096  # RANK: no ids
    assert 1.10 < result.total_bytes / (926 * 2**20) < 1.15
