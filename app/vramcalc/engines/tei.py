"""Hugging Face text-embeddings-inference (TEI 1.9.3, its candle backend on a CUDA card): an embedder or reranker
served over a budget of tokens per batch. Read from its source (huggingface/text-embeddings-inference); not
measured here, so its activations and CUDA context are approximate (docs/accuracy.md)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from ..core.choices import Attention, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import MAX_BATCH, MAX_SEQ, Option, optional, parse_int, parse_tokens
from ..core.phrase import phrase
from ..core.units import format_binary
from ..formats import weights as formats
from ..formats.weights import WeightFormat
from ..memory.components import Component, given_overhead, no_component
from ..memory.states import weights_bytes
from ..model.families.decoder.spec import Block, ModelSpec
from ..model.families.encoder import alibi_bytes
from ..parallel.layout import Layout
from ..sources.gpus import GpuKind, GpuSpec
from ..workload import Workload
from .base import EngineBreakdown, NoPool, pytorch_overhead, refuse_training
from .cards import CardRule

TEI_MAX_BATCH_TOKENS = 16384  # router/src/main.rs:73, --max-batch-tokens
# backends/candle/src/lib.rs `enum Config`: the model_type values it reads ("new" is GTE's alias)
TEI_TYPES = frozenset({"bert", "xlm-roberta", "roberta", "camembert", "distilbert", "deberta-v2", "gemma3_text", "gte",
                       "new", "mpnet", "mistral", "modernbert", "nomic_bert", "qwen2", "qwen3", "llama"})
# lib.rs:378-560, on CUDA: a Flash* model when the dtype is float16 and flash attention is built for the card;
# Mistral, Qwen2 and Llama have no other (lib.rs:478, 518: "only supported on Cuda devices in fp16 with flash ...")
TEI_FLASH = frozenset({"bert", "xlm-roberta", "roberta", "camembert", "distilbert", "gte", "new", "mistral",
                       "modernbert", "nomic_bert", "qwen2", "qwen3", "llama"})
TEI_FLASH_ONLY = frozenset({"mistral", "qwen2", "llama"})

_SHOWN = {"runtime": ("tei",), "mode": ("embedding",)}
OPTIONS = (
    Option(key="max_batch_tokens", default=str(TEI_MAX_BATCH_TOKENS), group="engine", metavar="N",
           help=f"TEI --max-batch-tokens: the tokens of its largest batch (default {TEI_MAX_BATCH_TOKENS})",
           parse=lambda t: parse_tokens("max_batch_tokens", t, 1, MAX_SEQ), shown_when=_SHOWN),
    Option(key="max_batch_requests", default="", group="engine", metavar="N",
           help="TEI --max-batch-requests: the most requests in a batch (default: no limit)",
           parse=optional(lambda t: parse_int("max_batch_requests", t, 1, MAX_BATCH)), shown_when=_SHOWN),
)


def tei_flash(workload: Workload) -> bool:
    """Whether TEI runs the model's Flash* implementation: float16, a type that has one, flash attention asked
    (USE_FLASH_ATTENTION, default true: lib.rs:53) and an NVIDIA card (candle's Metal backend has none)."""
    card = workload.gpu
    return (workload.model.model_type in TEI_FLASH and workload.precision is Precision.FP16
            and workload.attention is Attention.FLASH and (card is None or card.kind is not GpuKind.APPLE))


def tei_batch(workload: Workload) -> tuple[int, int, int]:
    """(sequences, tokens each, tokens) of the largest batch TEI forms. A request longer than --max-batch-tokens
    is cut to it (--auto-truncate, default true: router/src/lib.rs:221-233). Flash models take sequences
    unpadded until the budget is full (core/src/queue.rs:150-156), as the warmup does with the longest
    requests (backends/src/lib.rs:321-361); padded ones count each sequence at the longest one's length."""
    budget = workload.max_batch_tokens
    seq = min(workload.seq, budget)
    limit = workload.max_batch_requests or MAX_BATCH
    if tei_flash(workload):
        sequences = min(math.ceil(budget / seq), limit)
        return sequences, seq, min(budget, sequences * seq)
    sequences = min(budget // seq, limit)
    return sequences, seq, sequences * seq


def tei_forward_bytes(model: ModelSpec, e: int, *, tokens: int, seq: int, flash: bool) -> int:
    """The peak above the weights of one forward of TEI's candle models over `tokens` tokens of sequences of
    `seq`, `e` bytes a value. Rust frees a tensor at the end of its scope, so a layer's every intermediate is
    alive at its end, with the layer's input. BERT and XLM-R (models/flash_bert.rs): the attention's input,
    fused qkv, output, dense and LayerNorm (7·h), or the MLP's input, attention output, intermediate with its
    GELU fused into cuBLASLt's epilogue (I), output and LayerNorm (4·h + I). Pre-norm models (flash_qwen3.rs,
    flash_mistral.rs, flash_modernbert.rs): the hidden states and residual, the fused norm's output and sum
    (4·h), q, k and v, q and k normed, the attention's output and o_proj's (h), or beside the seven hidden
    states the MLP's gate_up (2·I), activation and product (I each) and down (h); cos and sin per token.
    Flash attention adds its fp32 log-sum-exp per head; the padded models (models/bert.rs) their scores and
    probabilities per head (a·s each per token) and the attention bias broadcast once for the forward.

    JinaBERT v2 (flash_jina.rs, jina.rs): BERT's attention (the same code), then the GLU MLP beside the layer's
    input and the attention's output: gated_layers (2·I), the GELU of its first half and the product (I each),
    wo and the LayerNorm: 4·h + 4·I. Its qk-post-norm variant (flash_jina_code.rs, jina_code.rs): q and k copied
    out of the fused qkv and LayerNormed (4·h more: 11·h with flash attention; padded, q, k and v made contiguous
    once more, 12·h beside the scores, then 14·h), and layer_norm_1 before the MLP (5·h + 4·I). nomic-bert
    (flash_nomic.rs, nomic.rs): no LayerNorm inside the attention (input, qkv, output, out_proj: 6·h, rotary in
    place; padded, q and k contiguous and rotated apart, 9·h beside the scores, 11·h while k is rotated, then
    10·h), and the SwiGLU MLP beside the layer's input, the attention's output and norm1's: fc11 and fc12 as one
    matmul (2·I) and the SwiGLU's output (I), 3·h + 3·I; cos and sin per token (head_dim/2 each, padded head_dim
    each). GTE (flash_gte.rs, gte.rs): nomic-bert's attention (flash: the input, the fused qkv rotated in place,
    the output and o_proj's, 6·h; padded, as nomic.rs line for line), and the GLU beside the layer's input, the
    attention's output and attn_ln's: up_gate_proj (2·I), the GELU of its gate half and the product (I each) and
    down_proj, 4·h + 4·I; the forward keeps the word and token-type lookups (h each; none for type_vocab_size 0),
    and cos and sin. JinaBERT's padded model also keeps its ALiBi table (`alibi_bytes`, added by the breakdown).

    Every encoder's model forward (flash_bert.rs, bert.rs, the Jina, nomic and ModernBERT pairs, gte.rs) holds the
    embeddings' output (`embedding_output`; ModernBERT's first `hidden_states`, shadowed, not dropped) while its
    encoder runs, so from the second layer on, beside the layer's own input, each token keeps h values more
    (`kept`). Decoders (flash_qwen3.rs, flash_mistral.rs) and flash_gte.rs reassign their `hidden_states`, which
    drops it."""
    h, i, a = model.hidden, model.ffn, model.heads
    q, kv = a * model.head_dim, model.kv_heads * model.head_dim
    scores = 0 if flash else a * seq * e  # per token: batch × a × s² over batch × s tokens
    lse = 4 * a if flash else 0
    family = model.encoder.family if model.encoder else ""
    kept = h * e if model.encoder is not None and model.layers > 1 else 0
    if family.startswith("jina-bert-v2"):
        code = family.endswith("qk-post-norm")
        attention = (11 if code else 7) * h * e + lse if flash else (12 if code else 7) * h * e + 2 * scores
        mlp = ((5 if code else 4) * h + 4 * i) * e
        if not flash:
            mlp = max(mlp, (14 if code else 9) * h * e)
        return tokens * (max(attention, mlp) + scores + kept)
    if family == "gte":
        # the word and token-type lookups stay bound beside their LayerNorm's output; the GLU beside the layer's
        # input, the attention's output and attn_ln's: up_gate (2·I), the GELU of its gate half, the product, down
        looked = (1 + (model.encoder is not None and model.encoder.type_vocab > 0)) * h * e
        mlp = max((4 * h + 4 * i) * e, 6 * h * e)  # then mlp_ln's fused add and norm beside the four
        if flash:  # the input, qkv, the attention's output and o_proj's; the norm's output goes with layer 1
            return tokens * (max(6 * h * e, mlp) + looked + model.head_dim * e)
        attention = max(9 * h * e + 2 * scores, 11 * h * e)  # nomic.rs's attention, line for line
        return tokens * (max(attention, mlp) + scores + looked + kept + 2 * model.head_dim * e)
    if family == "nomic_bert":
        mlp = max((3 * h + 3 * i) * e if model.gated_mlp else (4 * h + i) * e, 5 * h * e)
        if flash:
            return tokens * (max(6 * h * e + lse, mlp) + model.head_dim * e + kept)
        attention = max(9 * h * e + 2 * scores, 11 * h * e)  # after the scores: 10·h
        return tokens * (max(attention, mlp) + scores + 2 * model.head_dim * e + kept)
    if model.block is Block.GPT2:
        attention, mlp = 7 * h * e + lse + 2 * scores, (4 * h + i) * e
        if not flash:  # q and k made contiguous, the context transposed back: 9·h once the scores are freed
            mlp = max(mlp, 9 * h * e)
    else:
        norm = q + kv if model.qk_norm else 0
        attention = (5 * h + 2 * q + 2 * kv + norm + model.head_dim) * e + lse + 2 * scores
        mlp = (8 * h + (4 if model.gated_mlp else 2) * i + model.head_dim) * e
    return tokens * (max(attention, mlp) + scores + kept)


class Tei(NoPool):
    """text-embeddings-inference: one forward over its token budget, no KV cache, no logits."""

    options = OPTIONS
    runtime = Runtime.TEI
    kv_formats: tuple[Precision, ...] = ()
    weight_ladder = ("fp16",)
    kv_ladder = (Precision.FP16,)
    card_rules: tuple[CardRule, ...] = ()  # every format it offers runs on every card it runs on
    batch_key = "batch"
    max_batch: int | None = None
    rank_overhead_bytes = 0
    keeps_activation_peak_whole = False

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return pytorch_overhead(fields)

    def check(self, workload: Workload) -> None:
        refuse_training(workload)
        kind = workload.model.model_type
        if not workload.embeds:
            raise ValidationError("runtime", "tei", "TEI serves embedders and rerankers: choose the embedding mode")
        if workload.model.reranker is not None:  # candle's Qwen3 (qwen3.rs, flash_qwen3.rs) bails on a classifier
            raise ValidationError("runtime", "tei", "TEI 1.9.3 cannot rerank with a decoder: its Qwen3 has no "
                                                    "classifier (huggingface/text-embeddings-inference#643)")
        if kind not in TEI_TYPES:
            raise ValidationError("runtime", "tei", f"TEI does not run {kind or 'this model'} (its candle backend "
                                                    "reads BERT, XLM-RoBERTa, ModernBERT, GTE, Nomic, Qwen2/3, "
                                                    "Mistral, Llama)")
        if kind in TEI_FLASH_ONLY and not tei_flash(workload):
            raise ValidationError("attention", workload.attention.value, "TEI runs this model only in float16 with "
                                                                         "flash attention on an NVIDIA card")
        if workload.tp or workload.pp:
            raise ValidationError("tp", workload.tp or workload.pp, "TEI runs a whole model on each GPU")

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        """--dtype: float16 by default on CUDA (backends/src/dtype.rs), float32 for gemma3_text (lib.rs:277);
        candle loads no other (backends/candle/src/lib.rs:265-271)."""
        if precision in (formats.AUTO, formats.NATIVE):
            return Precision.FP32 if model.model_type == "gemma3_text" else Precision.FP16
        if precision not in (Precision.FP16, Precision.FP32):
            raise ValidationError("precision", precision.value, "TEI (candle) runs float16 or float32: fp16 or fp32")
        return precision

    def card_key(self, workload: Workload, gpu: GpuSpec) -> object:
        """Whether it runs the model's Flash* implementation there (none on a Mac): unpadded batches or padded."""
        return tei_flash(workload.but(gpu=gpu))

    def notes(self, workload: Workload) -> tuple[str, ...]:
        # the Turing image (turing-1.x) is built with DEFAULT_USE_FLASH_ATTENTION=False (README, "Turing image")
        turing = workload.gpu is not None and not workload.gpu.bf16 and tei_flash(workload)
        return ("note.tei", *(("note.tei_turing",) if turing else ()))

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        dtype = "float32" if workload.precision is Precision.FP32 else "float16"
        line = (f"text-embeddings-router --model-id {model} --dtype {dtype} "
                f"--max-batch-tokens {workload.max_batch_tokens}")
        # the attention counted, where it differs from the image's USE_FLASH_ATTENTION (False on Turing's)
        flash, card = tei_flash(workload.but(attention=Attention.FLASH)), workload.gpu
        if flash and (workload.attention is Attention.FLASH) != (card is None or card.bf16):
            line = f"USE_FLASH_ATTENTION={workload.attention is Attention.FLASH} {line}"
        if workload.max_batch_requests:
            line += f" --max-batch-requests {workload.max_batch_requests}"
        return (line,)

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        return Layout(dp=gpus)  # a replica on each GPU

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        """The weights TEI loads (no pooler for an embedder: flash_bert.rs loads the embeddings and the encoder),
        the largest batch's forward and the CUDA context."""
        model, encoder = workload.model, workload.model.encoder
        if encoder is not None and encoder.pooler and not encoder.labels:
            model = dataclasses.replace(model, encoder=dataclasses.replace(encoder, pooler=False))
        run = workload.but(model=model)
        sequences, seq, tokens = tei_batch(run)
        flash = tei_flash(run)
        e = int(run.activation_precision.bits) // 8
        forward = tei_forward_bytes(model, e, tokens=tokens, seq=seq, flash=flash)
        # jina.rs builds JinaBERT's 1 × heads × L × L ALiBi table at load (alibi.rs build_alibi_tensor); the flash
        # model keeps the heads' slopes only
        alibi = (alibi_bytes(model.heads, model.max_positions or 0, seq, e) if encoder is not None
                 and encoder.family.startswith("jina-bert-v2") and not flash else 0)
        # flash_gte.rs builds cos and sin tables of max_position_embeddings × head_dim / 2 at load, in the model's
        # dtype (get_cos_sin(..., repeat_freqs false)), and keeps them beside every forward
        half = model.head_dim // 2
        rotary = (2 * (model.max_positions or 0) * half * e if encoder is not None and encoder.family == "gte"
                  and flash else 0)
        size = forward + alibi + rotary
        return EngineBreakdown(components=(
            weights_bytes(run),
            no_component("gradients", "gradients.none"),
            no_component("optimizer", "optimizer.none"),
            no_component("master_weights", "master_weights.none"),
            no_component("kv_cache", "tei.kv_cache"),
            Component(key="activations", bytes=size, explain=lambda: (phrase(
                "tei.activations", sequences=sequences, seq=f"{seq:,}", tokens=f"{tokens:,}",
                budget=f"{workload.max_batch_tokens:,}", bytes=format_binary(forward),
                attention=phrase("tei.flash" if flash else "tei.padded")), *((phrase(
                    "activations.alibi", heads=model.heads, side=f"{max(model.max_positions or 0, seq):,}",
                    bytes=format_binary(alibi)),) if alibi else ()), *((phrase(
                    "tei.rotary_cache", rows=f"{model.max_positions or 0:,}", width=half,
                    bytes=format_binary(rotary)),) if rotary else ()))),
            no_component("logits", "logits.embedding"),
            no_component("temporaries", "temporaries.inference"),
            given_overhead(workload, workload.held_bytes, "TEI", pytorch_overhead(vars(workload)), lambda: phrase(
                "tei.overhead", bytes=format_binary(workload.overhead_bytes))),
        ))



ENGINE = Tei()
