"""The frozen Workload: the model, its numerics, the request, the mode's settings, the engine's
settings, the layout and the machine. Data only: inputs/ parses it, memory/ and engines/ read it."""

from __future__ import annotations

import dataclasses

from .core.choices import (
    GENERATING,
    GGUF_RUNTIMES,
    Attention,
    Checkpointing,
    Framework,
    Fsdp,
    LlamaCppProgram,
    Mode,
    Objective,
    Offload,
    Optimizer,
    OptimizerImpl,
    Recipe,
    Reference,
    Rollout,
    Runtime,
)
from .core.dtypes import Precision
from .core.phrase import Phrase, phrase
from .core.units import GIB
from .formats.weights import DEFAULT_GROUP_SIZE, WeightFormat
from .model.families.decoder.spec import ModelSpec
from .sources.gpus import GpuSpec
from .training.lora import ALL_LINEAR, Lora
from .training.recipes import compute_precision as training_compute

# Framework overhead default: the CUDA context is ~0.3–0.4 GB with lazy loading
# (pytorch/pytorch#107667, #109888) and 716–1343 MiB measured once cuBLAS/cuDNN
# workspaces are up; 1 GiB is the middle of that range (reference.md §2.8).
DEFAULT_OVERHEAD_BYTES = 1 * GIB
DEFAULT_OUTPUT_TOKENS = 256  # a reply's length when only the sequence is given (speed)
DEFAULT_MIN_TOKENS_PER_S = 10.0  # each user's speed the largest concurrency keeps: faster than people read


@dataclasses.dataclass(frozen=True, kw_only=True)
class Workload:
    model: ModelSpec
    mode: Mode = Mode.INFERENCE
    precision: Precision | WeightFormat = Precision.BF16  # nominal (first version) or a real format
    # the format asked, where the engine runs another on this card (engines/cards.py: transformers dequantises FP8
    # weights to bf16 before compute capability 8.9); None: `precision` is the one asked
    asked_precision: Precision | WeightFormat | None = None
    group_size: int = DEFAULT_GROUP_SIZE
    kv_precision: Precision | None = None  # None: follow the weights
    batch: int = 1
    seq: int = 8192
    prompt_tokens: int | None = None  # None: the sequence less the output
    output_tokens: int | None = None  # None: DEFAULT_OUTPUT_TOKENS (at most half the sequence)
    optimizer: Optimizer = Optimizer.ADAMW
    optimizer_impl: OptimizerImpl = OptimizerImpl.DEFAULT
    mixed_precision: bool = False
    recipe: Recipe = Recipe.LEGACY
    text_only: bool = False  # a multimodal model without its vision part (no images; llama.cpp without --mmproj)
    no_mmproj_offload: bool = False  # llama.cpp --no-mmproj-offload: the projector in system RAM
    images: int = 0  # images per request (a multimodal model's), each image_width × image_height pixels
    image_width: int = 1024
    image_height: int = 1024
    image_tokens: int = 0  # the tokens they became in each sequence, counted in `seq` (inputs/parse.py)
    videos: int = 0  # videos per request, video_seconds long, sampled at video_fps, frames of the image size
    video_seconds: float = 10.0
    video_fps: float = 2.0
    video_tokens: int = 0  # the tokens they became in each sequence, counted in `seq`
    beams: int = 5  # speech: the beam size (transformers' num_beams, faster-whisper's beam_size, whisper.cpp's -bs)
    audio_seconds: int = 30  # speech: each audio's length; Whisper hears it in 30 s windows
    window_tokens: int | None = None  # faster-whisper: tokens written per window (None: the most, the worst case)
    no_fallback: bool = False  # faster-whisper, one window at a time: temperature=0, no fallback (best_of 5)
    lora_rank: int = 0
    lora_targets: tuple[str, ...] = (ALL_LINEAR,)
    lora_embeddings: bool = False
    lora_dropout: float = 0.0
    lora_dtype: Precision = Precision.FP32
    grad_accum: int = 1
    fused_ce: bool = False
    optimizer_in_backward: bool = False  # torchtune's optimizer_in_bwd: each gradient stepped and freed as made
    activation_offload: bool = False  # saved activations kept in host memory between the forward and the backward
    ce_output_chunks: int = 0  # torchtune's CEWithChunkedOutputLoss: the head's logits in N chunks (0: whole)
    bnb_version: tuple[int, ...] | None = None  # bitsandbytes' version, when given (None: a current one)
    compile: bool = False  # torch.compile on each layer (torchtune's compile: True): fewer saved activations
    framework: Framework = Framework.TRAINER  # its defaults were applied by inputs/parse.py; its mechanics stay
    framework_set: tuple[str, ...] = ()  # the settings its defaults set (training/frameworks.py)
    objective: Objective = Objective.SFT
    reference: Reference = Reference.DEFAULT
    num_generations: int | None = None  # GRPO, RLOO: completions per prompt (None: TRL's, `generations`)
    completion_tokens: int = 512  # GRPO: TRL's max_completion_length, within --seq (prompt + completion)
    num_iterations: int = 1  # GRPO, RLOO: TRL's num_iterations (μ), the updates each generation batch is used for
    steps_per_generation: int | None = None  # GRPO, RLOO: micro-steps one generation serves (None: grad_accum)
    local_rollout_forward_batch_size: int = 64  # PPO: TRL's rollout chunk (generation and no_grad forwards)
    num_ppo_epochs: int = 4  # PPO: TRL's passes over each rollout, num_mini_batches optimizer steps each
    rollout: Rollout = Rollout.TRANSFORMERS
    vllm_gpu_memory_utilization: float = 0.3  # TRL's share of the card for colocated vLLM
    checkpointing: Checkpointing = Checkpointing.NONE
    attention: Attention = Attention.FLASH
    overhead_bytes: int = DEFAULT_OVERHEAD_BYTES
    overhead_given: bool = False  # set by the user; False: the engine's default (inputs/parse.py fills it in)
    reserve_bytes: int | None = None  # memory other programs hold on each GPU (None: none)
    runtime: Runtime = Runtime.TRANSFORMERS
    gpu: GpuSpec | None = None  # the card the engine runs on (vLLM sizes its pool by it); of mixed cards, the first
    cards: tuple[GpuSpec, ...] = ()  # a machine of different cards, one per device, CUDA0 first (empty: `gpu` only)
    devices: int = 1  # the GPUs it runs on (`gpus`, or the cards listed): Ollama's own fit is sized for one
    gpu_memory_utilization: float | None = None  # None: vLLM's own (1.0 with the extensible KV cache, else 0.92)
    no_extensible_kv_cache: bool = False  # vLLM 0.34's --no-enable-extensible-kv-cache: the estimate-based pool
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    enforce_eager: bool = False
    max_batch_tokens: int = 16384  # TEI --max-batch-tokens
    max_batch_requests: int | None = None  # TEI --max-batch-requests (None: no limit)
    gpu_layers: int | None = None
    num_ctx: int | None = None  # Ollama: the context it allocates per sequence (None: its default by VRAM)
    ollama_version: tuple[int, int, int] | None = None  # Ollama's defaults of that version (None: the latest read)
    llamacpp_program: LlamaCppProgram = LlamaCppProgram.SERVER  # llama.cpp: whose logits rows
    n_cpu_moe: int = 0  # llama.cpp: the first N layers keep their routed experts in RAM
    cpu_moe: bool = False  # llama.cpp: every layer does
    override_tensor: tuple[tuple[str, str], ...] = ()  # llama.cpp -ot: (pattern, device), the first match wins
    tensor_split: tuple[float, ...] = ()  # llama.cpp -ts: each GPU's proportion of the layers (empty: by free memory)
    ubatch: int = 512
    # llama.cpp built with GGML_CUDA_FORCE_CUBLAS, as every CUDA build before PR #8075 (2024-06-24) ran prompts on
    # tensor-core cards: quantised weights dequantised to f16 for cuBLAS instead of its int8 kernels (MMQ).
    # No option sets it: tools/validate_speed.py does, for the published runs of those builds.
    llamacpp_cublas: bool = False
    # llama.cpp's Vulkan build on a card whose own platform is CUDA or ROCm: the prompt rates of the CUDA classes
    # of card, not ROCm's (data/speed.json). No option sets it: tools/validate_speed.py does, for Vulkan runs.
    llamacpp_vulkan: bool = False
    parallel: int = 1
    kv_precision_k: Precision | None = None
    kv_precision_v: Precision | None = None
    # llama.cpp's speculative decoding with a draft model (-md): its own weights, cache types and layers on the GPU
    draft_model: ModelSpec | None = None
    draft_precision: WeightFormat | None = None  # None: the engine's default (q8_0)
    draft_kv_precision: Precision = Precision.FP16  # -ctkd and -ctvd (llama.cpp's default f16, not -ctk's)
    draft_gpu_layers: int | None = None  # -ngld (None: all)
    mtp: int = 0  # speculative decoding with the model's MTP layers: tokens drafted per step (0: off; `model` then
    # holds the MTP layers the engine loads: model/families/decoder/mtp.py)
    spec_acceptance: float | None = None  # a drafted token's chance of acceptance (None: speculative.py's default)
    tp: int | None = None  # None: from `gpus` and the mode's default layout (parallel.py)
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    cp: int | None = None
    sp: bool = False
    vpp: int = 1
    zero: int | None = None
    fsdp: Fsdp = Fsdp.NONE
    offload: Offload = Offload.NONE
    # the layout the user named for several GPUs, which one GPU drops (the page hides its fields there): the fewest
    # GPUs are searched under it (`on_gpus`), as the same options with --gpus N run
    named_layout: tuple[tuple[str, object], ...] = ()

    @property
    def held_bytes(self) -> int:
        """What each GPU holds beside the model: the engine's overhead and what other programs hold."""
        return self.overhead_bytes + (self.reserve_bytes or 0)

    @property
    def output(self) -> int:
        """Tokens each sequence generates (speed): as given, else DEFAULT_OUTPUT_TOKENS within the sequence."""
        if self.output_tokens is not None:
            return self.output_tokens
        return max(1, min(DEFAULT_OUTPUT_TOKENS, self.seq - (self.prompt_tokens or self.seq // 2)))

    @property
    def prompt(self) -> int:
        """Tokens of each sequence's prompt (speed): as given, else the sequence less its output."""
        return self.prompt_tokens if self.prompt_tokens is not None else max(1, self.seq - self.output)

    @property
    def shortest_seq(self) -> int:
        """The shortest sequence the workload takes: GRPO's, RLOO's and PPO's hold the completion and a prompt token."""
        generates = self.is_training and (self.objective in GENERATING or self.objective is Objective.PPO)
        return self.completion_tokens + 1 if generates else 1

    @property
    def sequences(self) -> int:
        """Sequences decoded together: llama.cpp's --parallel slots, else the batch."""
        return self.parallel if self.runtime in GGUF_RUNTIMES else self.batch

    @property
    def layout_given(self) -> bool:
        """Whether the user named a layout; sequence parallelism alone names none (it splits tensor parallel's
        activations, so without tp it does nothing: the command line says it is ignored)."""
        return any(getattr(self, key) is not None for key in ("tp", "pp", "dp", "ep", "cp", "zero")) or (
            self.fsdp is not Fsdp.NONE or self.offload is not Offload.NONE or self.vpp > 1)

    @property
    def effective_kv_precision(self) -> Precision:
        """KV-cache format: as chosen, else the weights' float format, else 16-bit."""
        if self.kv_precision is not None:
            return self.kv_precision
        return self.precision if isinstance(self.precision, Precision) and self.precision.is_float else Precision.FP16

    @property
    def activation_precision(self) -> Precision:
        """Activations are computed in the weights' float format, or the recipe's (autocast: the
        precision named); quantised weights compute in 16-bit (QLoRA: bf16)."""
        if self.is_training and self.recipe is not Recipe.LEGACY:
            return training_compute(self.recipe, self.precision if isinstance(self.precision, Precision)
                                    else Precision.BF16)
        if self.lora and not self.precision.is_float:
            return Precision.BF16
        return self.precision if isinstance(self.precision, Precision) and self.precision.is_float else Precision.FP16

    @property
    def lora(self) -> Lora | None:
        """The adapters, when fine-tuning with LoRA (training and a rank above 0)."""
        if not self.is_training or self.lora_rank == 0:
            return None
        return Lora(rank=self.lora_rank, targets=self.lora_targets, embeddings=self.lora_embeddings)

    @property
    def generations(self) -> int:
        """GRPO's and RLOO's completions per prompt: as given, else TRL's default (GRPOConfig 8, RLOOConfig 2)."""
        if self.num_generations is not None:
            return self.num_generations
        return 2 if self.objective is Objective.RLOO else 8

    @property
    def reference_model(self) -> Reference | None:
        """DPO's, KTO's, GRPO's or RLOO's reference model (TRL's default when not given: DPO, KTO and RLOO (beta
        0.05), adapters off under LoRA, else a copy; GRPO, none, as its beta is 0; ORPO has none)."""
        if not self.is_training or self.objective is Objective.SFT:
            return None
        if self.objective is Objective.ORPO:
            return Reference.NONE
        if self.reference is Reference.DEFAULT:
            if self.objective is Objective.GRPO:
                return Reference.NONE
            return Reference.ADAPTERS_OFF if self.lora else Reference.COPY
        return self.reference

    @property
    def is_training(self) -> bool:
        return self.mode is Mode.TRAINING

    @property
    def embeds(self) -> bool:
        """One forward, no generation: the embedding mode, or an encoder or a decoder converted to a classifier
        (which cannot generate) not training."""
        reranker = self.model.reranker
        cannot_generate = self.model.encoder is not None or (reranker is not None and not reranker.from_head)
        return self.mode is Mode.EMBEDDING or (cannot_generate and not self.is_training)

    @property
    def transcribes(self) -> bool:
        """A speech model transcribing: the speech mode, or a speech model (which only transcribes) not training."""
        return self.model.speech is not None and not self.is_training

    def but(self, **changes: object) -> Workload:
        """This workload with `changes`, as dataclasses.replace makes it but without re-running the
        generated __init__ field by field: the solvers and charts make hundreds per update. The class
        has no __post_init__ and no cached values, so copying the fields is all replace does."""
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"Workload has no field {', '.join(sorted(unknown))}")
        copy = object.__new__(Workload)
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    def on_gpus(self, gpus: int) -> Workload:
        """The workload as the same options with `gpus` GPUs give it: one GPU drops the layout (kept in
        `named_layout`), more take back the layout named for them."""
        if gpus > 1:
            several = self.but(**dict(self.named_layout), named_layout=()) if self.named_layout else self
            if "optimizer_in_backward" in self.framework_set:  # torchtune's single-device default: its distributed
                kept = tuple(k for k in self.framework_set if k != "optimizer_in_backward")  # recipe's is off
                several = several.but(optimizer_in_backward=False, framework_set=kept)  # (training/frameworks.py)
            return several
        named = tuple((key, getattr(self, key)) for key, unset in LAYOUT_UNSET.items() if getattr(self, key) != unset)
        return self.but(**LAYOUT_UNSET, named_layout=self.named_layout + named) if named else self


LAYOUT_UNSET: dict[str, object] = {"tp": None, "pp": None, "dp": None, "ep": None, "cp": None, "sp": False, "vpp": 1,
                                   "zero": None, "fsdp": Fsdp.NONE, "offload": Offload.NONE}
"""The layout's fields as a workload without a layout has them."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Target:
    """The GPUs the reverse questions are asked about: `count` cards of one kind, sharing evenly, or a machine
    of different cards (`cards`, one per device, CUDA0 first: `gpu` is the first and `count` how many)."""

    gpu: GpuSpec
    count: int = 1
    cards: tuple[GpuSpec, ...] = ()

    @property
    def label(self) -> Phrase:
        """'H100 SXM 80 GB', '4 × H100 SXM 80 GB' for several, 'RTX 3090 + RTX 4060 Ti 16 GB' for mixed cards."""
        if self.cards:
            return phrase("target.mixed", gpus=" + ".join(card.display_name for card in self.cards))
        if self.count == 1:
            return phrase("target.one", gpu=self.gpu.display_name)
        return phrase("target.many", count=self.count, gpu=self.gpu.display_name)


@dataclasses.dataclass(frozen=True, kw_only=True)
class CapacityQuery:
    memory_bytes: int | None  # an extra row for the capacity table; None: only the standard sizes
    headroom: float  # fraction of memory kept free, 0 to 0.9


@dataclasses.dataclass(frozen=True, kw_only=True)
class Machine:
    """The user's speed inputs: overrides of the card's figures, the host's RAM, prices, a run's size."""

    gpu_bandwidth_gb_s: float | None = None
    gpu_tflops: float | None = None
    ram_bandwidth_gb_s: float | None = None
    gpu_hour_usd: float | None = None
    train_tokens: int | None = None
    min_tokens_per_s: float = DEFAULT_MIN_TOKENS_PER_S  # "the most sequences that each keep this speed"
    max_run_hours: float | None = None  # "the fewest GPUs that finish the run within these hours"
