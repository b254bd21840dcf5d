"""What every engine answers, and the records it answers with.

An engine (transformers, vLLM, llama.cpp, ...) is one module of this package exposing an `ENGINE`
object that satisfies `Engine`; `engines/__init__.py` lists them in `ENGINES`. Everything an engine
decides beyond the shared components (its cache formats, its overhead, its checks, how it lays a model
over several GPUs, what it reserves on each) is asked of it here, so nothing outside its module
branches on which engine runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Protocol

from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Option
from ..core.phrase import Phrase
from ..formats.weights import AUTO, WeightFormat, checkpoint_format
from ..memory.components import Breakdown, Component, EngineFacts
from ..model.families.decoder.spec import ModelSpec
from ..parallel.layout import Layout
from ..sources.gpu_overhead import card_overhead
from ..sources.gpus import GpuSpec
from ..workload import DEFAULT_OVERHEAD_BYTES, Workload
from .cards import CardRule


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class EngineBreakdown:
    """The components an engine holds at its peak, and what it tells beside them."""

    components: tuple[Component, ...]
    facts: EngineFacts | None = None  # the engine's own figures (vLLM's pool, llama.cpp's devices)
    host_bytes: int = 0  # system RAM beside the GPU (llama.cpp's layers kept off the GPU)
    sizes: Mapping[str, int] = dataclasses.field(default_factory=dict)  # training: each component whole
    phases: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)  # training: by phase
    peak_phase: str = "inference"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RankPool:
    """What an engine that sizes its KV cache from the card (vLLM) builds on one GPU of a layout."""

    kv_pool_bytes: int
    kv_tokens: int
    max_concurrency: float | None  # sequences of the requested length at once; None: no KV per sequence

    def as_json(self) -> dict[str, object]:
        return {"kv_pool_bytes": self.kv_pool_bytes, "kv_tokens": self.kv_tokens,
                "max_concurrency": self.max_concurrency}


class Engine(Protocol):
    # Its facts, read-only (an engine sets them as class attributes: a tuple of any length fits).
    @property
    def options(self) -> tuple[Option, ...]:
        """Its own link, form and command-line keys (inputs/options.py gathers them into the one table)."""
        ...

    @property
    def runtime(self) -> Runtime: ...

    @property
    def kv_formats(self) -> tuple[Precision, ...]:
        """The KV-cache formats it can cache in (the `kv_precision` values it accepts)."""
        ...

    @property
    def weight_ladder(self) -> tuple[str, ...]:
        """Its weight formats from the most precise down: what "the most precise weights that fit" tries."""
        ...

    @property
    def card_rules(self) -> tuple[CardRule, ...]:
        """The formats some cards cannot run on it, and what it does there (engines/cards.py)."""
        ...

    @property
    def kv_ladder(self) -> tuple[Precision, ...]:
        """Its KV formats from the most precise down."""
        ...

    @property
    def batch_key(self) -> str:
        """The Workload field the "largest batch" question varies (llama.cpp: its --parallel slots)."""
        ...

    @property
    def max_batch(self) -> int | None:
        """The most sequences it runs at once (None: the request's own limit)."""
        ...

    @property
    def rank_overhead_bytes(self) -> int:
        """Added to the overhead of each GPU once there is more than one (communication buffers)."""
        ...

    @property
    def keeps_activation_peak_whole(self) -> bool:
        """Whether every rank of a layout keeps the one-GPU activation peak whole (vLLM's profiling run)."""
        ...

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        """The memory it takes beyond weights, cache and activations, when the user sets none."""
        ...

    def card_key(self, workload: Workload, gpu: GpuSpec) -> object:
        """What of its breakdown, beyond the overhead, changes with the card (vLLM: the card itself, whose memory
        sizes its pool; TEI: whether it runs its flash path there): the cards table counts cards of one key with one
        breakdown."""
        ...

    def check(self, workload: Workload) -> None:
        """Raise ValidationError (naming the field) for a workload this engine cannot run."""
        ...

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        """The format it runs `precision` in: `auto` (no format named) the checkpoint as published
        where it can run it, else bf16; `native` its way of loading the checkpoint as published."""
        ...

    def notes(self, workload: Workload) -> tuple[str, ...]:
        """Message keys of what the reader should know about this engine's answer."""
        ...

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        ...

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        """How it lays the model over `gpus` GPUs when the user names no layout."""
        ...

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        """The lines that run this workload on this engine (`model`: the Hugging Face id or the file),
        with the settings the answer assumed; empty where the engine has no command (training)."""
        ...

    def rank_pool(self, workload: Workload, facts: EngineFacts | None, components: Mapping[str, int],
                  kv_share: float, *, whole: bool) -> RankPool | None:
        """What it builds on one GPU given that GPU's components (None: nothing beyond them)."""
        ...

    def settings_that_fit(self, workload: Workload, fits: Callable[[Workload], bool]) -> tuple[Phrase, ...]:
        """The changes of its own settings (each one alone, in words) with which `fits` holds: what the
        suggestions offer beside the shared ones (vLLM: a larger utilization share, fewer sequences)."""
        ...

    def on_layout(self, breakdown: Breakdown, pool: RankPool, layout: Layout) -> Breakdown:
        """The breakdown as every output reports it on a layout of several GPUs whose most loaded GPU
        builds `pool` (`rank_pool`): an engine that sizes its pool on each GPU reports that pool."""
        ...


class NoPool:
    """The Engine methods of an engine that builds nothing on a GPU beyond its components (transformers,
    llama.cpp, TEI, faster-whisper; vLLM sizes a KV pool): no pool, no settings of its own to suggest, the
    breakdown unchanged on a layout."""

    def card_key(self, workload: Workload, gpu: GpuSpec) -> object:
        return None

    def rank_pool(self, workload: Workload, facts: EngineFacts | None, components: Mapping[str, int],
                  kv_share: float, *, whole: bool) -> RankPool | None:
        return None

    def settings_that_fit(self, workload: Workload, fits: Callable[[Workload], bool]) -> tuple[Phrase, ...]:
        return ()

    def on_layout(self, breakdown: Breakdown, pool: RankPool, layout: Layout) -> Breakdown:
        return breakdown


def pytorch_overhead(fields: Mapping[str, object]) -> int:
    """The card's CUDA context with the kernels a run loads, and cuBLAS's workspace, as measured under PyTorch
    (sources/gpu_overhead.py); 1 GiB where no figure for the card is published. transformers' own, and TEI's and
    faster-whisper's for want of a figure for their runtimes."""
    gpu = fields.get("gpu")
    card = card_overhead(gpu if isinstance(gpu, GpuSpec) else None)
    return DEFAULT_OVERHEAD_BYTES if card is None else card[1]["context"] + card[1]["workspace"]


def run_as_published(model: ModelSpec, precision: Precision | WeightFormat, *,
                     training: bool) -> Precision | WeightFormat:
    """`Engine.run_format` for engines that load a checkpoint's own format as it is (vLLM, transformers)."""
    if precision is AUTO:
        return checkpoint_format(model, training=training) or Precision.BF16
    return precision


def refuse_training(workload: Workload) -> None:
    """Serving engines run inference only."""
    if workload.is_training:
        raise ValidationError("runtime", workload.runtime.value, "vLLM and llama.cpp serve models; training runs "
                                                                 "with transformers")


def refuse_gguf(workload: Workload) -> None:
    """GGUF files are llama.cpp's (training with one is refused by the training checks, in their words)."""
    if not workload.is_training and isinstance(workload.precision, WeightFormat) and workload.precision.kind == "gguf":
        raise ValidationError("precision", workload.precision.name, "GGUF types run on llama.cpp (runtime llamacpp)")


def check_kv_formats(workload: Workload, keys: tuple[str, ...], allowed: tuple[Precision, ...]) -> None:
    """The cache formats named in `keys` are among those the engine can cache in."""
    for key in keys:
        kv = getattr(workload, key)
        if kv is not None and kv not in allowed:
            raise ValidationError(key, kv.value, f"{workload.runtime.value} caches keys and values as one of: "
                                                 + ", ".join(p.value for p in allowed))


def hf_reference(model: ModelSpec) -> str:
    """A preset as an engine that downloads it names it: its Hugging Face id, else its display name."""
    from ..sources.presets import load_presets  # here: the presets read the configs this package's callers parse

    preset = load_presets().get(model.name)
    return preset.hf_id if preset is not None and preset.hf_id else model.display_name
