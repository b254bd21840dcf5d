"""llama.cpp: the context, KV cache and compute buffers it allocates, and the split between the
GPU and system RAM by --gpu-layers. Sources in docs/research/engines.md."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping

from ..core.choices import Attention, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Kind, Option, optional, parse_choice, parse_flag, parse_int, parse_tokens
from ..core.phrase import Phrase, phrase
from ..core.units import MIB, format_binary
from ..formats import weights
from ..formats.weights import WeightFormat
from ..memory.components import Breakdown, Component, EngineFacts, given_overhead, no_component
from ..memory.states import weights_bytes
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.decoder.tensors import layer_tensors
from ..model.tensor import Role
from ..parallel.layout import Layout, default_layout
from ..sources.hf_config import MAX_LAYERS
from ..workload import Workload
from .base import EngineBreakdown, RankPool, check_kv_formats, refuse_training

LLAMACPP_PAD = 256  # n_ctx and the sliding-window cache round up to 256 cells (llama-context.cpp)
MAX_PARALLEL = 4096  # llama.cpp sequences
LLAMACPP_CUDA_OVERHEAD = 457 * MIB  # CUDA context and driver, as Ollama reserves it (engines.md §4.1)


def pad(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


@dataclasses.dataclass(frozen=True)
class LlamaCppLayout:
    n_ctx: int  # cells per sequence (padded)
    n_seq: int
    n_ub: int
    kv_device_bytes: int
    kv_host_bytes: int
    compute_bytes: int  # the GPU compute buffer
    host_compute_bytes: int  # the CPU-side compute buffer (CUDA_Host)
    layers_on_gpu: int
    output_on_gpu: bool
    cpu_moe_layers: int = 0  # of the first layers, how many keep their routed experts in RAM (--n-cpu-moe)
    # bytes of layer tensors in RAM that their layer's place would have on the GPU (negative: the other way),
    # routed experts apart, as --n-cpu-moe and --override-tensor move them; the head where it ends up
    moved_dense: float = 0
    moved_experts: float = 0
    head_on_gpu: bool = True


DEFAULT_UBATCH = 512  # llama.cpp's -ub


def llamacpp_layout(spec: ModelSpec, *, seq: int, n_seq: int, ubatch: int, flash: bool, type_k: Precision,
                    type_v: Precision, gpu_layers: int | None) -> LlamaCppLayout:
    """n_ctx, the KV cache by device, and the compute buffers (llama.cpp master, engines.md §4.1).

    KV: every sequence gets its own n_ctx cells (seq padded to 256); a sliding-window layer keeps
    min(n_ctx, pad(window + n_ubatch, 256)) cells; an MLA layer caches K only (the 576-wide latent,
    since PR #19067); a recurrent layer keeps an fp32 state per sequence.
    Compute buffer, flash attention off: max(4·n_ub·(1 + 4·n_embd + n_kv·(n_head + 1)),
    4·(n_ub·n_vocab + n_ub·n_embd)); on: the logits term or 4·n_ub·(3·n_ff + n_embd), whichever is larger.
    Offload (--gpu-layers N): the output layer first, then the last N - 1 repeating layers."""
    n_ctx = pad(seq, LLAMACPP_PAD)
    n_ub = min(ubatch, n_ctx)
    layers = spec.layers
    on_gpu = layers + 1 if gpu_layers is None else min(gpu_layers, layers + 1)
    output_on_gpu = on_gpu >= 1
    repeating_on_gpu = max(0, on_gpu - 1)
    first_gpu_layer = layers - repeating_on_gpu
    swa_cells = min(n_ctx, pad((spec.sliding_window or spec.attention_chunk) + n_ub, LLAMACPP_PAD))
    device = host = 0
    on_gpu_kinds = spec.kinds[first_gpu_layer:]
    for kind, count in spec.kind_counts():
        if kind is AttentionKind.NONE:  # Nemotron-H's MLP and expert layers keep nothing
            size = 0
        elif kind.recurrent:  # llama_memory_recurrent: d_conv - 1 tokens (n_embd_r) and the state (n_embd_s), F32
            size = n_seq * spec.state_bytes_of(kind, 4, trim=1, state_e=4)
        else:
            cells = swa_cells if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED) else n_ctx
            if spec.mla is not None:  # the indexer's keys (llama_kv_cache_dsa): K only, at type_k
                width = spec.mla.latent_width + (spec.indexer.head_dim if spec.indexer else 0)
                size = n_seq * type_k.bytes_for(cells * width)
            else:
                k_width = spec.k_width(kind)
                size = n_seq * (type_k.bytes_for(cells * k_width) + type_v.bytes_for(cells * (spec.kv_width(kind)
                                                                                              - k_width)))
            if spec.parallel_mamba:  # Falcon-H1: each layer keeps its attention's cells and a Mamba state
                size += n_seq * spec.state_bytes_of(AttentionKind.MAMBA, 4, trim=1, state_e=4)
        cached = spec.cached_layers(kind)  # layers reusing an earlier layer's K/V keep none (the last ones)
        layers_on_gpu = max(0, on_gpu_kinds.count(kind) - (count - cached))
        device += layers_on_gpu * size
        host += (cached - layers_on_gpu) * size
    n_kv = n_ctx if spec.attends else 0  # one stream per sequence: attention spans that sequence's cells
    out_term = 4 * (n_ub * spec.vocab + n_ub * spec.hidden)
    if flash:
        ffn = spec.moe.ffn * spec.moe.per_token if spec.moe is not None else spec.ffn
        compute = max(out_term, 4 * n_ub * (3 * ffn + spec.hidden))
    else:
        compute = max(4 * n_ub * (1 + 4 * spec.hidden + n_kv * (spec.heads + 1)), out_term)
    host_compute = 4 * n_ub * (spec.hidden + (0 if flash else n_kv))
    return LlamaCppLayout(n_ctx=n_ctx, n_seq=n_seq, n_ub=n_ub, kv_device_bytes=device, kv_host_bytes=host,
                          compute_bytes=compute if on_gpu else 0, host_compute_bytes=host_compute,
                          layers_on_gpu=repeating_on_gpu, output_on_gpu=output_on_gpu)


def recurrent_state_said(spec: ModelSpec) -> tuple[Phrase, ...]:
    """The recurrent layers' part of the cache, in words: llama_memory_recurrent's F32 state per sequence."""
    counts = spec.recurrent_counts()
    if not counts:
        return ()
    state = sum(n * spec.state_bytes_of(kind, 4, trim=1, state_e=4) for kind, n in counts)
    return (phrase("llamacpp.kv_state", layers=sum(n for _, n in counts), state=format_binary(state)),)


def llama_server_command(workload: Workload, model: str) -> str:
    """llama-server's flags for the plan: -c is every slot's context together (llama.cpp gives each of the
    -np slots its share), -ngl the layers on the GPU (all: 999), the experts kept in RAM, the cache types."""
    layout = llamacpp_layout(workload.model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
                             flash=uses_flash(workload.attention), type_k=Precision.FP16, type_v=Precision.FP16,
                             gpu_layers=workload.gpu_layers)
    kv_default = workload.kv_precision or Precision.FP16
    type_k, type_v = workload.kv_precision_k or kv_default, workload.kv_precision_v or kv_default
    flags = [f"llama-server -m {model}", f"-c {layout.n_ctx * layout.n_seq}",
             f"-ngl {999 if workload.gpu_layers is None else workload.gpu_layers}"]
    if workload.override_tensor:  # before --n-cpu-moe's own patterns, as the plan reads them
        flags.append("-ot " + quoted(",".join(f"{pattern}={device}" for pattern, device in workload.override_tensor)))
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
    return " ".join(flags)


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


Overrides = tuple[tuple[str, str], ...]  # --override-tensor: (pattern, buffer type), the first match wins


def device_of(name: str, overrides: Overrides) -> bool | None:
    """Where --override-tensor puts the tensor `name`: on the GPU (True), in RAM (False) or, matched by
    no pattern, where its layer is (None). llama-model-loader.cpp: std::regex_search of each pattern in
    order over the tensor's name; the first that matches decides."""
    for pattern, device in overrides:
        if re.search(pattern, name):
            return device != "CPU"
    return None


_LAYER_PREFIX = re.compile(r"blk\.(\d+)\.")


def _only_layer(pattern: str) -> int | None:
    """N, when the pattern can find only layer N's tensors: parsed, it begins with the literal characters
    `blk.N.` and has no alternative at its top (names hold `blk.` once, at their start); else None."""
    try:
        items = re._parser.parse(pattern).data  # type: ignore[attr-defined]
    except re.error:
        return None
    if any(str(op) == "BRANCH" for op, _ in items):
        return None
    head = ""
    for op, arg in items:
        if str(op) != "LITERAL":
            break
        head += chr(arg)
    match = _LAYER_PREFIX.match(head)
    return int(match.group(1)) if match else None


@functools.lru_cache(maxsize=64)
def _layer_devices(spec: ModelSpec, overrides: Overrides) -> tuple[tuple[bool | None, ...], ...]:
    """device_of every tensor of every layer, named as in the GGUF file (blk.N.…), matched once; each layer
    tries only the patterns that can find it (in their order), so that one pattern per layer (llama.cpp's
    own fit writes such lists) costs a pass over the tensors, not layers × patterns searches."""
    names = {key: [t.name.split(".", 2)[2] for t in layer_tensors(spec, index)] for key, index, _ in spec.layer_groups}
    layer_of = [_only_layer(pattern) for pattern, _ in overrides]
    devices = []
    for i, key in enumerate(spec.layer_keys):
        tried = tuple(o for o, layer in zip(overrides, layer_of, strict=True) if layer is None or layer == i)
        devices.append(tuple(device_of(f"blk.{i}.{name}", tried) for name in names[key]) if tried
                       else (None,) * len(names[key]))
    return tuple(devices)


def moved(spec: ModelSpec, stack: weights.LayerBytes, *, first_gpu_layer: int, cpu_moe: int,
          overrides: Overrides) -> tuple[float, float]:
    """(other tensors, routed experts): the bytes of layer tensors that --n-cpu-moe and --override-tensor
    keep in RAM although their layer is on the GPU, less those they put on the GPU from a layer in RAM.
    --n-cpu-moe N is llama.cpp's pattern `blk\\.i\\.ffn_(up|down|gate)_exps` to the CPU for i < N, placed
    after the user's own (common/arg.cpp); its tensors are the routed experts (role `expert`)."""
    if not overrides:  # the common case, without a walk over the tensors
        return 0.0, float(sum(weights.expert_bytes(spec, stack)[first_gpu_layer:cpu_moe]))
    roles = {key: [t.role is Role.EXPERT for t in layer_tensors(spec, index)] for key, index, _ in spec.layer_groups}
    dense = experts = 0.0
    for i, ((key, sizes), places) in enumerate(zip(stack.layers, _layer_devices(spec, overrides), strict=True)):
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


@dataclasses.dataclass(frozen=True)
class Placed:
    """The weights' bytes on each device, and what --n-cpu-moe and -ot moved from the layers' own places."""

    device: float
    host: float
    dense: float  # see LlamaCppLayout.moved_dense
    experts: float
    head_on_gpu: bool


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
        on_gpu = (layout.output_on_gpu and tensor.name.startswith("output")) if place is None else place
        if tensor.name.startswith("output.weight") or (tensor.name == "token_embd.weight" and model.tie_embeddings):
            head_on_gpu = layout.output_on_gpu if place is None else place
        if on_gpu:
            device += size
        else:
            host += size
        if tensor.name == "token_embd.weight" and model.tie_embeddings and head_on_gpu and not on_gpu:
            device += size
    return Placed(device=device, host=host, dense=dense, experts=experts, head_on_gpu=head_on_gpu)


def llamacpp_breakdown(workload: Workload) -> EngineBreakdown:
    """llama.cpp: weights and cache split between the GPU and system RAM by --gpu-layers, and the
    compute buffers its graph reserves."""
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    kv_default = workload.kv_precision or Precision.FP16
    type_k = workload.kv_precision_k or kv_default
    type_v = workload.kv_precision_v or kv_default
    layout = llamacpp_layout(
        model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
        flash=uses_flash(workload.attention), type_k=type_k, type_v=type_v, gpu_layers=workload.gpu_layers)
    stack = weights.stack(model, fmt, group_size=workload.group_size,
                          nominal_bits=weights.nominal_bits(workload.precision))
    cpu_moe = cpu_moe_layers(workload)
    placed = place_weights(model, stack, layout, cpu_moe=cpu_moe, overrides=workload.override_tensor)
    device_weights, host_weights = round(placed.device), round(placed.host)  # a variant's average layers
    layout = dataclasses.replace(layout, cpu_moe_layers=cpu_moe, moved_dense=placed.dense,
                                 moved_experts=placed.experts, head_on_gpu=placed.head_on_gpu)
    if device_weights and not layout.compute_bytes:  # -ngl 0, tensors on the GPU by -ot: the GPU computes too
        layout = dataclasses.replace(layout, compute_bytes=llamacpp_layout(
            model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
            flash=uses_flash(workload.attention), type_k=type_k, type_v=type_v, gpu_layers=None).compute_bytes)
    overhead = workload.overhead_bytes if device_weights or layout.kv_device_bytes else 0
    split = phrase("llamacpp.split", gpu=layout.layers_on_gpu, layers=model.layers,
                    output="" if layout.output_on_gpu else phrase("llamacpp.no_output"),
                    host=format_binary(host_weights))
    experts_in_ram: tuple[Phrase, ...] = (phrase("llamacpp.cpu_moe", layers=cpu_moe),) if cpu_moe else ()
    if workload.override_tensor:  # what -ot itself moved: against the same plan without it
        net = round(place_weights(model, stack, layout, cpu_moe=cpu_moe, overrides=()).device - placed.device)
        experts_in_ram += (phrase("llamacpp.override_ram" if net >= 0 else "llamacpp.override_gpu",
                                  bytes=format_binary(abs(net))),)
    components = (
        Component(key="weights", bytes=device_weights, explain=lambda: (
            *weights_bytes(workload).formula, "; ", split, *experts_in_ram)),
        no_component("gradients", "gradients.none"),
        no_component("optimizer", "optimizer.none"),
        no_component("master_weights", "master_weights.none"),
        Component(key="kv_cache", bytes=layout.kv_device_bytes, explain=lambda: (phrase(
            "llamacpp.kv", n_seq=layout.n_seq, n_ctx=f"{layout.n_ctx:,}", k=type_k.value, v=type_v.value,
            bytes=format_binary(layout.kv_device_bytes), host=format_binary(layout.kv_host_bytes)),
            *recurrent_state_said(workload.model))),
        Component(key="activations", bytes=layout.compute_bytes, explain=lambda: phrase(
            "llamacpp.compute", n_ub=layout.n_ub, flash="on" if uses_flash(workload.attention) else "off",
            bytes=format_binary(layout.compute_bytes))),
        no_component("logits", "llamacpp.logits"),
        given_overhead(workload, overhead, "llama.cpp", LLAMACPP_CUDA_OVERHEAD, lambda: phrase(
            "llamacpp.overhead", bytes=format_binary(overhead))),
    )
    host = host_weights + layout.kv_host_bytes + layout.host_compute_bytes
    device = device_weights + layout.kv_device_bytes + layout.compute_bytes + overhead
    facts = LlamaCppFacts(layout=layout, device_bytes=device, host_bytes=host)
    return EngineBreakdown(components=components, facts=facts, host_bytes=host)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LlamaCppFacts:
    """What llama.cpp would allocate on each device for this workload."""

    layout: LlamaCppLayout
    device_bytes: int
    host_bytes: int

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
                "cpu_moe_layers": layout.cpu_moe_layers}


# ---------------------------------------------------------------- llama.cpp's own input keys
# (inputs/options.py gathers them)


_SHOWN = {"runtime": ("llamacpp",), "mode": ("inference",)}
_GGUF_SHOWN = {"runtime": ("llamacpp", "ollama"), "mode": ("inference",)}  # Ollama's num_gpu, num_batch, parallel
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
    Option(key="gpu_layers", default="", group="engine", metavar="N",
           help="llama.cpp: layers on the GPU, the output layer first (default all)",
           parse=optional(lambda t: parse_int("gpu_layers", t, 0, MAX_LAYERS + 1)), shown_when=_GGUF_SHOWN),
    Option(key="ubatch", default=str(DEFAULT_UBATCH), group="engine", metavar="N", help="llama.cpp micro-batch (512)",
           parse=lambda t: parse_tokens("ubatch", t, 1, 65536), shown_when=_GGUF_SHOWN),
    Option(key="parallel", default="1", group="engine", metavar="N",
           help="llama.cpp: sequences, each with its own context (1)",
           parse=lambda t: parse_int("parallel", t, 1, MAX_PARALLEL), shown_when=_GGUF_SHOWN),
    Option(key="kv_precision_k", default="", group="engine", metavar="TYPE",
           help="llama.cpp --cache-type-k (default: --kv-precision)",
           parse=lambda t: None if t == "" else parse_choice("kv_precision_k", t, Precision), shown_when=_SHOWN),
    Option(key="kv_precision_v", default="", group="engine", metavar="TYPE",
           help="llama.cpp --cache-type-v (default: --kv-precision)",
           parse=lambda t: None if t == "" else parse_choice("kv_precision_v", t, Precision), shown_when=_SHOWN),
)


class LlamaCpp:
    """llama.cpp (and Ollama and LM Studio, which run it): GGUF files, layers split by --gpu-layers."""

    options: tuple[Option, ...] = OPTIONS
    runtime = Runtime.LLAMACPP
    kv_formats = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0)
    weight_ladder = ("f16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "iq4_xs", "q3_k_l", "q3_k_m",
                     "iq3_m", "q3_k_s", "iq3_xxs", "q2_k", "iq2_m", "iq2_xs", "iq2_xxs", "iq1_m")
    kv_ladder = (Precision.FP16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0)
    batch_key = "parallel"  # its sequences are --parallel slots
    max_batch: int | None = MAX_PARALLEL
    rank_overhead_bytes = 0
    keeps_activation_peak_whole = False

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return LLAMACPP_CUDA_OVERHEAD

    def check(self, workload: Workload) -> None:
        refuse_training(workload)
        layers = workload.model.layers
        if workload.gpu_layers is not None and workload.gpu_layers > layers + 1:
            raise ValidationError("gpu_layers", str(workload.gpu_layers),
                                  f"at most {layers + 1} (the model's {layers} layers and its output layer)")
        fmt = workload.precision
        if isinstance(fmt, WeightFormat) and fmt.kind != "gguf":
            raise ValidationError("precision", fmt.name, "llama.cpp runs GGUF files: choose a GGUF type (q4_k_m, "
                                                         "q8_0, f16, ...) or a nominal precision")
        check_kv_formats(workload, ("kv_precision", "kv_precision_k", "kv_precision_v"), self.kv_formats)

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        """The checkpoint as published is a GGUF file: gpt-oss's is ggml-org's MXFP4_MOE (experts in MXFP4,
        the rest Q8_0). llama.cpp has no FP8 type, so an FP8 checkpoint has no GGUF of its own."""
        if precision not in (weights.AUTO, weights.NATIVE):
            return precision
        if weights.keeps_mxfp4_experts(model):
            return weights.parse_format("mxfp4_moe") or precision
        if precision is weights.AUTO:
            return Precision.BF16
        raise ValidationError("precision", "native", f"llama.cpp has no GGUF type for {model.display_name}'s "
                                                     "own format: choose a GGUF type (q8_0, q4_k_m, ...)")

    def notes(self, workload: Workload) -> tuple[str, ...]:
        if weights.keeps_mxfp4_experts(workload.model):
            return ("note.ollama", "note.gguf_mxfp4_experts")
        return ("note.ollama",)

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        return (llama_server_command(workload, model),)

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        """Several GPUs: llama.cpp's default split by layers (--split-mode layer), one stage per GPU; more
        GPUs than layers would leave some empty, so they are refused (as `check` refuses pp > layers)."""
        if gpus > model.layers:
            raise ValidationError("gpus", gpus, f"llama.cpp splits the model's {model.layers} layers across the "
                                                f"GPUs: at most {model.layers} GPUs")
        if gpus > 1:
            return Layout(pp=gpus)
        return default_layout(model, gpus, training=training)

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        return llamacpp_breakdown(workload)

    def rank_pool(self, workload: Workload, facts: EngineFacts | None, components: Mapping[str, int],
                  kv_share: float, *, whole: bool) -> RankPool | None:
        return None


    def settings_that_fit(self, workload: Workload, fits: Callable[[Workload], bool]) -> tuple[Phrase, ...]:
        return ()

    def on_layout(self, breakdown: Breakdown, pool: RankPool, layout: Layout) -> Breakdown:
        return breakdown


ENGINE = LlamaCpp()


MAX_OVERRIDES = 64
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


GPU_BUFFERS = re.compile(r"(CUDA|ROCm|MUSA|Vulkan|MTL|SYCL|CANN|OpenCL)(\d+)")  # ggml's device buffer types
MAX_REPEATS = 3  # per pattern: a name of ~30 characters then costs at most ~30^3 steps to search
# Syntax where Python's re and llama.cpp's std::regex (ECMAScript) part ways: lookbehind, named groups and
# inline flags (std::regex throws), \A \Z \z \G (literal letters there), POSIX classes (a set of ':' here),
# and a '{' that is no quantifier (an error there, a literal here)
_DIALECT = re.compile(r"\(\?(?![:=!])|\\[AZzG]|\[\[:|\{(?!\d+(,\d*)?\})")


def parse_overrides(field: str, text: str) -> Overrides:
    """`PATTERN=DEVICE,...` as llama.cpp's -ot reads it (common/arg.cpp: split at commas, then at the
    first '='), each pattern a regular expression, each device CPU or the first GPU's buffer type (CUDA0,
    ROCm0, Vulkan0, MTL0, SYCL0, ...). Python's re reads the patterns in place of std::regex (ECMAScript):
    syntax where the two differ is refused (_DIALECT), and so are patterns whose search could take
    exponential or long polynomial time (a repetition of a repetition or of alternatives; more than
    MAX_REPEATS repetitions), so that no link can stall the page."""
    text = text.strip()
    if not text:
        return ()
    items = text.split(",")
    if len(items) > MAX_OVERRIDES or len(text) > 4000:
        raise ValidationError(field, text, f"at most {MAX_OVERRIDES} patterns")
    overrides = []
    for item in items:
        pattern, equals, device = item.partition("=")
        if not equals or not pattern:
            raise ValidationError(field, item, "expected PATTERN=DEVICE, e.g. blk\\.[0-9]+\\.ffn_.*_exps=CPU")
        gpu = GPU_BUFFERS.fullmatch(device)
        if device != "CPU" and gpu is None:
            raise ValidationError(field, device, "the device is CPU or the GPU's buffer type: CUDA0, ROCm0, Vulkan0, "
                                                 "MTL0, SYCL0")
        if gpu is not None and gpu.group(2) != "0":
            raise ValidationError(field, device, "llama.cpp's weights are placed on one GPU here: use its "
                                                 "first device (CUDA0, ROCm0, Vulkan0, MTL0) or CPU")
        if _DIALECT.search(pattern):
            raise ValidationError(field, pattern, "uses syntax llama.cpp's regular expressions (ECMAScript) read "
                                                  "otherwise: (?<..), (?P..), (?i), \\A, \\Z, [[:..:]] or a bare {")
        try:
            parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
        except re.error as error:
            raise ValidationError(field, pattern, f"not a regular expression ({error})") from None
        if _slow(parsed.data, inside=False) or _repeats(parsed.data) > MAX_REPEATS:
            raise ValidationError(field, pattern, "a repetition of a repetition or of alternatives, e.g. (a+)+ "
                                                  f"or (a|b)*, or more than {MAX_REPEATS} repetitions, can take "
                                                  "very long to search: write the pattern without them")
        overrides.append((pattern, device))
    return tuple(overrides)


def _children(arg: object) -> list[list[tuple[object, object]]]:
    """The parsed sub-patterns inside one item's argument."""
    found = []
    for child in arg if isinstance(arg, (tuple, list)) else ():
        for sub in (child if isinstance(child, list) else [child]):
            if hasattr(sub, "data"):
                found.append(sub.data)
    return found


def _slow(items: list[tuple[object, object]], *, inside: bool) -> bool:
    """Whether a parsed pattern repeats (more than once) something that itself repeats or branches."""
    for op, arg in items:
        repeat = str(op) in _REPEATS and isinstance(arg, tuple) and arg[1] > 1
        if inside and (repeat or str(op) == "BRANCH"):
            return True
        if any(_slow(sub, inside=inside or repeat) for sub in _children(arg)):
            return True
    return False


def _repeats(items: list[tuple[object, object]]) -> int:
    """How many repetitions (of more than one) a parsed pattern holds."""
    return sum((str(op) in _REPEATS and isinstance(arg, tuple) and arg[1] > 1)
               + sum(_repeats(sub) for sub in _children(arg)) for op, arg in items)
