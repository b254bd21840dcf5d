"""llama.cpp: the context, KV cache and compute buffers it allocates, and the split between the
GPU and system RAM by --gpu-layers. Sources in docs/research/engines.md."""

from __future__ import annotations

import dataclasses
import functools
import re

from ..core.choices import Attention, LlamaCppProgram, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import (
    Kind,
    Not,
    Option,
    When,
    optional,
    parse_choice,
    parse_decimal,
    parse_flag,
    parse_int,
    parse_tokens,
    values_of,
)
from ..core.phrase import Phrase, phrase
from ..core.units import MIB, format_binary
from ..formats import weights
from ..formats.weights import WeightFormat
from ..memory.components import Component, given_overhead, no_component
from ..memory.states import vision_bytes, weights_bytes
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.decoder.tensors import layer_tensors
from ..model.families.vision import QWEN, encoder_peak, image_patches, llamacpp_image_tokens
from ..model.tensor import Role
from ..sources.fields import MAX_LAYERS
from ..sources.gpus import GpuKind, GpuSpec
from ..workload import Workload
from .base import EngineBreakdown, check_kv_formats
from .llamacpp_overrides import Overrides, device_of, layer_devices, overrides_text, parse_overrides

LLAMACPP_PAD = 256  # n_ctx and the sliding-window cache round up to 256 cells (llama-context.cpp)
MAX_PARALLEL = 256  # llama.cpp sequences: LLAMA_MAX_SEQ (llama-cparams.h); llama_context refuses more
LLAMACPP_CUDA_OVERHEAD = 457 * MIB  # CUDA context and driver, as Ollama reserves it (engines.md §4.1)
LLAMACPP_METAL_OVERHEAD = 512 * MIB  # on an Apple GPU, Ollama's Metal figure (llm/memory.go MinimumMemory)

# Types whose llama.cpp graph reads no window and keeps every layer whole, whatever the config's sliding_window:
# StarCoder2 (src/models/starcoder2.cpp: build_attn_inp_kv, no LLM_KV_ATTENTION_SLIDING_WINDOW read), and Mistral
# and Mixtral, converted as LLM_ARCH_LLAMA (conversion/__init__.py), whose writer adds no window and whose graph
# (src/models/llama.cpp: build_attn_inp_kv) reads none: Mistral 7B v0.1's 4,096-token window is not kept
NO_WINDOW = frozenset({"starcoder2", "mistral", "mixtral"})

# encoder types convert_hf_to_gguf.py (conversion/bert.py: BertModel, CamembertModel, DistilBertModel, RobertaModel,
# XLMRobertaModel, NomicBertModel, JinaBertModel, ModernBertModel) registers no class for
NO_GGUF_ENCODERS = frozenset({"electra", "deberta-v2", "data2vec-text", "xlm-roberta-xl", "ernie",
                              "roberta-prelayernorm", "megatron-bert", "rembert", "roformer", "xmod", "roc_bert",
                              "big_bird", "bert-generation"})


def llamacpp_overhead(gpu: object) -> int:
    """The GPU's own memory beside llama.cpp's buffers, by platform: Ollama's per-GPU minimum (457 MiB on CUDA and
    ROCm, 512 MiB on Metal; docs/research/engines.md)."""
    return LLAMACPP_METAL_OVERHEAD if isinstance(gpu, GpuSpec) and gpu.kind is GpuKind.APPLE else LLAMACPP_CUDA_OVERHEAD


def overhead_row(workload: Workload, bytes_: int) -> Component:
    """llama.cpp's overhead row: its platform's default explained, or the user's amount beside it."""
    default = llamacpp_overhead(workload.gpu)
    key = "llamacpp.overhead_metal" if default == LLAMACPP_METAL_OVERHEAD else "llamacpp.overhead"
    return given_overhead(workload, bytes_, "llama.cpp", default,
                          lambda: phrase(key, bytes=format_binary(workload.overhead_bytes)))


def as_kept(spec: ModelSpec) -> ModelSpec:
    """The model as llama.cpp keeps its cache: without its window for the architectures that read none (NO_WINDOW),
    so that its sliding layers keep every cell; itself otherwise."""
    if spec.model_type in NO_WINDOW and spec.sliding_window:
        return dataclasses.replace(spec, sliding_window=0)
    return spec


def pad(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


@dataclasses.dataclass(frozen=True)
class LlamaCppLayout:
    n_ctx: int  # cells per sequence (padded)
    n_seq: int
    n_ub: int
    kv_device_bytes: int
    kv_host_bytes: int
    compute_bytes: int  # the GPU compute buffer (the breakdown drops it when nothing is on the GPU)
    host_compute_bytes: int  # the CPU-side compute buffer (CUDA_Host)
    layers_on_gpu: int
    output_on_gpu: bool
    n_out: int = 0  # the logits rows the compute buffer is reserved for
    terms: tuple[int, int] = (0, 0)  # compute_terms: the layers' and the output's


DEFAULT_UBATCH = 512  # llama.cpp's -ub
AUTO_SLOTS = 4  # llama-server without -np: 4 slots sharing one cache (tools/server/server.cpp:156)
OP_OFFLOAD_MIN_BATCH = 32  # a weight in RAM is copied to the GPU for a matmul of this many rows (ggml-cuda.cu:5654)


def server_outputs(parallel: int, *, explicit: bool = False) -> int:
    """llama-server's n_outputs_max, the logits rows its compute buffer is reserved for: one per slot
    (server-context.cpp:41-53, since PR #23861); its 4 auto slots when -np is not given (`explicit`: it is)."""
    return parallel if parallel > 1 or explicit else AUTO_SLOTS


def llamacpp_layout(spec: ModelSpec, *, seq: int, n_seq: int, ubatch: int, flash: bool, type_k: Precision,
                    type_v: Precision, gpu_layers: int | None, n_outputs: int | None = None) -> LlamaCppLayout:
    """n_ctx, the KV cache by device, and the compute buffers (llama.cpp master, engines.md §4.1).

    KV: every sequence gets its own n_ctx cells (seq padded to 256); a sliding-window layer keeps
    min(n_ctx, pad(window + n_ubatch, 256)) cells; an MLA layer caches K only (the 576-wide latent,
    since PR #19067); a recurrent layer keeps an fp32 state per sequence.
    Compute buffer, flash attention off: max(4·n_ub·(1 + 4·n_embd + n_kv·(n_head + 1)),
    4·(n_out·n_vocab + n_ub·n_embd)); on: the logits term or 4·n_ub·(3·n_ff + n_embd), whichever is larger;
    n_out the logits rows: `n_outputs` (llama-server's slots), else the library's default, the micro-batch.
    Offload (--gpu-layers N): the output layer first, then the last N - 1 repeating layers."""
    n_ctx = pad(seq, LLAMACPP_PAD)
    n_ub = min(ubatch, n_ctx * n_seq)  # n_tokens = min(cparams.n_ctx, n_ubatch): every sequence's cells
    n_out = min(n_ub, n_outputs or n_ub)  # n_outputs_pp = min(n_tokens, n_outputs_max) (llama-context.cpp)
    layers = spec.layers
    on_gpu = layers + 1 if gpu_layers is None else min(gpu_layers, layers + 1)
    output_on_gpu = on_gpu >= 1
    repeating_on_gpu = max(0, on_gpu - 1)
    first_gpu_layer = layers - repeating_on_gpu
    spec = as_kept(spec)
    window = spec.sliding_window or spec.attention_chunk
    swa_cells = min(n_ctx, pad(window + n_ub, LLAMACPP_PAD)) if window else n_ctx
    device = host = 0
    on_gpu_kinds = spec.kinds[first_gpu_layer:]
    for kind, count in spec.kind_counts():
        if kind is AttentionKind.NONE:  # Nemotron-H's MLP and expert layers keep nothing; Zamba2's Mamba-only ones
            # (parallel_mamba: a mixer in every layer) their Mamba state
            size = n_seq * spec.state_bytes_of(AttentionKind.MAMBA, 4, trim=1, state_e=4) if spec.parallel_mamba else 0
        elif kind.recurrent:  # llama_memory_recurrent: d_conv - 1 tokens (n_embd_r) and the state (n_embd_s), F32
            size = n_seq * spec.state_bytes_of(kind, 4, trim=1, state_e=4)
        else:
            cells = swa_cells if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED) else n_ctx
            if spec.mla is not None and spec.mla_per_head:  # llm_build_minicpm3: K (nope + rope) and V per head
                mla, heads = spec.mla_of(kind), spec.heads_of(kind)
                size = n_seq * (type_k.bytes_for(cells * heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim))
                                + type_v.bytes_for(cells * heads * mla.v_head_dim))
            elif spec.mla is not None:  # the indexer's keys (llama_kv_cache_dsa): K only, at type_k
                width = spec.mla_of(kind).latent_width + (spec.indexer.head_dim if spec.indexer else 0)
                size = n_seq * type_k.bytes_for(cells * width)
            else:
                k_width = spec.k_width(kind)
                size = n_seq * (type_k.bytes_for(cells * k_width) + type_v.bytes_for(cells * (spec.kv_width(kind)
                                                                                              - k_width)))
            if spec.parallel_mamba:  # Falcon-H1: each layer keeps its attention's cells and a Mamba state
                size += n_seq * spec.state_bytes_of(AttentionKind.MAMBA, 4, trim=1, state_e=4)
        cached = spec.cached_layers(kind)  # layers reusing an earlier layer's K/V keep none (the last ones)
        layers_on_gpu = max(0, on_gpu_kinds.count(kind) - (count - cached))
        if kind is AttentionKind.FULL and spec.mtp_built:  # the MTP layers' cells are the MTP context's
            mtp_on_gpu = min(spec.mtp_built, repeating_on_gpu)  # the last layers: on the GPU first
            layers_on_gpu -= mtp_on_gpu
            cached -= spec.mtp_built
        device += layers_on_gpu * size
        host += (cached - layers_on_gpu) * size
    msa = msa_index_bytes(spec, n_ctx, type_k, type_v) * n_seq
    for i in msa_index_layers(spec):  # MiniMax-M3's indexer cache follows its layer (model.dev_layer(il))
        device, host = (device + msa, host) if i >= first_gpu_layer else (device, host + msa)
    if spec.compressed is not None:  # their compressed caches and states follow their layers
        for i, compressor in enumerate(spec.compressed.types):
            size = n_seq * dsv4_compressed_bytes(spec, compressor, n_ctx, type_k)
            device, host = (device + size, host) if i >= first_gpu_layer else (device, host + size)
    n_kv = n_ctx if spec.attends else 0  # one stream per sequence: attention spans that sequence's cells
    terms = compute_terms(spec, n_ub=n_ub, n_kv=n_kv, flash=flash, n_out=n_out)
    host_compute = 4 * n_ub * (spec.hidden + (0 if flash else n_kv))
    return LlamaCppLayout(n_ctx=n_ctx, n_seq=n_seq, n_ub=n_ub, kv_device_bytes=device, kv_host_bytes=host,
                          compute_bytes=max(terms), host_compute_bytes=host_compute,
                          layers_on_gpu=repeating_on_gpu, output_on_gpu=output_on_gpu, n_out=n_out, terms=terms)


def msa_index_layers(spec: ModelSpec) -> tuple[int, ...]:
    """MiniMax-M3's sparse layers, those with a lightning indexer (llama.cpp: il >= n_layer_dense_lead)."""
    ix = spec.indexer
    if ix is None or not ix.from_hidden:
        return ()
    return tuple(i for i, kind in enumerate(spec.kinds) if kind.caches_tokens and i not in ix.shared)


def msa_index_bytes(spec: ModelSpec, n_ctx: int, type_k: Precision, type_v: Precision) -> int:
    """One sequence's indexer cache in one MiniMax-M3 sparse layer: llama_kv_cache_msa's second llama_kv_cache
    (src/llama-kv-cache-msa.cpp), the model's hparams with one KV head and index_head_dim as the key head, so
    n_ctx cells of a key of index_head_dim at -ctk's type and of a value nothing reads of one value head
    (n_embd_head_v, unchanged) at -ctv's type (PR #26338: "allocates an unused V cache")."""
    if spec.indexer is None:
        return 0
    return type_k.bytes_for(n_ctx * spec.indexer.head_dim) + type_v.bytes_for(n_ctx * spec.v_dim_of(AttentionKind.FULL))


def dsv4_compressed_bytes(spec: ModelSpec, kind: int, n_ctx: int, type_k: Precision) -> int:
    """What llama_kv_cache_dsv4 keeps for one sequence of a DeepSeek-V4 layer beside its window (K only, whose
    cells llama.cpp's raw cache holds): a CSA layer (kind 1) ceil(n_ctx / 4) cells padded to 256 of head_dim (kv_csa)
    and of the indexer's key (kv_lid), at type_k, and two F32 compressor states of 2 × rate rows (kv and score;
    csa_state 2 × head_dim wide, lid_state 2 × index_head_dim); an HCA layer ceil(n_ctx / 128) such cells of
    head_dim (kv_hca) and its state of 128 rows of head_dim (llama-kv-cache-dsv4.cpp)."""
    c = spec.compressed
    if c is None or not kind:
        return 0
    rate = c.rates[kind - 1]
    cells = pad(-(-n_ctx // rate), LLAMACPP_PAD)
    width = spec.head_dim + (c.index_head_dim if kind == 1 else 0)
    state_rows = 2 * rate if kind == 1 else rate
    return type_k.bytes_for(cells * width) + 2 * 4 * state_rows * (2 * width if kind == 1 else width)


def compute_terms(spec: ModelSpec, *, n_ub: int, n_kv: int, flash: bool, n_out: int) -> tuple[int, int]:
    """(the layers' term, the output's term) of the compute buffer: its largest tensors in a layer of the
    micro-batch's graph, and the logits of its n_out output rows; a device holding layers reserves the first,
    the device holding the output layer also the second (one GPU: the larger of the two)."""
    out_term = 4 * (n_out * spec.vocab + n_ub * spec.hidden)
    if flash:
        return ffn_term(spec, n_ub), out_term
    return 4 * n_ub * (1 + 4 * spec.hidden + n_kv * (spec.heads + 1)), out_term


def ffn_term(spec: ModelSpec, n_ub: int) -> int:
    """The MLP's live tensors in a micro-batch (the routed experts' of an MoE): where op offload's copy of
    a weight in RAM joins them; without flash attention the attention scores peak apart from it."""
    ffn = spec.moe.ffn * spec.moe.per_token if spec.moe is not None else spec.ffn
    return 4 * n_ub * (3 * ffn + spec.hidden)


def recurrent_state_said(spec: ModelSpec) -> tuple[Phrase, ...]:
    """The recurrent layers' part of the cache, in words: llama_memory_recurrent's F32 state per sequence."""
    counts = spec.recurrent_counts()
    if not counts:
        return ()
    state = sum(n * spec.state_bytes_of(kind, 4, trim=1, state_e=4) for kind, n in counts)
    return (phrase("llamacpp.kv_state", layers=sum(n for _, n in counts), state=format_binary(state)),)


def msa_index_said(spec: ModelSpec, layout: LlamaCppLayout, type_k: Precision,
                   type_v: Precision) -> tuple[Phrase, ...]:
    """MiniMax-M3's indexer cache in words: its layers, key and unused value, bytes per sequence."""
    layers = len(msa_index_layers(spec))
    if not layers or spec.indexer is None:
        return ()
    return (phrase("llamacpp.kv_msa", layers=layers, key=spec.indexer.head_dim, value=spec.v_dim_of(AttentionKind.FULL),
                   bytes=format_binary(layers * msa_index_bytes(spec, layout.n_ctx, type_k, type_v))),)


def llama_server_command(workload: Workload, model: str, split: tuple[int, ...] = ()) -> str:
    """llama-server's flags for the plan: -c is every slot's context together (llama.cpp gives each of the
    -np slots its share), -ngl the layers on the GPU (all: 999), the experts kept in RAM, the cache types;
    `split`, the layers of each GPU, as --tensor-split (llama.cpp gives each exactly that many)."""
    layout = llamacpp_layout(workload.model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
                             flash=uses_flash(workload.attention), type_k=Precision.FP16, type_v=Precision.FP16,
                             gpu_layers=workload.gpu_layers)
    kv_default = workload.kv_precision or Precision.FP16
    type_k, type_v = workload.kv_precision_k or kv_default, workload.kv_precision_v or kv_default
    flags = [f"{workload.llamacpp_program.value} -m {model}", f"-c {layout.n_ctx * layout.n_seq}",
             f"-ngl {999 if workload.gpu_layers is None else workload.gpu_layers}"]
    if workload.override_tensor:  # before --n-cpu-moe's own patterns, as the plan reads them
        flags.append("-ot " + quoted(overrides_text(workload.override_tensor)))
    if workload.model.vision and not workload.text_only:
        flags.append("--mmproj mmproj-f16.gguf" + " --no-mmproj-offload" * workload.no_mmproj_offload)
    if workload.cpu_moe:
        flags.append("--cpu-moe")
    elif workload.n_cpu_moe:
        flags.append(f"--n-cpu-moe {workload.n_cpu_moe}")
    if type_k is not Precision.FP16:
        flags.append(f"-ctk {type_k.value}")
    if type_v is not Precision.FP16:
        flags.append(f"-ctv {type_v.value}")
    flags.append(f"-fa {'on' if uses_flash(workload.attention) else 'off'}")
    if workload.parallel > 1:
        flags.append(f"-np {workload.parallel}")
    if workload.ubatch != DEFAULT_UBATCH:
        flags.append(f"-ub {workload.ubatch}")
    if split:
        flags.append(f"--tensor-split {split_text(split)}")
    if workload.draft_model is not None:
        layers = 999 if workload.draft_gpu_layers is None else workload.draft_gpu_layers
        kind = "draft-mtp" if workload.draft_model.drafter_backbone else "draft-simple"  # a Gemma 4 drafter: MTP
        flags.append(f"-md {workload.draft_model.name}-{draft_format(workload).name.upper()}.gguf "
                     f"--spec-type {kind} -ngld {layers}")
    if workload.mtp:
        flags.append(f"--spec-type draft-mtp --spec-draft-n-max {workload.mtp}")
    if (workload.draft_model is not None or workload.mtp) and workload.draft_kv_precision is not Precision.FP16:
        flags.append(f"-ctkd {workload.draft_kv_precision.value} -ctvd {workload.draft_kv_precision.value}")
    if workload.embeds:  # --reranking: embeddings with RANK pooling (the GGUF's cls.output)
        flags.append("--reranking" if reranks(workload.model) else "--embedding")
    return " ".join(flags)


MAX_TENSOR_SPLIT = 16  # proportions: more GPUs than any desktop holds


def reranks(model: ModelSpec) -> bool:
    """A reranker: a decoder scored on its head's rows or an encoder with a classifier (both RANK pooling)."""
    return model.reranker is not None or bool(model.encoder and model.encoder.labels)


def parse_tensor_split(field: str, text: str) -> tuple[float, ...]:
    """-ts as common/arg.cpp:2831-2856 reads it: proportions separated by commas or slashes (each a plain
    non-negative number here, where llama.cpp's std::stof would take more); empty: none given."""
    if text.strip(" \t") == "":
        return ()
    parts = re.split(r"[,/]+", text.strip(" \t"))
    if len(parts) > MAX_TENSOR_SPLIT:
        raise ValidationError(field, text, f"at most {MAX_TENSOR_SPLIT} proportions, one per GPU")
    values = tuple(parse_decimal(field, part, 0.0, 1e9) for part in parts)
    if not any(values):
        raise ValidationError(field, text, "at least one proportion above 0 (all zero: leave it empty)")
    return values


def split_text(values: tuple[float, ...] | tuple[int, ...]) -> str:
    """Proportions as -ts takes them: 3,1 or 0.75,0.25."""
    return ",".join(f"{value:g}" for value in values)


def quoted(text: str) -> str:
    """`text` as one word of a POSIX shell command."""
    return text if re.fullmatch(r"[\w.,=/:-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def uses_flash(attention: Attention) -> bool:
    return attention is Attention.FLASH


def cpu_moe_layers(workload: Workload) -> int:
    """How many of the first layers keep their routed experts in RAM: --cpu-moe all of them, --n-cpu-moe N
    the first N (llama.cpp common/arg.cpp: an override of `blk.i.ffn_(up|down|gate)_exps` to the CPU
    buffer); 0 for a dense model, which has no such tensors."""
    if workload.model.moe is None:
        return 0
    return workload.model.layers if workload.cpu_moe else min(workload.n_cpu_moe, workload.model.layers)


def moved(spec: ModelSpec, stack: weights.LayerBytes, *, first_gpu_layer: int, cpu_moe: int,
          overrides: Overrides) -> tuple[float, float]:
    """(other tensors, routed experts): the bytes of layer tensors that --n-cpu-moe and --override-tensor
    keep in RAM although their layer is on the GPU, less those they put on the GPU from a layer in RAM.
    --n-cpu-moe N is llama.cpp's pattern `blk\\.i\\.ffn_(up|down|gate)_exps` to the CPU for i < N, placed
    after the user's own (common/arg.cpp); its tensors are the routed experts (role `expert`)."""
    if not overrides:  # the common case, without a walk over the tensors
        if cpu_moe <= first_gpu_layer:  # no layer on the GPU keeps its experts in RAM (a dense model: none)
            return 0.0, 0.0
        return 0.0, float(sum(weights.expert_bytes(spec, stack)[first_gpu_layer:cpu_moe]))
    roles = _expert_flags(spec)
    dense = experts = 0.0
    for i, ((key, sizes), places) in enumerate(zip(stack.layers, layer_devices(spec, overrides), strict=True)):
        layer_on_gpu = i >= first_gpu_layer
        for expert, size, place in zip(roles[key], sizes, places, strict=True):
            on_gpu = (layer_on_gpu and not (expert and i < cpu_moe)) if place is None else place
            if on_gpu != layer_on_gpu:
                share = size if layer_on_gpu else -size
                if expert:
                    experts += share
                else:
                    dense += share
    return dense, experts


def largest_in_ram(spec: ModelSpec, stack: weights.LayerBytes, *, first_gpu_layer: int, cpu_moe: int,
                   overrides: Overrides) -> float:
    """The largest layer tensor left in RAM: what op offload copies into the GPU's compute buffer to multiply
    a micro-batch of at least 32 rows on the GPU (ggml-backend.cpp's scheduler; the copies of a graph reuse
    one another's memory, so the largest counts, not their sum; measured, docs/accuracy.md)."""
    roles = _expert_flags(spec)
    if not overrides:  # whole layers in RAM, and the experts of the next ones up to --n-cpu-moe
        in_ram = [size for _, sizes in set(stack.layers[:first_gpu_layer]) for size in sizes]
        in_ram += [size for key, sizes in set(stack.layers[first_gpu_layer:cpu_moe])
                   for expert, size in zip(roles[key], sizes, strict=True) if expert]
        return max(in_ram, default=0.0)
    largest = 0.0
    for i, ((key, sizes), places) in enumerate(zip(stack.layers, layer_devices(spec, overrides), strict=True)):
        layer_on_gpu = i >= first_gpu_layer
        for expert, size, place in zip(roles[key], sizes, places, strict=True):
            on_gpu = (layer_on_gpu and not (expert and i < cpu_moe)) if place is None else place
            if not on_gpu:
                largest = max(largest, size)
    return largest


@functools.lru_cache(maxsize=64)
def _expert_flags(spec: ModelSpec) -> dict[object, list[bool]]:
    """Whether each tensor of a layer group (in layer_tensors order) is a routed expert's."""
    return {key: [t.role is Role.EXPERT for t in layer_tensors(spec, index)] for key, index, _ in spec.layer_groups}


@dataclasses.dataclass(frozen=True)
class Placed:
    """The weights' bytes on each device, and what --n-cpu-moe and -ot moved from the layers' own places:
    `dense` and `experts` are the bytes of layer tensors in RAM that their layer's place would have on
    the GPU (negative: the other way), routed experts apart; the head where it ends up."""

    device: float
    host: float
    dense: float
    experts: float
    head_on_gpu: bool
    cpu_moe_layers: int  # of the first layers, how many keep their routed experts in RAM (--n-cpu-moe)


# Tensors outside the layers that llama.cpp places elsewhere than the input layer's RAM (llama-arch.cpp
# LLM_TENSOR_INFOS): a Gemma 4 drafter's nextn.post_projection is LLM_TENSOR_LAYER_OUTPUT, with the output layer;
# its nextn.pre_projection is LLM_TENSOR_LAYER_REPEATING, created as layer 0's (models/gemma4-assistant.cpp); its
# masked_embd_centroids is LLM_TENSOR_LAYER_INPUT, in RAM.
OUTPUT_LAYER_TENSORS = ("output", "nextn.post_projection")
FIRST_LAYER_TENSORS = ("nextn.pre_projection",)


def place_weights(model: ModelSpec, stack: weights.LayerBytes, layout: LlamaCppLayout, *, cpu_moe: int,
                  overrides: Overrides) -> Placed:
    """The layers where -ngl puts them, less what --n-cpu-moe and -ot move; the input layer (token_embd) in
    RAM and the output layer where -ngl puts it, unless -ot says otherwise; a tied head follows token_embd's
    pattern (llama.cpp duplicates that tensor under its own name) and is copied to the GPU when it is there."""
    first_gpu_layer = model.layers - layout.layers_on_gpu
    dense, experts = moved(model, stack, first_gpu_layer=first_gpu_layer, cpu_moe=cpu_moe, overrides=overrides)
    device = stack.layers_bytes(first_gpu_layer, model.layers) - dense - experts
    host = stack.layers_bytes(0, first_gpu_layer) + dense + experts
    head_on_gpu = layout.output_on_gpu
    for tensor, size in stack.outside:
        place = device_of(tensor.name, overrides)
        if place is not None:
            on_gpu = place
        elif tensor.name.startswith(FIRST_LAYER_TENSORS):
            on_gpu = first_gpu_layer == 0
        else:
            on_gpu = layout.output_on_gpu and tensor.name.startswith(OUTPUT_LAYER_TENSORS)
        if tensor.name.startswith("output.weight") or (tensor.name == "token_embd.weight" and model.tie_embeddings):
            head_on_gpu = layout.output_on_gpu if place is None else place
        if on_gpu:
            device += size
        else:
            host += size
        if tensor.name == "token_embd.weight" and model.tie_embeddings and head_on_gpu and not on_gpu:
            device += size
    return Placed(device=device, host=host, dense=dense, experts=experts, head_on_gpu=head_on_gpu,
                  cpu_moe_layers=cpu_moe)


def reserved_outputs(workload: Workload) -> int:
    """The logits rows the program reserves for: llama-server's slots (Ollama from v0.30 runs it with -np its
    sequences), llama-completion's whole micro-batch (the library's n_outputs_max = n_batch), and --embedding's
    (server_output_limits: n_batch, which llama-server sets to n_ubatch; a decoder computes every token's logits)."""
    if workload.runtime is Runtime.LLAMACPP and (workload.embeds or workload.llamacpp_program is
                                                 LlamaCppProgram.COMPLETION):
        return workload.ubatch
    slots = server_outputs(workload.parallel, explicit=workload.runtime is Runtime.OLLAMA)
    if workload.mtp:  # server_output_limits: each slot's sampled token and its drafted ones, at most -b
        return min(SERVER_N_BATCH, slots * (1 + workload.mtp))
    return slots


def head_bytes(spec: ModelSpec, stack: weights.LayerBytes) -> float:
    """The output matrix: output.weight, or token_embd's when the head is tied."""
    return max((size for tensor, size in stack.outside if tensor.name == "output.weight"
                or (spec.tie_embeddings and tensor.name == "token_embd.weight")), default=0.0)


CLIP_WARMUP_TOKENS = 46 * 46  # clip.cpp: Qwen-VL's set_warmup_n_tokens(46*46), "avoid OOM on warmup"


def clip_compute_bytes(workload: Workload) -> tuple[int, int]:
    """(bytes, patches): the mmproj's compute buffer, estimated. clip.cpp reserves its graph at start for a
    warmup image (Qwen-VL's of 46 × 46 tokens; Gemma 3's own side) and ggml grows it for a larger image; mtmd
    encodes one image at a time, in f32, with flash attention when the backend has it. Its size: the tower's
    measured transformers peak (families/vision.py) in 4-byte values, not ggml's own allocator (approximate)."""
    vision = workload.model.vision
    if vision is None or workload.text_only or not workload.images:
        return 0, 0
    width, height, k = workload.image_width, workload.image_height, vision.merge
    patches = image_patches(vision, width, height)
    if vision.family in QWEN:
        patches = max(llamacpp_image_tokens(vision, width, height), CLIP_WARMUP_TOKENS) * k * k
    return encoder_peak(vision, 1, width, height, 4, not uses_flash(workload.attention), patches), patches


# ---------------------------------------------------------------- speculative decoding with a draft model
# llama-server -md DRAFT --spec-type draft-simple (common/speculative.cpp, tools/server/server-context.cpp): the
# draft gets a context of its own with the target's n_ctx and slots, micro-batch and flash attention, its own cache
# types (-ctkd/-ctvd, f16 by default) and layers on the GPU (-ngld), and one logits row per slot; the target then
# reserves logits for each slot's sampled token and its drafted ones (common_speculative_get_output_limits).
DRAFT_N_MAX = 3  # --spec-draft-n-max's default (common.h common_params_speculative_draft.n_max)
DRAFT_FORMAT = "q8_0"  # the draft's GGUF type when not given: the usual choice for a small draft
SERVER_N_BATCH = 2048  # llama-server's -b, the cap on those logits rows
SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128  # common/speculative.cpp: a draft whose vocabulary differs more is refused


def draft_format(workload: Workload) -> WeightFormat:
    """The draft's GGUF type: as given, else DRAFT_FORMAT."""
    fmt = workload.draft_precision or weights.parse_format(DRAFT_FORMAT)
    assert fmt is not None, DRAFT_FORMAT
    return fmt


def parse_draft_model(text: str) -> ModelSpec | None:
    """A preset's slug: the draft model (its GGUF in draft_precision); empty: no draft."""
    from ..sources.presets import load_presets, preset_spec

    if text == "":
        return None
    if text not in load_presets():
        raise ValidationError("draft_model", text, "a preset's name (a small model of the same family), or empty")
    spec = preset_spec(text)
    if spec.encoder is not None or spec.speech is not None:
        raise ValidationError("draft_model", text, "a draft model generates text: a decoder language model")
    return spec


def parse_draft_precision(text: str) -> WeightFormat | None:
    if text == "":
        return None
    found = weights.parse_format(text.lower())
    if found is None or found.kind != "gguf":
        raise ValidationError("draft_precision", text, "a GGUF type (q8_0, q4_k_m, f16, ...)")
    return found


KV_FORMATS = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0)


def check_draft(workload: Workload) -> None:
    """A draft llama.cpp accepts (common_speculative_are_compatible's size rule; its token texts are assumed to
    match), on one GPU (several: the draft's own split is not modelled)."""
    draft = workload.draft_model
    if draft is None:
        return
    if workload.runtime is not Runtime.LLAMACPP or workload.llamacpp_program is not LlamaCppProgram.SERVER:
        raise ValidationError("draft_model", draft.name, "speculative decoding with a draft model is modelled for "
                                                          "llama.cpp's llama-server (runtime llamacpp)")
    check_drafter_target(workload.model, draft)
    if abs(draft.vocab - workload.model.vocab) > SPEC_VOCAB_MAX_SIZE_DIFFERENCE:
        raise ValidationError("draft_model", draft.name, f"llama.cpp refuses a draft whose vocabulary "
                              f"({draft.vocab:,}) differs from the model's ({workload.model.vocab:,}) by more than "
                              f"{SPEC_VOCAB_MAX_SIZE_DIFFERENCE} tokens: pick one of the same family")
    if workload.devices > 1 or workload.cards:
        raise ValidationError("draft_model", draft.name, "a draft model is modelled on one GPU for now")
    check_kv_formats(workload, ("draft_kv_precision",), KV_FORMATS)


def one_gpu_only(workload: Workload) -> bool:
    """Whether the workload runs on one GPU only, as modelled: llama.cpp's speculative decoding with a draft model
    (check_draft) or the MTP layers (LlamaCpp.check), and transformers' assisted generation (Transformers.check),
    are refused on several."""
    if workload.runtime is Runtime.TRANSFORMERS:
        return workload.draft_model is not None
    return workload.runtime is Runtime.LLAMACPP and (workload.draft_model is not None or bool(workload.mtp))


GEMMA4_TEXT = ("gemma4_text", "gemma4_unified_text")  # the targets a Gemma 4 drafter reads the K/V and state of


def check_drafter_target(model: ModelSpec, draft: ModelSpec) -> None:
    """A Gemma 4 drafter (Gemma4AssistantForCausalLM, llama.cpp's gemma4-assistant) drafts only for a Gemma 4
    target of its backbone width: it reads the target's K/V and takes the target's embedding and last hidden state
    (2 x backbone_hidden_size) into pre_projection; and a drafter is not a target."""
    if model.drafter_backbone:
        raise ValidationError("model", model.name, "a Gemma 4 drafter cannot check drafts: choose its Gemma 4 target "
                                                   "as the model and the drafter as draft_model")
    if not draft.drafter_backbone:
        return
    if model.model_type not in GEMMA4_TEXT or model.hidden != draft.drafter_backbone:
        raise ValidationError("draft_model", draft.name, f"a Gemma 4 drafter reads its target's K/V and hidden "
                              f"state: the target must be a Gemma 4 model {draft.drafter_backbone:,} wide "
                              f"(backbone_hidden_size), not {model.display_name} ({model.hidden:,})")


def draft_workload(workload: Workload, draft: ModelSpec) -> Workload:
    """The draft's own context, as common_base_params_to_speculative copies the target's parameters: no overhead
    of its own (the CUDA context is the process's), none of the target's placement flags."""
    return workload.but(model=draft, precision=draft_format(workload), kv_precision=workload.draft_kv_precision,
                        kv_precision_k=None, kv_precision_v=None, gpu_layers=workload.draft_gpu_layers,
                        override_tensor=(), n_cpu_moe=0, cpu_moe=False, text_only=True, images=0, image_tokens=0,
                        draft_model=None, overhead_bytes=0, reserve_bytes=None)


def target_outputs(workload: Workload) -> int:
    """The target's logits rows with a draft: each slot's sampled token and its drafted ones, at most -b."""
    return min(SERVER_N_BATCH, server_outputs(workload.parallel) * (1 + DRAFT_N_MAX))


# ---------------------------------------------------------------- speculative decoding with the model's MTP layers
# llama-server --spec-type draft-mtp (common/speculative.cpp common_speculative_init_result): load_mtp creates the
# nextn tensors of blk.<n_layer> (TENSOR_SKIP otherwise), placed as the last repeating layers are (-ngl counts them:
# n_layer_all); a second context of type LLAMA_CONTEXT_TYPE_MTP is made on the model's own weights with the model's
# n_ctx and slots, one logits row per slot, the draft cache types (-ctkd/-ctvd, f16 by default) and "a plain
# attention KV cache holding only the nextn layer" (src/llama-model.cpp create_memory: dense MLA without the DSA
# indexer on DeepSeek-V3.2 and GLM-5; the full-attention K and V on Qwen3.5), while the model's own cache leaves
# that layer out (its layer filter il < n_layer).


def mtp_context_spec(spec: ModelSpec) -> ModelSpec:
    """The MTP context's model as its cache and compute buffer see it: the MTP layers alone, full attention,
    without the lightning indexer."""
    n = spec.mtp_built
    return dataclasses.replace(spec, layers=n, kinds=(AttentionKind.FULL,) * n, indexer=None, mtp_built=0,
                               moe_layers=spec.moe_layers[-n:] if spec.moe_layers else ())


def mtp_context(workload: Workload, main: LlamaCppLayout) -> LlamaCppLayout:
    """The MTP context's cache (its layers' cells on the GPU when those layers are) and compute buffer (none when
    nothing of it is on the GPU)."""
    spec = workload.model
    on_gpu = min(spec.mtp_built, main.layers_on_gpu) + int(main.output_on_gpu)
    layout = llamacpp_layout(mtp_context_spec(spec), seq=workload.seq, n_seq=workload.parallel,
                             ubatch=workload.ubatch, flash=uses_flash(workload.attention),
                             type_k=workload.draft_kv_precision, type_v=workload.draft_kv_precision,
                             gpu_layers=on_gpu, n_outputs=server_outputs(workload.parallel))
    return layout if on_gpu else dataclasses.replace(layout, compute_bytes=0)


def with_mtp_context(workload: Workload, target: EngineBreakdown) -> EngineBreakdown:
    """The model's breakdown with its MTP context's cache and compute buffer added, and said."""
    assert isinstance(target.facts, LlamaCppFacts)
    spec = workload.model
    layout = mtp_context(workload, target.facts.layout)
    added = {"kv_cache": layout.kv_device_bytes, "activations": layout.compute_bytes}
    trunk = spec.layers - spec.mtp_built
    said = {"weights": phrase("llamacpp.mtp_weights", layers=spec.mtp_built, first=trunk),
            "kv_cache": phrase("llamacpp.mtp_kv", layers=spec.mtp_built, n_seq=layout.n_seq,
                               n_ctx=f"{layout.n_ctx:,}", type=workload.draft_kv_precision.value,
                               bytes=format_binary(layout.kv_device_bytes), host=format_binary(layout.kv_host_bytes)),
            "activations": phrase("llamacpp.mtp_compute", bytes=format_binary(layout.compute_bytes),
                                  n_out=layout.n_out)}

    def joined(component: Component) -> Component:
        if component.key not in said:
            return component
        return Component(key=component.key, bytes=component.bytes + added.get(component.key, 0),
                         explain=lambda: (*component.formula, "; ", said[component.key]))
    device = layout.kv_device_bytes + layout.compute_bytes
    host = layout.kv_host_bytes + layout.host_compute_bytes
    facts = dataclasses.replace(target.facts, device_bytes=target.facts.device_bytes + device,
                                host_bytes=target.facts.host_bytes + host, mtp_device_bytes=device)
    return EngineBreakdown(components=tuple(joined(component) for component in target.components), facts=facts,
                           host_bytes=target.host_bytes + host)


def llamacpp_breakdown(workload: Workload, *, outputs: int | None = None) -> EngineBreakdown:
    """llama.cpp, with its draft model's context when there is one (-md), or its MTP context (--spec-type
    draft-mtp): both on the same devices."""
    draft = workload.draft_model
    if workload.mtp:
        return with_mtp_context(workload, model_breakdown(workload, outputs=outputs))
    if draft is None:
        return model_breakdown(workload, outputs=outputs)
    target = model_breakdown(workload, outputs=target_outputs(workload) if outputs is None else outputs)
    drafted = model_breakdown(draft_workload(workload, draft), outputs=server_outputs(workload.parallel))
    assert isinstance(target.facts, LlamaCppFacts) and isinstance(drafted.facts, LlamaCppFacts)
    extra = {component.key: component for component in drafted.components}
    layout = drafted.facts.layout
    said = {"weights": phrase("llamacpp.draft_weights", name=draft.display_name,
                              format=draft_format(workload).name,
                              bytes=format_binary(extra["weights"].bytes)),
            "kv_cache": phrase("llamacpp.drafter_kv") if draft.drafter_backbone else
                        phrase("llamacpp.draft_kv", type=workload.draft_kv_precision.value,
                               bytes=format_binary(layout.kv_device_bytes)),
            "activations": phrase("llamacpp.draft_compute", bytes=format_binary(layout.compute_bytes))}

    def joined(component: Component) -> Component:
        if component.key not in said:
            return component
        return Component(key=component.key, bytes=component.bytes + extra[component.key].bytes,
                         explain=lambda: (*component.formula, "; ", said[component.key]))
    facts = dataclasses.replace(target.facts, device_bytes=target.facts.device_bytes + drafted.facts.device_bytes,
                                host_bytes=target.facts.host_bytes + drafted.facts.host_bytes,
                                draft_device_bytes=drafted.facts.device_bytes)
    return EngineBreakdown(components=tuple(joined(component) for component in target.components), facts=facts,
                           host_bytes=target.host_bytes + drafted.host_bytes)


def model_breakdown(workload: Workload, *, outputs: int | None = None) -> EngineBreakdown:
    """llama.cpp: weights and cache split between the GPU and system RAM by --gpu-layers, and the
    compute buffers its graph reserves, for `outputs` logits rows (llama-server's, by default).
    Op offload: a matmul of at least 32 rows whose weight is in RAM runs on the GPU, on a copy of that
    weight in the compute buffer (the output's only when it has 32 rows); -ngl 0 then still reserves one."""
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    kv_default = workload.kv_precision or Precision.FP16
    type_k = workload.kv_precision_k or kv_default
    type_v = workload.kv_precision_v or kv_default
    layout = llamacpp_layout(
        model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
        flash=uses_flash(workload.attention), type_k=type_k, type_v=type_v, gpu_layers=workload.gpu_layers,
        n_outputs=reserved_outputs(workload) if outputs is None else outputs)
    stack = weights.stack(model, fmt, group_size=workload.group_size,
                          nominal_bits=weights.nominal_bits(workload.precision))
    cpu_moe = cpu_moe_layers(workload)
    placed = place_weights(model, stack, layout, cpu_moe=cpu_moe, overrides=workload.override_tensor)
    device_weights, host_weights = round(placed.device), round(placed.host)  # a variant's average layers
    mmproj = vision_bytes(workload)  # the projector file, loaded beside the model (on the GPU unless told not)
    if workload.no_mmproj_offload:
        host_weights += mmproj
    else:
        device_weights += mmproj
    clip, clip_patches = clip_compute_bytes(workload)  # beside the mmproj: on its device
    copy = round(largest_in_ram(model, stack, first_gpu_layer=model.layers - layout.layers_on_gpu, cpu_moe=cpu_moe,
                                overrides=workload.override_tensor)) if layout.n_ub >= OP_OFFLOAD_MIN_BATCH else 0
    head_copy = 0 if placed.head_on_gpu or layout.n_out < OP_OFFLOAD_MIN_BATCH else round(head_bytes(model, stack))
    if copy or head_copy:
        layout = dataclasses.replace(layout, compute_bytes=max(
            layout.terms[0], ffn_term(model, layout.n_ub) + copy, layout.terms[1] + head_copy))
    uses_gpu = bool(device_weights or layout.kv_device_bytes or copy or head_copy)  # -ngl 0, -ub < 32: not used
    if not uses_gpu:
        layout = dataclasses.replace(layout, compute_bytes=0)  # no compute buffer on it, no CUDA context
    overhead = workload.held_bytes if uses_gpu else 0  # with what other programs hold on the GPU
    clip_device = 0 if workload.no_mmproj_offload else clip
    split = phrase("llamacpp.split", gpu=layout.layers_on_gpu, layers=model.layers,
                    output="" if layout.output_on_gpu else phrase("llamacpp.no_output"),
                    host=format_binary(host_weights))
    experts_in_ram: tuple[Phrase, ...] = (phrase("llamacpp.cpu_moe", layers=cpu_moe),) if cpu_moe else ()

    def overridden() -> tuple[Phrase, ...]:
        """What -ot itself moved: against the same plan without it (said only when the row is shown)."""
        if not workload.override_tensor:
            return ()
        net = round(place_weights(model, stack, layout, cpu_moe=cpu_moe, overrides=()).device - placed.device)
        return (phrase("llamacpp.override_ram" if net >= 0 else "llamacpp.override_gpu",
                       bytes=format_binary(abs(net))),)
    components = (
        Component(key="weights", bytes=device_weights, explain=lambda: (
            *weights_bytes(workload).formula, "; ", split, *experts_in_ram, *overridden(),
            *((phrase("llamacpp.mmproj_ram"),) if mmproj and workload.no_mmproj_offload else ()))),
        no_component("gradients", "gradients.none"),
        no_component("optimizer", "optimizer.none"),
        no_component("master_weights", "master_weights.none"),
        Component(key="kv_cache", bytes=layout.kv_device_bytes, explain=lambda: (phrase(
            "llamacpp.kv", n_seq=layout.n_seq, n_ctx=f"{layout.n_ctx:,}", k=type_k.value, v=type_v.value,
            bytes=format_binary(layout.kv_device_bytes), host=format_binary(layout.kv_host_bytes)),
            *recurrent_state_said(workload.model), *msa_index_said(workload.model, layout, type_k, type_v),
            *((phrase("llamacpp.kv_no_window"),) if as_kept(workload.model) is not workload.model else ()))),
        Component(key="activations", bytes=layout.compute_bytes + clip_device, explain=lambda: (phrase(
            "llamacpp.compute", n_ub=layout.n_ub, flash="on" if uses_flash(workload.attention) else "off",
            n_out=layout.n_out, bytes=format_binary(layout.compute_bytes),
            copy=phrase("llamacpp.op_offload", bytes=format_binary(max(copy, head_copy))) if copy or head_copy
            else ""), *((phrase("llamacpp.clip", patches=f"{clip_patches:,}", bytes=format_binary(clip),
                                ram=phrase("llamacpp.clip_ram") if workload.no_mmproj_offload else ""),)
                        if clip else ()))),
        no_component("logits", "llamacpp.logits"),
        overhead_row(workload, overhead),
    )
    host = host_weights + layout.kv_host_bytes + layout.host_compute_bytes + clip - clip_device
    device = device_weights + layout.kv_device_bytes + layout.compute_bytes + clip_device + overhead
    facts = LlamaCppFacts(layout=layout, placed=placed, device_bytes=device, host_bytes=host)
    return EngineBreakdown(components=components, facts=facts, host_bytes=host)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LlamaCppFacts:
    """What llama.cpp would allocate on each device for this workload."""

    layout: LlamaCppLayout
    placed: Placed
    device_bytes: int
    host_bytes: int
    draft_device_bytes: int = 0  # of device_bytes, the draft model's context (-md)
    mtp_device_bytes: int = 0  # of device_bytes, the MTP context's cache and compute buffer (--spec-type draft-mtp)

    @property
    def gpu_layers(self) -> int:
        """Layers on the GPU as --gpu-layers counts them: the repeating layers and the output layer."""
        return self.layout.layers_on_gpu + int(self.layout.output_on_gpu)

    def as_json(self) -> dict[str, object]:
        layout = self.layout
        return {"n_ctx": layout.n_ctx, "n_seq": layout.n_seq, "n_ubatch": layout.n_ub, "gpu_layers": self.gpu_layers,
                "device_bytes": self.device_bytes, "host_bytes": self.host_bytes,
                "compute_buffer_bytes": layout.compute_bytes, "host_compute_buffer_bytes": layout.host_compute_bytes,
                "kv_device_bytes": layout.kv_device_bytes, "kv_host_bytes": layout.kv_host_bytes,
                "cpu_moe_layers": self.placed.cpu_moe_layers, "draft_device_bytes": self.draft_device_bytes,
                "mtp_device_bytes": self.mtp_device_bytes}


# ---------------------------------------------------------------- llama.cpp's own input keys
# (inputs/options.py gathers them)


_SHOWN = {"runtime": ("llamacpp",), "mode": ("inference",)}
_GGUF_SHOWN = {"runtime": ("llamacpp", "ollama"), "mode": ("inference",)}
# what llama-server --embedding (and Ollama's embed) read too: its layers on the GPU, slots and micro-batch
_GGUF_EMBEDS = {"runtime": ("llamacpp", "ollama"), "mode": ("inference", "embedding")}
# the engines a draft model is counted on (inputs/parse.py DRAFT_RUNTIMES)
DRAFT_SHOWN: When = {"runtime": ("llamacpp", "vllm", "transformers"), "mode": ("inference",)}
_DRAFT: When = {**_SHOWN, "draft_model": Not(("",))}  # Ollama's num_gpu, num_batch, parallel
OPTIONS = (
    Option(key="n_cpu_moe", default="0", group="engine", metavar="N",
           help="llama.cpp --n-cpu-moe: keep the experts of the first N layers in system RAM (MoE models)",
           parse=lambda t: parse_int("n_cpu_moe", t, 0, MAX_LAYERS), shown_when=_SHOWN),
    Option(key="cpu_moe", default="0", group="engine", kind=Kind.FLAG,
           help="llama.cpp --cpu-moe: keep every layer's experts in system RAM (MoE models)",
           parse=lambda t: parse_flag("cpu_moe", t), shown_when=_SHOWN),
    Option(key="override_tensor", default="", group="engine", metavar="PATTERN=DEVICE,...",
           help="llama.cpp --override-tensor: tensors whose GGUF name a pattern matches go to that device "
                "(CPU: system RAM; CUDA0, MTL0, Vulkan0, ROCm0: the GPU), the first match winning",
           parse=lambda t: parse_overrides("override_tensor", t), shown_when=_SHOWN),
    Option(key="tensor_split", default="", group="engine", metavar="N0,N1,...",
           help="llama.cpp --tensor-split: each GPU's proportion of the layers, CUDA0 first (e.g. 3,1; default: "
                "by each GPU's free memory)", parse=lambda t: parse_tensor_split("tensor_split", t),
           shown_when={**_GGUF_SHOWN, "runtime": ("llamacpp",)}),
    Option(key="gpu_layers", default="", group="engine", metavar="N",
           help="llama.cpp: layers on the GPU, the output layer first (default all)",
           parse=optional(lambda t: parse_int("gpu_layers", t, 0, MAX_LAYERS + 1)), shown_when=_GGUF_EMBEDS),
    Option(key="llamacpp_program", default=LlamaCppProgram.SERVER.value, group="engine", kind=Kind.CHOICE,
           choices=values_of(LlamaCppProgram),
           help="llama.cpp program: llama-server reserves logits for one row per slot; llama-completion "
                "(and llama-bench, llama-cpp-python) for the whole micro-batch",
           parse=lambda t: parse_choice("llamacpp_program", t, LlamaCppProgram), shown_when=_SHOWN),
    Option(key="ubatch", default=str(DEFAULT_UBATCH), group="engine", metavar="N", help="llama.cpp micro-batch (512)",
           parse=lambda t: parse_tokens("ubatch", t, 1, 65536), shown_when=_GGUF_EMBEDS),
    Option(key="parallel", default="1", group="engine", metavar="N",
           help="llama.cpp: sequences, each with its own context (1)",
           parse=lambda t: parse_int("parallel", t, 1, MAX_PARALLEL), shown_when=_GGUF_EMBEDS),
    Option(key="no_mmproj_offload", default="0", group="engine", kind=Kind.FLAG,
           help="llama.cpp --no-mmproj-offload: a multimodal model's projector (mmproj) in system RAM",
           parse=lambda t: parse_flag("no_mmproj_offload", t), shown_when=_SHOWN),
    Option(key="kv_precision_k", default="", group="engine", metavar="TYPE",
           help="llama.cpp --cache-type-k (default: --kv-precision)",
           parse=lambda t: None if t == "" else parse_choice("kv_precision_k", t, Precision), shown_when=_SHOWN),
    Option(key="kv_precision_v", default="", group="engine", metavar="TYPE",
           help="llama.cpp --cache-type-v (default: --kv-precision)",
           parse=lambda t: None if t == "" else parse_choice("kv_precision_v", t, Precision), shown_when=_SHOWN),
    Option(key="draft_model", default="", group="engine", metavar="PRESET",
           help="a draft model for speculative decoding, a preset of the same family (llama-server -md, vLLM "
                "--speculative-config, transformers assistant_model)",
           parse=parse_draft_model, shown_when=DRAFT_SHOWN),
    Option(key="draft_precision", default="", group="engine", metavar="TYPE",
           help=f"the draft model's GGUF type (default {DRAFT_FORMAT})", parse=parse_draft_precision,
           shown_when=_DRAFT),
    Option(key="draft_kv_precision", default="fp16", group="engine", metavar="TYPE",
           help="llama.cpp -ctkd and -ctvd: the draft's cache type, a draft model's or the MTP context's (fp16, not "
                "--cache-type-k's, by default)",
           parse=lambda t: parse_choice("draft_kv_precision", t, Precision),
           shown_when=(_DRAFT, {**_SHOWN, "mtp": Not(("0",))})),
    Option(key="draft_gpu_layers", default="", group="engine", metavar="N",
           help="llama.cpp -ngld: the draft's layers on the GPU, the output layer first (default all)",
           parse=optional(lambda t: parse_int("draft_gpu_layers", t, 0, MAX_LAYERS + 1)), shown_when=_DRAFT),
)

