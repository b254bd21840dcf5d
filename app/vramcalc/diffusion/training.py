"""LoRA training of a diffusion transformer, one step as the trainers of 2026 run it (kohya-ss sd-scripts'
flux_train_network.py, musubi-tuner's wan_train_network.py, ostris ai-toolkit): the denoiser frozen in its
precision, LoRA adapters on the nn.Linear layers of its transformer blocks, the flow-matching loss on cached latents
and text embeddings, backward, AdamW over the adapters.

The step's peak is in its backward: what stays on the GPU (the frozen weights, the adapters, their gradients and
optimizer state, the cached inputs, and the VAE and text encoders when the latents and embeddings are not cached)
plus the activations autograd saved in the forward, plus the backward's transient gradients. The saved activations
are counted per block from the diffusers 0.42 block source (transformer_flux.py FluxTransformerBlock,
FluxSingleTransformerBlock; transformer_flux2.py Flux2TransformerBlock, Flux2SingleTransformerBlock;
transformer_wan.py WanTransformerBlock) as tools/measure_diffusion_lora.py saw them
live (bf16, SDPA: no score matrix; tests/golden/diffusion_lora.json). With gradient checkpointing (diffusers'
`enable_gradient_checkpointing`, one checkpoint per block) the forward keeps each block's inputs only, and the
backward recomputes one block at a time. Wan 2.2 A14B: one expert's step, the other off the GPU (both have the
same tensors). FLUX.2 as ai-toolkit (27a03a9, extensions_built_in/diffusion_models/flux2) trains it: BFL's blocks,
whose q, k and v are one Linear per stream (one adapter, its lora_A shared), adapters on the double and single
blocks' linears only (lora_special.py: a model with single_blocks); its default qfloat8 transformer is the fp8 base.

fp8 base (sd-scripts' and musubi-tuner's --fp8_base; diffusers' layerwise casting): each Linear's weight is cast to
bf16 for its forward, and autograd keeps that bf16 copy for the backward of its input (F.linear saves the weight
when its input requires grad). Without checkpointing every block's copies stay until their backward; with it, one
block's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import ValidationError
from .pipelines import Pipeline
from .run import Request, sequence_text_tokens
from .run import check as check_request
from .stages import image_tokens, latent_shape
from .tensors import Config, Tensor
from .tensors import tensors as _tensors
from .weights import FLOAT_BYTES, part_bytes, tensor_bytes

TRAINABLE = ("FluxTransformer2DModel", "Flux2Transformer2DModel", "WanTransformer3DModel")
BLOCKS = {"FluxTransformer2DModel": ("transformer_blocks.", "single_transformer_blocks."),
          "Flux2Transformer2DModel": ("transformer_blocks.", "single_transformer_blocks."),
          "WanTransformer3DModel": ("blocks.",)}
# FLUX.2's fused qkv: k and v add their lora_B rows only (their lora_A is q's)
FUSED = {"Flux2Transformer2DModel": (".attn.to_k", ".attn.to_v", ".attn.add_k_proj", ".attn.add_v_proj")}
# the AdaLN modulation linears of Flux's blocks (their input is the time embedding); musubi-tuner leaves them out
MODULATION = (".norm1.linear", ".norm1_context.linear", ".norm.linear")
TARGETS = ("all", "no-modulation")  # sd-scripts and ai-toolkit: every Linear of the blocks; musubi-tuner: less these
BASES = ("bf16", "fp8")
ADAPTER_DTYPES = ("bf16", "fp32")
OPTIMIZERS = ("adamw", "adamw8bit")
E = 2  # bf16 activations
FP32 = 4
BNB_BLOCK = 256  # bitsandbytes' 8-bit blockwise optimizers: an fp32 absmax per 256 values of each state


@dataclass(frozen=True, slots=True, kw_only=True)
class Training:
    rank: int
    targets: str = "all"
    base: str = "bf16"
    adapters: str = "bf16"
    optimizer: str = "adamw"
    checkpointing: bool = True
    cached: bool = True  # latents and text embeddings cached: the VAE and text encoders are not on the GPU


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One training step's bytes at its peak (in the backward)."""
    weight_bytes: int  # the frozen denoiser
    encoder_bytes: int  # the VAE and text encoders, when not cached
    adapter_params: int
    adapter_bytes: int
    gradient_bytes: int
    optimizer_bytes: int
    input_bytes: int  # the batch's latents and text embeddings
    activation_bytes: int  # saved by the forward (with checkpointing: the blocks' inputs and one block's recompute)
    transient_bytes: int  # the backward's gradients in flight, and the bf16 weight copies of an fp8 base

    @property
    def total_bytes(self) -> int:
        return (self.weight_bytes + self.encoder_bytes + self.adapter_bytes + self.gradient_bytes
                + self.optimizer_bytes + self.input_bytes + self.activation_bytes + self.transient_bytes)


def adapted(tensors: tuple[Tensor, ...], class_name: str, targets: str) -> list[Tensor]:
    """The weights of the nn.Linear layers the adapters wrap."""
    return [t for t in tensors if t.kind == "linear" and t.name.endswith(".weight")
            and t.name.startswith(BLOCKS[class_name])
            and not (targets == "no-modulation" and t.module.endswith(MODULATION))]


def _lora(t: Tensor, class_name: str, rank: int) -> int:
    return rank * (t.shape[0] + (0 if t.module.endswith(FUSED.get(class_name, ())) else t.shape[1]))


def adapter_params(tensors: tuple[Tensor, ...], class_name: str, rank: int, targets: str) -> int:
    """lora_A (rank x in) and lora_B (out x rank) per adapted Linear."""
    return sum(_lora(t, class_name, rank) for t in adapted(tensors, class_name, targets))


def optimizer_bytes(params: int, adapter_bytes: int, optimizer: str) -> int:
    """torch AdamW keeps exp_avg and exp_avg_sq in the parameters' dtype; bitsandbytes AdamW8bit one byte each,
    with an fp32 absmax per block of 256 values (`optimizer_update_8bit_blockwise`)."""
    if optimizer == "adamw":
        return 2 * adapter_bytes
    return 2 * (params + -(-params // BNB_BLOCK) * FP32)


def flux_blocks(c: Config, batch: int, tokens: int, text: int, rank: int) -> tuple[int, int]:
    """Bytes one FluxTransformerBlock and one FluxSingleTransformerBlock save, over the joint sequence."""
    h, heads = int(c.get("attention_head_dim", 128)), int(c.get("num_attention_heads", 24))
    d = h * heads
    m = 4 * d  # mlp_ratio 4.0
    joint = batch * (tokens + text)
    # per stream (image and text alike): the block input, norm1's LayerNorm output and its modulated output (the
    # projections' input), to_out's output (gated), the residual, norm2's output and modulated output, the MLP's
    # projection and GELU output, its down projection (gated); the joint attention's q and k after RoPE, v, the
    # SDPA output and logsumexp (fp32 per head); q and k RMSNorm in fp32 with their rsqrt; two LayerNorms' mean
    # and rstd; the rank-wide lora_A outputs of the six adapted linears of a stream
    double = joint * (E * (8 * d + 2 * m) + E * 4 * d + FP32 * (2 * d + 3 * heads + 4) + 6 * rank * E)
    # the concatenated text + image input, the LayerNorm and modulated output, proj_mlp's output, q and k after
    # RoPE, v, the SDPA output, proj_out's input (attention output next to the GELU'd MLP) and output; the rest
    # as in the double block, with five adapted linears on the sequence
    single = joint * (E * (9 * d + 2 * m) + FP32 * (2 * d + 3 * heads + 2) + 5 * rank * E)
    return double, single


def flux2_blocks(c: Config, batch: int, tokens: int, text: int, rank: int) -> tuple[int, int]:
    """Bytes one Flux2TransformerBlock and one Flux2SingleTransformerBlock save, over the joint sequence."""
    h, heads = int(c.get("attention_head_dim", 128)), int(c.get("num_attention_heads", 48))
    d = h * heads
    m = int(d * float(c.get("mlp_ratio", 3.0)))
    joint = batch * (tokens + text)
    # per stream: the two LayerNorms' inputs and modulated outputs, the SwiGLU's input (2m), SiLU output and product;
    # q and k in fp32 for their RMSNorms (torch.nn.RMSNorm) with the rsqrt per head; the joint q and k after RoPE, v,
    # the SDPA output and logsumexp; the LayerNorms' mean and rstd; four lora_A outputs (qkv, out, the MLP's two)
    double = joint * (E * (8 * d + 4 * m) + FP32 * (2 * d + 3 * heads + 4) + 4 * rank * E)
    # the LayerNorm's input and modulated output, the fused qkv + MLP projection (3d + 2m), q and k in fp32, the
    # RoPE'd q and k and the SDPA output (v a view of the projection), the SiLU output, to_out's input (d + m)
    single = joint * (E * (9 * d + 4 * m) + FP32 * (2 * d + 3 * heads + 2) + 2 * rank * E)
    return double, single


def wan_block(c: Config, batch: int, tokens: int, text: int, rank: int) -> int:
    """Bytes one WanTransformerBlock saves (cross_attn_norm on, as the Wan 2.1 configs have it)."""
    h, heads = int(c.get("attention_head_dim", 128)), int(c.get("num_attention_heads", 40))
    d, f = h * heads, int(c.get("ffn_dim", 13824))
    # per video token: the fp32 inputs of the three FP32LayerNorms and their mean and rstd; in bf16 the
    # self-attention's input, v, q and k after RoPE and its output, the cross-attention's input, q and output, the
    # FFN's input; fp32 RMSNorm copies of self-attention's q and k and cross-attention's q with their rsqrt; two
    # logsumexps; the FFN projection and its GELU; the lora_A outputs of eight adapted linears
    video = tokens * (FP32 * (3 * d + 6) + E * 9 * d + FP32 * (3 * d + 3) + FP32 * 2 * heads + E * 2 * f
                      + 8 * rank * E)
    # per text token: cross-attention's k (fp32 RMSNorm copy, its rsqrt, bf16) and v, and two lora_A outputs
    words = text * (FP32 * (d + 1) + E * 2 * d + 2 * rank * E)
    return batch * (video + words)


def check(pipeline: Pipeline, training: Training) -> None:
    if pipeline.denoiser.class_name not in TRAINABLE:
        raise ValidationError("pipeline", pipeline.slug, "a Flux, FLUX.2 or Wan pipeline for LoRA training")
    if pipeline.options.get("expand_timesteps"):  # Wan 2.2 TI2V: a timestep per token, its step not measured
        raise ValidationError("pipeline", pipeline.slug, "a Flux or Wan pipeline with one timestep per sample for "
                              "LoRA training (Wan 2.2 TI2V's per-token timesteps are not modelled in training)")
    if not 1 <= training.rank <= 1024:
        raise ValidationError("train_lora", training.rank, "a rank from 1 to 1024")
    for key, value, allowed in (("lora_targets", training.targets, TARGETS), ("base", training.base, BASES),
                                ("adapters", training.adapters, ADAPTER_DTYPES),
                                ("optimizer", training.optimizer, OPTIMIZERS)):
        if value not in allowed:
            raise ValidationError(key, value, f"one of: {', '.join(allowed)}")


def step(pipeline: Pipeline, training: Training, *, batch: int, width: int, height: int, frames: int,
         text_tokens: int | None = None, encoder_bytes: int = 0) -> Step:
    """The bytes of one training step of a pipeline's denoiser at its peak."""
    check(pipeline, training)
    vae = pipeline.vae
    latent = latent_shape(vae.class_name, vae.config, width, height, frames)
    text = sequence_text_tokens(pipeline) if text_tokens is None else text_tokens
    return denoiser_step(pipeline.denoiser.class_name, pipeline.denoiser.config, training, batch, latent, text,
                         encoder_bytes)


def denoiser_step(name: str, c: dict[str, Any], training: Training, batch: int, latent: tuple[int, ...], text: int,
                  encoder_bytes: int = 0) -> Step:
    tensors = _tensors(name, c)
    tokens = image_tokens(name, c, latent)
    h = int(c["attention_head_dim"])
    d = h * int(c["num_attention_heads"])
    text_dim = int(c.get("joint_attention_dim", c.get("text_dim", 4096)))
    elements = batch * _product(latent)
    params = adapter_params(tensors, name, training.rank, training.targets)
    adapter_bytes = params * FLOAT_BYTES[training.adapters]
    per_param = 2 * FLOAT_BYTES[training.adapters]  # an adapter's gradient, and AdamW's state held as it
    if name == "FluxTransformer2DModel":
        double, single = flux_blocks(c, batch, tokens, text, training.rank)
        joint, m = batch * (tokens + text), 4 * d
        # the backward's gradients in flight at a block's widest adapted linear: its input's gradient through the
        # frozen layer and through the adapter, then their sum (the input itself freed by then); with the gradient
        # of the block's output
        kinds = [("transformer_blocks.", double, E * (2 * batch * tokens * m + joint * d)),
                 ("single_transformer_blocks.", single, E * (2 * joint * (d + m) + joint * d))]
        counts = [int(c.get("num_layers", 19)), int(c.get("num_single_layers", 38))]
        sequence = joint  # each block's inputs: the image and the text stream
        rope = 2 * (tokens + text) * h * FP32  # cos and sin, fp32
    elif name == "Flux2Transformer2DModel":
        double, single = flux2_blocks(c, batch, tokens, text, training.rank)
        joint, m = batch * (tokens + text), int(d * float(c.get("mlp_ratio", 3.0)))
        kinds = [("transformer_blocks.", double, E * (2 * batch * tokens * 2 * m + joint * d)),
                 ("single_transformer_blocks.", single, E * joint * 5 * m)]
        counts = [int(c.get("num_layers", 8)), int(c.get("num_single_layers", 48))]
        sequence = joint
        rope = 2 * (tokens + text) * h * FP32
    else:
        f = int(c.get("ffn_dim", 13824))
        kinds = [("blocks.", wan_block(c, batch, tokens, text, training.rank),
                  batch * tokens * (2 * f * E + d * FP32))]
        counts = [int(c.get("num_layers", 40))]
        sequence = batch * tokens
        rope = 2 * tokens * h * E
    blocks = [(f"{prefix}{i}.", saved, flight) for (prefix, saved, flight), count in zip(kinds, counts, strict=True)
              for i in range(count)]
    lora = adapted(tensors, name, training.targets)
    casts = [t for t in tensors if t.kind == "linear" and t.name.endswith(".weight")
             and t.name.startswith(BLOCKS[name]) and tensor_bytes(t, name, "fp8") == t.numel
             and ".attn2.to_k." not in t.name and ".attn2.to_v." not in t.name]  # Wan's text k, v: no grad

    def in_block(prefix: str, listed: list[Tensor]) -> list[Tensor]:
        return [t for t in listed if t.name.startswith(prefix)]

    def copies(prefix: str) -> int:
        return sum(t.numel * E for t in in_block(prefix, casts)) if training.base == "fp8" else 0

    # the loss: the noise, the noisy latents and the prediction (bf16) and the squared error's fp32 temporary
    # through the backward; at the forward's end also the prediction and the target in fp32
    loss_forward, loss_backward = elements * (3 * E + 3 * FP32), elements * (3 * E + FP32)
    candidates = []  # (activations, transient, gradients) at each moment that may be the peak
    if training.checkpointing:
        candidates.append((len(blocks) * sequence * d * E + rope, loss_forward, 0))
        done = 0  # adapter parameters whose gradients the backward has made
        for index in range(len(blocks) - 1, -1, -1):
            prefix, saved, flight = blocks[index]
            candidates.append(((index + 1) * sequence * d * E + rope,
                               saved + flight + copies(prefix) + loss_backward, done))
            done += sum(_lora(t, name, training.rank) for t in in_block(prefix, lora))
    else:
        kept = sum(saved for _, saved, _ in blocks) + rope + copies("")
        candidates.append((kept, loss_forward, 0))
        candidates.append((kept, blocks[-1][2] + loss_backward, 0))
    activations, transient, done = max(candidates, key=sum)
    return Step(weight_bytes=part_bytes(tensors, name, training.base), encoder_bytes=encoder_bytes,
                adapter_params=params, adapter_bytes=adapter_bytes, gradient_bytes=done * per_param // 2,
                optimizer_bytes=optimizer_bytes(params, adapter_bytes, training.optimizer),
                input_bytes=elements * E + batch * text * text_dim * E,
                activation_bytes=activations, transient_bytes=transient)


def _product(shape: tuple[int, ...]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total


def encoder_weight_bytes(pipeline: Pipeline, text_precision: str, vae_precision: str) -> int:
    """The VAE and text encoders' weights, on the GPU during the step when latents and embeddings are not cached
    (the trainers encode each batch before the denoiser's forward)."""
    return sum(part_bytes(part.tensors, part.class_name, text_precision if part.is_text_encoder else vae_precision)
               for part in pipeline.parts if not part.is_denoiser)


def train(pipeline: Pipeline, request: Request, training: Training) -> Step:
    """One training step at the request's size and batch, the frozen base in the request's denoiser precision; the
    VAE and text encoders on the GPU in theirs when latents and embeddings are not cached."""
    check_request(pipeline, request)
    if request.precision not in BASES:
        raise ValidationError("denoiser_precision", request.precision, f"one of: {', '.join(BASES)} for LoRA training")
    encoders = 0 if training.cached else encoder_weight_bytes(pipeline, request.text_precision, request.vae_precision)
    return step(pipeline, replace(training, base=request.precision), batch=request.batch, width=request.width,
                height=request.height, frames=request.frames, encoder_bytes=encoders)


def single_changes(pipeline: Pipeline, request: Request, training: Training) -> list[tuple[str, str, int]]:
    """The settings a trainer turns to save memory, each alone: (key, value, the step's peak with it) for each that
    differs from the step's own: an fp8 base, AdamW8bit, checkpointing, cached latents, bf16 adapters, batch 1."""
    candidates = [("denoiser_precision", "fp8", replace(request, precision="fp8"), training),
                  ("train_optimizer", "adamw8bit", request, replace(training, optimizer="adamw8bit")),
                  ("train_checkpointing", "on", request, replace(training, checkpointing=True)),
                  ("cache_latents", "on", request, replace(training, cached=True)),
                  ("adapter_precision", "bf16", request, replace(training, adapters="bf16")),
                  ("per_prompt", "1", replace(request, batch=1), training)]
    return [(key, value, train(pipeline, changed, trained).total_bytes) for key, value, changed, trained in candidates
            if (changed, trained) != (request, replace(training, base=request.precision))]


def as_json(result: Step, training: Training) -> dict[str, object]:
    return {"rank": training.rank, "lora_targets": training.targets, "base": training.base,
            "adapters": training.adapters, "optimizer": training.optimizer, "checkpointing": training.checkpointing,
            "cached": training.cached, "weight_bytes": result.weight_bytes, "encoder_bytes": result.encoder_bytes,
            "adapter_params": result.adapter_params, "adapter_bytes": result.adapter_bytes,
            "gradient_bytes": result.gradient_bytes, "optimizer_bytes": result.optimizer_bytes,
            "input_bytes": result.input_bytes, "activation_bytes": result.activation_bytes,
            "transient_bytes": result.transient_bytes, "peak_bytes": result.total_bytes}
