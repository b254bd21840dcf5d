"""What one step of a language model reads and computes: the bytes of weights and cache each device
reads per decoded token, and the FLOPs of a token, from the same tensors and formats the memory model
counts (formats.weights.stack, ModelSpec's cache). Nothing here knows a GPU or an engine's speed."""

from __future__ import annotations

import dataclasses
import functools

from ..core.dtypes import Precision
from ..formats.weights import WeightFormat, expert_bytes, nominal_bits, stack
from ..memory.kv_cache import image_cross_tokens
from ..model.families.decoder.spec import ModelSpec
from ..model.table import active_param_count, counted_tensors
from ..model.tensor import Role
from ..workload import Workload


@dataclasses.dataclass(frozen=True)
class LayerReads:
    """One layer's weight bytes, split into what every token reads and the routed experts, of which a
    token reads `per_token` of `experts`."""

    dense: float
    experts: float


@dataclasses.dataclass(frozen=True)
class Reads:
    """The model's weights as a decode step reads them: each layer's, the output head's (the embedding
    table is gathered one row per token, so it is not read whole) and the routing of experts."""

    layers: tuple[LayerReads, ...]
    head: float
    experts: int  # routed experts per MoE layer (0: dense)
    per_token: int

    def touched(self, batch: int) -> float:
        """The expected share of a layer's routed experts that `batch` tokens use together, routing
        being taken as uniform: 1 − (1 − k/E)^batch (one token: k/E)."""
        if not self.experts:
            return 1.0
        return 1.0 - (1.0 - self.per_token / self.experts) ** batch

    @property
    def moe_layers(self) -> int:
        """The layers with routed experts."""
        return sum(1 for layer in self.layers if layer.experts)

    def layer_bytes(self, start: int, stop: int, batch: int) -> float:
        share = self.touched(batch)
        return sum(layer.dense + layer.experts * share for layer in self.layers[start:stop])


@functools.lru_cache(maxsize=64)
def _reads(spec: ModelSpec, fmt: WeightFormat | None, group_size: int, bits: float) -> Reads:
    weights = stack(spec, fmt, group_size=group_size, nominal_bits=bits)
    layers = [LayerReads(dense=sum(sizes) - experts, experts=experts)
              for (_, sizes), experts in zip(weights.layers, expert_bytes(spec, weights), strict=True)]
    head = sum(size for tensor, size in weights.outside if tensor.role is not Role.EMBEDDING)
    if spec.tie_embeddings:  # the tied head reads the embedding table whole
        head += sum(size for tensor, size in weights.outside if tensor.name == "token_embd.weight")
    moe = spec.moe
    return Reads(layers=tuple(layers), head=head, experts=moe.experts if moe else 0,
                 per_token=moe.per_token if moe else 0)


def reads(workload: Workload) -> Reads:
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    return _reads(workload.model, fmt, workload.group_size, nominal_bits(workload.precision))


def kv_bytes(workload: Workload, depth: int) -> float:
    """The cache one sequence reads per decoded token at `depth` tokens of context: every attention
    layer's keys and values kept (a sliding layer at most its window), a cross-attention layer's of the images,
    and a recurrent layer's state."""
    model = workload.model
    precision: Precision = workload.effective_kv_precision
    e = int(workload.activation_precision.bits) // 8
    cross = model.cross_kv_values(image_cross_tokens(workload))  # Llama 3.2 Vision: every image's, whatever the depth
    return precision.bytes_for(model.kv_values_per_sequence(depth) + cross) + model.recurrent_state_bytes(e)


def attention_flops(model: ModelSpec, depth: int) -> float:
    """FLOPs of one token's attention over `depth` earlier tokens: per layer 2 × heads × (head_dim + the value
    head) × the tokens it attends (scores Q·K and the weighted sum of V); a linear layer's update is O(1)."""
    total = 0
    for kind, count in model.kind_counts():
        if not kind.caches_tokens:  # a recurrent state's update, or no mixer: O(1) per token
            continue
        width = model.head_dim_of(kind) + model.v_dim_of(kind)
        total += count * 2 * model.heads_of(kind) * width * model.tokens_kept(kind, depth)
    return float(total)


def prompt_attention_flops(model: ModelSpec, prompt: int) -> float:
    """FLOPs of the attention of a whole causal prompt of `prompt` tokens: token i attends i + 1 tokens,
    so the sum over the prompt is about prompt²/2 per full layer (a sliding layer at most its window);
    an encoder's tokens attend every token (prompt²)."""
    total = 0.0
    for kind, count in model.kind_counts():
        if not kind.caches_tokens:  # a recurrent state's update, or no mixer: O(1) per token
            continue
        kept = model.tokens_kept(kind, prompt)
        # tokens attend min(i + 1, kept): the triangle up to `kept`, then a band of width `kept`
        attended = kept * (kept + 1) / 2 + (prompt - kept) * kept if model.encoder is None else prompt * kept
        total += count * 2 * model.heads_of(kind) * (model.head_dim_of(kind) + model.v_dim_of(kind)) * attended
    return total


def prompt_scores(model: ModelSpec, prompt: int, ubatch: int) -> tuple[float, float]:
    """(Scores, FLOPs) of a prompt's attention when it is processed in micro-batches of `ubatch` tokens without
    flash attention (llama.cpp's build_attn_mha: KQ = K·Q, soft_max_ext, V·KQ): each micro-batch's queries
    against every cell cached so far, the masked ones included, per head and layer."""
    scores = flops = 0.0
    for kind, count in model.kind_counts():
        if not kind.caches_tokens:
            continue
        cells = sum(min(ubatch, prompt - start) * model.tokens_kept(kind, min(prompt, start + ubatch))
                    for start in range(0, prompt, ubatch))
        scores += count * model.heads_of(kind) * cells
        flops += count * model.heads_of(kind) * cells * 2 * (model.head_dim_of(kind) + model.v_dim_of(kind))
    return scores, flops


def head_params(model: ModelSpec) -> int:
    """The output head's parameters: a prompt multiplies only its last token by them (the engines compute the
    logits of the tokens that sample, llama.cpp's inp_out_ids, vLLM's logits_indices)."""
    return model.vocab * model.hidden


def matmul_params(model: ModelSpec, *, head: bool = True) -> int:
    """The parameters a token multiplies by: the active ones, less the embedding table it only gathers
    (a tied head multiplies by it once more, so it stays); an embedder (`head` False) has no head, and an
    encoder's position and token-type tables are gathered too."""
    active = active_param_count(model)
    if not head:
        return active - sum(t.numel * n for t, n in counted_tensors(model) if t.role is Role.EMBEDDING)
    if model.tie_embeddings:
        return active
    return active - model.vocab * model.hidden
