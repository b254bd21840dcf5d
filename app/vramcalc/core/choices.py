"""The discrete choices of a workload, one enum each; values are the names used
on the command line, in links and in the form."""

from __future__ import annotations

import enum


class Mode(enum.Enum):
    INFERENCE = "inference"
    """Weights + KV cache + one layer's transient activations + last-token logits."""
    TRAINING = "training"
    """Weights + gradients + optimizer state (+ master weights) + stored activations + logits."""
    EMBEDDING = "embedding"
    """An embedder or reranker: weights (no LM head) + the activations of one forward over a batch; no logits,
    and no KV cache but the one transformers' forward builds for a decoder. A decoder reranker scored on its LM
    head's rows (Qwen3-Reranker) as its engine loads it: transformers keeps the head and every position's logits."""
    SPEECH = "speech"
    """A speech encoder-decoder (Whisper) transcribing: weights, the encoder over 30 s windows, the decoder's
    self-attention and cross-attention KV for every beam of every window."""


class Optimizer(enum.Enum):
    ADAMW = "adamw"
    """AdamW: first and second moments in fp32, 4 + 4 = 8 bytes per parameter."""
    ADAM = "adam"
    """Adam: same state as AdamW, 8 bytes per parameter."""
    SGD_MOMENTUM = "sgd-momentum"
    """SGD with momentum: one momentum buffer."""
    SGD = "sgd"
    """Plain SGD: no state."""
    ADAMW_8BIT = "adamw-8bit"
    """bitsandbytes AdamW8bit: two 8-bit moments with blockwise fp32 scales (about 2 bytes per parameter)."""
    PAGED_ADAMW_8BIT = "paged-adamw-8bit"
    """The same in paged memory: under pressure its state moves to host memory instead of failing."""
    PAGED_ADAMW = "paged-adamw"
    """bitsandbytes paged AdamW with 32-bit state."""
    ADAFACTOR = "adafactor"
    """Adafactor without momentum: factored second moments (a row and a column per matrix)."""
    LION = "lion"
    """Lion: one momentum buffer."""


class OptimizerImpl(enum.Enum):
    """How the update runs over the tensors (its temporaries differ: step.py)."""

    DEFAULT = ""
    """The optimizer's own: torch.optim's foreach on GPU, bitsandbytes' one kernel per tensor,
    transformers' Adafactor and lion-pytorch's loops."""
    FOREACH = "foreach"
    FUSED = "fused"
    FOR_LOOP = "for-loop"
PAGED = frozenset({Optimizer.PAGED_ADAMW, Optimizer.PAGED_ADAMW_8BIT})


class Objective(enum.Enum):
    SFT = "sft"
    """Supervised fine-tuning: one forward of the batch, cross-entropy on its tokens."""
    DPO = "dpo"
    """TRL's DPOTrainer: each pair's chosen and rejected sequences in one forward (2 x batch),
    log-probabilities from TRL's chunked LM head, and a reference model's forward."""
    GRPO = "grpo"
    """TRL's GRPOTrainer: completions generated each step, then scored by the policy (and a reference
    when beta > 0) with the same chunked LM head."""
    ORPO = "orpo"
    """TRL's ORPOTrainer (trl.experimental.orpo): chosen and rejected sequences in one forward of the policy, whose
    logits are made whole; the chosen half's cross-entropy plus the odds-ratio term of both halves' log-probabilities,
    and no reference model."""
    KTO = "kto"
    """TRL's KTOTrainer: unpaired completions, each desirable or not (--batch of them), the same chunked LM
    head, and no-grad forwards of mismatched prompt-completion pairs (the KL batch) by the policy and the
    reference."""
    RLOO = "rloo"
    """TRL's RLOOTrainer: GRPO's step (training/grpo.py) with a leave-one-out baseline, the old policy scored
    without gradients at every generation, and a reference by default (beta 0.05) whose KL goes into the reward."""
    PPO = "ppo"
    """TRL's PPOTrainer: a rollout generated and scored by the reference, value and reward models, then the policy
    and the value model trained together on it (training/ppo.py)."""


GENERATING = frozenset({Objective.GRPO, Objective.RLOO})
"""The objectives that generate their completions each step, with TRL's GRPO step (training/grpo.py)."""


class Reference(enum.Enum):
    """DPO's, KTO's, GRPO's and RLOO's reference model."""

    DEFAULT = ""
    """TRL's: DPO, KTO and RLOO (beta 0.05), the policy with its adapters off under LoRA, else a frozen copy; GRPO
    (beta 0), none."""
    COPY = "copy"
    ADAPTERS_OFF = "adapters-off"
    PRECOMPUTED = "precomputed"
    NONE = "none"
    """GRPO or RLOO with beta = 0 (GRPO's default): no reference model."""


class Rollout(enum.Enum):
    """What generates GRPO's and RLOO's completions (TRL's use_vllm, vllm_mode, vllm_enable_sleep_mode)."""

    TRANSFORMERS = "transformers"
    VLLM_COLOCATE = "vllm-colocate"
    VLLM_COLOCATE_SLEEP = "vllm-colocate-sleep"
    VLLM_SERVER = "vllm-server"


class Checkpointing(enum.Enum):
    NONE = "none"
    """Every layer's activations are kept for the backward pass."""
    LAYER = "layer"
    """Per-layer (PyTorch / Hugging Face `gradient_checkpointing_enable`): keep each
    layer's input; recompute one layer at a time in backward."""
    SQRT = "sqrt"
    """Chen et al. 2016: ceil(sqrt(L)) segments; keep segment inputs, recompute one segment."""


class Framework(enum.Enum):
    """The program a fine-tuning runs under: its defaults and mechanics (training/frameworks.py)."""

    TRAINER = "trainer"
    UNSLOTH = "unsloth"
    TORCHTUNE = "torchtune"
    LITGPT = "litgpt"
    AXOLOTL = "axolotl"


class Attention(enum.Enum):
    EAGER = "eager"
    """Plain matmul + softmax: stores the s x s attention probabilities."""
    FLASH = "flash"
    """FlashAttention / SDPA: stores only the output and the softmax log-sum-exp."""


class Runtime(enum.Enum):
    TRANSFORMERS = "transformers"
    VLLM = "vllm"
    LLAMACPP = "llamacpp"
    OLLAMA = "ollama"
    TEI = "tei"
    """Hugging Face text-embeddings-inference: embedders and rerankers only (the embedding mode)."""
    FASTER_WHISPER = "faster-whisper"
    """faster-whisper on CTranslate2: Whisper models only (the speech mode)."""


class LlamaCppProgram(enum.Enum):
    """The llama.cpp program: llama-server reserves logits for one row per slot; llama-completion,
    llama-bench and llama-cpp-python keep the library's default, the whole micro-batch."""

    SERVER = "llama-server"
    COMPLETION = "llama-completion"


GGUF_RUNTIMES = frozenset({Runtime.LLAMACPP, Runtime.OLLAMA})
"""The runtimes that run GGUF files with llama.cpp's memory: its --parallel slots, its micro-batches."""


class Recipe(enum.Enum):
    LEGACY = ""  # the weights' precision, plus an fp32 master copy with mixed_precision
    FP32 = "fp32"
    BF16 = "bf16"
    AMP = "amp"
    MIXED = "mixed"


class Fsdp(enum.Enum):
    NONE = ""
    FULL_SHARD = "full-shard"
    SHARD_GRAD_OP = "shard-grad-op"
    HYBRID_SHARD = "hybrid-shard"


class Offload(enum.Enum):
    NONE = "none"
    OPTIMIZER = "optimizer"
    OPTIMIZER_PARAMS = "optimizer+params"
