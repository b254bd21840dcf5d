"""llama.cpp as an engine (and the base of Ollama's): its facts, checks, notes and command line. The memory it takes
is llamacpp.py's; the layers it places over several cards are llamacpp_fit_gpus.py's, which builds on it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Option
from ..core.phrase import Phrase, phrase
from ..core.search import first_true
from ..core.units import format_binary
from ..formats import weights
from ..formats.weights import WeightFormat
from ..memory.activations import embedding_components
from ..memory.components import Component
from ..memory.speech import whisper_cpp_components
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.encoder import ggml_forward_bytes
from ..model.tensor import Role
from ..parallel.layout import Layout, default_layout
from ..sources.gpus import GpuKind
from ..workload import Workload
from .base import EngineBreakdown, NoPool, check_kv_formats, refuse_training
from .cards import CardRule
from .llamacpp import (
    KV_FORMATS,
    LLAMACPP_PAD,
    MAX_PARALLEL,
    NO_GGUF_ENCODERS,
    OPTIONS,
    check_draft,
    llama_server_command,
    llamacpp_breakdown,
    llamacpp_overhead,
    overhead_row,
    pad,
    reranks,
    server_outputs,
    uses_flash,
)
from .llamacpp_fit_gpus import device_plan, free_on


class LlamaCpp(NoPool):
    """llama.cpp (and Ollama and LM Studio, which run it): GGUF files, layers split by --gpu-layers."""

    options: tuple[Option, ...] = OPTIONS
    runtime = Runtime.LLAMACPP
    kv_formats = KV_FORMATS  # --cache-type-k and -v
    weight_ladder = ("f16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "iq4_xs", "q3_k_l", "q3_k_m",
                     "iq3_m", "q3_k_s", "iq3_xxs", "q2_k", "iq2_m", "iq2_xs", "iq2_xxs", "iq1_m")
    kv_ladder = (Precision.FP16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0)
    # ggml's CUDA, ROCm, Metal and Vulkan backends run every GGUF type and cache type on every card listed
    card_rules: tuple[CardRule, ...] = ()
    batch_key = "parallel"  # its sequences are --parallel slots
    max_batch: int | None = MAX_PARALLEL
    rank_overhead_bytes = 0
    keeps_activation_peak_whole = False

    def settings_that_fit(self, workload: Workload, fits: Callable[[Workload], bool]) -> tuple[Phrase, ...]:
        """llama-server's own ways to fit a model larger than the card, all layers asked on the GPU: a mixture of
        experts keeps the routed experts of its first N layers in RAM (--n-cpu-moe, the fewest N), any other
        model its last layers (-ngl, the most on the GPU). Ollama places layers itself (its fit)."""
        if (workload.runtime is not Runtime.LLAMACPP or workload.gpu_layers is not None or workload.cpu_moe
                or workload.n_cpu_moe or workload.override_tensor or workload.transcribes):
            return ()
        layers = workload.model.layers
        if workload.model.moe is not None:
            least = first_true(lambda n: fits(workload.but(n_cpu_moe=n)), 1, layers)
            if least is not None:
                return (phrase("change.n_cpu_moe", value=least),)
        off = first_true(lambda k: fits(workload.but(gpu_layers=layers - k)), 1, layers)  # the fewest layers off
        return () if off is None else (phrase("change.gpu_layers", value=layers - off, layers=layers + 1),)

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return llamacpp_overhead(fields.get("gpu"))

    def check(self, workload: Workload) -> None:
        refuse_training(workload)
        fmt = workload.precision
        if isinstance(fmt, WeightFormat) and fmt.kind != "gguf":
            raise ValidationError("precision", fmt.name, "llama.cpp runs GGUF files: choose a GGUF type (q4_k_m, "
                                                         "q8_0, f16, ...) or a nominal precision")
        check_kv_formats(workload, ("kv_precision", "kv_precision_k", "kv_precision_v"), self.kv_formats)
        check_draft(workload)
        if workload.model.count_kind(AttentionKind.CROSS):  # no LLM_ARCH_MLLAMA, no converter (0c1e57098bba)
            raise ValidationError("runtime", workload.runtime.value, "llama.cpp has no Llama 3.2 Vision (mllama) "
                                  "graph: neither its converter nor its source at 0c1e57098bba reads one")
        encoder = workload.model.encoder
        if encoder is not None and encoder.family == "gte":  # convert_hf_to_gguf.py has no NewModel
            raise ValidationError("runtime", workload.runtime.value, "llama.cpp has no GTE (NewModel) graph: its "
                                  "converter refuses the checkpoints (ggml-org/llama.cpp#6821)")
        if encoder is not None and encoder.family in NO_GGUF_ENCODERS:
            raise ValidationError("runtime", workload.runtime.value, f"llama.cpp has no {encoder.family} graph: its "
                                  "converter (conversion/bert.py) takes BERT, CamemBERT, DistilBERT, RoBERTa, XLM-R, "
                                  "nomic-bert, JinaBERT and ModernBERT encoders")
        if workload.mtp:
            if workload.devices > 1 or workload.cards:
                raise ValidationError("mtp", workload.mtp, "llama.cpp's MTP context is modelled on one GPU for now")
            check_kv_formats(workload, ("draft_kv_precision",), self.kv_formats)

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        """The checkpoint as published is a GGUF file: gpt-oss's is ggml-org's MXFP4_MOE (experts in MXFP4,
        the rest Q8_0); DeepSeek-V4's is what its converter writes (conversion/deepseek.py at 0c1e57098bba,
        `_write_mxfp4_expert_tensor`): the FP4 experts repacked into MXFP4 as they are, the FP8 layers dequantised
        to Q8_0, the file type MOSTLY_MXFP4_MOE. llama.cpp has no FP8 type, so an FP8 checkpoint has no GGUF of
        its own; `auto` is then bf16."""
        if precision not in (weights.AUTO, weights.NATIVE):
            return precision
        if weights.keeps_mxfp4_experts(model) or model.native_format.startswith(weights.FP4_EXPERTS):
            return weights.parse_format("mxfp4_moe") or precision
        if precision is weights.AUTO:
            return Precision.BF16
        raise ValidationError("precision", "native", f"llama.cpp has no GGUF type for {model.display_name}'s "
                                                     "own format: choose a GGUF type (q8_0, q4_k_m, ...)")

    def notes(self, workload: Workload) -> tuple[str, ...]:
        if workload.transcribes:
            return ("note.whisper_cpp",)
        # --n-cpu-moe and --cpu-moe match ffn_*_exps tensors, which a dense model has none of: they move nothing
        dense = ("note.no_experts_to_move",) if (workload.n_cpu_moe or workload.cpu_moe) and not workload.model.is_moe \
            else ()
        if (workload.runtime is Runtime.LLAMACPP and workload.devices > 1 and workload.gpu is not None
                and workload.gpu.kind is GpuKind.APPLE):
            dense = (*dense, "note.llamacpp_rpc")  # one GPU a Mac: several are several machines
        if weights.keeps_mxfp4_experts(workload.model):
            return ("note.ollama", "note.gguf_mxfp4_experts", *dense)
        return ("note.ollama", *dense)

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        """llama-server's line; on mixed cards or with -ts, --tensor-split in each GPU's layers of the plan."""
        if workload.transcribes:  # whisper.cpp's command line: its beam size, and best_of 5 for the fallback
            off = "" if uses_flash(workload.attention) else " -nfa"  # flash attention is its default
            return (f"whisper-cli -m {model} -f audio.wav -bs {workload.beams} -bo 5{off}",)
        split: tuple[int, ...] = ()
        if workload.cards or workload.tensor_split:
            split = device_plan(workload, free_on(workload, layout.gpus)).layers
        return (llama_server_command(workload, model, split),)

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
        if workload.transcribes:  # a Whisper model: whisper.cpp, ggml's other program
            held = overhead_row(workload, workload.held_bytes)
            return EngineBreakdown(components=whisper_cpp_components(workload, held))
        if workload.embeds and workload.model.encoder is not None:  # --embedding: one n_ubatch, no KV cache
            held = overhead_row(workload, workload.held_bytes)
            model, flash, seqs = workload.model, uses_flash(workload.attention), server_outputs(workload.parallel)
            encoder = workload.model.encoder
            n = min(pad(workload.seq, LLAMACPP_PAD) * workload.parallel, workload.ubatch)  # min(n_ctx, n_ubatch)
            size = ggml_forward_bytes(model.hidden, model.ffn, model.heads, tokens=n, seqs=seqs, flash=flash,
                                      pooling="rank" if reranks(model) else "cls", family=encoder.family,
                                      gated=model.gated_mlp)
            graph = Component(key="activations", bytes=size, explain=lambda: phrase(
                "llamacpp.embedding_compute", n=f"{n:,}", seqs=seqs, flash="on" if flash else "off",
                bytes=format_binary(size)))
            components = tuple(graph if c.key == "activations" else c for c in embedding_components(
                workload, batch=1, seq=n, engine="llama.cpp", overhead=held))
            fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
            stack = weights.stack(workload.model, fmt, group_size=workload.group_size,
                                  nominal_bits=weights.nominal_bits(workload.precision))
            # the input layer (token, position and token-type embeddings: LLM_TENSOR_LAYER_INPUT) stays in RAM
            host = round(sum(size for tensor, size in stack.outside if tensor.role is Role.EMBEDDING))
            weighed = components[0]
            return EngineBreakdown(components=(Component(key="weights", bytes=weighed.bytes - host, explain=lambda: (
                *weighed.formula, phrase("llamacpp.input_ram", bytes=format_binary(host)))), *components[1:]),
                host_bytes=host)
        return llamacpp_breakdown(workload)


ENGINE = LlamaCpp()
