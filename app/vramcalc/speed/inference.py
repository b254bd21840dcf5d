"""Time to first token and tokens per second of a language model, from the bytes each device reads and
the FLOPs each token costs (speed/reads.py), over what the engine achieves of the device (hardware.py).

Decode, one step of `batch` sequences at `depth` tokens of context:
    t = max(bytes read / (η_bw · bandwidth), FLOPs / (η_c · TFLOPS)) + fixed cost per layer
(transformers: the host's cost per layer overlaps the GPU's work, t = max(read, FLOPs, host), unless bitsandbytes'
int8 layers make the host wait for the GPU at every layer; speed/bnb.py adds bitsandbytes' own costs)
with bytes = the weights the step touches (a mixture of experts: the experts its tokens route to)
+ each sequence's cache at that depth; layers in system RAM (llama.cpp --gpu-layers) are read at the
host's RAM bandwidth, one after the other with the GPU's. Tensor parallelism divides the bytes and
adds two all-reduces per layer.
Prefill of a prompt: FLOPs = 2 · matmul params · tokens + causal attention, over the kernels' achieved
rate, never faster than reading the weights once per micro-batch; llama.cpp's off Apple as its source runs it
(llamacpp_prefill: the head for the last token only, the activations' and scores' traffic, dequantisation of a
cuBLAS build, the pipeline over GPUs)."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any

from ..core.choices import GGUF_RUNTIMES, Runtime
from ..core.dtypes import Precision
from ..engines.llamacpp import LlamaCppFacts, uses_flash
from ..engines.vllm import vllm_batched_tokens
from ..formats.weights import WeightFormat
from ..memory.components import Breakdown
from ..model.families.decoder.spec import ModelSpec
from ..workload import Machine, Workload
from .bnb import bnb_cost
from .hardware import (
    Device,
    Platform,
    calibration,
    engine_rates,
    host_copy_bandwidth,
    layer_overhead,
    moe_layer_overhead,
    ram_bandwidth,
)
from .reads import (
    Reads,
    attention_flops,
    head_params,
    kv_bytes,
    matmul_params,
    prompt_attention_flops,
    prompt_scores,
    reads,
)
from .serving import Rates, Steps, seconds
from .speculative import draft_run, speculation, target
from .triton_moe import rdna_mxfp4_seconds

DEPTH_SAMPLES = 8  # decode's average over the output: the step time at this many evenly spaced depths
FP8_FORMATS = ("fp8", "fp8-block")
FLOAT_GGUF = ("f16", "bf16", "f32")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Placement:
    """Where the layers are: the first `host_layers` in system RAM (llama.cpp), the rest split over
    `stages` GPUs run one after the other and `tp` GPUs sharing each layer."""

    host_layers: int = 0
    # bytes of the GPU's layers read from RAM (negative: of the RAM's layers read on the GPU): --n-cpu-moe, -ot
    moved_dense: float = 0
    moved_experts: float = 0
    head_on_gpu: bool = True
    stages: int = 1
    tp: int = 1

    def with_head(self) -> Placement:
        """As prompts are counted: the head read from the GPU's memory wherever it is (a head left in RAM,
        with --gpu-layers 0, is not modelled apart: its copy over PCIe is left out)."""
        return dataclasses.replace(self, head_on_gpu=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Step:
    """One decode step's time and its parts (seconds)."""

    seconds: float
    gpu_read_s: float
    host_read_s: float
    compute_s: float
    fixed_s: float
    gpu_bytes: float  # read per step from the GPUs' memory (all of them)
    host_bytes: float
    draft_s: float = 0.0  # speculative decoding: the drafter's forwards in the step
    overlapped_s: float = 0.0  # of fixed_s: the host's launches that run while the GPU reads (transformers)
    cache_bytes: float = 0.0  # of gpu_bytes: the KV cache, read at kv_share (the basis says so)
    moe_kernel_s: float = 0.0  # of gpu_read_s: MXFP4 experts' kernels on an RDNA card beyond their read (triton_moe)
    share: float = 1.0  # the engine's share of the GPU's bandwidth reading weights
    kv_share: float = 1.0  # and reading the KV cache
    ram_share: float = 1.0  # its share of the system RAM's bandwidth
    ram_bandwidth: float = 0.0  # the system RAM's bytes/s

    @property
    def bound(self) -> str:
        parts = {"memory": self.gpu_read_s, "host_memory": self.host_read_s, "compute": self.compute_s,
                 "overhead": self.fixed_s}
        return max(parts, key=parts.__getitem__)


def _kernel(workload_precision: object, runtime: Runtime, device: Device) -> str:
    """Which rate a prompt's matmuls run at: fp32 weights on the FP32 units (PyTorch's default leaves TF32 off in
    matmuls, torch.backends.cuda.matmul.allow_tf32; llama.cpp sends f32 weights to cublasSgemm), else a tensor rate."""
    name = getattr(workload_precision, "name", "")
    if name in ("fp32", "f32") or workload_precision is Precision.FP32:
        return "fp32"
    if runtime not in GGUF_RUNTIMES and name in FP8_FORMATS and "fp8" in device.flops:
        return "fp8"
    if name in FLOAT_GGUF:  # a GGUF file's float types: dense matmuls (llama.cpp: cuBLAS)
        return "16-bit"
    if isinstance(workload_precision, WeightFormat) or not getattr(workload_precision, "is_float", True):
        return "quantised"
    return "16-bit"


def peak_kind(kernel: str) -> str:
    """The Device rate a kernel runs at: FP8's and FP32's own, else the 16-bit tensor rate (quantised kernels
    dequantise to 16-bit)."""
    return kernel if kernel in ("fp8", "fp32") else "16-bit"


K_QUANT = re.compile(r"(q[2-6]_k|iq[1-4])")  # llama.cpp's k-quants and i-quants: more work to dequantise


def bandwidth_share(rates: Mapping[str, Any], device: Device, precision: object = None) -> float:
    """The share of the GPU's bandwidth the engine reads weights at, by kind of memory (and, for
    llama.cpp, lower for the k- and i-quants, whose matrix-vector kernels do more per byte)."""
    share = float(rates["decode_bandwidth"][device.memory.value])
    if K_QUANT.match(getattr(precision, "name", "")):
        share *= float(rates.get("kquant_bandwidth", 1.0))
    return share


def compute_share(rates: Mapping[str, Any], device: Device, kernel: str) -> float:
    """The share of the dense tensor rate the engine's matmuls achieve, by kind of kernel (and of card:
    llama.cpp's prompt kernels reach a far smaller share of a datacenter card's rate)."""
    table = rates.get(f"prefill_compute_{device.platform.value}", rates["prefill_compute"])
    if device.kind in table:  # llama.cpp's: by class of card, whatever the kernel (llamacpp_prefill)
        return float(table[device.kind])
    return float(table.get(f"{kernel}-{device.memory.value}", table.get(kernel, table["16-bit"])))


def split_weights(weights: Reads, placement: Placement, batch: int) -> tuple[float, float]:
    """The weight bytes a step of `batch` tokens reads (GPU, system RAM): the layers in RAM and the tensors
    --n-cpu-moe and --override-tensor moved (routed experts read in the share `batch` tokens route to);
    the head where the output layer is."""
    layers, host_layers = len(weights.layers), placement.host_layers
    moved = placement.moved_dense + placement.moved_experts * weights.touched(batch)
    gpu = weights.layer_bytes(host_layers, layers, batch) - moved
    host = weights.layer_bytes(0, host_layers, batch) + moved
    return (gpu + weights.head, host) if placement.head_on_gpu else (gpu, host + weights.head)


def decode_step(workload: Workload, device: Device, machine: Machine, placement: Placement, *,
                batch: int, depth: int) -> Step:
    """One decode step of `batch` sequences at `depth`, per token each sequence gains: a forward of one token per
    sequence, or with speculative decoding (speed/speculative.py) the model's check of k + 1 tokens per sequence
    and k forwards of the drafter, over the E tokens a step yields on average. Its parts (bytes, bound) are the
    check's."""
    plan = speculation(workload)
    if plan is None:
        return forward(workload, device, machine, placement, batch=batch, depth=depth)
    checker = target(workload)
    check = forward(checker, device, machine, placement, batch=batch, depth=depth, tokens=plan.drafted + 1)
    drafts = plan.drafted * draft_seconds(workload, checker, device, machine, placement, batch=batch, depth=depth)
    return dataclasses.replace(check, seconds=(check.seconds + drafts) / plan.tokens, draft_s=drafts)


def draft_seconds(workload: Workload, checker: Workload, device: Device, machine: Machine, placement: Placement, *,
                  batch: int, depth: int) -> float:
    """One drafted token of each sequence: llama-server's draft model's own decode step (its layers on the GPU as
    -ngld puts them); or one of the MTP layers (vLLM and llama.cpp run layer i % n for the i-th draft) and the
    shared head, as the step with them costs more than the step without them, the head read once more."""
    draft = workload.draft_model
    if draft is not None:
        on_gpu = workload.draft_gpu_layers
        where = Placement() if on_gpu is None else Placement(host_layers=max(0, draft.layers - on_gpu),
                                                             head_on_gpu=on_gpu > draft.layers)
        return forward(draft_run(workload, draft), device, machine, where, batch=batch, depth=depth).seconds
    with_layers = forward(workload, device, machine, placement, batch=batch, depth=depth)
    without = forward(checker, device, machine, placement, batch=batch, depth=depth)
    assert device.bandwidth is not None
    share = bandwidth_share(engine_rates(workload.runtime), device, workload.precision)
    head = reads(checker).head / placement.tp / (share * device.bandwidth)
    return (with_layers.seconds - without.seconds) / workload.model.mtp_built + head


def forward(workload: Workload, device: Device, machine: Machine, placement: Placement, *,
            batch: int, depth: int, tokens: int = 1) -> Step:
    """One forward of `tokens` new tokens of each of `batch` sequences at `depth`: the weights the batch's tokens
    touch read once, each sequence's cache read once (its tokens attend it together), FLOPs for every token."""
    rates = engine_rates(workload.runtime)
    model = workload.model
    layers = model.layers
    host_layers = placement.host_layers
    weights = reads(workload)
    gpu_weights, host_weights = split_weights(weights, placement, batch * tokens)
    cache = batch * kv_bytes(workload, depth)
    gpu_share = (layers - host_layers) / layers
    gpu_bytes = gpu_weights + cache * gpu_share
    host_bytes = host_weights + cache * (1 - gpu_share)
    assert device.bandwidth is not None
    share = bandwidth_share(rates, device, workload.precision)
    # attention reads the cache less efficiently than a matrix-vector product reads weights
    kv_share = share * float(rates.get("kv_bandwidth", 1.0))
    gpu_read = (gpu_weights / share + cache * gpu_share / kv_share) / placement.tp / device.bandwidth
    ram_share, ram = float(rates.get("ram_bandwidth", 0.75)), ram_bandwidth(machine, device)
    host_read = host_bytes / (ram_share * ram) if host_bytes else 0.0
    flops = batch * tokens * (2 * matmul_params(model) + attention_flops(model, depth))
    peak = device.compute("fp32" if _kernel(workload.precision, workload.runtime, device) == "fp32" else "16-bit")
    compute = flops / placement.tp / (compute_share(rates, device, "16-bit") * peak) if peak else 0.0
    launch = layers * layer_overhead(rates, device) + weights.moe_layers * moe_layer_overhead(rates, device)
    if workload.runtime is Runtime.VLLM and workload.enforce_eager:
        launch = layers * float(rates["eager_layer_overhead_s"])
    moe_kernel = rdna_mxfp4_seconds(workload, device, rates, weights, batch * tokens, share) / placement.tp
    gpu_read += moe_kernel
    bnb = bnb_cost(workload, rates, batch * tokens)
    if bnb is not None:
        gpu_read += bnb.gpu_bytes / placement.tp / (share * device.bandwidth)
        gpu_bytes += bnb.gpu_bytes
        launch += bnb.host_s
    fixed = (placement.stages - 1) * float(rates.get("gpu_hop_s", 0.0))
    if placement.tp > 1:
        link = "nvlink" if device.nvlink else "pcie"
        fixed += 2 * layers * float(calibration()["allreduce_s"][link]) * math.log2(placement.tp)
        fixed += allreduce_bytes(model, batch * tokens, placement.tp) / device.link
    overlapped = 0.0
    if rates.get("host_overlap") and not (bnb is not None and bnb.serial):
        # eager PyTorch launches asynchronously: the host's work per layer runs while the GPU reads, a step takes
        # the longer of the two (transformers)
        seconds = max(gpu_read, compute, launch) + host_read + fixed
        overlapped = launch
    else:
        seconds = max(gpu_read, compute) + host_read + launch + fixed
    if bnb is not None:
        seconds *= bnb.scale
    fixed += launch
    return Step(seconds=seconds, gpu_read_s=gpu_read, host_read_s=host_read, compute_s=compute, fixed_s=fixed,
                gpu_bytes=gpu_bytes, host_bytes=host_bytes, moe_kernel_s=moe_kernel, overlapped_s=overlapped,
                cache_bytes=cache * gpu_share, share=share, kv_share=kv_share, ram_share=ram_share, ram_bandwidth=ram)


def allreduce_bytes(model: ModelSpec, tokens: int, tp: int) -> float:
    """Bytes each GPU sends in a tensor-parallel pass over `tokens`: two all-reduces of the 16-bit hidden
    state per layer (after attention and after the MLP), a ring sending 2 (tp - 1) / tp of it."""
    return 2.0 * model.layers * tokens * model.hidden * 2 * 2 * (tp - 1) / tp


def depths(prompt: int, output: int) -> tuple[int, ...]:
    """The depths decode is sampled at: the midpoints of DEPTH_SAMPLES equal spans of the output."""
    samples = min(DEPTH_SAMPLES, max(1, output))
    return tuple(prompt + round((i + 0.5) * output / samples) for i in range(samples))


def mean_step(workload: Workload, device: Device, machine: Machine, placement: Placement, *,
              batch: int, prompt: int, output: int) -> tuple[float, Step]:
    """The mean step time over the output tokens (the cache grows as they are made), and the middle step."""
    steps = [decode_step(workload, device, machine, placement, batch=batch, depth=d) for d in depths(prompt, output)]
    return sum(step.seconds for step in steps) / len(steps), steps[len(steps) // 2]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Prefill:
    seconds: float
    compute_s: float
    read_s: float
    flops: float
    kernel: str  # 16-bit, fp8, fp32 or quantised
    peak: float  # the card's dense rate for that kernel, FLOP/s
    share: float  # of `peak` the matmuls achieve
    accumulate16: bool = False  # `peak` is the card's FP16-accumulate rate (llama.cpp on a GeForce card)
    host_bytes: float = 0.0  # weights in system RAM that llama.cpp copies to the GPU for each micro-batch
    chunks: int = 1  # the micro-batches
    host_s: float = 0.0  # the time of those copies, chunks × host_bytes over PCIe


def prompt_flops(model: ModelSpec, prompt: int) -> float:
    """One sequence's prompt, without its attention: every token through the layers, the last alone
    through the output head (only the token that samples has its logits computed)."""
    head = head_params(model)
    return 2 * ((matmul_params(model) - head) * prompt + head)


def serving_rates(workload: Workload, device: Device) -> Rates | None:
    """What vLLM achieves on the card (speed/serving.py): the weights read at its share of the bandwidth, the
    cache at `kv_bandwidth` of that, the matmuls at the share of their kernel's dense rate (FP8 on a card with
    FP8 tensor cores, else the 16-bit rate: an A100 runs FP8 weights as W8A16 Marlin), attention at its own
    share of the 16-bit rate. None when the card's compute or bandwidth is unknown."""
    rates = engine_rates(workload.runtime)
    kernel = _kernel(workload.precision, workload.runtime, device)
    peak = device.compute(peak_kind(kernel))
    half = peak if kernel == "fp32" else device.compute("16-bit")  # fp32 attention and experts: the FP32 units too
    if not peak or not half or device.bandwidth is None:
        return None
    weights = bandwidth_share(rates, device, workload.precision) * device.bandwidth
    return Rates(weights=weights, cache=weights * float(rates.get("kv_bandwidth", 1.0)),
                 gemm=compute_share(rates, device, kernel) * peak, moe=float(rates.get("moe_compute", 1.0)) * half,
                 attention=float(rates.get("attention_compute", {}).get(device.memory.value, 0.5)) * half)


def vllm_prefill(workload: Workload, device: Device, placement: Placement, *, batch: int, prompt: int,
                 budget: int) -> Prefill | None:
    """The prompts of the batch alone, as vLLM's steps run them (speed/serving.py): chunks of `budget` tokens,
    the head for each prompt's last token."""
    achieved = serving_rates(workload, device)
    if achieved is None:
        return None
    model = workload.model
    tokens = batch * prompt
    full, rest = divmod(tokens, max(1, budget))
    chunks = ((float(budget), float(full)),) if full else ()
    steps = Steps(tokens=chunks + (((float(rest), 1.0),) if rest else ()), rows=float(batch), cache_bytes=0.0,
                  attention_flops=batch * prompt_attention_flops(model, prompt), output=0.0, requests=0.0)
    time = seconds(steps, workload, device, achieved, tp=placement.tp)
    flops = batch * (prompt_flops(model, prompt) + prompt_attention_flops(model, prompt))
    kernel = _kernel(workload.precision, workload.runtime, device)
    peak = device.compute(peak_kind(kernel)) or 0.0
    return Prefill(seconds=time, compute_s=flops / placement.tp / achieved.gemm,
                   read_s=math.ceil(tokens / max(1, budget)) * reads(workload).layer_bytes(0, model.layers, budget)
                   / placement.tp / achieved.weights, flops=flops, kernel=kernel, peak=peak,
                   share=achieved.gemm / peak if peak else 0.0)


def _prefill_chunk(workload: Workload) -> int:
    """The tokens one prefill step takes, each step reading the weights once: llama.cpp's --ubatch, vLLM's token
    budget (engines/vllm.py, as its memory answer), TEI's --max-batch-tokens; else max_num_batched_tokens or 8,192."""
    if workload.runtime in GGUF_RUNTIMES:
        return workload.ubatch
    if workload.runtime is Runtime.VLLM:
        return vllm_batched_tokens(workload)
    if workload.runtime is Runtime.TEI:
        return workload.max_batch_tokens
    return workload.max_num_batched_tokens or 8192


def prefill(workload: Workload, device: Device, machine: Machine, placement: Placement, *,
            batch: int, prompt: int) -> Prefill | None:
    """The prompt(s) of the batch processed at once, or None when the device's compute is unknown."""
    if workload.runtime in GGUF_RUNTIMES and device.platform is not Platform.METAL:
        return llamacpp_prefill(workload, device, placement, batch=batch, prompt=prompt)
    if workload.runtime is Runtime.VLLM and not workload.embeds:
        return vllm_prefill(workload, device, placement, batch=batch, prompt=prompt,
                            budget=vllm_batched_tokens(workload))
    rates = engine_rates(workload.runtime)
    model = workload.model
    kernel = _kernel(workload.precision, workload.runtime, device)
    peak = device.compute(peak_kind(kernel))
    if not peak or device.bandwidth is None:
        return None
    efficiency = compute_share(rates, device, kernel)
    # llama.cpp's rates count the head for the last token only; vLLM's and transformers' were fitted counting it
    # for every prompt token (their shares absorb it), and are kept so until they are refitted; an embedder has none,
    # a reranker whose head transformers keeps (AutoModelForCausalLM) multiplies every position by it
    reranker = model.reranker
    head = not workload.embeds or (reranker is not None and reranker.from_head and not reranker.scored)
    matmuls = (prompt_flops(model, prompt) if workload.runtime in GGUF_RUNTIMES
               else 2 * matmul_params(model, head=head) * prompt)
    flops = batch * (matmuls + prompt_attention_flops(model, prompt))
    compute = flops / placement.tp / (efficiency * peak)
    chunk = _prefill_chunk(workload)
    chunks = math.ceil(batch * prompt / max(1, chunk))
    weights = reads(workload)
    gpu_weights, host_weights = split_weights(weights, placement.with_head(), chunk)
    read = chunks * gpu_weights / placement.tp / (bandwidth_share(rates, device, workload.precision) * device.bandwidth)
    host_s = chunks * host_weights / host_copy_bandwidth(device)  # llama.cpp copies the layers in RAM each micro-batch
    read += host_s
    per_step = model.layers * layer_overhead(rates, device) + weights.moe_layers * moe_layer_overhead(rates, device)
    fixed = chunks * per_step
    if placement.tp > 1:
        fixed += allreduce_bytes(model, batch * prompt, placement.tp) / device.link
    return Prefill(seconds=max(compute, read) + fixed, compute_s=compute, read_s=read, flops=flops, kernel=kernel,
                   peak=peak, share=efficiency, host_bytes=host_weights, chunks=chunks, host_s=host_s)


LLAMACPP_BATCH = 2048  # llama.cpp's n_batch (llama-server, llama-bench): the tokens one llama_decode call takes
# Bytes each attention score costs without flash attention (llama-graph.cpp build_attn_mha): K·Q written in
# f32 (4), read and written by soft_max_ext (8), converted to f16 for cuBLAS (4 read, 2 written), read by V·KQ (2).
SCORE_BYTES = 20


def llamacpp_prefill(workload: Workload, device: Device, placement: Placement, *, batch: int,
                     prompt: int) -> Prefill | None:
    """llama.cpp's prompt on a CUDA, ROCm or Vulkan card, as its source runs it, in micro-batches of --ubatch:
    - the matmuls: f16 weights in cuBLAS accumulating in FP16 (ggml-cuda.cu, CUBLAS_COMPUTE_16F; f32 weights in
      cublasSgemm, at the FP32 rate), quantised ones
      in its int8 kernels (mmq.cu, ggml_cuda_should_use_mmq: every k- and legacy quant on Turing and newer),
      either at the share of the card's FP16-accumulate rate that its class of card achieves (data/speed.json);
    - a build that sends quantised weights to cuBLAS (GGML_CUDA_FORCE_CUBLAS; every build before June 2024)
      first dequantises each to f16, once per micro-batch: its bytes read, 2 bytes per weight written;
    - between the matmuls, the activations: each value a matmul writes (its output width, about its parameters
      over the hidden size) is written in f32, read by the norms, RoPE, the gate and the residual adds, and
      converted for the next matmul: `activation_bytes` per value, fitted (data/speed.json);
    - without flash attention each score is written to memory and read back (SCORE_BYTES), for every cell
      cached so far (prompt_scores); with it, only the causal attention's FLOPs;
    - layers split over GPUs run as a pipeline over the micro-batches of one llama_decode call, when every
      layer is on a GPU (llama-context.cpp, pipeline_parallel): (k + stages - 1) stage times for k micro-batches
      instead of k · stages."""
    rates = engine_rates(workload.runtime)
    model = workload.model
    kernel = _kernel(workload.precision, workload.runtime, device)
    peak = device.compute("fp32" if kernel == "fp32" else "fp16-acc16")  # f32 weights: cublasSgemm
    if not peak or device.bandwidth is None:
        return None
    share = compute_share(rates, device, "16-bit")
    bandwidth = bandwidth_share(rates, device) * device.bandwidth
    tokens, ubatch = batch * prompt, max(1, workload.ubatch)
    chunks = math.ceil(tokens / ubatch)
    weights = reads(workload)
    gpu_weights, host_weights = split_weights(weights, placement.with_head(), ubatch)
    if uses_flash(workload.attention):
        scores, attention = 0.0, batch * prompt_attention_flops(model, prompt)
    else:
        scores, attention = (batch * value for value in prompt_scores(model, prompt, ubatch))
    flops = batch * prompt_flops(model, prompt) + attention
    compute = flops / placement.tp / (share * peak)
    read = chunks * gpu_weights / placement.tp / bandwidth
    values = tokens * (matmul_params(model) - head_params(model)) / model.hidden  # the matmuls' outputs
    seconds = max(compute, read) + (values * float(rates["activation_bytes"]) + scores * SCORE_BYTES) / (
        placement.tp * bandwidth)
    if kernel == "quantised" and workload.llamacpp_cublas:
        layers = gpu_weights - weights.head
        seconds += chunks * (layers + 2 * (matmul_params(model) - head_params(model))) / placement.tp / bandwidth
    host_s = chunks * host_weights / host_copy_bandwidth(device)  # the layers in RAM copied for each micro-batch
    if host_weights:
        seconds += host_s
    elif placement.stages > 1:
        k = math.ceil(min(tokens, LLAMACPP_BATCH) / ubatch)
        seconds *= (k + placement.stages - 1) / (k * placement.stages)
    seconds += chunks * model.layers * layer_overhead(rates, device)
    if placement.tp > 1:
        seconds += allreduce_bytes(model, tokens, placement.tp) / device.link
    return Prefill(seconds=seconds, compute_s=compute, read_s=read, flops=flops, kernel=kernel, peak=peak,
                   share=share, accumulate16=device.geforce and kernel != "fp32", host_bytes=host_weights,
                   chunks=chunks, host_s=host_s)


def placement_of(breakdown: Breakdown, stages: int, tp: int) -> Placement:
    """Where the breakdown's engine put the layers: llama.cpp's --gpu-layers and --n-cpu-moe, else all on GPUs."""
    facts = breakdown.facts
    if isinstance(facts, LlamaCppFacts):
        placed = facts.placed
        return Placement(host_layers=breakdown.workload.model.layers - facts.layout.layers_on_gpu,
                         head_on_gpu=placed.head_on_gpu, moved_dense=placed.dense, moved_experts=placed.experts,
                         stages=stages, tp=tp)
    return Placement(stages=stages, tp=tp)
