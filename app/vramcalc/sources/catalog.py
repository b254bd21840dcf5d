"""The model catalog as people look for it: grouped by family, described in
one line, and found by typing part of a name or a Hugging Face id
("Qwen/Qwen3-32B", "qwen3 32", "r1 distill"). The page's picker and
`python -m vramcalc models` both read it."""

from __future__ import annotations

import dataclasses
import functools
import re

from ..core.phrase import Formula, Phrase, join, phrase
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.table import active_param_count, param_count
from .presets import load_presets, preset_spec


@dataclasses.dataclass(frozen=True, kw_only=True)
class Entry:
    slug: str
    name: str
    hf_id: str
    family: str
    params: int
    active_params: int
    context: int | None
    architecture: Formula  # one line: "GQA 32/8 heads, head_dim 128; 8 sliding (1,024) + 2 full"
    native_format: str


def describe(spec: ModelSpec) -> Formula:
    """The memory-relevant architecture in a few words."""
    parts: list[Phrase] = []
    if not spec.attends:
        pass  # Mamba alone: its kinds below say it all
    elif spec.mla:
        parts.append(phrase("model.arch.mla", width=spec.mla.latent_width))
    elif spec.kv_heads == 1:
        parts.append(phrase("model.arch.mqa", head_dim=spec.head_dim))
    elif spec.kv_heads < spec.heads:
        parts.append(phrase("model.arch.gqa", heads=spec.heads, kv_heads=spec.kv_heads, head_dim=spec.head_dim))
    else:
        parts.append(phrase("model.arch.mha", heads=spec.heads, head_dim=spec.head_dim))
    kinds = dict(spec.kind_counts())
    if len(kinds) > 1 or AttentionKind.FULL not in kinds:
        window = {AttentionKind.SLIDING: spec.sliding_window, AttentionKind.CHUNKED: spec.attention_chunk}
        parts.append(phrase("model.arch.kinds", kinds=join(" + ", (
            phrase(f"model.arch.kind.{kind.value}", count=n,
                   window=phrase("model.arch.window", window=f"{window[kind]:,}") if window.get(kind) else "")
            for kind, n in kinds.items()))))
    if spec.parallel_mamba:
        parts.append(phrase("model.arch.parallel_mamba"))
    if spec.moe:
        moe = spec.moe
        parts.append(phrase(
            "model.arch.moe", experts=moe.experts, per_token=moe.per_token,
            shared=phrase("model.arch.moe.shared") if moe.shared_ffn else "",
            partial=phrase("model.arch.moe.partial", moe_layers=spec.moe_layer_count, layers=spec.layers)
            if spec.moe_layer_count < spec.layers else ""))
    if spec.tie_embeddings:
        parts.append(phrase("model.arch.tied"))
    return join("; ", parts)


@functools.cache
def entries() -> tuple[Entry, ...]:
    out = []
    for slug, preset in load_presets().items():
        spec = preset_spec(slug)
        out.append(Entry(
            slug=slug, name=preset.display_name, hf_id=preset.hf_id, family=preset.family or "Other",
            params=param_count(spec), active_params=active_param_count(spec), context=spec.max_positions,
            architecture=describe(spec),
            native_format=preset.native_format,
        ))
    return tuple(out)


def families() -> dict[str, list[Entry]]:
    grouped: dict[str, list[Entry]] = {}
    for entry in entries():
        grouped.setdefault(entry.family, []).append(entry)
    return grouped


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+(?:\.\d+)?", text.lower())


@functools.cache
def _haystacks() -> tuple[tuple[str, frozenset[str], str], ...]:
    return tuple(
        (e.slug, frozenset(_words(f"{e.slug} {e.name} {e.hf_id} {e.family}")),
         re.sub(r"[^a-z0-9.]", "", f"{e.slug}{e.name}{e.hf_id}".lower()))
        for e in entries()
    )


def search(query: str) -> list[str]:
    """Slugs whose name, slug or Hugging Face id matches every word typed, best first.

    A word matches a word of the model that starts with it ("qwen3 32" finds Qwen3 32B;
    numbers match whole: "3" does not find "32B"), and the query with its punctuation
    removed may also match inside the joined names ("qwen/qwen3-32b")."""
    words = _words(query)
    if not words:
        return [e.slug for e in entries()]
    squashed = re.sub(r"[^a-z0-9.]", "", query.lower())
    found = []
    for rank, (slug, haystack, joined) in enumerate(_haystacks()):
        exact = squashed and squashed in joined
        if exact or all(_matches(word, haystack) for word in words):
            found.append((0 if exact else 1, rank, slug))
    if not found:
        base = base_of(query)
        return [base] if base else []
    return [slug for *_, slug in sorted(found)]


# What a fine-tune or base checkpoint adds to a Hugging Face id; the architecture is the one of
# the id without it (Llama-3.1-8B-Instruct is Llama-3.1-8B's config with other weights).
VARIANT_WORDS = frozenset(("instruct", "chat", "it", "base", "pt"))


def _without_variant(hf_id: str) -> str:
    name = hf_id.lower().rsplit("/", 1)[-1]
    return "-".join(word for word in re.split(r"[-_ ]+", name) if word and word not in VARIANT_WORDS)


def base_of(query: str) -> str | None:
    """The preset whose Hugging Face id is `query` less a variant word ("-Instruct", "-it",
    "-chat", "-Base"), when `query` names such a variant of it and not the preset itself:
    "meta-llama/Llama-3.1-8B-Instruct" -> "llama-3.1-8b". None otherwise."""
    typed = _without_variant(query.strip())
    if not typed or typed == query.strip().lower().rsplit("/", 1)[-1].replace("_", "-"):
        return None  # no variant word in it
    found = [e.slug for e in entries() if _without_variant(e.hf_id) == typed
             and e.hf_id.lower().rsplit("/", 1)[-1] != query.strip().lower().rsplit("/", 1)[-1]]
    return found[0] if len(found) == 1 else None


def _matches(word: str, haystack: frozenset[str]) -> bool:
    if word[0].isdigit():
        return word in haystack
    return any(candidate.startswith(word) for candidate in haystack)
