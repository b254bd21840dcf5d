"""The result of the memory model: one Component per kind of memory, and the Breakdown that
gathers them (with the engine's own figures and, for training, the phases of a step)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Protocol

from ..core.phrase import Formula, Part, Phrase, phrase
from ..core.units import GIB, format_binary, format_gb
from ..sources.gpu_overhead import card_overhead
from ..workload import Workload

COMPONENTS = ("weights", "gradients", "optimizer", "master_weights", "kv_cache", "activations", "logits", "temporaries",
              "overhead")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Component:
    key: str
    bytes: int
    explain: Callable[[], Phrase | Formula] = dataclasses.field(repr=False, compare=False)
    """The formula with its numbers (core/phrase.py; render/ says it in words); made only when shown,
    because the solvers and charts estimate hundreds of workloads and show none of their formulas."""

    @property
    def formula(self) -> Formula:
        said = self.explain()
        return said if isinstance(said, tuple) else (said,)


class EngineFacts(Protocol):
    """An engine's own figures beside the components (engines/: vLLM's pool, llama.cpp's devices)."""

    def as_json(self) -> dict[str, object]:
        """Its public names (`--json`'s `runtime` object, after `name`)."""
        ...


@dataclasses.dataclass(frozen=True, kw_only=True)
class Breakdown:
    workload: Workload
    params: int
    active_params: int
    components: tuple[Component, ...]
    notes: tuple[Part, ...]
    assumptions: tuple[Part, ...] = ()
    """What the engine did not understand and how it read it: non-empty means approximate."""
    facts: EngineFacts | None = None
    """The engine's own figures (vLLM's pool, llama.cpp's devices); None for transformers."""
    host_bytes: int = 0
    """System RAM the engine uses beside the GPU (llama.cpp layers kept off the GPU)."""
    sizes: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Each component's whole size, whether or not all of it is live at the peak (training: the
    gradients exist only from the backward on); `components` are what is live at the peak."""
    phases: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)
    """Training: the component bytes live at each phase of a step (step.py), overhead excluded."""
    peak_phase: str = "inference"
    reserve: tuple[int, int, int] | None = None  # the allocator's reserve, low, typical, high (memory/reserve.py)

    @property
    def runtime(self) -> dict[str, object]:
        """The engine's name and figures under their public names (`--json`'s `runtime`)."""
        return {"name": self.workload.runtime.value, **(self.facts.as_json() if self.facts else {})}

    @property
    def total_bytes(self) -> int:
        return sum(component.bytes for component in self.components)

    def bytes_of(self, key: str) -> int:
        return next(component.bytes for component in self.components if component.key == key)

    @property
    def reserved_bytes(self) -> int | None:
        """What torch.cuda.max_memory_reserved would show: max_memory_allocated (the total less the overhead row)
        and the allocator's typical reserve; None where the reserve is not modelled (memory/reserve.py)."""
        return None if self.reserve is None else self.total_bytes - self.bytes_of("overhead") + self.reserve[1]

    def size_of(self, key: str) -> int:
        """A component's whole size (equal to `bytes_of` outside training)."""
        return self.sizes.get(key, self.bytes_of(key))

    def phase_totals(self) -> dict[str, int]:
        return {name: sum(live.values()) for name, live in self.phases.items()}

    def as_dict(self) -> dict[str, int]:
        return {component.key: component.bytes for component in self.components}


def overhead_bytes(workload: Workload) -> Component:
    """Framework overhead: transformers' default for the card (sources/gpu_overhead.py; 1 GiB where none is
    published), or the amount the user sets; with what other programs hold on the GPU (reserve_gb)."""
    gib = f"{workload.overhead_bytes / GIB:g}"
    card = None if workload.overhead_given else card_overhead(workload.gpu)
    arch, entry = card or ("", {"context": 0, "workspace": 0})
    context, workspace = entry["context"], entry["workspace"]

    def explain() -> Phrase:
        if card is None or workload.overhead_bytes != context + workspace:  # no figure, or not the card's
            return phrase("overhead.formula" if workload.overhead_given else "overhead.default", gib=gib)
        basis = phrase("overhead.basis.bare" if entry.get("bare") else "overhead.basis.runs", runs=entry["runs"])
        return phrase("overhead.card", context=format_binary(context), basis=basis, arch=arch,
                      workspace=format_binary(workspace), bytes=format_binary(context + workspace))
    return Component(key="overhead", bytes=workload.held_bytes,
                     explain=with_reserve(workload.reserve_bytes or 0, explain))


def given_overhead(workload: Workload, bytes_: int, runtime: str, default: int,
                   explain_default: Callable[[], Phrase | Formula], *, holds_reserve: bool = True) -> Component:
    """An engine's overhead row (`bytes_`: its overhead, with what other programs hold added to it unless
    `holds_reserve` is False): its own default explained, or the user's amount beside that default."""
    reserve = (workload.reserve_bytes or 0) if holds_reserve and bytes_ else 0  # no GPU in use: no row to hold it
    if not workload.overhead_given:
        return Component(key="overhead", bytes=bytes_, explain=with_reserve(reserve, explain_default))
    return Component(key="overhead", bytes=bytes_, explain=with_reserve(reserve, lambda: phrase(
        "overhead.given", bytes=format_binary(bytes_ - reserve), runtime=runtime, default=format_binary(default))))


def with_reserve(reserve: int, explain: Callable[[], Phrase | Formula]) -> Callable[[], Phrase | Formula]:
    """The overhead's explanation, then what other programs hold (`reserve` bytes, when there are any)."""
    if not reserve:
        return explain

    def said() -> Formula:
        own = explain()
        held = phrase("overhead.reserve", bytes=format_gb(reserve))
        return (*(own if isinstance(own, tuple) else (own,)), "; ", held)
    return said


def no_component(key: str, why: str) -> Component:
    return Component(key=key, bytes=0, explain=lambda: phrase(why))
