"""The keys of the input layer (links, form, command line): ONE table of `Option` records, with
their defaults, limits and parsers. `DEFAULTS`, `FIELD_PARSERS` and the other mappings below are
views of it; each engine declares its own keys (engines/vllm.py, engines/llamacpp.py) and they are
gathered here through engines/registry.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..core.choices import (
    GGUF_RUNTIMES,
    Attention,
    Checkpointing,
    Framework,
    Fsdp,
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
from ..core.dtypes import NOMINAL, Precision
from ..core.errors import ValidationError

# MAX_BATCH, MAX_SEQ and the parse_* helpers moved to core/option.py (an engine's rows use them); still importable here
from ..core.option import MAX_BATCH as MAX_BATCH
from ..core.option import MAX_SEQ as MAX_SEQ
from ..core.option import (
    Kind,
    Not,
    Option,
    When,
    optional,
    parse_choice,
    parse_decimal,
    parse_flag,
    parse_int,
    parse_tokens,
    parse_version,
    values_of,
)
from ..core.units import GB, GIB
from ..diffusion.imported import IMPORTED
from ..diffusion.pipelines import load_pipelines, pipeline
from ..diffusion.run import MAX_DIFFUSION_PX, MAX_FRAMES, PLACEMENTS, TEXT_ENCODER_DEVICES
from ..diffusion.training import ADAPTER_DTYPES, OPTIMIZERS, TARGETS
from ..diffusion.weights import GGUF_TYPES, PRECISIONS
from ..engines.registry import ENGINE_OPTIONS
from ..formats.weights import BNB_FORMATS, DEFAULT_GROUP_SIZE, GPU_FORMATS, GROUPED, WeightFormat, parse_format
from ..formats.weights import names as format_names
from ..model.families.vision import VIDEO as VIDEO_FAMILIES
from ..sources.fields import MAX_DIM, MAX_HEADS, MAX_LAYERS
from ..sources.gpus import DEFAULT_MACOS, GpuKind, GpuSpec, gpu, load_apple, load_gpus
from ..sources.presets import load_presets
from ..sources.vision import FAMILIES as VISION_FAMILIES
from ..training.lora import parse_targets
from ..workload import DEFAULT_OUTPUT_TOKENS

CUSTOM = "custom"
MAX_MTP_TOKENS = 16  # tokens drafted per step with MTP layers: vLLM and llama.cpp take more, none gains from it
_MTP: When = {"runtime": ("vllm", "llamacpp"), "mode": ("inference",)}
_SPECULATING: tuple[When, ...] = ({**_MTP, "mtp": Not(("0",))},
                                  {"runtime": ("llamacpp", "vllm", "transformers"), "mode": ("inference",),
                                   "draft_model": Not(("",))})
CONFIG = "config"
WEIGHTS = "weights"  # the model a GGUF file's metadata says (--weights, without --model or --config)

MAX_PARAMS_B = 1_000_000.0  # 10^15 parameters
MAX_OVERHEAD_GIB = 1024.0
MAX_CONFIG_BYTES = 1_000_000
MAX_GPUS = 100_000
MAX_VRAM_GB = 1_000_000.0  # a petabyte
MAX_HEADROOM_PERCENT = 90.0
MAX_GROUP_SIZE = 1 << 16
MAX_BANDWIDTH_GB_S = 100_000.0  # 30x a B200's HBM
MAX_TFLOPS = 1_000_000.0
MAX_GPU_HOUR_USD = 10_000.0
MAX_TRAIN_TOKENS = 10**15  # 30x the largest published pre-training runs


def parse_float_precision(field: str, text: str) -> Precision:
    for member in (Precision.FP32, Precision.BF16, Precision.FP16):
        if text == member.value:
            return member
    raise ValidationError(field, text, "expected one of: fp32, bf16, fp16")


def _recipe(text: str) -> object:
    if text.strip().lower() in ("lora", "qlora", "full"):  # a recipe here is the precision, not torchtune's
        raise ValidationError("recipe", text, "the recipe is the training's precision (fp32, bf16, amp, mixed); "
                              "LoRA is --lora-rank R (link lora_rank), QLoRA adds --precision nf4, full "
                              "fine-tuning is --lora-rank 0")
    return parse_choice("recipe", text, Recipe)


def parse_precision(text: str) -> Precision | WeightFormat:
    """The weights' format: a nominal precision of the first version (fp32 ... int2, every
    parameter at that many bits) or a real format (a GGUF type, a GPU format, bpw:X.XX, native), in any
    case (Q4_K_M as Hugging Face file names write it)."""
    text = text.lower() if isinstance(text, str) else text
    for member in NOMINAL:
        if text == member.value:
            return member
    found = parse_format(text) if isinstance(text, str) else None
    if found is None:
        raise ValidationError("precision", text, "expected one of: " + ", ".join(
            [m.value for m in NOMINAL] + list(format_names())))
    return found


MAX_CARDS = 16  # a machine of listed cards: more than any desktop holds


def parse_gpus(text: str) -> GpuSpec | tuple[GpuSpec, ...]:
    """One card (a slug, a name as typed, NNgb), or a machine's cards as a comma-separated list, one per
    device in the order llama.cpp numbers them (CUDA0 first): a tuple, for parse.py to tell apart."""
    if not isinstance(text, str) or "," not in text:
        return gpu(text)
    parts = text.split(",")
    if len(parts) > MAX_CARDS:
        raise ValidationError("gpu", text, f"at most {MAX_CARDS} cards, one per device")
    cards = tuple(gpu(part.strip(" \t")) for part in parts)
    if any(card.kind in (GpuKind.APPLE, GpuKind.UNIFIED) for card in cards):
        raise ValidationError("gpu", text, "a Mac or a unified-memory PC is one device: list cards (or NNgb)")
    return cards


def model_slug(text: str) -> str:
    """A preset's slug, `custom` (the keys below), `config` (an imported config.json) or `weights` (a
    GGUF file's own metadata)."""
    if text in load_pipelines():
        raise ValidationError("model", text, "an image or video pipeline: choose the family 'image or video' "
                              f"(link family=diffusion&pipeline={text}; vramcalc diffusion --pipeline {text})")
    if text not in (CUSTOM, CONFIG, WEIGHTS) and text not in load_presets():
        raise ValidationError("model", text, "expected one of: " + ", ".join(load_presets()))
    return text


# The page shows a key when its `shown_when` holds (app/main.py hides the key's wrapper otherwise).
_CUSTOM = {"model": (CUSTOM,)}
_TRAINING = {"mode": (Mode.TRAINING.value,)}
_INFERENCE = {"mode": Not((Mode.TRAINING.value,))}
_GENERATES = {"mode": (Mode.INFERENCE.value,)}  # a prompt and a reply (not an embedder's batch or a transcription)
_SEVERAL = {"gpus": Not(("", "1"))}
_LORA: When = {**_TRAINING, "lora_rank": Not(("", "0"))}
_APPLE = {"gpu": tuple(load_apple())}  # the settings of a Mac's GPU share
# the images' settings: for the presets with a vision part, and an imported config.json
_VISION: When = {"model": (CONFIG, *(slug for slug, preset in load_presets().items()
                              if preset.config.get("model_type") in VISION_FAMILIES))}
_IMAGES: When = {**_VISION, "images": Not(("", "0"))}
_VIDEOS: When = {"model": (CONFIG, *(slug for slug, preset in load_presets().items()
                              if preset.config.get("model_type") in VIDEO_FAMILIES)), "videos": Not(("", "0"))}
# a speech model's settings: the Whisper presets, and an imported config.json
_SPEECH: When = {"model": (CONFIG, *(slug for slug, preset in load_presets().items()
                              if preset.config.get("model_type") == "whisper"))}
MAX_BEAMS = 64
MAX_AUDIO_SECONDS = 24 * 3600
MAX_IMAGES = 10_000
MAX_PX = 100_000


def _layout(key: str, help: str) -> Option:
    return Option(key=key, default="", group="layout", metavar="N", help=help, shown_when=_SEVERAL,
                  parse=optional(lambda t: parse_int(key, t, 1, MAX_GPUS)))


def parse_quantise(text: str) -> bool:
    """quantise: all (False) or mlp (True: attention stays 16-bit)."""
    if text.strip() not in ("all", "mlp"):
        raise ValidationError("quantise", text, "expected one of: all, mlp")
    return text.strip() == "mlp"


_GRPO = {**_TRAINING, "objective": (Objective.GRPO.value, Objective.RLOO.value)}  # and RLOO, which runs its step
_PPO = {**_TRAINING, "objective": (Objective.PPO.value,)}

SHARED_OPTIONS: tuple[Option, ...] = (
    # ---- the model: a preset, or a custom model by three numbers (and four optional ones)
    Option(key="model", default="llama-3-8b", group="model", parse=model_slug,
           help=lambda: f"a preset: {', '.join(load_presets())}"),
    Option(key="params", default="", group="model", metavar="B", help="custom: parameters, in billions",
           parse=optional(lambda t: round(parse_decimal("params", t, 0.0, MAX_PARAMS_B, low_inclusive=False) * 1e9)),
           shown_when=_CUSTOM),
    Option(key="hidden", default="", group="model", metavar="H", help="custom: hidden size",
           parse=optional(lambda t: parse_int("hidden", t, 1, MAX_DIM)), shown_when=_CUSTOM),
    Option(key="layers", default="", group="model", metavar="L", help="custom: layers",
           parse=optional(lambda t: parse_int("layers", t, 1, MAX_LAYERS)), shown_when=_CUSTOM),
    Option(key="heads", default="", group="model", metavar="N", help="custom: attention heads (default hidden/128)",
           parse=optional(lambda t: parse_int("heads", t, 1, MAX_HEADS)), shown_when=_CUSTOM),
    Option(key="kv_heads", default="", group="model", metavar="N", help="custom: KV heads (default = heads)",
           parse=optional(lambda t: parse_int("kv_heads", t, 1, MAX_HEADS)), shown_when=_CUSTOM),
    Option(key="vocab", default="", group="model", metavar="N", help="custom: vocabulary (default 32000)",
           parse=optional(lambda t: parse_int("vocab", t, 1, MAX_DIM * 10)), shown_when=_CUSTOM),
    Option(key="ffn", default="", group="model", metavar="N", help="custom: FFN size (default about 8h/3)",
           parse=optional(lambda t: parse_int("ffn", t, 1, MAX_DIM)), shown_when=_CUSTOM),
    # ---- the request
    Option(key="mode", default=Mode.INFERENCE.value, group="request", kind=Kind.CHOICE, choices=values_of(Mode),
           parse=lambda t: parse_choice("mode", t, Mode)),
    Option(key="precision", default="auto", group="request", metavar="FORMAT",
           help="weights: auto (the checkpoint as published: its own quantised format for inference where it "
                "has one, else bf16), fp32, fp16, bf16, int8, int4, int2 (nominal bits, no scales), a GGUF type "
                "(q4_k_m, q8_0, iq4_xs, ...), gptq-int4, gptq-int8, awq-int4, nf4, nf4-dq, bnb-int8, fp8, "
                "fp8-block, mxfp4, nvfp4, bpw:X.XX (EXL2/EXL3) or native (the checkpoint's own)",
           parse=parse_precision),  # a nominal precision, or a weight format (formats/weights.py)
    Option(key="group_size", default=str(DEFAULT_GROUP_SIZE), group="request", metavar="N",
           help="GPTQ/AWQ group size (default 128)", shown_when={"precision": GROUPED},
           parse=lambda t: parse_int("group_size", t, 1, MAX_GROUP_SIZE)),
    Option(key="quantise", default="all", group="request", kind=Kind.CHOICE, choices=("all", "mlp"),
           help="which linear layers a GPU format quantises: all, or mlp (the MLPs and experts; attention kept in "
           "16-bit, as Meta's FP8 Llama 3.1 405B and modules_to_not_convert do)",
           shown_when={"precision": GPU_FORMATS}, parse=lambda t: parse_quantise(t)),
    # empty: follow the weights (16-bit when they are integer-quantised)
    Option(key="kv_precision", default="", group="request", kind=Kind.CHOICE, choices=values_of(Precision),
           help="KV cache (default: the weights' float type, else fp16)", shown_when=(_INFERENCE, _GRPO, _PPO),
           parse=lambda t: None if t == "" else parse_choice("kv_precision", t, Precision)),  # training: generation's
    Option(key="batch", default="1", group="request", parse=lambda t: parse_int("batch", t, 1, MAX_BATCH),
           shown_when=({"runtime": Not(tuple(r.value for r in GGUF_RUNTIMES))}, _TRAINING)),  # --parallel instead
    Option(key="seq", default="8192", group="request", help="sequence length in tokens",
           shown_when={"mode": Not((Mode.SPEECH.value,))},  # a transcription: audio seconds and Whisper's 448 tokens
           parse=lambda t: parse_tokens("seq", t, 1, MAX_SEQ)),
    # speed: a request's prompt and reply (the sequence is their sum unless --seq says more)
    Option(key="prompt_tokens", default="", group="request", metavar="N",
           help="prompt tokens per sequence (default: the sequence less the output)", shown_when=_GENERATES,
           parse=optional(lambda t: parse_tokens("prompt_tokens", t, 1, MAX_SEQ))),
    Option(key="output_tokens", default="", group="request", metavar="N",
           help=f"generated tokens per sequence (default {DEFAULT_OUTPUT_TOKENS})", shown_when=_GENERATES,
           parse=optional(lambda t: parse_tokens("output_tokens", t, 1, MAX_SEQ))),
    Option(key="text_only", default="0", group="request", kind=Kind.FLAG, shown_when=_VISION,
           help="a multimodal model without its vision tower and projector: text only (llama.cpp without --mmproj)",
           parse=lambda t: parse_flag("text_only", t)),
    Option(key="images", default="0", group="request", metavar="N", shown_when=_VISION,
           help="images per request (multimodal models): their tokens join each sequence",
           parse=lambda t: parse_int("images", t, 0, MAX_IMAGES)),
    Option(key="image_width", default="1024", group="request", metavar="PX", shown_when=(_IMAGES, _VIDEOS),
           help="each image's (and video frame's) width in pixels (default 1024)",
           parse=lambda t: parse_int("image_width", t, 1, MAX_PX)),
    Option(key="image_height", default="1024", group="request", metavar="PX", shown_when=(_IMAGES, _VIDEOS),
           help="each image's (and video frame's) height in pixels (default 1024)",
           parse=lambda t: parse_int("image_height", t, 1, MAX_PX)),
    Option(key="videos", default="0", group="request", metavar="N", shown_when={"model": _VIDEOS["model"]},
           help="videos per request (Qwen2/2.5/3-VL, Qwen3.5, GLM-4.xV), frames of the image size: their tokens join "
           "each sequence", parse=lambda t: parse_int("videos", t, 0, MAX_IMAGES)),
    Option(key="video_seconds", default="10", group="request", metavar="S", shown_when=_VIDEOS,
           help="each video's length in seconds (default 10)",
           parse=lambda t: parse_decimal("video_seconds", t, 0.1, MAX_AUDIO_SECONDS)),
    Option(key="video_fps", default="2", group="request", metavar="FPS", shown_when=_VIDEOS,
           help="frames the processor samples per second of video (default 2, the processors' own)",
           parse=lambda t: parse_decimal("video_fps", t, 0.1, 60)),
    Option(key="beams", default="5", group="request", metavar="N", shown_when=_SPEECH,
           help="speech models: the beam size (1: greedy)", parse=lambda t: parse_int("beams", t, 1, MAX_BEAMS)),
    Option(key="audio_seconds", default="30", group="request", metavar="S", shown_when=_SPEECH,
           help="speech models: each audio's length in seconds, heard in 30 s windows",
           parse=lambda t: parse_int("audio_seconds", t, 1, MAX_AUDIO_SECONDS)),
    # ---- training
    Option(key="optimizer", default=Optimizer.ADAMW.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Optimizer), parse=lambda t: parse_choice("optimizer", t, Optimizer), shown_when=_TRAINING),
    # empty: the optimizer's own (torch.optim: foreach, as on a GPU)
    Option(key="optimizer_impl", default="", group="training", metavar="IMPL", choices=values_of(OptimizerImpl),
           help="foreach (torch.optim's default on GPU), fused (the Trainer's default on torch >= 2.8) or for-loop; "
                "default: the optimizer's own",
           parse=lambda t: parse_choice("optimizer_impl", t, OptimizerImpl), shown_when=_TRAINING),
    Option(key="mixed_precision", default="0", group="training", kind=Kind.FLAG,
           help="keep an fp32 master copy of the weights", parse=lambda t: parse_flag("mixed_precision", t),
           shown_when={**_TRAINING, "recipe": (Recipe.LEGACY.value,)}),  # a recipe says where the master copy is
    # empty: the weights' precision plus --mixed-precision, as in the first version
    Option(key="recipe", default="", group="training", metavar="NAME", choices=values_of(Recipe),
           help="fp32, bf16 (pure), amp (fp32 weights under autocast --precision), mixed (16-bit weights, "
                "fp32 gradients and master: Megatron/DeepSpeed); default: --precision and --mixed-precision",
           parse=_recipe, shown_when=_TRAINING),
    Option(key="lora_rank", default="0", group="training", metavar="R",  # 0: full fine-tuning
           help="LoRA adapters of rank R (0: full fine-tuning); with --precision nf4 or nf4-dq: QLoRA",
           parse=lambda t: parse_int("lora_rank", t, 0, 65536), shown_when=_TRAINING),
    Option(key="lora_targets", default="all-linear", group="training", metavar="LIST",
           help="all-linear (default: every linear layer but the LM head, as peft's), all-linear,head, or a subset "
                "of q,k,v,o,gate,up,down,head (head: LoRA on the LM head, litgpt's lora_head)", parse=parse_targets,
           shown_when=_LORA),
    # peft's lora_dropout; above 0 each adapted layer keeps a mask and a dropped copy
    Option(key="lora_dropout", default="0", group="training", metavar="P",
           help="peft's lora_dropout (default 0): each adapted layer then keeps a mask and a dropped copy",
           parse=lambda t: parse_decimal("lora_dropout", t, 0.0, 0.9), shown_when=_LORA),
    # peft keeps adapters in fp32 by default (autocast_adapter_dtype); bf16 as Unsloth does
    Option(key="lora_dtype", default="fp32", group="training", metavar="DTYPE", choices=("fp32", "bf16", "fp16"),
           help="the adapters' dtype: fp32 (peft's default), bf16 or fp16",
           parse=lambda t: parse_float_precision("lora_dtype", t), shown_when=_LORA),
    Option(key="lora_embeddings", default="0", group="training", kind=Kind.FLAG,
           help="train the embeddings and head in full as well", parse=lambda t: parse_flag("lora_embeddings", t),
           shown_when=_LORA),
    Option(key="grad_accum", default="1", group="training", metavar="N",
           help="gradient accumulation steps (memory follows the micro-batch, --batch)",
           parse=lambda t: parse_int("grad_accum", t, 1, 1_000_000), shown_when=_TRAINING),
    Option(key="fused_ce", default="0", group="training", kind=Kind.FLAG,
           help="chunked cross-entropy (Liger): the logits are never materialised for the whole batch",
           parse=lambda t: parse_flag("fused_ce", t), shown_when=_TRAINING),
    Option(key="optimizer_in_backward", default="0", group="training", kind=Kind.FLAG,
           help="the optimizer steps each parameter as its gradient is made, then frees it (torchtune's "
           "optimizer_in_bwd): no whole gradient, no optimizer phase", shown_when=_TRAINING,
           parse=lambda t: parse_flag("optimizer_in_backward", t)),
    Option(key="activation_offload", default="0", group="training", kind=Kind.FLAG,
           help="saved activations go to host memory in the forward and come back for the backward "
           "(torchtune's and TRL's activation offloading; with checkpointing, the layer inputs)", shown_when=_TRAINING,
           parse=lambda t: parse_flag("activation_offload", t)),
    Option(key="ce_output_chunks", default="0", group="training", metavar="N",
           help="torchtune's chunked output loss (CEWithChunkedOutputLoss, 8 in its recipes): the head makes the "
           "logits in N chunks, all kept, and the loss upcasts one chunk at a time; 0: whole logits",
           shown_when=_TRAINING, parse=lambda t: parse_int("ce_output_chunks", t, 0, 4096)),
    Option(key="bnb_version", default="", group="training", metavar="X.Y.Z",
           help="bitsandbytes' version under QLoRA: before 0.43.2 every 4-bit layer kept its input for the backward; "
           "before 0.45 it decodes slower (bnb-int8 about 1.7x; 4-bit a device switch per call) "
           "(empty: a current one)",
           shown_when=(_LORA, {**_INFERENCE, "runtime": ("transformers",), "precision": BNB_FORMATS}),
           parse=lambda t: parse_version("bnb_version", t, "0.41.1")),
    Option(key="compile", default="0", group="training", kind=Kind.FLAG,
           help="torch.compile each layer (torchtune's compile: True): the compiled layers keep fewer tensors "
           "for the backward (measured for Llama-style dense layers; elsewhere counted as without it)",
           shown_when=_TRAINING, parse=lambda t: parse_flag("compile", t)),
    # empty: the trainer (Hugging Face Trainer/TRL with peft), today's model
    Option(key="framework", default=Framework.TRAINER.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Framework), shown_when=_TRAINING,
           help="trainer (Hugging Face Trainer/TRL), unsloth, torchtune, litgpt or axolotl: its defaults for "
           "the settings left at theirs, and its mechanics",
           parse=lambda t: parse_choice("framework", t, Framework)),
    Option(key="objective", default=Objective.SFT.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Objective), help="sft (supervised), dpo (TRL's DPOTrainer: chosen and rejected "
           "sequences, --batch pairs, and a reference model), grpo (TRL's GRPOTrainer: --batch completions "
           "generated, then scored), rloo (TRL's RLOOTrainer: GRPO's step with the old policy scored each "
           "generation and a reference by default), ppo (TRL's PPOTrainer: --batch × --grad-accum prompts rolled out, "
           "then the policy and a value model trained; reference and reward models beside), kto (TRL's KTOTrainer: "
           "--batch unpaired completions, at "
           "least 2, and a KL batch of mismatched pairs) or orpo (TRL's ORPOTrainer: --batch pairs, chosen and "
           "rejected, whole logits and no reference model)",
           parse=lambda t: parse_choice("objective", t, Objective), shown_when=_TRAINING),
    # empty: TRL's default (adapters off under LoRA, else a frozen copy)
    Option(key="reference", default="", group="training", metavar="MODEL", choices=values_of(Reference),
           help="DPO's, KTO's, GRPO's, RLOO's or PPO's reference model: copy (a frozen copy of the weights), "
                "adapters-off (the LoRA policy with its adapters disabled), precomputed (DPO, KTO: log-probabilities "
                "computed before training) or none (GRPO or RLOO with beta 0); default: TRL's",
           parse=lambda t: parse_choice("reference", t, Reference),
           shown_when={**_TRAINING, "objective": (Objective.DPO.value, Objective.KTO.value, Objective.GRPO.value,
                                                  Objective.RLOO.value, Objective.PPO.value)}),
    # empty: TRL's default for the objective (GRPO 8, RLOO 2)
    Option(key="num_generations", default="", group="training", metavar="N", shown_when=_GRPO,
           help="GRPO, RLOO: completions per prompt (default: TRL's, 8 for GRPO and 2 for RLOO); must divide "
                "--batch × --grad-accum (× --steps-per-generation when given)",
           parse=optional(lambda t: parse_int("num_generations", t, 2, MAX_BATCH))),
    Option(key="completion_tokens", default="512", group="training", metavar="N",
           shown_when={**_GRPO, "objective": (*_GRPO["objective"], Objective.PPO.value)},
           help="GRPO, RLOO: generated tokens per completion (TRL's max_completion_length, 512), within --seq; PPO: "
                "response_length (TRL's default 53; 512 kept here, GRPO's)",
           parse=lambda t: parse_tokens("completion_tokens", t, 1, MAX_SEQ)),
    Option(key="num_iterations", default="1", group="training", metavar="N", shown_when=_GRPO,
           help="GRPO, RLOO: updates each generation batch is used for (TRL's num_iterations, μ; default 1); above 1 "
                "the old policy is scored without gradients after generating",
           parse=lambda t: parse_int("num_iterations", t, 1, 1_000)),
    Option(key="steps_per_generation", default="", group="training", metavar="N", shown_when=_GRPO,
           help="GRPO, RLOO: micro-steps one generation batch serves (TRL's steps_per_generation; default: "
                "--grad-accum); the generation batch is --batch × this",
           parse=optional(lambda t: parse_int("steps_per_generation", t, 1, 1_000_000))),
    Option(key="local_rollout_forward_batch_size", default="64", group="training", metavar="N", shown_when=_PPO,
           help="PPO: prompts generated and scored at once in the rollout (TRL's default 64)",
           parse=lambda t: parse_int("local_rollout_forward_batch_size", t, 1, MAX_BATCH)),
    Option(key="num_ppo_epochs", default="4", group="training", metavar="N", shown_when=_PPO,
           help="PPO: passes over each rollout, an optimizer step each (TRL's default 4): the step's time",
           parse=lambda t: parse_int("num_ppo_epochs", t, 1, 1_000)),
    Option(key="rollout", default=Rollout.TRANSFORMERS.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Rollout), shown_when=_GRPO,
           help="GRPO's and RLOO's generation: transformers (generate), vllm-colocate (vLLM on this GPU), "
                "vllm-colocate-sleep (asleep outside generation) or vllm-server (other GPUs)",
           parse=lambda t: parse_choice("rollout", t, Rollout)),
    Option(key="vllm_gpu_memory_utilization", default="0.3", group="training", metavar="X",
           shown_when={**_GRPO, "rollout": (Rollout.VLLM_COLOCATE.value, Rollout.VLLM_COLOCATE_SLEEP.value)},
           help="GRPO, RLOO: the card's share colocated vLLM claims (TRL's default 0.3)",
           parse=lambda t: parse_decimal("vllm_gpu_memory_utilization", t, 0.0, 1.0, low_inclusive=False)),
    Option(key="checkpointing", default=Checkpointing.NONE.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Checkpointing), parse=lambda t: parse_choice("checkpointing", t, Checkpointing),
           shown_when=_TRAINING),
    # read in inference too (transformers' eager or SDPA, llama.cpp's -fa, TEI's flash): shown but on vLLM, which
    # picks its own attention backend
    Option(key="attention", default=Attention.FLASH.value, group="training", kind=Kind.CHOICE,
           choices=values_of(Attention), parse=lambda t: parse_choice("attention", t, Attention),
           shown_when=(_TRAINING, {"runtime": Not((Runtime.VLLM.value,))})),
    # ---- the engine (its own keys: ENGINE_OPTIONS, at the end)
    # empty: the engine's own (transformers 1 GiB; vLLM non-torch + CUDA graphs; llama.cpp 457 MiB, 512 on Metal)
    Option(key="overhead_gib", default="", group="engine", cli_group="", metavar="X", attribute="overhead_bytes",
           help="framework overhead in GiB (default: the engine's own; transformers 1)",
           parse=optional(lambda t: round(parse_decimal("overhead_gib", t, 0.0, MAX_OVERHEAD_GIB) * GIB))),
    Option(key="reserve_gb", default="", group="engine", cli_group="", metavar="GB", attribute="reserve_bytes",
           help="memory other programs already hold on each GPU, in GB (a desktop keeps 0.5-1.5 GB): added to "
                "the engine's overhead; llama.cpp's own fit sees that much less free",
           parse=optional(lambda t: round(parse_decimal("reserve_gb", t, 0.0, MAX_OVERHEAD_GIB) * GB))),
    Option(key="runtime", default=Runtime.TRANSFORMERS.value, group="engine", metavar="NAME",
           choices=values_of(Runtime), shown_when=_INFERENCE,
           help="transformers (default; generate with a dynamic cache), vllm (also SGLang), "
                "llamacpp (also Ollama, LM Studio), tei (text-embeddings-inference, embedding mode), "
                "faster-whisper (CTranslate2, speech mode)",
           parse=lambda t: parse_choice("runtime", t, Runtime)),
    Option(key="mtp", default="0", group="engine", metavar="N", shown_when=_MTP,
           help="speculative decoding with the model's own multi-token-prediction (MTP) layers, N tokens drafted per "
                "step (vLLM --speculative-config method mtp; llama-server --spec-type draft-mtp): their weights, "
                "their cache and the model's extra logits rows are counted; 0 (default): off",
           parse=lambda t: parse_int("mtp", t, 0, MAX_MTP_TOKENS)),
    Option(key="spec_acceptance", default="", group="engine", metavar="RATE", shown_when=_SPECULATING,
           help="speculative decoding's acceptance rate: the chance that the model accepts a drafted token, from 0 "
                "to 1, which the decode speed's tokens per step follow from (default: 0.85 for MTP layers, 0.7 for a "
                "draft model, from published runs)",
           parse=optional(lambda t: parse_decimal("spec_acceptance", t, 0.0, 1.0))),
    # ---- the machine: the card the engine runs on and the reverse questions are asked about
    Option(key="gpu", default="h100-80gb", group="machine", cli_group="engine", parse=parse_gpus,
           help=lambda: "the card the engine runs on (vLLM sizes its KV pool by it): "
                        f"{', '.join(load_gpus())}; a Mac (apple-m4-max-128gb, ...); or NNgb; a machine of "
                        "different cards as their list, CUDA0 first (rtx-3090,rtx-4060-ti-16gb: llama.cpp, Ollama)"),
    # ---- Apple Silicon
    # sysctl iogpu.wired_limit_mb (MiB); empty or 0: the macOS default
    Option(key="wired_limit_mb", default="", group="machine", cli_group="engine", metavar="MIB",
           help="a Mac's sysctl iogpu.wired_limit_mb (default: the macOS share)",
           parse=optional(lambda t: parse_int("wired_limit_mb", t, 0, 10**7)), shown_when=_APPLE),
    # the macOS version whose default GPU limit applies
    Option(key="macos", default=str(DEFAULT_MACOS), group="machine", cli_group="engine", metavar="N",
           help="a Mac's macOS version (the GPU share changed in 26; default 15)",
           parse=lambda t: parse_int("macos", t, 1, 99), shown_when=_APPLE),
    Option(key="gpus", default="1", group="target", cli_group="layout", metavar="N", help="how many GPUs (default 1)",
           parse=lambda t: parse_int("gpus", t, 1, MAX_GPUS)),
    # ---- several GPUs (parallel/): empty degrees come from `gpus` and the mode's default layout
    _layout("tp", "tensor parallel"),
    _layout("pp", "pipeline stages"),
    _layout("dp", "data parallel (default: the rest)"),
    _layout("ep", "expert parallel (inside dp)"),
    _layout("cp", "context parallel"),
    Option(key="vpp", default="1", group="layout", metavar="N", help="interleaved chunks per stage",
           parse=lambda t: parse_int("vpp", t, 1, 64), shown_when=_SEVERAL),
    Option(key="zero", default="", group="layout", metavar="N", help="DeepSpeed ZeRO stage 0-3",
           parse=optional(lambda t: parse_int("zero", t, 0, 3)), shown_when={**_SEVERAL, **_TRAINING}),
    Option(key="sp", default="0", group="layout", kind=Kind.FLAG, help="sequence parallel (with --tp)",
           parse=lambda t: parse_flag("sp", t), shown_when=_SEVERAL),
    Option(key="fsdp", default="", group="layout", metavar="MODE", choices=values_of(Fsdp),
           help="full-shard, shard-grad-op, hybrid-shard", parse=lambda t: parse_choice("fsdp", t, Fsdp),
           shown_when={**_SEVERAL, **_TRAINING}),
    Option(key="offload", default="none", group="layout", metavar="WHAT", choices=values_of(Offload),
           help="none, optimizer, optimizer+params", parse=lambda t: parse_choice("offload", t, Offload),
           shown_when={**_SEVERAL, **_TRAINING}),
    # ---- speed and cost (speed/): the card's figures, the host's RAM, prices, a training run's size
    Option(key="gpu_bandwidth", default="", group="speed", metavar="GBPS",
           help="the card's memory bandwidth in GB/s (default: the card's own)",
           parse=optional(lambda t: parse_decimal("gpu_bandwidth", t, 1.0, MAX_BANDWIDTH_GB_S))),
    Option(key="gpu_tflops", default="", group="speed", metavar="T",
           help="the card's dense FP16 tensor TFLOPS (default: the card's own)",
           parse=optional(lambda t: parse_decimal("gpu_tflops", t, 0.1, MAX_TFLOPS))),
    Option(key="ram_bandwidth", default="", group="speed", metavar="GBPS",
           help=("system RAM bandwidth in GB/s, for layers kept in RAM (default 64: a dual-channel DDR5 desktop; on a "
                 "Mac, DGX Spark or Strix Halo, half its memory's bandwidth, what its CPU reads)"),
           parse=optional(lambda t: parse_decimal("ram_bandwidth", t, 1.0, MAX_BANDWIDTH_GB_S))),
    Option(key="gpu_hour_price", default="", group="speed", metavar="USD",
           help="price of one GPU for an hour, in US dollars (default: a cloud price for the cards that have one)",
           parse=optional(lambda t: parse_decimal("gpu_hour_price", t, 0.0, MAX_GPU_HOUR_USD))),
    Option(key="train_tokens", default="", group="speed", metavar="N",
           help="tokens a training run processes, for its time and cost", shown_when=_TRAINING,
           parse=optional(lambda t: parse_int("train_tokens", t, 1, MAX_TRAIN_TOKENS))),
    Option(key="min_tokens_per_s", default="10", group="speed", metavar="N", shown_when=_INFERENCE,
           help="the speed each sequence keeps in 'the most sequences' (default 10 tokens/s)",
           parse=lambda t: parse_decimal("min_tokens_per_s", t, 0.1, 100_000.0)),
    Option(key="max_run_hours", default="", group="speed", metavar="H", shown_when=_TRAINING,
           help="hours a training run may take, for the fewest GPUs that finish it",
           parse=optional(lambda t: parse_decimal("max_run_hours", t, 0.01, 1_000_000.0, low_inclusive=True))),
    # ---- the capacity table
    Option(key="vram", default="", group="capacity", metavar="GB",  # a memory size the user adds to the table
           help="add a row for this memory size (GB = 10^9 B)",
           parse=optional(lambda t: round(parse_decimal("vram", t, 0.0, MAX_VRAM_GB, low_inclusive=False) * GB))),
    Option(key="headroom", default="20", group="capacity", metavar="PCT",  # percent of memory kept free
           help="percent of memory kept free for runtime, KV cache and activations (default 20)",
           parse=lambda t: parse_decimal("headroom", t, 0.0, MAX_HEADROOM_PERCENT) / 100),
)

# ---- image and video diffusion pipelines (diffusion/): `vramcalc diffusion`'s flags, shown with family=diffusion
FAMILIES = ("language", "diffusion")
_DIFFUSION: When = {"family": ("diffusion",)}
_GENERATE: When = {**_DIFFUSION, "train_lora": ("", "0")}
_TRAIN_LORA: When = {**_DIFFUSION, "train_lora": Not(("", "0"))}
ON_OFF = ("on", "off")


def _one_of(key: str, text: str, allowed: tuple[str, ...]) -> str:
    if text not in allowed:
        raise ValidationError(key, text, f"expected one of: {', '.join(allowed)}")
    return text


def _diffusion(key: str, default: str, help: str, parse: Callable[[str], object],
               choices: tuple[str, ...] = (), shown_when: When = _DIFFUSION) -> Option:
    return Option(key=key, default=default, group="diffusion", help=help, choices=choices, parse=parse,
                  shown_when=shown_when)


def _training(key: str, default: str, help: str, choices: tuple[str, ...]) -> Option:
    """A setting of a pipeline's LoRA training step (diffusion/training.py), shown when train_lora is a rank."""
    return _diffusion(key, default, help, lambda t: _one_of(key, t, choices), choices, _TRAIN_LORA)


DIFFUSION_OPTIONS: tuple[Option, ...] = (
    Option(key="family", default="language", group="diffusion", kind=Kind.CHOICE, choices=FAMILIES,
           help="language (a language model) or diffusion (an image or video pipeline)",
           parse=lambda t: _one_of("family", t, FAMILIES)),
    _diffusion("pipeline", "flux.1-dev", "an image or video pipeline (config: the one imported, as model=config)",
               lambda t: t if t == IMPORTED else pipeline(t),
               tuple(load_pipelines())),
    _diffusion("denoiser_precision", "bf16", "the denoiser's weights (--precision)",
               lambda t: _one_of("denoiser_precision", t, PRECISIONS + GGUF_TYPES), PRECISIONS + GGUF_TYPES),
    _diffusion("text_precision", "bf16", "the text encoders' weights",
               lambda t: _one_of("text_precision", t, PRECISIONS), PRECISIONS),
    _diffusion("vae_precision", "bf16", "the VAE's weights", lambda t: _one_of("vae_precision", t, PRECISIONS),
               PRECISIONS),
    _diffusion("placement", "gpu", "gpu, model (CPU offload by part) or sequential (by module)",
               lambda t: _one_of("placement", t, PLACEMENTS), PLACEMENTS, _GENERATE),
    _diffusion("width", "", "pixels (default: the pipeline's)",
               optional(lambda t: parse_int("width", t, 64, MAX_DIFFUSION_PX))),
    _diffusion("height", "", "pixels (default: the pipeline's)",
               optional(lambda t: parse_int("height", t, 64, MAX_DIFFUSION_PX))),
    _diffusion("frames", "", "video frames, 4k + 1 (LTX-Video: 8k + 1; default: the pipeline's)",
               optional(lambda t: parse_int("frames", t, 1, MAX_FRAMES))),
    _diffusion("per_prompt", "1", "images or videos per prompt (--batch)", lambda t: parse_int("per_prompt", t, 1, 64)),
    _diffusion("cfg", "", "classifier-free guidance: on or off (default: the pipeline's)",
               optional(lambda t: _one_of("cfg", t, ON_OFF) == "on"), ON_OFF, _GENERATE),
    _diffusion("text_encoders", "gpu", "gpu: as the placement says; cpu: the text encoders kept and run on the CPU",
               lambda t: _one_of("text_encoders", t, TEXT_ENCODER_DEVICES), TEXT_ENCODER_DEVICES, _GENERATE),
    _diffusion("vae_tiling", "", "the VAE decodes tile by tile, this many pixels a side (empty: off)",
               optional(lambda t: parse_int("vae_tiling", t, 0, 4096)), shown_when=_GENERATE),
    _diffusion("blocks_to_swap", "0", "the denoiser's transformer blocks kept in system RAM, one on the GPU at a time",
               lambda t: parse_int("blocks_to_swap", t, 0, 1_000), shown_when=_GENERATE),
    # one LoRA training step of a Flux, FLUX.2 or Wan denoiser instead of a generation
    # (`vramcalc diffusion --train-lora`)
    _diffusion("train_lora", "0", "LoRA training of the denoiser at this rank (0: a generation)",
               lambda t: parse_int("train_lora", t, 0, 1024)),
    _training("train_lora_targets", "all", "all: every Linear of the blocks; no-modulation: less Flux's AdaLN",
              TARGETS),
    _training("adapter_precision", "bf16", "the adapters, their gradients and AdamW state", ADAPTER_DTYPES),
    _training("train_optimizer", "adamw", "adamw8bit: bitsandbytes", OPTIMIZERS),
    _training("train_checkpointing", "on", "gradient checkpointing of the transformer blocks", ON_OFF),
    _training("cache_latents", "on", "latents and text embeddings cached: the VAE and text encoders off the GPU",
              ON_OFF),
)

OPTIONS: tuple[Option, ...] = (SHARED_OPTIONS + tuple(option for own in ENGINE_OPTIONS.values() for option in own)
                               + DIFFUSION_OPTIONS)
"""Every key a link, the form or the command line may carry: the shared keys, then each engine's own."""

OPTION: Mapping[str, Option] = {option.key: option for option in OPTIONS}
assert len(OPTION) == len(OPTIONS), "an input key is declared twice"


# ---------------------------------------------------------------- views of the table

def _keys(*groups: str) -> tuple[str, ...]:
    return tuple(option.key for option in OPTIONS if option.group in groups)


DEFAULTS: Mapping[str, str] = {option.key: option.default for option in OPTIONS}
"""Every key a link or the form may carry, with its default as text."""

CUSTOM_KEYS = tuple(key for key in _keys("model") if key != "model")
"""The keys of a custom model; they mean something only with model=custom."""
LAYOUT_KEYS = _keys("layout")


def shown_values(values: Mapping[str, str]) -> dict[str, str]:
    """The values the page means: a key whose field the page hides (its `shown_when` fails: the layout
    with one GPU, the training settings in inference) counts as its default, so that a value left in a
    hidden field neither decides the answer nor keeps the page in an error the user cannot see."""
    form = {**DEFAULTS, **values}  # a link or a command line names only what differs from the defaults
    return {key: value if key not in OPTION or OPTION[key].shown(form) else DEFAULTS[key]
            for key, value in values.items()}


def several_gpus_only(values: Mapping[str, str]) -> dict[str, str]:
    """The layout values `values` give that the page hides only because there is one GPU (shown with two): the
    one-GPU answer is without them, the fewest GPUs is searched under them (Workload.named_layout)."""
    one = {**DEFAULTS, **values}
    two = {**one, "gpus": "2"}
    return {key: value for key, value in values.items() if key in LAYOUT_KEYS and value not in ("", DEFAULTS[key])
            and not OPTION[key].shown(one) and OPTION[key].shown(two)}


CHECKBOXES = tuple(option.key for option in OPTIONS if option.checkbox)
"""The yes/no keys: checkboxes on the page, store_true flags on the command line."""


def _parsers(*groups: str) -> Mapping[str, Callable[[str], object]]:
    return {option.key: option.parse for option in OPTIONS if option.group in groups}


MACHINE_PARSERS = {key: parse for key, parse in _parsers("machine").items() if key != "gpu"}
FIELD_PARSERS = _parsers("request", "training", "engine", "machine", "layout")
SPEED_PARSERS = _parsers("speed")
"""The keys that become the Workload's fields (the model's keys are read by parse._parse_model)."""
FIELD_ATTRIBUTE = {option.key: option.attribute for option in OPTIONS if option.attribute}
"""Keys whose Workload attribute is named otherwise (by its unit)."""
TARGET_PARSERS = _parsers("machine", "target")
CAPACITY_PARSERS = _parsers("capacity")
DIFFUSION_PARSERS = {key: parse for key, parse in _parsers("diffusion").items() if key != "family"}
"""The keys of a diffusion pipeline's run (parse.parse_diffusion)."""
