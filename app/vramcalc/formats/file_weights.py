"""A model's weights from its own files: the tensors a GGUF or safetensors header lists, laid onto the
architecture's layers (sources/weight_file.py reads a GGUF file's architecture from its metadata).

The weights' bytes are the file's, exactly: each layer's (its routed experts apart, which
`--n-cpu-moe` moves) and those outside the layers (the embeddings apart, which llama.cpp keeps in
system RAM). Within a layer, the architecture's tensors share the file's bytes in proportion to their
sizes, since layouts and formulas place layers, experts and embeddings, never single tensors. The
config (or the GGUF metadata read as one) still drives the KV cache and the activations. A tensor the
architecture does not predict is counted where its name puts it and named among the assumptions;
a vision tower, an audio tower and the multi-token-prediction layers are counted apart and named in a
note, as the config reader does.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Sequence

from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..core.units import format_binary
from ..model.families.decoder.spec import ModelSpec
from ..model.families.decoder.tensors import layer_tensors, outside_tensors
from ..model.tensor import Role, Tensor
from .headers import Header

_LAYER = re.compile(r"(?:^|\.)(?:blk|layers|h|block)\.(\d+)\.")
_EXPERT = re.compile(r"(_exps\b|\.experts\.(?!.*shared))")
_EMBEDDING = re.compile(r"(^|\.)(token_embd|embed_tokens|wte|word_embeddings|tok_embeddings)\.")
MAX_SAID = 5  # mismatches named one by one; the rest counted
_APART = re.compile(r"(vision|visual|multi_modal_projector|mm_projector|image_newline|patch_embed|audio|(^|\.)mtp\.)")


@dataclasses.dataclass(frozen=True)
class WeightsGiven:
    """The headers of the files a user named (--weights; the page's file reader), read elsewhere."""

    name: str
    headers: tuple[Header, ...]

    def __post_init__(self) -> None:
        if not self.headers:  # an index with an empty weight_map, a split GGUF named as part 0 of 0
            raise ValidationError("weights", self.name, "it names no weight file to read")
        if len({header.kind for header in self.headers}) > 1:
            raise ValidationError("weights", self.name, "GGUF and safetensors files together: name one model's files")
        for header in self.headers:
            if header.kind == "gguf" and header.metadata.get("general.architecture") == "clip":
                raise ValidationError("weights", self.name, "a multimodal projector (mmproj, general.architecture "
                                                            "'clip'), not a language model: name the model's GGUF")
        seen: set[str] = set()
        for header in self.headers:  # llama-model-loader.cpp refuses a split model whose tensor is "duplicated"
            for tensor in header.tensors:
                if tensor.name in seen:
                    raise ValidationError("weights", tensor.name[:100], "a tensor in the files twice: the same "
                                                                        "weights given twice, or two models' files")
                seen.add(tensor.name)

    @property
    def kind(self) -> str:
        return self.headers[0].kind


@dataclasses.dataclass(frozen=True)
class FileWeights:
    """A file's weight bytes by where the engine places them (hashable: formats' caches key on it)."""

    name: str  # the file (or folder) as the user named it
    kind: str  # "gguf" or "safetensors"
    embedding: int  # bytes of the token embedding table(s)
    rest_outside: int  # the other tensors outside the layers: final norm, head
    layers: tuple[tuple[int, int], ...]  # per layer: (bytes not in routed experts, bytes in routed experts)
    by_dtype: tuple[tuple[str, int, int], ...]  # (dtype, parameters, bytes) of the counted tensors
    apart: int  # bytes not counted: vision and audio towers, MTP layers, layers past the architecture's
    unplaced: tuple[Phrase, ...] = ()  # what the architecture does not predict, in words (assumptions)

    @property
    def total(self) -> int:
        return self.embedding + self.rest_outside + sum(a + b for a, b in self.layers)


def file_weights(name: str, headers: Sequence[Header], spec: ModelSpec) -> FileWeights:
    """The tensors of `headers` (one file, or a model's shards) laid onto `spec`'s layers."""
    tensors = [t for header in headers for t in header.tensors]
    if not tensors:  # metadata alone: its weights would be counted as none at all
        raise ValidationError("weights", name, "the file holds no tensors")
    kind = headers[0].kind if headers else "safetensors"
    layers = [[0, 0] for _ in range(spec.layers)]
    embedding = rest = apart = 0
    by_dtype: dict[str, list[int]] = {}
    unplaced: list[Phrase] = []
    for t in tensors:
        match = _LAYER.search(t.name)
        if _APART.search(t.name) or (match and int(match.group(1)) >= spec.layers):
            apart += t.nbytes
            continue
        entry = by_dtype.setdefault(t.dtype, [0, 0])
        entry[0] += math.prod(t.shape)
        entry[1] += t.nbytes
        if match:
            layers[int(match.group(1))][1 if _EXPERT.search(t.name) else 0] += t.nbytes
        elif _EMBEDDING.search(t.name):
            embedding += t.nbytes
        else:
            rest += t.nbytes
    for index, (dense, experts) in enumerate(layers):
        if experts and not spec.layer_is_moe(index):
            unplaced.append(phrase("assumption.weights_file.experts", layer=index, bytes=format_binary(experts)))
        if not dense and not experts:
            unplaced.append(phrase("assumption.weights_file.no_layer", layer=index))
    if not embedding:
        unplaced.append(phrase("assumption.weights_file.no_embedding"))
    if len(unplaced) > MAX_SAID:
        unplaced[MAX_SAID:] = [phrase("assumption.weights_file.more", count=len(unplaced) - MAX_SAID)]
    order = sorted(by_dtype.items(), key=lambda item: -item[1][1])
    return FileWeights(name=name, kind=kind, embedding=embedding, rest_outside=rest,
                       layers=tuple((a, b) for a, b in layers),
                       by_dtype=tuple((dtype, params, size) for dtype, (params, size) in order), apart=apart,
                       unplaced=tuple(unplaced))


def spread(spec: ModelSpec, weights: FileWeights) -> tuple[tuple[tuple[Tensor, float], ...],
                                                           tuple[tuple[float, ...], ...]]:
    """The file's bytes on the architecture's own tensors: (each outside tensor with its bytes, each
    layer's tensor bytes in layer_tensors order), each share in proportion to the tensors' sizes."""
    first, last = outside_tensors(spec)
    embeddings = [t for t in (*first, *last) if t.role is Role.EMBEDDING]
    others = [t for t in (*first, *last) if t.role is not Role.EMBEDDING]
    outside = _share(embeddings, weights.embedding) | _share(others or embeddings, weights.rest_outside)
    per_layer = []
    for index in range(spec.layers):
        tensors = layer_tensors(spec, index)
        dense, experts = weights.layers[index] if index < len(weights.layers) else _mean(weights.layers)
        routed = [t for t in tensors if t.role is Role.EXPERT]
        rest = [t for t in tensors if t.role is not Role.EXPERT]
        if not routed:  # experts the architecture does not predict: on the layer's other tensors
            dense, experts = dense + experts, 0
        sizes = _share(rest, dense) | _share(routed, experts)
        per_layer.append(tuple(sizes.get(t.name, 0.0) for t in tensors))
    return tuple((t, outside.get(t.name, 0.0)) for t in (*first, *last)), tuple(per_layer)


def _share(tensors: Iterable[Tensor], total: float) -> dict[str, float]:
    listed = list(tensors)
    numel = sum(t.numel for t in listed)
    return {t.name: total * t.numel / numel for t in listed} if numel else {}


def _mean(layers: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """A layer past the file's (a deeper variant the solvers try): the file's average layer."""
    n = len(layers) or 1
    return sum(a for a, _ in layers) / n, sum(b for _, b in layers) / n


def notes(weights: FileWeights) -> tuple[Phrase, ...]:
    said = [phrase("note.weights_file", name=weights.name, bytes=format_binary(weights.total))]
    if weights.apart:
        said.append(phrase("note.weights_file_apart", bytes=format_binary(weights.apart)))
    return tuple(said)


def assumptions(weights: FileWeights) -> tuple[Phrase, ...]:
    return tuple(phrase("assumption.weights_file", what=what) for what in weights.unplaced)
