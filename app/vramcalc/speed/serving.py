"""vLLM's serving as its V1 scheduler runs it (vllm/v1/core/sched/scheduler.py, 0.10-0.11): every step takes
each running request's next tokens, first the running ones in order (a decoding request 1 token, a request in
its prompt the rest of it, cut to what is left of the step's budget: chunked prefill), then waiting requests
while budget, max_num_seqs and free KV blocks last; the budget is max_num_batched_tokens. A step is one forward
of all its tokens: the matmuls read the weights its tokens touch once and compute 2 · params per token, the
output head only for the rows that sample (gpu_model_runner's logits_indices: each decoding request and each
prompt whose last chunk ran), attention reads each decoding request's cache and computes each prompt chunk's
scores against its context. A request runs out of KV blocks: the last running one is preempted and later
recomputed, from its start less the blocks the prefix cache still holds of it (on by default: its freed blocks
join the tail of the free queue, its last block first, and new allocations take the queue's head, so the victim's
first blocks last longest: v1/core/single_type_kv_cache_manager.py `free`, block_pool.py `get_new_blocks`). A
model with sliding-window layers hits only where a window of blocks ends (SlidingWindowManager
`find_longest_cache_hit`), and those layers kept only the last window, the blocks evicted first: once any of its
blocks is taken, nothing of the request is left to hit. A hybrid model (recurrent layers beside attention: Qwen3-Next
and Qwen3.5's Gated DeltaNet, Nemotron-H, Granite 4 H, Jamba, Kimi Linear, LFM2), vLLM 0.34: prefix caching is on
(config/model.py `is_prefix_caching_supported`: "hybrid" True) in mamba_cache_mode "align" (models/config.py
MambaModelConfig), blocks are the enlarged hybrid block B (engines/vllm.py `vllm_hybrid_block_tokens`), and a
request's recurrent state is kept at one position only, its prompt's replay boundary (P - 1) // B · B
(v1/core/kv_cache_coordinator.py `replay_boundaries`, MambaManager `reachable_block_mask` under the default
prefix_cache_retention_interval 0); MambaManager `find_longest_cache_hit` hits there or nowhere. That state's block
is freed once the request computes past it (`remove_skipped_blocks`), so it joins the free queue long before the
rest of the request and is evicted first. A model of recurrent layers alone caches no prefix ("attention_free").

Two ways to lay the steps out, the same step-time model (`seconds`) over both:
- `steady`: a steady load of `running` sequences, each finished request replaced at once (the page's
  output tokens/s at a concurrency): the fluid limit of the scheduler, one kind of step repeated;
- `simulate`: a published benchmark's requests replayed through the rules above (all sent at once, or a client
  keeping `concurrency` in flight), step by step (tools/validate_speed.py)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter, deque

from ..engines.vllm import vllm_block_tokens, vllm_hybrid_block_tokens
from ..model.families.decoder.spec import ModelSpec
from ..model.table import active_param_count, param_count
from ..workload import Workload
from .hardware import Device, calibration, engine_rates, layer_overhead
from .reads import attention_flops, head_params, kv_bytes, matmul_params, prompt_attention_flops, reads


@dataclasses.dataclass(frozen=True)
class Steps:
    """A run's steps, summed: what the rates act on. `tokens`: (tokens in a step, how many such steps)."""

    tokens: tuple[tuple[float, float], ...]
    rows: float  # logits rows computed: the rows that sample
    cache_bytes: float  # KV cache read by the decoding rows
    attention_flops: float  # scores of the prompt chunks against their context and of the decoding rows
    output: float  # tokens emitted
    requests: float

    @property
    def steps(self) -> float:
        return sum(count for _, count in self.tokens)

    @property
    def total_tokens(self) -> float:
        return sum(tokens * count for tokens, count in self.tokens)


class _Costs:
    """A workload's per-depth cache bytes and attention FLOPs, affine beyond its longest window (memoized below)."""

    def __init__(self, workload: Workload) -> None:
        model = workload.model
        self.workload = workload
        self.window = max(model.sliding_window or 0, getattr(model, "attention_chunk", 0) or 0, 1) + 1
        self._kv: dict[int, float] = {}
        self._attn: dict[int, float] = {}
        w = self.window
        self.kv_slope = kv_bytes(workload, w + 1024) / 1024 - kv_bytes(workload, w) / 1024
        self.attn_slope = (attention_flops(model, w + 1024) - attention_flops(model, w)) / 1024
        self.kv_base, self.attn_base = kv_bytes(workload, w), attention_flops(model, w)

    def kv(self, depth: int) -> float:
        if depth >= self.window:
            return self.kv_base + self.kv_slope * (depth - self.window)
        if depth not in self._kv:
            self._kv[depth] = kv_bytes(self.workload, depth)
        return self._kv[depth]

    def attention(self, depth: int) -> float:
        if depth >= self.window:
            return self.attn_base + self.attn_slope * (depth - self.window)
        if depth not in self._attn:
            self._attn[depth] = attention_flops(self.workload.model, depth)
        return self._attn[depth]

    def prompt(self, start: int, stop: int) -> float:
        """Attention FLOPs of prompt tokens start..stop against their causal context."""
        model = self.workload.model
        return prompt_attention_flops(model, stop) - (prompt_attention_flops(model, start) if start else 0.0)


def steady(workload: Workload, *, running: int, budget: int) -> Steps:
    """One request's share of the steps of a steady load of `running` sequences: a request holds its slot for
    its prompt's chunks (ceil(prompt / budget) steps) and one step per further output token, so requests
    finish at running / that many per step, unless the step's budget binds first (prompt + output - 1 tokens
    per request); each step then holds the decoding rows and the prompt tokens of the requests that replace
    finished ones. Decoding rows read the cache at the mean depth of their output."""
    prompt, output = max(1, workload.prompt), max(1, workload.output)
    costs = _Costs(workload)
    held = math.ceil(prompt / budget) + output - 1
    per_step = min(running / held, budget / (prompt + output - 1))  # requests finished per step
    decoding = per_step * (output - 1)
    tokens = decoding + per_step * prompt
    depths = [prompt + (i + 0.5) * (output - 1) / 8 for i in range(8)] if output > 1 else [prompt]
    cache = sum(costs.kv(round(d)) for d in depths) / len(depths)
    scores = sum(costs.attention(round(d)) for d in depths) / len(depths)
    steps = 1 / per_step
    return Steps(tokens=((tokens, steps),), rows=float(output), cache_bytes=(output - 1) * cache,
                 attention_flops=(output - 1) * scores + costs.prompt(0, prompt), output=float(output), requests=1.0)


@dataclasses.dataclass(eq=False)
class _Request:
    target: int  # tokens to compute before it samples: its prompt (and, preempted, the output it had made)
    computed: int = 0
    emitted: int = 0
    freed: list[int] | None = None  # preempted: its segment of the free queue, [tokens still cached, at first]
    state: list[int] | None = None  # a hybrid's recurrent state at its replay boundary: [0, 1 while cached]


def simulate(workload: Workload, *, requests: int, concurrency: int | None, max_num_seqs: int, budget: int,
             pool_tokens: int) -> Steps:
    """The steps of `requests` requests of workload.prompt/output replayed through the scheduler's rules: all
    sent at once (`concurrency` None) or a client keeping `concurrency` in flight; at most max_num_seqs
    running, `budget` tokens per step, `pool_tokens` of KV cache (a request that does not fit preempts the
    last running one, and a step that preempts admits no waiting request; one request always runs; readmitted, it
    starts from the whole blocks of it the prefix cache still holds, at most all but its last token: vLLM's
    kv_cache_manager.py `get_computed_blocks`; a hybrid model from its replay boundary or nothing, as above)."""
    return _simulate(workload, requests, concurrency, max_num_seqs, budget, pool_tokens)


@functools.lru_cache(maxsize=256)
def _simulate(workload: Workload, requests: int, concurrency: int | None, max_num_seqs: int, budget: int,
              pool_tokens: int) -> Steps:
    prompt, output = max(1, workload.prompt), max(1, workload.output)
    costs = _Costs(workload)
    sent = requests if concurrency is None else min(concurrency, requests)
    unsent = requests - sent
    waiting: deque[_Request] = deque(_Request(prompt) for _ in range(sent))
    running: list[_Request] = []
    used = 0
    # the free queue, head first, in segments [tokens, tokens at first]: a preempted request's holds its prefix
    free: deque[list[int]] = deque([[pool_tokens, pool_tokens]])
    windowed = bool(workload.model.sliding_window or getattr(workload.model, "attention_chunk", 0))
    hybrid = vllm_hybrid_block_tokens(workload.model, workload.effective_kv_precision, workload.gpu)
    block = vllm_block_tokens(workload.model, workload.gpu)  # the prefix cache hashes whole blocks
    cacheless = not hybrid and bool(workload.model.recurrent_counts())  # recurrent layers alone: no prefix cache
    boundary = (prompt - 1) // hybrid * hybrid if hybrid else 0  # where a hybrid's state is kept
    histogram: Counter[int] = Counter()
    rows = cache = scores = 0.0
    emitted = deep = deep_depths = 0  # decoding rows at or past the longest window: cache and scores affine in depth
    window = costs.window

    def run(request: _Request, left: int) -> int:
        nonlocal rows, cache, scores, emitted, deep, deep_depths
        computed = request.computed
        if boundary and request.state is None and computed > boundary:  # its state there freed, to the queue's tail
            request.state = [0, 1]
            free.append(request.state)
        if computed < request.target:
            n = min(request.target - computed, left)
            scores += costs.prompt(computed, computed + n)
        else:
            n = 1
            if computed >= window:
                deep += 1
                deep_depths += computed
            else:
                cache += costs.kv(computed)
                scores += costs.attention(computed)
        request.computed = computed + n
        if request.computed >= request.target:
            rows += 1
            request.emitted += 1
            emitted += 1
        return n

    def take(n: int) -> None:
        """n tokens of new blocks from the queue's head, evicting what the prefix cache held there."""
        while n > 0 and free:
            segment = free[0]
            k = min(n, segment[0])
            segment[0] -= k
            n -= k
            if not segment[0]:
                free.popleft()
                segment[1] = 0  # evicted: a hybrid's state no longer cached (a request's segment then holds nothing)

    def hit(request: _Request) -> int:
        """Tokens of a waiting request the prefix cache still holds: whole blocks, not its last token; a hybrid's
        replay boundary, if its state and the blocks before it are still cached."""
        if request.freed is None or cacheless or (windowed and request.freed[0] != request.freed[1]):
            return 0
        if hybrid:
            return boundary if request.state and request.state[1] and request.freed[0] >= boundary else 0
        return min(request.freed[0], request.target - 1) // block * block

    while waiting or running:
        left, tokens, index, preempted, blocked = budget, 0, 0, False, False
        while index < len(running) and left > 0:
            request = running[index]
            need = min(request.target - request.computed, left) if request.computed < request.target else 1
            while used + need > pool_tokens and len(running) > max(1, index):  # preempt the last running one
                victim = running.pop()
                used -= victim.computed
                victim.freed = [victim.computed, victim.computed]
                free.append(victim.freed)
                if boundary and victim.state is None and victim.computed >= boundary:  # freed with the rest
                    victim.state = [0, 1]
                victim.target, victim.computed = prompt + victim.emitted, 0
                waiting.appendleft(victim)
                preempted = True
                if victim is request:
                    blocked = True
                    break
            if blocked:
                break
            n = run(request, left)
            take(n)
            used += n
            left -= n
            tokens += n
            index += 1
        while waiting and left > 0 and len(running) < max_num_seqs and not preempted:  # none in a step that preempts
            request = waiting[0]
            cached = hit(request)
            need = min(request.target - cached, left)
            if running and used + cached + need > pool_tokens:
                break
            waiting.popleft()
            if request.freed is not None:  # its cached blocks leave the queue; the rest of its segment stays free
                request.freed[0] -= cached
                request.freed = None
                request.state = None  # held again (or lost): freed anew once it computes past the boundary
            request.computed = cached
            used += cached
            running.append(request)
            n = run(request, left)
            take(n)
            used += n
            left -= n
            tokens += n
        histogram[tokens] += 1
        kept = [r for r in running if r.emitted < output]
        finished = len(running) - len(kept)
        if finished:
            done = sum(r.computed for r in running if r.emitted >= output)
            used -= done
            free.append([done, done])
            running = kept
        if unsent and finished:
            arrive = min(unsent, finished)
            unsent -= arrive
            waiting.extend(_Request(prompt) for _ in range(arrive))
    cache += deep * costs.kv_base + costs.kv_slope * (deep_depths - deep * window)
    scores += deep * costs.attn_base + costs.attn_slope * (deep_depths - deep * window)
    return Steps(tokens=tuple((float(t), float(c)) for t, c in sorted(histogram.items())), rows=rows,
                 cache_bytes=cache, attention_flops=scores, output=float(emitted), requests=float(requests))


@dataclasses.dataclass(frozen=True)
class Rates:
    """What the engine achieves on the card: bytes/s reading weights and reading the cache, FLOP/s of the
    dense matmuls (by their kernel), of the routed experts' grouped matmuls (fused MoE) and of attention."""

    weights: float
    cache: float
    gemm: float
    moe: float
    attention: float


def routed_params(model: ModelSpec) -> float:
    """The routed experts' parameters one token multiplies by (k of E per layer): the parameters a token does
    not use are the other E - k experts' (param_count - active), so the k it uses hold k / (E - k) of that."""
    moe = model.moe
    if moe is None or moe.experts <= moe.per_token or model.params_override is not None:
        return 0.0
    return (param_count(model) - active_param_count(model)) * moe.per_token / (moe.experts - moe.per_token)


def seconds(steps: Steps, workload: Workload, device: Device, achieved: Rates, *, tp: int) -> float:
    """The time of `steps` on `tp` GPUs sharing each layer. Per step, the dense matmuls and the routed experts'
    grouped matmuls are kernels of their own, one after the other, each never faster than reading its weights
    (the experts: those the step's tokens route to) nor than computing 2 · params per token at its kernel's
    achieved rate; then the head's rows (the rows that sample); the cache read by decoding rows; the scores; a
    fixed cost per layer and step; the tensor-parallel all-reduces; the server's work per request and token."""
    rates = engine_rates(workload.runtime)
    model = workload.model
    weights = reads(workload)
    dense_bytes = sum(layer.dense for layer in weights.layers) + weights.head
    expert_bytes = sum(layer.experts for layer in weights.layers)
    bandwidth = achieved.weights * tp
    routed = 2.0 * routed_params(model)
    dense = 2.0 * (matmul_params(model) - head_params(model)) - routed
    total = 0.0
    for tokens, count in steps.tokens:
        touched = weights.touched(max(1, round(tokens)))
        total += count * (max(dense_bytes / bandwidth, dense * tokens / tp / achieved.gemm)
                          + (max(expert_bytes * touched / bandwidth, routed * tokens / tp / achieved.moe)
                             if routed else 0.0))
    total += 2.0 * head_params(model) * steps.rows / tp / achieved.gemm
    total += steps.cache_bytes / tp / achieved.cache
    total += steps.attention_flops / tp / achieved.attention
    total += steps.steps * model.layers * layer_overhead(rates, device)
    if tp > 1:
        link = "nvlink" if device.nvlink else "pcie"
        total += steps.steps * 2 * model.layers * float(calibration()["allreduce_s"][link]) * math.log2(tp)
        total += 2.0 * model.layers * steps.total_tokens * model.hidden * 2 * 2 * (tp - 1) / tp / device.link
    host = rates.get("host_s", {})
    return total + steps.requests * float(host.get("request", 0.0)) + steps.output * float(host.get("token", 0.0))
