"""LoRA and QLoRA: which linear layers get adapters, and the adapter tensors (peft's `LoraModel`)."""

from __future__ import annotations

import dataclasses
import functools

from ..core.errors import ValidationError
from ..model.families.decoder.spec import ModelSpec
from ..model.table import counted_tensors
from ..model.tensor import Counted, Role, Tensor, layer_of, stem

# ---------------------------------------------------------------- LoRA

TARGETS = {  # link / command-line name: the GGUF-style tensor names it adapts
    "q": ("attn_q", "attn_q_a", "attn_q_b"),
    "k": ("attn_k",),
    "v": ("attn_v",),
    "o": ("attn_output",),
    "gate": ("ffn_gate", "ffn_gate_shexp"),
    "up": ("ffn_up", "ffn_up_shexp"),
    "down": ("ffn_down", "ffn_down_shexp"),
    "head": ("output",),  # the LM head: litgpt's lora_head, torchtune's apply_lora_to_output, peft's "lm_head"
}
ALL_LINEAR = "all-linear"
HEAD = "head"


@dataclasses.dataclass(frozen=True)
class Lora:
    rank: int
    targets: tuple[str, ...]  # names from TARGETS, or ("all-linear",), or ("all-linear", "head")
    embeddings: bool = False  # train the embeddings and the head in full as well


def parse_targets(text: str) -> tuple[str, ...]:
    """all-linear (peft's: every linear layer but the head), all-linear,head, or some of TARGETS."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if ALL_LINEAR in names and set(names) <= {ALL_LINEAR, HEAD}:
        return (ALL_LINEAR, HEAD) if HEAD in names else (ALL_LINEAR,)
    unknown = [name for name in names if name not in TARGETS]
    if not names or unknown:
        raise ValidationError("lora_targets", text, "expected all-linear, all-linear,head or a comma-separated "
                                                    "subset of " + ",".join(TARGETS))
    return names


# Llama 3.2 Vision's tower (transformers 5.23 modeling_mllama.py): peft matches target names by suffix, so q, k, v and
# o (q_proj ... o_proj) adapt the tower's attention as well; all-linear its MLP (fc1, fc2) and the projector too;
# gate, up and down have no namesake there (measured: tools/measure_mllama_lora.py)
TOWER_ATTENTION = ("q", "k", "v", "o")
TOWER_ALL_LINEAR = (*TOWER_ATTENTION, "fc1", "fc2", "projector")


def tower_targets(spec: ModelSpec, lora: Lora | None) -> tuple[str, ...]:
    """The vision tower's linears LoRA adapts (of TOWER_ALL_LINEAR), on Llama 3.2 Vision; () elsewhere."""
    vision = spec.vision
    if lora is None or vision is None or vision.family != "mllama":
        return ()
    if ALL_LINEAR in lora.targets:
        return TOWER_ALL_LINEAR
    return tuple(name for name in TOWER_ATTENTION if name in lora.targets)


def _tower_matrices(spec: ModelSpec, lora: Lora) -> Counted:
    """Llama 3.2 Vision's adapted tower matrices, each layer's (local and gated global alike) and the projector's
    (names outside the `blk.` layers, so the per-layer terms do not read them)."""
    vision = spec.vision
    targets = tower_targets(spec, lora)
    if vision is None or not targets:
        return ()
    d, i, layers = vision.hidden, vision.inter, vision.depth + vision.global_depth
    shapes = {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "fc1": (i, d), "fc2": (d, i)}
    out = [(Tensor(f"vision_model.{name}{'' if name.startswith('fc') else '_proj'}.weight", shapes[name],
                   Role.MLP if name.startswith("fc") else Role.ATTENTION), layers)
           for name in targets if name in shapes]
    if "projector" in targets:
        out.append((Tensor("multi_modal_projector.weight", (spec.hidden, vision.features), Role.MLP), 1))
    return tuple(out)


@functools.lru_cache(maxsize=64)  # every estimate of a LoRA workload asks, several times
def adapted(spec: ModelSpec, lora: Lora) -> Counted:
    """The base matrices LoRA adapts: the linear layers peft's `all-linear` finds (every nn.Linear
    but the head; fused expert tensors are not nn.Linear), or those named; as (tensor, how many of it),
    tensors.counted_tensors. `head` adapts the LM head, a tied one as well (peft wraps `lm_head`, whose weight is
    the embedding's; litgpt's GPT keeps its own `lm_head`). Llama 3.2 Vision's tower too (`tower_targets`)."""
    chosen = []
    if HEAD in lora.targets and spec.tie_embeddings and spec.encoder is None:
        chosen.append((Tensor("output.weight", (spec.vocab, spec.hidden), Role.HEAD), 1))
    for t, count in counted_tensors(spec):
        if HEAD in lora.targets and t.role is Role.HEAD and t.name == "output.weight":
            chosen.append((t, count))
        if not t.name.endswith(".weight") or len(t.shape) != 2 or t.role in (Role.EMBEDDING, Role.HEAD, Role.NORM):
            continue
        name = stem(t.name)
        if ALL_LINEAR in lora.targets:
            if t.role in (Role.ATTENTION, Role.MLP, Role.SHARED_EXPERT) and "conv1d" not in name:  # peft leaves routers
                chosen.append((t, count))
        elif any(name in TARGETS[target] for target in lora.targets if target != HEAD):
            chosen.append((t, count))
    if not chosen:
        raise ValidationError("lora_targets", ",".join(lora.targets), f"{spec.display_name} has none of these layers")
    return (*chosen, *_tower_matrices(spec, lora))


def layer_matrices(spec: ModelSpec, lora: Lora) -> tuple[Tensor, ...]:
    """The matrices LoRA adapts in one layer (the first), as the per-layer activation terms read them."""
    return tuple(t for t, _ in adapted(spec, lora) if layer_of(t.name) == 0)


@functools.lru_cache(maxsize=64)
def adapter_tensors(spec: ModelSpec, lora: Lora) -> Counted:
    """The trainable tensors: A (r × in) and B (out × r) per adapted matrix, and with
    `embeddings` the embedding and head in full; as (tensor, how many of it)."""
    out = []
    for t, count in adapted(spec, lora):
        rows, cols = t.shape
        if lora.rank > min(rows, cols):
            raise ValidationError("lora_rank", lora.rank,
                                  f"must not exceed the smallest adapted width ({min(rows, cols):,} in {t.name})")
        out.append((Tensor(t.name.replace(".weight", ".lora_a"), (lora.rank, cols), Role.ADAPTER), count))
        out.append((Tensor(t.name.replace(".weight", ".lora_b"), (rows, lora.rank), Role.ADAPTER), count))
    if lora.embeddings:
        out += [(t, count) for t, count in counted_tensors(spec) if t.role in (Role.EMBEDDING, Role.HEAD)]
    return tuple(out)


QLORA_FORMATS = ("nf4", "nf4-dq")
