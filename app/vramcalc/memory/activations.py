"""Activations: what a training step saves for backward, or the inference forward's peak, for the
whole batch; the per-token and per-layer terms are the model family's (model/families/decoder/)."""

from __future__ import annotations

from ..core.choices import Attention, Checkpointing, Framework
from ..core.phrase import Formula, Phrase, phrase
from ..core.units import format_binary
from ..model.families.decoder.prefill import prefill_masks, prefill_per_token
from ..model.families.decoder.saved import (
    CrossLora,
    batch_shared_bytes,
    checkpoint_plan,
    compile_measured,
    compiled_lora_measured,
    cross_images_saved,
    first_layer_lora_saving,
    head_lora_saved,
    layer_input_bytes_per_token,
    layers_saved,
    lora_measured,
    outside_layers_bytes_per_token,
)
from ..model.families.decoder.spec import AttentionKind, Block
from ..model.families.encoder import alibi_bytes, forward_bytes, rotary_cache_bytes, vllm_forward_bytes
from ..model.families.vision import (
    GLM,
    MEASURED,
    cross_tokens,
    encoder_peak,
    image_patches,
    mllama_tower_lora_saved,
    mllama_tower_saved,
    video_grid,
)
from ..model.table import counted_tensors
from ..model.tensor import layer_of
from ..training.lora import HEAD, QLORA_FORMATS, layer_matrices, tower_targets
from ..training.offload import Offloaded, offloaded
from ..workload import Workload
from .components import Component, no_component, overhead_bytes
from .kv_cache import kv_cache_bytes
from .states import gradients_bytes, master_weights_bytes, optimizer_state_bytes, weights_bytes


def activations_bytes(workload: Workload) -> Component:
    if not workload.is_training:
        return inference_activations(workload)
    return training_activations(workload)[0]


def inference_activations(workload: Workload) -> Component:
    """Inference keeps no activations between layers: the peak is the prefill of the whole prompt
    inside one layer (transformers' `generate`, no_grad; measured with tools/measure_peak.py).
    Per token, the larger of two moments of the largest layer: attention's temporaries with the
    hidden states alive before the residual add, or the MLP's with all of them and eager attention's
    probabilities, which the layer still holds (decoder/prefill.py `prefill_per_token`); and for the
    whole batch the attention masks the model builds once and keeps through the forward."""
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    seq = workload.seq
    per_token = prefill_per_token(model, e, workload.attention, seq)
    masks = prefill_masks(model, e, workload.attention, workload.batch, seq)
    num_bytes = workload.batch * seq * per_token + masks
    total = (phrase("activations.masks", layers_bytes=format_binary(num_bytes - masks),
                    masks_bytes=format_binary(masks), bytes=format_binary(num_bytes))
             if masks else format_binary(num_bytes))
    return Component(
        key="activations",
        bytes=num_bytes,
        explain=lambda: phrase(
            "activations.inference", batch=workload.batch, seq=f"{seq:,}", per_token=f"{per_token:,}",
            attention=phrase(f"attention.{workload.attention.value}"), bytes=total,
        ),
    )


def vision_encoder_bytes(workload: Workload, images: int, eager: bool) -> int:
    """The vision tower's peak over `images` images of the request's size at once (families/vision.py)."""
    vision = workload.model.vision
    if vision is None or not workload.images or not images:
        return 0
    e = int(workload.activation_precision.bits) // 8
    return encoder_peak(vision, images, workload.image_width, workload.image_height, e, eager)


def video_encoder(workload: Workload) -> tuple[int, int, int]:
    """(bytes, frame pairs, patches of each) of the tower over the batch's videos at once (get_video_features):
    each frame pair attends within itself, as an image of the pair's patches does (families/vision.py)."""
    vision = workload.model.vision
    if vision is None or not workload.videos:
        return 0, 0, 0
    groups, tokens, _ = video_grid(vision, workload.video_seconds, workload.video_fps, workload.image_width,
                                   workload.image_height)
    pairs, patches = workload.batch * workload.videos * groups, tokens * vision.merge ** 2
    e = int(workload.activation_precision.bits) // 8
    eager = workload.attention is Attention.EAGER
    return encoder_peak(vision, pairs, 0, 0, e, eager, patches), pairs, patches


def with_vision(workload: Workload, activations: Component, beside: int) -> Component:
    """transformers' prefill encodes every image of the batch first (`get_image_features`), then every video
    (`get_video_features`), the cache still empty and only the prompt's embeddings beside them; the language
    model's layers come after. The peak is the larger moment: the activations grow by what the encoder's exceeds
    the prefill's (activations + `beside`)."""
    encoder = vision_encoder_bytes(workload, workload.batch * workload.images, workload.attention is Attention.EAGER)
    video, pairs, patches = video_encoder(workload)
    if not encoder and not video:
        return activations
    model = workload.model
    embeddings = workload.batch * workload.seq * model.hidden * (int(workload.activation_precision.bits) // 8)
    extra = max(0, max(encoder, video) + embeddings - activations.bytes - beside)
    assert model.vision is not None
    if video > encoder:
        said = phrase("activations.video", videos=workload.batch * workload.videos, pairs=f"{pairs:,}",
                      patches=f"{patches:,}")
    else:
        patches = image_patches(model.vision, workload.image_width, workload.image_height)
        said = phrase("activations.images", images=workload.batch * workload.images, patches=f"{patches:,}")
    return Component(key="activations", bytes=activations.bytes + extra, explain=lambda: (
        *activations.formula, phrase("activations.vision", encodes=said,
                                     bytes=format_binary(max(encoder, video) + embeddings),
                                     extra=format_binary(extra),
                                     estimated=phrase("activations.vision.kin") if model.vision and
                                     model.vision.family not in MEASURED + GLM else "")))


def lora_compute_bytes(workload: Workload) -> int:
    """Bytes per value of what the adapters' matmuls save: peft casts the input to the adapters' dtype (fp32 by
    default); Unsloth keeps its fp32 adapters but casts them to the input's dtype in its kernels (unsloth/kernels/
    utils.py `matmul_lora`: X @ A.to(X.dtype)), so it saves nothing wider than the activations."""
    if workload.framework is Framework.UNSLOTH:
        return int(workload.activation_precision.bits) // 8
    return int(workload.lora_dtype.bits) // 8


def vision_tokens(workload: Workload) -> int:
    """The vision tokens of one sequence's images Llama 3.2 Vision's cross-attention layers attend to (0 without
    images, or on a model without cross-attention layers)."""
    vision = workload.model.vision
    if vision is None or not workload.images or not workload.model.count_kind(AttentionKind.CROSS):
        return 0
    return workload.images * cross_tokens(vision)


def cross_lora(workload: Workload) -> CrossLora | None:
    """LoRA's terms in Llama 3.2 Vision's cross-attention layers when the batch has images (else None)."""
    model, lora = workload.model, workload.lora
    if lora is None or not lora_measured(model) or not vision_tokens(workload):
        return None
    return CrossLora(layer_matrices(model, lora), lora.rank, workload.lora_dropout, lora_compute_bytes(workload),
                     vision_grad=bool(tower_targets(model, lora)) or tower_inputs_grad(workload))


def tower_inputs_grad(workload: Workload) -> bool:
    """Whether the vision tower's patch embeddings ask for a gradient under LoRA: transformers'
    gradient_checkpointing_enable (enable_input_require_grads) makes them (tools/measure_mllama_lora.py)."""
    return workload.checkpointing is not Checkpointing.NONE


def images_saved(workload: Workload) -> tuple[int, int]:
    """(kept through the forward, held more at the peak) for the batch's images in a training step of Llama 3.2
    Vision: the trained tower's saved tensors for every image (vision.py `mllama_tower_saved`; under LoRA what the
    frozen tower's adapters need, `mllama_tower_lora_saved`) and what the cross-attention layers keep of the vision
    tokens (saved.py `cross_images_saved`)."""
    tokens = vision_tokens(workload)
    if not tokens:
        return 0, 0
    vision = workload.model.vision
    assert vision is not None
    e = int(workload.activation_precision.bits) // 8
    eager = workload.attention is Attention.EAGER
    kept, layer = cross_images_saved(workload.model, e, workload.attention, tokens, workload.seq,
                                     checkpointed=workload.checkpointing is not Checkpointing.NONE,
                                     lora=cross_lora(workload))
    if workload.lora is None:
        tower = mllama_tower_saved(vision, e, eager)
    else:
        tower = mllama_tower_lora_saved(vision, e, lora_compute_bytes(workload), eager,
                                        tower_targets(workload.model, workload.lora), workload.lora.rank,
                                        workload.lora_dropout, tower_inputs_grad(workload))
    return workload.batch * (workload.images * tower + kept), workload.batch * layer


def frozen_first_layer_input(workload: Workload) -> bool:
    """Whether the first layer's input needs no gradient under LoRA: the embeddings frozen and no checkpointing (with
    it transformers' gradient_checkpointing_enable calls enable_input_require_grads: every layer saves alike, measured
    by tools/measure_lora_first_layer.py). Not counted under torch.compile, whose layers are not measured so."""
    lora = workload.lora
    return (lora is not None and not lora.embeddings and workload.checkpointing is Checkpointing.NONE
            and not compiled(workload))


def _saved(workload: Workload) -> tuple[int, int, int, int, int, int, int]:
    """Per token: every layer's saved bytes, the largest layer's, what is saved outside the layers; for the
    batch: the rotary tables; the checkpointed inputs kept and layers held in full (checkpoint_plan). A text-only
    batch skips Llama 3.2 Vision's cross-attention layers: they keep no input either."""
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    lora = workload.lora if workload.lora and lora_measured(model) else None
    matrices = layer_matrices(model, lora) if lora else ()
    all_layers, per_layer = layers_saved(model, e, workload.attention, workload.seq, matrices,
                                         lora.rank if lora else 0, workload.lora_dropout,
                                         lora_compute_bytes(workload), compiled=compiled(workload),
                                         old_4bit=("mlp" if workload.precision.mlp_only else "all")
                                         if old_bitsandbytes(workload) else "", vision_tokens=vision_tokens(workload),
                                         cross_lora=cross_lora(workload))
    if lora is not None and matrices and frozen_first_layer_input(workload):
        all_layers -= first_layer_lora_saving(model, e, workload.attention, workload.seq, matrices,
                                              workload.lora_dropout, lora_compute_bytes(workload))
    # LoRA on the head alone, frozen embeddings, no checkpointing: nothing before the head's adapter needs a gradient,
    # so autograd records nothing in the layers nor the final norm (measured, tools/measure_lora_head_only.py)
    no_grad = lora is not None and tuple(lora.targets) == (HEAD,) and frozen_first_layer_input(workload)
    shared = 0 if no_grad else batch_shared_bytes(model, e, workload.seq)
    if no_grad:
        all_layers = per_layer = 0
    shared += checkpointed_masks(workload)
    outside = outside_layers_bytes_per_token(model, e, final_norm_grad=not no_grad)
    if lora is not None:  # the frozen final norm keeps neither its cast nor the head's input
        outside -= 0 if no_grad else 2 * e * model.hidden
        if HEAD in lora.targets:  # but the head's adapter keeps its input
            outside += head_lora_saved(model, e, lora.rank, workload.lora_dropout, lora_compute_bytes(workload),
                                       input_grad=not no_grad)
    run = model.layers - (0 if vision_tokens(workload) else model.count_kind(AttentionKind.CROSS))
    inputs_kept, layers_full = checkpoint_plan(run, workload.checkpointing)
    return all_layers, per_layer, outside, shared, inputs_kept, layers_full, e


def checkpointed_masks(workload: Workload) -> int:
    """The attention masks the model's forward builds once (decoder/prefill.py `prefill_masks`: eager's b × 1 × s × s
    additive ones, SDPA's bool window), which every reentrant checkpoint keeps as its layer's argument from the forward
    to its backward; without checkpointing no saved tensor keeps them (measured, tools/measure_peak.py --only ckpt)."""
    model = workload.model
    if workload.checkpointing is Checkpointing.NONE or model.block is Block.GPT2:
        return 0
    e = int(workload.activation_precision.bits) // 8
    return prefill_masks(model, e, workload.attention, workload.batch, workload.seq)


def saved_per_token(workload: Workload) -> int:
    """What every layer saves for backward, per token (the notes compare it with a setting and without)."""
    return _saved(workload)[0]


def largest_layer_saved(workload: Workload) -> int:
    """The largest layer's saved bytes per token, LoRA's included."""
    return _saved(workload)[1]


def old_bitsandbytes(workload: Workload) -> bool:
    """QLoRA on bitsandbytes before 0.43.2, which kept every 4-bit matmul's input (saved.frozen_4bit_inputs)."""
    return (workload.lora is not None and workload.precision.value in QLORA_FORMATS
            and workload.bnb_version is not None and workload.bnb_version < (0, 43, 2))


def compiled(workload: Workload) -> bool:
    """Whether torch.compile's saved bytes are counted: compile asked for, on layers and LoRA settings measured
    under it (saved.compile_measured, compiled_lora_measured); otherwise the layers count as eager."""
    if not (workload.compile and workload.is_training):
        return False
    model, e = workload.model, int(workload.activation_precision.bits) // 8
    if not compile_measured(model, e, workload.attention):
        return False
    lora = workload.lora
    return lora is None or compiled_lora_measured(layer_matrices(model, lora),
                                                  workload.lora_dropout, lora_compute_bytes(workload), e)


def offloaded_activations(workload: Workload) -> Offloaded | None:
    """What activation offloading (training/offload.py) leaves on the GPU and moves to host memory; None without it."""
    model = workload.model
    all_layers, per_layer, outside, shared, inputs_kept, layers_full, e = _saved(workload)
    tokens = workload.batch * workload.seq
    width = model.ffn if model.moe_layer_count < model.layers else 0
    if model.moe is not None:
        width = max(width, model.moe.per_token * model.moe.ffn + model.moe.shared_ffn)
    weights = e * sum(t.numel * count for t, count in counted_tensors(model)
                      if len(t.shape) == 2 and layer_of(t.name) is not None)  # linears save their weights
    return offloaded(workload, layers_full=tokens * all_layers, layer_full=tokens * layers_full * per_layer,
                     outside=tokens * outside, shared=shared,
                     input_bytes=tokens * layer_input_bytes_per_token(model, e),
                     inputs_kept=inputs_kept, weights=weights, mlp_width=width)


def training_activations(workload: Workload) -> tuple[Component, int]:
    """(the activations live when the layers' backward starts, the bytes saved at the forward's end).
    They differ under checkpointing: the forward keeps layer inputs, the backward adds a recompute."""
    model = workload.model
    tokens = workload.batch * workload.seq
    all_layers, per_layer, outside, shared, inputs_kept, layers_full, e = _saved(workload)
    inputs = inputs_kept * layer_input_bytes_per_token(model, e)  # checkpointed layer inputs
    none = workload.checkpointing is Checkpointing.NONE
    full = all_layers if none else layers_full * per_layer  # held in full at the peak
    images, recomputed = images_saved(workload)
    num_bytes = tokens * (inputs + full + outside) + shared + images + recomputed
    forward_bytes = tokens * (inputs + (full if none else 0) + outside) + shared + images
    per_layer_text: str | Phrase = f"{per_layer:,}"
    kept: str | Phrase
    full = layers_full  # for "layer|layers"; without checkpointing the layers that run
    if none:
        kept, recompute = str(layers_full), ""
        if all_layers != layers_full * per_layer:  # dense and MoE layers differ
            per_layer_text = phrase("activations.average", average=f"{all_layers / layers_full:,.0f}")
        strategy = phrase("checkpointing.none")
    else:
        kept = phrase("activations.kept", inputs=inputs_kept, input_bytes=f"{layer_input_bytes_per_token(model, e):,}",
                      layers=layers_full)
        recompute = ""
        strategy = (
            phrase("checkpointing.layer")
            if workload.checkpointing is Checkpointing.LAYER
            else phrase("checkpointing.sqrt", segments=inputs_kept, segment_layers=layers_full)
        )

    def text() -> Phrase:
        return phrase(
            "activations.training", batch=workload.batch, seq=f"{workload.seq:,}", layers_kept=kept, full=full,
            per_layer=per_layer_text, recompute=recompute, outside=f"{outside:,}",
            constant=phrase("activations.constant", constant_bytes=format_binary(shared)) if shared else "",
            bytes=format_binary(num_bytes), attention=phrase(f"attention.{workload.attention.value}"),
            checkpointing=strategy,
        )

    def explain() -> Phrase | Formula:
        if not images:
            return text()
        tower = ("trained" if workload.lora is None else "inputs" if tower_inputs_grad(workload)
                 else "lora" if tower_targets(model, workload.lora) else "frozen")
        return (text(), phrase("activations.cross_images", images=workload.batch * workload.images,
                               tokens=f"{vision_tokens(workload):,}", cross=model.count_kind(AttentionKind.CROSS),
                               bytes=format_binary(images + recomputed), tower=phrase(f"activations.tower.{tower}")))

    return Component(key="activations", bytes=num_bytes, explain=explain), forward_bytes




def embedding_components(workload: Workload, *, batch: int, seq: int, engine: str,
                         overhead: Component | None = None) -> tuple[Component, ...]:
    """An embedder's or reranker's memory: the weights and one forward over `batch` sequences of `seq` tokens, no
    logits. An encoder keeps no KV cache and its forward is as measured (encoder.py `forward_bytes`); a decoder
    embedder's forward is the prefill, with the DynamicCache transformers' forward builds (use_cache). transformers
    runs the padded batch; vLLM's pooling runner and llama.cpp's --embedding one padding-free budget of tokens (vLLM's
    encoder forward is read from its source: encoder.py `vllm_forward_bytes`)."""
    model, run = workload.model, workload.but(batch=batch, seq=seq)
    if model.encoder is None:
        kv, activations = kv_cache_bytes(run), inference_activations(run)
    else:
        kv = no_component("kv_cache", "kv_cache.encoder")
        e = int(workload.activation_precision.bits) // 8
        if engine == "vLLM":  # one step of the pooling runner: `seq` tokens flattened, varlen attention
            forward = vllm_forward_bytes(model.hidden, model.ffn, model.heads, model.encoder.family, e=e,
                                         tokens=batch * seq, gated=model.gated_mlp)
        else:  # GTE's `new` configs run the hub's remote code under transformers (encoder.py `forward_bytes`)
            remote = model.encoder.rotary_rows > 0 and engine == "transformers"
            forward = forward_bytes(model.hidden, model.ffn, model.heads, model.head_dim,
                                    "new" if remote else model.encoder.family, e=e, batch=batch, seq=seq,
                                    gated=model.gated_mlp, relative=model.encoder.relative,
                                    relative_norm=model.encoder.relative_norm, wide=model.encoder.embedding,
                                    eager=workload.attention is Attention.EAGER and engine == "transformers")
        alibi = (alibi_bytes(model.heads, model.max_positions or 0, seq, e)
                 if model.encoder.family.startswith("jina-bert-v2") and engine == "transformers" else 0)
        rows = model.encoder.rotary_rows if engine == "transformers" else 0
        rotary = rotary_cache_bytes(rows, model.head_dim, seq, e) if rows else 0
        size = forward + alibi + rotary
        activations = Component(key="activations", bytes=size, explain=lambda: (phrase(
            "activations.embedding_vllm", tokens=f"{batch * seq:,}", bytes=format_binary(forward))
            if engine == "vLLM" else phrase(
            "activations.embedding", batch=batch, seq=f"{seq:,}", engine=engine, bytes=format_binary(forward)),
            *((phrase("activations.alibi", heads=model.heads, side=f"{max(model.max_positions or 0, seq):,}",
                      bytes=format_binary(alibi)),) if alibi else ()),
            *((phrase("activations.rotary_cache", rows=f"{max(rows, seq):,}",
                      width=model.head_dim, bytes=format_binary(rotary)),) if rotary else ())))
    return (weights_bytes(workload), gradients_bytes(workload), optimizer_state_bytes(workload),
            master_weights_bytes(workload), kv, activations, head_logits(run, activations.bytes),
            no_component("temporaries", "temporaries.inference"), overhead or overhead_bytes(workload))


def head_logits(workload: Workload, layers_peak: int) -> Component:
    """A reranker scored on its head's rows and loaded whole (transformers' AutoModelForCausalLM, as Qwen3-Reranker's
    card runs it): the forward computes the logits of every position before the last one's are read. Measured
    (tools/measure_lm_reranker.py, tests/golden/lm_reranker.json): the forward then peaks at the KV cache its
    forward builds plus batch × seq × (vocabulary + h) values in the compute type, the logits beside the final norm's
    output, whenever that passes the layers' peak; so this component is what it adds above that peak. An embedder,
    or a reranker whose head its engine replaced by a score, computes no logits."""
    model = workload.model
    if model.encoder is not None or model.reranker is None or model.reranker.scored:
        return no_component("logits", "logits.embedding")
    tokens, e = workload.batch * workload.seq, int(workload.activation_precision.bits) // 8
    moment = tokens * (model.vocab + model.hidden) * e
    num_bytes = max(0, moment - layers_peak)
    return Component(key="logits", bytes=num_bytes, explain=lambda: phrase(
        "logits.reranker", tokens=f"{tokens:,}", vocab=f"{model.vocab:,}", hidden=f"{model.hidden:,}", e=e,
        moment=format_binary(moment), bytes=format_binary(num_bytes)))
