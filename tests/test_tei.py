"""text-embeddings-inference (`runtime=tei`): the rules read from its source (huggingface/text-embeddings-inference
1.9.3, commit 0d124dc), each test naming the file and lines it holds the engine to. Its activations are read
from the candle models, not measured, so the tests hold their shape (what grows with what), not a figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.engines.registry import suggested_runtime
from vramcalc.engines.tei import ENGINE
from vramcalc.parallel.layout import Layout

GOLDEN = json.loads((Path(__file__).parent / "golden" / "params.json").read_text(encoding="utf-8"))["models"]
TEI = {"runtime": "tei", "mode": "embedding", "gpu": "h100-sxm"}


def _run(**values):
    return estimate(parse_workload({**TEI, **values}))


def test_float16_is_the_default_and_an_embedder_loads_no_pooler():
    """backends/src/dtype.rs: Float16 by default without the python, mkl, accelerate or ort features (the CUDA
    image); models/flash_bert.rs FlashBertModel::load builds embeddings and encoder only, the pooler with a
    classifier. Held to transformers' meta-device count less BertPooler's dense."""
    for slug in ("bge-m3", "bge-large-en-v1.5"):
        counted = GOLDEN[slug]
        pooler = counted["by_name"]["pooler.dense.weight"] + counted["by_name"]["pooler.dense.bias"]
        assert _run(model=slug).bytes_of("weights") == 2 * (counted["params"] - pooler), slug
    reranker = GOLDEN["bge-reranker-v2-m3"]  # RobertaClassificationHead: all of it loaded
    assert _run(model="bge-reranker-v2-m3").bytes_of("weights") == 2 * reranker["params"]
    assert _run(model="bge-m3", precision="fp32").bytes_of("weights") == 2 * _run(model="bge-m3").bytes_of("weights")


def test_the_flash_batch_fills_max_batch_tokens_whatever_the_length():
    """backends/src/lib.rs:321-361 (warmup) and core/src/queue.rs:150-156: an unpadded (flash) model's batch
    holds sequences until --max-batch-tokens (default 16384, router/src/main.rs:73) is full, so its peak
    depends on the budget, not on how it is cut into sequences."""
    short, long = (_run(model="bge-m3", seq=seq).bytes_of("activations") for seq in ("128", "8192"))
    assert short == long > 0
    half = _run(model="bge-m3", max_batch_tokens="8192").bytes_of("activations")
    assert 2 * half == _run(model="bge-m3").bytes_of("activations")
    assert _run(model="bge-m3").bytes_of("kv_cache") == _run(model="qwen3-embedding-0.6b").bytes_of("kv_cache") == 0


def test_max_batch_requests_caps_the_batch():
    """backends/src/lib.rs:354-358 and queue.rs:179: the batch stops at --max-batch-requests."""
    capped = _run(model="bge-m3", seq="512", max_batch_requests="8").bytes_of("activations")
    assert 4 * capped == _run(model="bge-m3", seq="512").bytes_of("activations")  # 8 × 512 of 16,384 tokens


def test_a_request_longer_than_the_budget_is_truncated():
    """router/src/lib.rs:221-233: with --auto-truncate (default true) the longest input is max_batch_tokens."""
    assert (_run(model="bge-m3", seq="8192", max_batch_tokens="4096", attention="eager").bytes_of("activations")
            == _run(model="bge-m3", seq="4096", max_batch_tokens="4096", attention="eager").bytes_of("activations"))


def test_padded_models_pay_for_their_scores():
    """lib.rs:379-416: without flash attention (USE_FLASH_ATTENTION=false, or float32) BERT runs models/bert.rs,
    a padded batch (queue.rs:150: the longest sequence × the sequences within the budget) whose scores,
    probabilities and broadcast bias are batch × heads × s² each: at a fixed budget they grow with s."""
    flash = _run(model="bge-m3", seq="512").bytes_of("activations")
    short, long = (_run(model="bge-m3", seq=seq, attention="eager").bytes_of("activations") for seq in ("512", "2048"))
    assert flash < short < long
    assert _run(model="bge-m3", precision="fp32").bytes_of("activations") > 2 * flash  # float32 has no flash model


def test_what_tei_refuses():
    """Training; the inference mode; a type its candle backend does not read (lib.rs `enum Config`); bf16 (the
    python backend's only); Mistral and Qwen2 without flash attention (lib.rs:478, 518)."""
    with pytest.raises(ValidationError, match="runtime"):
        _run(model="llama-3-8b", mode="inference")
    with pytest.raises(ValidationError, match="runtime"):
        _run(model="bge-m3", mode="training")
    with pytest.raises(ValidationError, match="runtime"):
        _run(model="gpt-oss-20b")
    with pytest.raises(ValidationError, match="precision"):
        _run(model="bge-m3", precision="bf16")
    with pytest.raises(ValidationError, match="attention"):
        _run(model="qwen2.5-7b", attention="eager")


def test_the_command_and_the_runtime_the_page_suggests():
    workload = parse_workload({**TEI, "model": "bge-m3", "max_batch_requests": "64"})
    line = ("text-embeddings-router --model-id BAAI/bge-m3 --dtype float16 --max-batch-tokens 16384 "
            "--max-batch-requests 64")
    assert ENGINE.command(workload, Layout(), "BAAI/bge-m3") == (line,)
    assert suggested_runtime("auto", "tei", "inference") == "transformers"
    assert suggested_runtime("auto", "tei", "embedding") == "tei"


# ------------------------------------------------- embedding speed (speed/; tools/validate_embedding_speed.py)


def _speed(gpus=1, **values):
    from vramcalc.sources.gpus import gpu
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    return speed_of(_run(**values), gpu("h100-sxm"), gpus, Machine())


def test_an_embedder_has_no_decode_and_its_rates_agree():
    speed = _speed(model="bge-m3", batch="32", seq="512")
    assert speed.decode_tokens_per_s is None and speed.ttft_s is None and speed.output_tokens_per_s is None
    assert speed.prefill_tokens_per_s == pytest.approx(512 * speed.requests_per_s)
    assert _speed(2, model="bge-m3", batch="32", seq="512").requests_per_s == pytest.approx(2 * speed.requests_per_s)
    from vramcalc.render.messages import ENGLISH

    said = [ENGLISH.say(part) for part in speed.basis]  # the error against the published runs, from speed.json
    assert any("published embedding runs" in line and "at the median" in line for line in said)


def test_an_embedder_multiplies_by_no_table_and_an_encoder_attends_both_ways():
    """bge-m3 (XLMRobertaModel, meta-device counts by name): its matmuls are every parameter but the word,
    position and token-type tables it gathers; each of its 24 layers' 16 heads of 64 attend all s tokens."""
    from vramcalc.speed.reads import matmul_params, prompt_attention_flops

    model = parse_workload({**TEI, "model": "bge-m3"}).model
    names = GOLDEN["bge-m3"]["by_name"]
    tables = sum(names[f"embeddings.{t}_embeddings.weight"] for t in ("word", "position", "token_type"))
    assert matmul_params(model, head=False) == GOLDEN["bge-m3"]["params"] - tables  # AutoModel's, with the pooler
    assert prompt_attention_flops(model, 512) == 24 * 2 * 16 * (64 + 64) * 512 * 512


REMOTE = {case["name"]: case["config"] for case in json.loads(
    (Path(__file__).parent / "golden" / "encoders.json").read_text(encoding="utf-8"))["remote"]}


def _remote(name: str, **values):
    return estimate(parse_workload({**TEI, "model": "config", **values}, config=REMOTE[name]))


def test_nomic_and_jina_follow_their_own_candle_models():
    """Read from models/flash_nomic.rs, flash_jina.rs, flash_jina_code.rs (0d124dc), not the pre-norm formula they
    fell to (8·h + 4·I a token): on an H100 in float16 the flash models' MLP is the peak, 16,384 tokens of
    nomic-embed-text-v1.5's SwiGLU beside three hidden states (3·h + 3·I, and cos and sin), JinaBERT v2's GLU
    beside four (4·h + 4·I), and the qk-post-norm variant's beside five (layer_norm_1's output too); each with
    the embeddings' output its model keeps (h)."""
    h, i, tokens = 768, 3072, 16384
    nomic = _remote("nomic_bert/nomic-embed-text-v1.5").bytes_of("activations")
    assert nomic == tokens * 2 * (3 * h + 3 * i + 64 + h)
    base = REMOTE["jina-bert-v2/jina-embeddings-v2-base-en"]
    jina = _remote("jina-bert-v2/jina-embeddings-v2-base-en").bytes_of("activations")
    assert jina == tokens * 2 * (4 * h + 4 * i + h)
    code = estimate(parse_workload({**TEI, "model": "config"}, config={
        **base, "_name_or_path": "jinaai/jina-bert-v2-qk-post-norm"})).bytes_of("activations")
    assert code - jina == tokens * 2 * h


def test_jina_padded_keeps_its_alibi_table_and_flash_only_slopes():
    """jina.rs JinaBertModel::load builds the 1 × heads × L × L table (alibi.rs build_alibi_tensor, L the config's
    8,192 positions) in the model's dtype; FlashJinaBertModel keeps the heads' slopes (flash_jina.rs). In
    float32 (no flash model) jina-embeddings-v2-base-en holds 3 GiB of it whatever the batch."""
    name = "jina-bert-v2/jina-embeddings-v2-base-en"
    flash, fp32 = (_remote(name, seq="512", precision=p) for p in ("fp16", "fp32"))
    short = _remote(name, seq="512", precision="fp32", max_batch_tokens="512")
    from vramcalc.render.messages import ENGLISH

    def said(result) -> str:
        return " ".join(ENGLISH.say(part) for part in next(
            c for c in result.components if c.key == "activations").formula)

    table = 12 * 8192**2 * 4
    assert fp32.bytes_of("activations") - short.bytes_of("activations") < table < short.bytes_of("activations")
    assert flash.bytes_of("activations") < table and "ALiBi" in said(fp32) and "ALiBi" not in said(flash)
    assert "12 × 8,192² values = 3.00 GiB" in said(short)


@pytest.mark.parametrize(("slug", "h", "peak"), [
    ("bge-m3", 1024, 4 * 1024 + 4096),  # flash_bert.rs: the MLP's input, attention output, intermediate, output, norm
    ("modernbert-base", 768, 8 * 768 + 4 * 1152 + 64),  # flash_modernbert.rs: the pre-norm layer's GeGLU
])
def test_an_encoder_keeps_its_embeddings_output_while_its_layers_run(slug, h, peak):
    """flash_bert.rs FlashBertModel::forward binds `embedding_output` and passes it to the encoder, whose loop
    reassigns its own copy of the handle (BertEncoder::forward): the embeddings' output lives until the forward
    returns, so from the second layer on each token holds h values beside the layer's own (flash_modernbert.rs:
    the first `hidden_states`, shadowed, not dropped). 16,384 tokens in float16 on an H100."""
    assert _run(model=slug).bytes_of("activations") == 16384 * 2 * (peak + h)
    one_layer = estimate(parse_workload({**TEI, "model": "config"}, config={
        "model_type": "bert", "hidden_size": 1024, "num_attention_heads": 16, "num_hidden_layers": 1,
        "intermediate_size": 4096}))
    assert one_layer.bytes_of("activations") == 16384 * 2 * (4 * 1024 + 4096)  # one layer: its input is the output


def test_gte_follows_its_candle_models():
    """flash_gte.rs (0d124dc): the GLU beside the layer's input, the attention's output and attn_ln's (4·h + 4·I), the
    word lookup the forward keeps bound (and the token-type one: none for gte-base-en-v1.5's type_vocab_size 0,
    one for gte-multilingual-base's 1), cos and sin; its hidden_states reassigned, so no embeddings' output. gte.rs,
    the padded model (float32), keeps that output too, and the scores."""
    h, i, tokens = 768, 3072, 16384
    tables = 2 * 8192 * 32 * 2  # cos and sin, built at load (test_flash_gte_keeps_its_cos_and_sin_tables)
    base = _run(model="gte-base-en-v1.5").bytes_of("activations")
    assert base == tokens * 2 * (4 * h + 4 * i + h + 64) + tables
    assert _run(model="gte-multilingual-base").bytes_of("activations") - base == tokens * 2 * h
    large = _run(model="gte-large-en-v1.5").bytes_of("activations")
    assert large == tokens * 2 * (4 * 1024 + 4 * 4096 + 2 * 1024 + 64) + tables
    padded = _run(model="gte-base-en-v1.5", precision="fp32", seq="512")
    assert padded.bytes_of("activations") > 3 * base  # 32 sequences of 512: 12 heads × 512 scores a token, in fp32
    assert _run(model="gte-multilingual-reranker-base").bytes_of("weights") == 2 * 305_924_353  # pooler, classifier


def test_flash_gte_keeps_its_cos_and_sin_tables():
    """flash_gte.rs: get_cos_sin(config.max_position_embeddings, inv_freqs, fp16, false) at load, two tables of
    max_position_embeddings × head_dim / 2 kept beside every forward (gte-base-en-v1.5: 8,192 × 32 × 2 × 2 B,
    1 MiB); the padded GTE and other families add none here."""
    from vramcalc.engines.tei import tei_batch, tei_flash, tei_forward_bytes

    run = parse_workload({**TEI, "model": "gte-base-en-v1.5"})
    _, seq, tokens = tei_batch(run)
    forward = tei_forward_bytes(run.model, 2, tokens=tokens, seq=seq, flash=tei_flash(run))
    assert estimate(run).bytes_of("activations") - forward == 2 * 8192 * 32 * 2
    bert = parse_workload({**TEI, "model": "bge-large-en-v1.5"})
    _, seq, tokens = tei_batch(bert)
    assert estimate(bert).bytes_of("activations") == tei_forward_bytes(bert.model, 2, tokens=tokens, seq=seq,
                                                                        flash=tei_flash(bert))


def test_tei_on_a_turing_card_says_its_image_turns_flash_attention_off():
    """TEI's image for Turing cards (turing-1.x, the T4's) is built with DEFAULT_USE_FLASH_ATTENTION=False (its
    README: "Flash Attention is turned off by default for the Turing image"): there it runs the padded model, 14.29
    GiB for BGE-M3 at the default batch against the 2.32 shown with flash attention. The answer said nothing."""
    from vramcalc import estimate, parse_workload

    values = {"model": "bge-m3", "mode": "embedding", "runtime": "tei", "gpu": "tesla-t4"}

    def notes(extra: dict[str, str]) -> list[str]:
        return [getattr(note, "key", "") for note in estimate(parse_workload({**values, **extra})).notes]

    assert "note.tei_turing" in notes({})
    assert "note.tei_turing" not in notes({"attention": "eager"})  # counted as the image runs it
    assert "note.tei_turing" not in notes({"gpu": "l4"})


def test_the_command_runs_the_attention_counted():
    """`--attention eager` was counted as TEI's padded model, but the command it printed started the Flash one
    (USE_FLASH_ATTENTION defaults to True); on a T4 the Turing image's default is the other way round."""
    def line(**extra: str) -> str:
        return ENGINE.command(parse_workload({**TEI, "model": "bge-m3", **extra}), Layout(), "BAAI/bge-m3")[0]

    assert line().startswith("text-embeddings-router ")
    assert line(attention="eager").startswith("USE_FLASH_ATTENTION=False text-embeddings-router ")
    assert line(gpu="tesla-t4").startswith("USE_FLASH_ATTENTION=True text-embeddings-router ")
    assert line(gpu="tesla-t4", attention="eager").startswith("text-embeddings-router ")
    assert line(precision="fp32", attention="eager").startswith("text-embeddings-router ")  # fp32: never Flash
