"""Ollama: llama.cpp's memory (it runs llama-server) under Ollama's own defaults. Sources in
docs/research/engines.md §1d and §4.2 (ollama/ollama at fb30760, 2026-08-21).

What it changes: the context. Ollama allocates `num_ctx` tokens per sequence whatever the request's
length (longer prompts are cut), and when `num_ctx` is not set it picks it from the GPUs' memory
(server/routes.go, since v0.15.5): 262,144 tokens from 47 GiB, 32,768 from 23 GiB, else 4,096, never
more than the model's own context. It runs one sequence at a time (OLLAMA_NUM_PARALLEL, 1 since
v0.9.7), flash attention where the GPU has it, one cache type for K and V (OLLAMA_KV_CACHE_TYPE);
the rest is llama.cpp's, which this engine reuses."""

from __future__ import annotations

import dataclasses

from ..core.choices import Attention, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Option, optional, parse_tokens
from ..core.phrase import phrase
from ..core.units import GIB
from ..memory.components import Component
from ..parallel.layout import Layout
from ..sources.hf_config import MAX_POSITIONS
from ..workload import Workload
from .base import EngineBreakdown
from .llamacpp import DEFAULT_UBATCH, LlamaCpp, llamacpp_breakdown
from .llamacpp_overrides import overrides_text

# (GiB of GPU memory at least, default num_ctx), the first that holds: server/routes.go
CONTEXT_TIERS = ((47, 262_144), (23, 32_768), (0, 4_096))

OPTIONS = (
    Option(key="num_ctx", default="", group="engine", metavar="N",
           help="Ollama's num_ctx: the context it allocates per sequence (default: by the GPU's memory)",
           parse=optional(lambda t: parse_tokens("num_ctx", t, 1, MAX_POSITIONS)),
           shown_when={"runtime": ("ollama",), "mode": ("inference",)}),
)


def num_ctx(workload: Workload) -> tuple[int, bool]:
    """The context Ollama allocates per sequence, and whether the user set it. Its default is tiered by
    the GPU's memory (one card's: the page sizes one kind of card) and capped at the model's context."""
    if workload.num_ctx is not None:
        return workload.num_ctx, True
    memory = workload.gpu.usable_bytes if workload.gpu is not None else 0
    tier = next(ctx for gib, ctx in CONTEXT_TIERS if memory >= gib * GIB)
    return min(tier, workload.model.max_positions or tier), False


class Ollama(LlamaCpp):
    """Ollama: llama.cpp's engine with Ollama's context, sequences and cache defaults."""

    options = OPTIONS
    runtime = Runtime.OLLAMA

    def check(self, workload: Workload) -> None:
        super().check(workload)
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
        return tuple(note for note in super().notes(workload) if note != "note.ollama")

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        ctx, given = num_ctx(workload)
        held = llamacpp_breakdown(workload.but(seq=ctx, kv_precision_k=None, kv_precision_v=None))
        why = phrase("ollama.ctx_given" if given else "ollama.ctx_default", ctx=f"{ctx:,}",
                     cut=phrase("ollama.cut", seq=f"{workload.seq:,}") if workload.seq > ctx else "")

        def with_ctx(component: Component) -> Component:
            if component.key != "kv_cache":
                return component
            return dataclasses.replace(component, explain=lambda: (why, "; ", *component.formula))

        return dataclasses.replace(held, components=tuple(map(with_ctx, held.components)))


ENGINE = Ollama()
