"""Ollama: llama.cpp's memory (it runs llama-server) under Ollama's own defaults, as each version set
them. Sources in docs/research/engines.md §1d and §4.2 (ollama/ollama at fb30760, v0.33.0-rc2; each
change found with `git log -S` and dated by `git describe --contains`).

What it changes: the context. Ollama allocates `num_ctx` tokens per sequence whatever the request's
length (longer prompts are cut); when `num_ctx` is not set, 2,048 tokens before v0.6.7, 4,096 until
v0.15.4, then by the GPUs' memory (server/routes.go): 262,144 tokens from 47 GiB, 32,768 from 23 GiB,
else 4,096; never more than the model's own context. The sequences: one since v0.9.7; before, when
OLLAMA_NUM_PARALLEL was not set, as many as its default (4 from v0.1.49, 2 from v0.6.7) if the model
then fitted the GPU whole, else one (server/sched.go pickBestFullFitByLibrary). One cache type for K and
V (OLLAMA_KV_CACHE_TYPE, from v0.4.8). The placement: since v0.30 llama-server's own --fit when num_gpu
is not set (engines/llamacpp_fit.py: the breakdown is of the layers it leaves on the card); before, Ollama's
own estimate (llm/memory.go), which is not reproduced here: all layers on the card. The rest is llama.cpp's,
which this engine reuses."""

from __future__ import annotations

import dataclasses

from ..core.choices import Attention, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Option, optional, parse_tokens, parse_version
from ..core.phrase import phrase
from ..core.units import GIB
from ..memory.components import Component
from ..model.families.decoder.spec import AttentionKind
from ..parallel.layout import Layout
from ..sources.fields import MAX_POSITIONS
from ..workload import Workload
from .base import EngineBreakdown
from .llamacpp import DEFAULT_UBATCH, LlamaCppFacts, llamacpp_breakdown
from .llamacpp_engine import LlamaCpp
from .llamacpp_fit import FitPlan, llamacpp_fit
from .llamacpp_overrides import overrides_text

# (GiB of GPU memory at least, default num_ctx), the first that holds: server/routes.go
CONTEXT_TIERS = ((47, 262_144), (23, 32_768), (0, 4_096))

Version = tuple[int, int, int]
READ: Version = (0, 33, 0)  # the source read; a later version is taken to behave as it
CTX_4096: Version = (0, 6, 7)  # 44b466eeb: the default context from 2,048 to 4,096 tokens
CTX_BY_VRAM: Version = (0, 15, 5)  # 0334ffa62: the default context tiered by the GPUs' memory
KV_CACHE_TYPE: Version = (0, 4, 8)  # 1bdab9fdb: OLLAMA_KV_CACHE_TYPE (f16 before)
LLAMA_SERVER: Version = (0, 30, 0)  # 9db4bdbad: llama-server runs GGUF models; num_gpu unset: its --fit
# (first version, sequences Ollama tries when OLLAMA_NUM_PARALLEL is not set), the last that holds:
# 9929751cc (4, backing off to 1 when the model does not fit whole), fe5b9bb21 (2), 20c3266e9 (1)
AUTO_PARALLEL = (((0, 0, 0), 1), ((0, 1, 49), 4), ((0, 6, 7), 2), ((0, 9, 7), 1))


def parse_ollama_version(field: str, text: str) -> Version | None:
    """An Ollama version as `ollama -v` prints it (0.15.5, v0.6.7, 0.9): empty is the latest read."""
    version = parse_version(field, text, "0.15.5, as `ollama -v` prints it")
    if version is not None and version < (0, 1, 0):
        raise ValidationError(field, text, "Ollama's first release was 0.1.0")
    return version


def version_of(workload: Workload) -> Version:
    return workload.ollama_version or READ


def auto_parallel(workload: Workload) -> int:
    """The sequences Ollama tries first when OLLAMA_NUM_PARALLEL is not set (here: parallel left at 1)."""
    version = version_of(workload)
    return [n for first, n in AUTO_PARALLEL if version >= first][-1] if workload.parallel == 1 else 1

OPTIONS = (
    Option(key="num_ctx", default="", group="engine", metavar="N",
           help="Ollama's num_ctx: the context it allocates per sequence (default: by the GPU's memory)",
           parse=optional(lambda t: parse_tokens("num_ctx", t, 1, MAX_POSITIONS)),
           shown_when={"runtime": ("ollama",), "mode": ("inference", "embedding")}),
    Option(key="ollama_version", default="", group="engine", metavar="X.Y.Z",
           help="the Ollama version, whose defaults differ (context, sequences, placement; default: the latest read, "
                "0.33)", parse=lambda t: parse_ollama_version("ollama_version", t),
           shown_when={"runtime": ("ollama",), "mode": ("inference", "embedding")}),
)


def num_ctx(workload: Workload) -> tuple[int, bool]:
    """The context Ollama allocates per sequence, and whether the user set it. Its default: 2,048 tokens,
    4,096 from v0.6.7, then tiered by the GPUs' memory (one card's for several of one kind: the form sizes one
    card; a machine of different cards, their sum, as server/routes.go totals the GPUs), and capped at the
    model's context."""
    if workload.num_ctx is not None:
        return workload.num_ctx, True
    version = version_of(workload)
    memory = sum(card.usable_bytes for card in workload.cards) if workload.cards else (
        workload.gpu.usable_bytes if workload.gpu is not None else 0)
    if version >= CTX_BY_VRAM:
        tier = next(ctx for gib, ctx in CONTEXT_TIERS if memory >= gib * GIB)
    else:
        tier = 4_096 if version >= CTX_4096 else 2_048
    return min(tier, workload.model.max_positions or tier), False


def context_key(workload: Workload) -> str:
    """The Workload field "the longest sequence" varies: Ollama allocates num_ctx whatever the request's length (an
    encoder's embeddings excepted: llama.cpp's, at the sequence), so a longer sequence costs nothing there."""
    if workload.runtime is Runtime.OLLAMA and not (workload.embeds and workload.model.encoder is not None):
        return "num_ctx"
    return "seq"


def fitted(run: Workload, workload: Workload) -> FitPlan | None:
    """llama-server's own fit of Ollama's run (v0.30 on, num_gpu not set, one card), when it moves layers
    or experts off the card and the rest then fits; None when everything stays or nothing fits. The card's
    free memory is its usable memory less the CUDA context and other programs, as speed_answers.fit_plan has."""
    card = workload.gpu
    if card is None or workload.gpu_layers is not None or version_of(workload) < LLAMA_SERVER:
        return None
    if workload.devices > 1:  # several GPUs: its fit over them (speed_answers.fit_plan) is not the breakdown's yet
        return None
    plan = llamacpp_fit(run.but(runtime=Runtime.LLAMACPP), card.usable_bytes - workload.held_bytes)
    return plan if plan.changed and plan.fits else None


def within_context(workload: Workload) -> Workload:
    """The request as Ollama runs it, inside the context it allocates (`num_ctx`): a prompt and output longer
    than that have their prompt cut to leave the output its room (or half the context, for a longer output);
    what the speed is then of."""
    ctx = num_ctx(workload)[0]
    if workload.runtime is not Runtime.OLLAMA or workload.prompt + workload.output <= ctx:
        return workload
    output = min(workload.output, ctx // 2)
    return workload.but(seq=ctx, prompt_tokens=ctx - output, output_tokens=output)


def searched(workload: Workload) -> Workload:
    """What the reverse answers and the card table ask of Ollama: the model whole on the card (num_gpu: every
    layer), as they ask of llama.cpp. llama-server's fit, which moves layers off until almost anything runs,
    answers the headline only: searched over, it would answer "fits" everywhere, at a fit per trial."""
    if workload.runtime is Runtime.OLLAMA and workload.gpu_layers is None and version_of(workload) >= LLAMA_SERVER:
        return workload.but(gpu_layers=workload.model.layers + 1)
    return workload


class Ollama(LlamaCpp):
    """Ollama: llama.cpp's engine with Ollama's context, sequences and cache defaults."""

    options = OPTIONS
    runtime = Runtime.OLLAMA

    def check(self, workload: Workload) -> None:
        if workload.model.count_kind(AttentionKind.CROSS):  # before llama.cpp's refusal
            raise ValidationError("runtime", "ollama", "Ollama runs Llama 3.2 Vision with its own engine "
                                  "(model/models/mllama: a causal cache beside an encoder cache of the last image's "
                                  "tiles), which is not modelled; llama.cpp has no mllama graph")
        super().check(workload)
        if workload.embeds and workload.model.reranker is not None:
            raise ValidationError("runtime", "ollama", "Ollama has no reranking endpoint (ollama/ollama#3368): run "
                                                       "llama.cpp (llama-server --reranking)")
        for key in ("kv_precision_k", "kv_precision_v"):
            if getattr(workload, key) is not None:
                raise ValidationError(key, getattr(workload, key).value, "Ollama sets one cache type for K and V "
                                      "(OLLAMA_KV_CACHE_TYPE): give it as kv_precision")
        if workload.n_cpu_moe or workload.cpu_moe:
            raise ValidationError("n_cpu_moe" if workload.n_cpu_moe else "cpu_moe", str(workload.n_cpu_moe or 1),
                                  "Ollama has no --n-cpu-moe: run llama.cpp (llama-server) for experts in RAM")
        if workload.override_tensor:
            raise ValidationError("override_tensor", overrides_text(workload.override_tensor),
                                  "Ollama has no --override-tensor: run llama.cpp (llama-server) to place tensors")
        kv = workload.kv_precision
        if version_of(workload) < KV_CACHE_TYPE and kv is not None and kv is not Precision.FP16:
            raise ValidationError("kv_precision", kv.value, "Ollama before v0.4.8 caches keys and values in f16 "
                                                            "only (OLLAMA_KV_CACHE_TYPE came with v0.4.8)")

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        """The server's environment (one cache type for K and V, only with flash attention), then a
        Modelfile's lines: the context and, where set, the layers on the GPU and the micro-batch."""
        env = ["OLLAMA_FLASH_ATTENTION=1" if workload.attention is Attention.FLASH else "OLLAMA_FLASH_ATTENTION=0"]
        if workload.kv_precision is not None and workload.kv_precision is not Precision.FP16:
            env.append(f"OLLAMA_KV_CACHE_TYPE={workload.kv_precision.value}")
        if workload.parallel > 1:
            env.append(f"OLLAMA_NUM_PARALLEL={workload.parallel}")
        lines = [" ".join([*env, "ollama serve"]), f"# Modelfile\nFROM {model}",
                 f"PARAMETER num_ctx {num_ctx(workload)[0]}"]
        if workload.gpu_layers is not None:
            lines.append(f"PARAMETER num_gpu {workload.gpu_layers}")
        if workload.ubatch != DEFAULT_UBATCH:
            lines.append(f"PARAMETER num_batch {workload.ubatch}")
        return tuple(lines)

    def notes(self, workload: Workload) -> tuple[str, ...]:
        kept = tuple(note for note in super().notes(workload) if note != "note.ollama")
        full = workload.precision.is_float or workload.precision.value == "f16"  # 16 or 32 bits, or GGUF's F16
        return (*kept, "note.ollama_tags") if full and not workload.transcribes else kept

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        """llama.cpp's memory at Ollama's context and sequences: before v0.9.7, with OLLAMA_NUM_PARALLEL
        not set, its default number of sequences if the model then fits the card whole (all layers, its
        bytes within the card: this breakdown standing in for Ollama's own estimate), else one."""
        if workload.embeds and workload.model.encoder is not None:  # an encoder: llama.cpp's --embedding
            return super().breakdown(workload)
        ctx, given = num_ctx(workload)
        run = workload.but(seq=ctx, kv_precision_k=None, kv_precision_v=None)
        card = workload.gpu
        tried = auto_parallel(workload) if card is not None and workload.gpu_layers is None else 1
        held, kept = None, False
        outputs = None if version_of(workload) >= LLAMA_SERVER else run.ubatch  # its own runner: n_batch rows
        if card is not None and tried > 1:
            several = llamacpp_breakdown(run.but(parallel=tried), outputs=outputs)
            assert isinstance(several.facts, LlamaCppFacts)
            if kept := several.facts.device_bytes <= card.usable_bytes:
                held = several
        held = held or llamacpp_breakdown(run, outputs=outputs)
        plan = fitted(run, workload) if held.facts is not None and not kept else None
        if plan is not None:
            held = llamacpp_breakdown(run.but(gpu_layers=plan.gpu_layers, override_tensor=plan.overrides),
                                      outputs=outputs)
        version = version_of(workload)
        when = "" if given or version >= CTX_BY_VRAM else phrase(
            "ollama.before" if version < CTX_4096 else "ollama.between", version=".".join(map(str, version)))
        why = [phrase("ollama.ctx_given" if given else "ollama.ctx_default_fixed" if when else "ollama.ctx_default",
                      ctx=f"{ctx:,}", when=when,
                      cut=phrase("ollama.cut", seq=f"{workload.seq:,}") if workload.seq > ctx else "")]
        if tried > 1:
            why.append(phrase("ollama.parallel_kept" if kept else "ollama.parallel_fell", n=tried))

        placed = () if plan is None else (phrase(
            "ollama.fit", on_gpu=plan.gpu_layers, layers=workload.model.layers + 1,
            experts=phrase("ollama.fit_experts") if plan.overrides else ""), "; ")

        def with_ctx(component: Component) -> Component:
            if component.key == "weights" and placed:
                return dataclasses.replace(component, explain=lambda: (*placed, *component.formula))
            if component.key != "kv_cache":
                return component
            return dataclasses.replace(component, explain=lambda: (*why, "; ", *component.formula))

        return dataclasses.replace(held, components=tuple(map(with_ctx, held.components)))


ENGINE = Ollama()
