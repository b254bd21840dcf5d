"""Every parameter tensor of a pipeline part, named and shaped as the diffusers or transformers class builds it from
its config.json (diffusers 0.42 `models/transformers/transformer_{flux,sd3,wan,hunyuan_video}.py`,
`unets/unet_2d_condition.py`, `autoencoders/autoencoder_kl{,_wan,_hunyuan_video}.py`; transformers 5.23 `models/clip`,
`models/t5`, `models/umt5`, `models/llama`, `models/qwen2_5_vl`; diffusers' `transformer_hunyuan_video15.py`,
`autoencoder_kl_hunyuanvideo15.py`, `transformer_qwenimage.py` and `transformer_hidream_image.py`). A counter
mirrors its class's __init__ line by line; tests hold the sum to the class built on PyTorch's meta device.

`tensors(class_name, config)` -> (Tensor(name, shape, kind), ...): kind is "linear" or "conv" for a layer's weight
and bias (what quantisers and fp8 casting convert), "embedding" for an nn.Embedding's table (fp8 casting converts it
too), "param" for other parameters (norms, modulation tables), "buffer" for a floating-point buffer (SD3's position
table, Wan's rotary tables) and "index" for an int64 one. A class or an option no counter reads raises ValueError."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import pairwise
from math import prod
from typing import Any, NamedTuple

Shape = tuple[int, ...]
Config = Mapping[str, Any]
PARAMETER_KINDS = ("linear", "conv", "embedding", "param")


class Tensor(NamedTuple):
    name: str
    shape: Shape
    kind: str  # linear, conv, embedding, param, buffer, index

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def module(self) -> str:
        return self.name.rpartition(".")[0]


class _Tensors(list[Tensor]):
    def add(self, name: str, *shape: int, kind: str = "param") -> None:
        self.append(Tensor(name, shape, kind))

    def linear(self, name: str, inputs: int, outputs: int, *, bias: bool = True) -> None:
        self.add(f"{name}.weight", outputs, inputs, kind="linear")
        if bias:
            self.add(f"{name}.bias", outputs, kind="linear")

    def conv(self, name: str, inputs: int, outputs: int, kernel: Shape, *, bias: bool = True) -> None:
        self.add(f"{name}.weight", outputs, inputs, *kernel, kind="conv")
        if bias:
            self.add(f"{name}.bias", outputs, kind="conv")

    def norm(self, name: str, width: int, *, bias: bool = True) -> None:
        """LayerNorm or GroupNorm with an affine weight (and bias); RMSNorm has the weight only."""
        self.add(f"{name}.weight", width)
        if bias:
            self.add(f"{name}.bias", width)

    def mlp(self, name: str, width: int, hidden: int, *, gated: bool = False) -> None:
        """diffusers FeedForward: net.0 (GELU, or GEGLU whose projection is twice as wide), net.2."""
        self.linear(f"{name}.net.0.proj", width, hidden * (2 if gated else 1))
        self.linear(f"{name}.net.2", hidden, width)

    def embedding(self, name: str, inputs: int, width: int) -> None:
        """TimestepEmbedding / PixArtAlphaTextProjection: linear_1, linear_2."""
        self.linear(f"{name}.linear_1", inputs, width)
        self.linear(f"{name}.linear_2", width, width)


def _get(config: Config, key: str, default: Any) -> Any:
    value = config.get(key, default)
    return default if value is None else value


# ---------------------------------------------------------------- DiT denoisers


def flux(c: Config) -> _Tensors:
    """FluxTransformer2DModel: double-stream blocks (image and text each with AdaLN-Zero, joint attention with q/k
    RMSNorm, GELU MLP 4x), then single-stream blocks (attention and MLP in parallel, one output projection)."""
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 24)
    inner, in_channels, patch = heads * head_dim, _get(c, "in_channels", 64), _get(c, "patch_size", 1)
    mlp = int(inner * 4.0)
    t.embedding("time_text_embed.timestep_embedder", 256, inner)
    if _get(c, "guidance_embeds", False):
        t.embedding("time_text_embed.guidance_embedder", 256, inner)
    t.embedding("time_text_embed.text_embedder", _get(c, "pooled_projection_dim", 768), inner)
    t.linear("context_embedder", _get(c, "joint_attention_dim", 4096), inner)
    t.linear("x_embedder", in_channels, inner)
    for i in range(_get(c, "num_layers", 19)):
        b = f"transformer_blocks.{i}"
        t.linear(f"{b}.norm1.linear", inner, 6 * inner)
        t.linear(f"{b}.norm1_context.linear", inner, 6 * inner)
        for q in ("norm_q", "norm_k", "norm_added_q", "norm_added_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        for p in ("to_q", "to_k", "to_v", "to_out.0", "add_q_proj", "add_k_proj", "add_v_proj", "to_add_out"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        t.mlp(f"{b}.ff", inner, mlp)
        t.mlp(f"{b}.ff_context", inner, mlp)
    for i in range(_get(c, "num_single_layers", 38)):
        b = f"single_transformer_blocks.{i}"
        t.linear(f"{b}.norm.linear", inner, 3 * inner)
        t.linear(f"{b}.proj_mlp", inner, mlp)
        t.linear(f"{b}.proj_out", inner + mlp, inner)
        t.norm(f"{b}.attn.norm_q", head_dim, bias=False)
        t.norm(f"{b}.attn.norm_k", head_dim, bias=False)
        for p in ("to_q", "to_k", "to_v"):
            t.linear(f"{b}.attn.{p}", inner, inner)
    t.linear("norm_out.linear", inner, 2 * inner)
    t.linear("proj_out", inner, patch * patch * (_get(c, "out_channels", in_channels)))
    return t


def flux2(c: Config) -> _Tensors:
    """Flux2Transformer2DModel (FLUX.2): bias-free throughout; the time (and guidance) embedding feeds three shared
    modulations (double-stream image and text to 6 d, single-stream to 3 d) instead of per-block AdaLN layers;
    double-stream blocks with joint attention (q/k RMSNorm per head) and SwiGLU MLPs (linear_in to 2 x mlp_ratio x d),
    single-stream blocks with one fused projection to q, k, v and the SwiGLU input and one output projection."""
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 48)
    inner, in_channels = heads * head_dim, _get(c, "in_channels", 128)
    mlp, channels = int(inner * _get(c, "mlp_ratio", 3.0)), _get(c, "timestep_guidance_channels", 256)
    for embedder in ("timestep_embedder",) + (("guidance_embedder",) if _get(c, "guidance_embeds", True) else ()):
        t.linear(f"time_guidance_embed.{embedder}.linear_1", channels, inner, bias=False)
        t.linear(f"time_guidance_embed.{embedder}.linear_2", inner, inner, bias=False)
    for name, sets in (("double_stream_modulation_img", 2), ("double_stream_modulation_txt", 2),
                       ("single_stream_modulation", 1)):
        t.linear(f"{name}.linear", inner, 3 * sets * inner, bias=False)
    t.linear("x_embedder", in_channels, inner, bias=False)
    t.linear("context_embedder", _get(c, "joint_attention_dim", 15360), inner, bias=False)
    for i in range(_get(c, "num_layers", 8)):
        b = f"transformer_blocks.{i}"
        for p in ("to_q", "to_k", "to_v", "to_out.0", "add_q_proj", "add_k_proj", "add_v_proj", "to_add_out"):
            t.linear(f"{b}.attn.{p}", inner, inner, bias=False)
        for q in ("norm_q", "norm_k", "norm_added_q", "norm_added_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        for ff in ("ff", "ff_context"):
            t.linear(f"{b}.{ff}.linear_in", inner, 2 * mlp, bias=False)
            t.linear(f"{b}.{ff}.linear_out", mlp, inner, bias=False)
    for i in range(_get(c, "num_single_layers", 48)):
        b = f"single_transformer_blocks.{i}.attn"
        t.linear(f"{b}.to_qkv_mlp_proj", inner, 3 * inner + 2 * mlp, bias=False)
        t.norm(f"{b}.norm_q", head_dim, bias=False)
        t.norm(f"{b}.norm_k", head_dim, bias=False)
        t.linear(f"{b}.to_out", inner + mlp, inner, bias=False)
    t.linear("norm_out.linear", inner, 2 * inner, bias=False)
    t.linear("proj_out", inner, _get(c, "patch_size", 1) ** 2 * _get(c, "out_channels", in_channels), bias=False)
    return t


def qwen_image(c: Config) -> _Tensors:
    """QwenImageTransformer2DModel: every block double-stream (image and text each with a SiLU + Linear modulation to
    6 d, joint attention with q/k RMSNorm and biases, a GELU MLP 4x); an RMSNorm on the text before txt_in; its RoPE
    tables are plain attributes, not buffers."""
    if _get(c, "zero_cond_t", False) or _get(c, "use_additional_t_cond", False) or _get(c, "guidance_embeds", False):
        raise ValueError("QwenImageTransformer2DModel with zero_cond_t, use_additional_t_cond or guidance is not read")
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 24)
    inner, in_channels, patch = heads * head_dim, _get(c, "in_channels", 64), _get(c, "patch_size", 2)
    t.embedding("time_text_embed.timestep_embedder", 256, inner)
    t.norm("txt_norm", _get(c, "joint_attention_dim", 3584), bias=False)
    t.linear("img_in", in_channels, inner)
    t.linear("txt_in", _get(c, "joint_attention_dim", 3584), inner)
    for i in range(_get(c, "num_layers", 60)):
        b = f"transformer_blocks.{i}"
        t.linear(f"{b}.img_mod.1", inner, 6 * inner)
        for p in ("to_q", "to_k", "to_v"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        for q in ("norm_q", "norm_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        for p in ("add_k_proj", "add_v_proj", "add_q_proj"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        for q in ("norm_added_q", "norm_added_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        t.linear(f"{b}.attn.to_out.0", inner, inner)
        t.linear(f"{b}.attn.to_add_out", inner, inner)
        t.mlp(f"{b}.img_mlp", inner, 4 * inner)
        t.linear(f"{b}.txt_mod.1", inner, 6 * inner)
        t.mlp(f"{b}.txt_mlp", inner, 4 * inner)
    t.linear("norm_out.linear", inner, 2 * inner)
    t.linear("proj_out", inner, patch * patch * _get(c, "out_channels", in_channels))
    return t


def _swiglu(t: _Tensors, name: str, width: int, hidden: int) -> None:
    """HiDreamImageFeedForwardSwiGLU(width, hidden): w1, w3 to int(2 hidden / 3) rounded up to 256, w2 back."""
    inner = 256 * -(-int(2 * hidden / 3) // 256)
    t.linear(f"{name}.w1", width, inner, bias=False)
    t.linear(f"{name}.w2", inner, width, bias=False)
    t.linear(f"{name}.w3", width, inner, bias=False)


def hidream(c: Config) -> _Tensors:
    """HiDreamImageTransformer2DModel (HiDream-I1): double-stream blocks (one SiLU + Linear modulation to 12 d, joint
    attention with q/k RMSNorm across heads and biases on both streams, the image's MoE feed-forward, the text's
    SwiGLU), then single-stream blocks (6 d, the MoE); an MoE is a shared SwiGLU expert of half the width, every routed
    expert and the gate's table; a bias-free caption projection per block's Llama layer and one for T5."""
    t = _Tensors()
    heads, head_dim = _get(c, "num_attention_heads", 20), _get(c, "attention_head_dim", 128)
    d, patch, experts = heads * head_dim, _get(c, "patch_size", 2) or 1, _get(c, "num_routed_experts", 4)
    layers, single = _get(c, "num_layers", 16), _get(c, "num_single_layers", 32)
    captions = list(_get(c, "caption_channels", ()))
    t.embedding("t_embedder.timestep_embedder", 256, d)
    t.embedding("p_embedder.pooled_embedder", _get(c, "text_emb_dim", 2048), d)
    in_channels = _get(c, "in_channels", 64)
    t.linear("x_embedder.proj", in_channels * patch * patch, d)

    def block(b: str, double: bool) -> None:
        t.linear(f"{b}.adaLN_modulation.1", d, (12 if double else 6) * d)
        for suffix in ("", "_t") if double else ("",):
            for p in ("to_q", "to_k", "to_v", "to_out"):
                t.linear(f"{b}.attn1.{p}{suffix}", d, d)
            t.norm(f"{b}.attn1.q_rms_norm{suffix}", d, bias=False)
            t.norm(f"{b}.attn1.k_rms_norm{suffix}", d, bias=False)
        if experts > 0:
            _swiglu(t, f"{b}.ff_i.shared_experts", d, 2 * d)
            for e in range(experts):
                _swiglu(t, f"{b}.ff_i.experts.{e}", d, 4 * d)
            t.add(f"{b}.ff_i.gate.weight", experts, d)
        else:
            _swiglu(t, f"{b}.ff_i", d, 4 * d)
        if double:
            _swiglu(t, f"{b}.ff_t", d, 4 * d)

    for i in range(layers):
        block(f"double_stream_blocks.{i}.block", True)
    for i in range(single):
        block(f"single_stream_blocks.{i}.block", False)
    t.linear("final_layer.linear", d, patch * patch * (_get(c, "out_channels", None) or in_channels))
    t.linear("final_layer.adaLN_modulation.1", d, 2 * d)
    for i, channels in enumerate([captions[1]] * (layers + single) + [captions[0]]):
        t.linear(f"caption_projection.{i}.linear", channels, d, bias=False)
    return t


def ltx_video(c: Config) -> _Tensors:
    """LTXVideoTransformer3DModel: AdaLN-single (one time embedding projected to 6 d, a 6-row table per block),
    self-attention and cross-attention with q/k RMSNorm across heads and biases, a GELU-tanh MLP 4x; the caption
    projection; RoPE computed in the forward (no buffers)."""
    if _get(c, "qk_norm", "rms_norm_across_heads") != "rms_norm_across_heads" or _get(
            c, "norm_elementwise_affine", False):
        raise ValueError("LTXVideoTransformer3DModel with another qk_norm or affine norms is not read")
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 64), _get(c, "num_attention_heads", 32)
    inner, cross = heads * head_dim, _get(c, "cross_attention_dim", 2048)
    bias, out_bias = _get(c, "attention_bias", True), _get(c, "attention_out_bias", True)
    t.add("scale_shift_table", 2, inner)
    t.linear("proj_in", _get(c, "in_channels", 128), inner)
    t.embedding("time_embed.emb.timestep_embedder", 256, inner)
    t.linear("time_embed.linear", inner, 6 * inner)
    t.embedding("caption_projection", _get(c, "caption_channels", 4096), inner)
    for i in range(_get(c, "num_layers", 28)):
        b = f"transformer_blocks.{i}"
        t.add(f"{b}.scale_shift_table", 6, inner)
        for attn, source in (("attn1", inner), ("attn2", cross)):
            t.norm(f"{b}.{attn}.norm_q", inner, bias=False)
            t.norm(f"{b}.{attn}.norm_k", inner, bias=False)
            t.linear(f"{b}.{attn}.to_q", inner, inner, bias=bias)
            t.linear(f"{b}.{attn}.to_k", source, inner, bias=bias)
            t.linear(f"{b}.{attn}.to_v", source, inner, bias=bias)
            t.linear(f"{b}.{attn}.to_out.0", inner, inner, bias=out_bias)
        t.mlp(f"{b}.ff", inner, 4 * inner)
    t.linear("proj_out", inner, _get(c, "out_channels", 128))
    return t


def sd3(c: Config) -> _Tensors:
    """SD3Transformer2DModel (MMDiT; SD3.5 adds q/k RMSNorm and, in Medium, a second image-only attention in the
    `dual_attention_layers`, MMDiT-X). The last block is `context_pre_only`: its text stream ends after attention."""
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 64), _get(c, "num_attention_heads", 18)
    inner, patch, layers = heads * head_dim, _get(c, "patch_size", 2), _get(c, "num_layers", 18)
    in_channels, qk_norm = _get(c, "in_channels", 16), _get(c, "qk_norm", None)
    if qk_norm not in (None, "rms_norm"):
        raise ValueError(f"SD3Transformer2DModel qk_norm {qk_norm!r}")
    dual = set(_get(c, "dual_attention_layers", ()))
    t.conv("pos_embed.proj", in_channels, inner, (patch, patch))
    if _get(c, "pos_embed_max_size", 96):
        t.add("pos_embed.pos_embed", 1, _get(c, "pos_embed_max_size", 96) ** 2, inner, kind="buffer")
    t.embedding("time_text_embed.timestep_embedder", 256, inner)
    t.embedding("time_text_embed.text_embedder", _get(c, "pooled_projection_dim", 2048), inner)
    t.linear("context_embedder", _get(c, "joint_attention_dim", 4096), _get(c, "caption_projection_dim", 1152))
    for i in range(layers):
        b, last = f"transformer_blocks.{i}", i == layers - 1
        t.linear(f"{b}.norm1.linear", inner, (9 if i in dual else 6) * inner)
        t.linear(f"{b}.norm1_context.linear", inner, (2 if last else 6) * inner)
        for attn, joint in (("attn", True), ("attn2", False)):
            if attn == "attn2" and i not in dual:
                continue
            names = ["to_q", "to_k", "to_v", "to_out.0"]
            if joint:
                names += ["add_q_proj", "add_k_proj", "add_v_proj"] + ([] if last else ["to_add_out"])
            for p in names:
                t.linear(f"{b}.{attn}.{p}", inner, inner)
            if qk_norm:
                for q in ("norm_q", "norm_k") + (("norm_added_q", "norm_added_k") if joint else ()):
                    t.norm(f"{b}.{attn}.{q}", head_dim, bias=False)
        t.mlp(f"{b}.ff", inner, 4 * inner)
        if not last:
            t.mlp(f"{b}.ff_context", inner, 4 * inner)
    t.linear("norm_out.linear", inner, 2 * inner)
    t.linear("proj_out", inner, patch * patch * _get(c, "out_channels", in_channels))
    return t


def wan(c: Config) -> _Tensors:
    """WanTransformer3DModel (text-to-video): a 3-D patch embedding, then blocks of self-attention, cross-attention
    to the UMT5 text and a GELU MLP, each modulated by the block's scale_shift_table and the shared time projection."""
    if _get(c, "image_dim", None) or _get(c, "added_kv_proj_dim", None):
        raise ValueError("WanTransformer3DModel with an image embedder (image-to-video) is not read yet")
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 40)
    inner, patch = heads * head_dim, tuple(_get(c, "patch_size", (1, 2, 2)))
    if _get(c, "qk_norm", "rms_norm_across_heads") != "rms_norm_across_heads":
        raise ValueError(f"WanTransformer3DModel qk_norm {c.get('qk_norm')!r}")
    in_channels = _get(c, "in_channels", 16)
    for table in ("freqs_cos", "freqs_sin"):
        t.add(f"rope.{table}", _get(c, "rope_max_seq_len", 1024), head_dim, kind="buffer")
    t.conv("patch_embedding", in_channels, inner, patch)
    t.embedding("condition_embedder.time_embedder", _get(c, "freq_dim", 256), inner)
    t.linear("condition_embedder.time_proj", inner, 6 * inner)
    t.embedding("condition_embedder.text_embedder", _get(c, "text_dim", 4096), inner)
    for i in range(_get(c, "num_layers", 40)):
        b = f"blocks.{i}"
        t.add(f"{b}.scale_shift_table", 1, 6, inner)
        for attn in ("attn1", "attn2"):
            for p in ("to_q", "to_k", "to_v", "to_out.0"):
                t.linear(f"{b}.{attn}.{p}", inner, inner)
            t.norm(f"{b}.{attn}.norm_q", inner, bias=False)
            t.norm(f"{b}.{attn}.norm_k", inner, bias=False)
        if _get(c, "cross_attn_norm", True):
            t.norm(f"{b}.norm2", inner)
        t.mlp(f"{b}.ffn", inner, _get(c, "ffn_dim", 13824))
    t.linear("proj_out", inner, _get(c, "out_channels", in_channels) * prod(patch))
    t.add("scale_shift_table", 1, 2, inner)
    return t


def hunyuan_video(c: Config) -> _Tensors:
    """HunyuanVideoTransformer3DModel (text-to-video, HunyuanVideo 1.0): a 3-D patch embedding, the text's token
    refiner (its own timestep and pooled-text embedders, proj_in, self-attention blocks with a SiLU MLP gated by
    HunyuanVideoAdaNorm), then Flux-like dual-stream blocks (GELU-tanh MLPs) and single-stream blocks."""
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 24)
    inner, patch, patch_t = heads * head_dim, _get(c, "patch_size", 2), _get(c, "patch_size_t", 1)
    mlp, text, in_channels = int(inner * _get(c, "mlp_ratio", 4.0)), _get(c, "text_embed_dim", 4096), _get(
        c, "in_channels", 16)
    if _get(c, "qk_norm", "rms_norm") != "rms_norm":
        raise ValueError(f"HunyuanVideoTransformer3DModel qk_norm {c.get('qk_norm')!r}")
    t.conv("x_embedder.proj", in_channels, inner, (patch_t, patch, patch))
    r = "context_embedder"
    t.embedding(f"{r}.time_text_embed.timestep_embedder", 256, inner)
    t.embedding(f"{r}.time_text_embed.text_embedder", text, inner)
    t.linear(f"{r}.proj_in", text, inner)
    for i in range(_get(c, "num_refiner_layers", 2)):
        b = f"{r}.token_refiner.refiner_blocks.{i}"
        t.norm(f"{b}.norm1", inner)
        for p in ("to_q", "to_k", "to_v", "to_out.0"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        t.norm(f"{b}.norm2", inner)
        t.mlp(f"{b}.ff", inner, 4 * inner)  # the refiner is built with its default mlp_ratio 4.0, not the config's
        t.linear(f"{b}.norm_out.linear", inner, 2 * inner)
    t.embedding("time_text_embed.timestep_embedder", 256, inner)
    t.embedding("time_text_embed.text_embedder", _get(c, "pooled_projection_dim", 768), inner)
    if _get(c, "guidance_embeds", True):
        t.embedding("time_text_embed.guidance_embedder", 256, inner)
    for i in range(_get(c, "num_layers", 20)):
        b = f"transformer_blocks.{i}"
        t.linear(f"{b}.norm1.linear", inner, 6 * inner)
        t.linear(f"{b}.norm1_context.linear", inner, 6 * inner)
        for p in ("to_q", "to_k", "to_v", "add_k_proj", "add_v_proj", "add_q_proj", "to_out.0", "to_add_out"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        for q in ("norm_q", "norm_k", "norm_added_q", "norm_added_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        t.mlp(f"{b}.ff", inner, mlp)
        t.mlp(f"{b}.ff_context", inner, mlp)
    for i in range(_get(c, "num_single_layers", 40)):
        b = f"single_transformer_blocks.{i}"
        for p in ("to_q", "to_k", "to_v"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        t.norm(f"{b}.attn.norm_q", head_dim, bias=False)
        t.norm(f"{b}.attn.norm_k", head_dim, bias=False)
        t.linear(f"{b}.norm.linear", inner, 3 * inner)
        t.linear(f"{b}.proj_mlp", inner, mlp)
        t.linear(f"{b}.proj_out", inner + mlp, inner)
    t.linear("norm_out.linear", inner, 2 * inner)
    t.linear("proj_out", inner, patch_t * patch * patch * _get(c, "out_channels", in_channels))
    return t


def hunyuan_video15(c: Config) -> _Tensors:
    """HunyuanVideo15Transformer3DModel (HunyuanVideo 1.5): a 3-D patch embedding of the latents with their condition
    channels, the image (SigLIP) projection, the Qwen text's token refiner (as 1.0's, its MLP at the class's 4.0), the
    ByT5 glyph projection (2048 wide), the time embedding, three condition-type embeddings, then dual-stream blocks
    only (1.0's without the single-stream ones); no guidance embedder."""
    t = _Tensors()
    head_dim, heads = _get(c, "attention_head_dim", 128), _get(c, "num_attention_heads", 16)
    inner, patch, patch_t = heads * head_dim, _get(c, "patch_size", 1), _get(c, "patch_size_t", 1)
    mlp, text, in_channels = int(inner * _get(c, "mlp_ratio", 4.0)), _get(c, "text_embed_dim", 3584), _get(
        c, "in_channels", 65)
    image = _get(c, "image_embed_dim", 1152)
    if _get(c, "qk_norm", "rms_norm") != "rms_norm":
        raise ValueError(f"HunyuanVideo15Transformer3DModel qk_norm {c.get('qk_norm')!r}")
    t.conv("x_embedder.proj", in_channels, inner, (patch_t, patch, patch))
    t.norm("image_embedder.norm_in", image)
    t.linear("image_embedder.linear_1", image, image)
    t.linear("image_embedder.linear_2", image, inner)
    t.norm("image_embedder.norm_out", inner)
    r = "context_embedder"
    t.embedding(f"{r}.time_text_embed.timestep_embedder", 256, inner)
    t.embedding(f"{r}.time_text_embed.text_embedder", text, inner)
    t.linear(f"{r}.proj_in", text, inner)
    for i in range(_get(c, "num_refiner_layers", 2)):
        b = f"{r}.token_refiner.refiner_blocks.{i}"
        t.norm(f"{b}.norm1", inner)
        for p in ("to_q", "to_k", "to_v", "to_out.0"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        t.norm(f"{b}.norm2", inner)
        t.mlp(f"{b}.ff", inner, 4 * inner)
        t.linear(f"{b}.norm_out.linear", inner, 2 * inner)
    glyph = _get(c, "text_embed_2_dim", 1472)
    t.norm("context_embedder_2.norm", glyph)
    t.linear("context_embedder_2.linear_1", glyph, 2048)
    t.linear("context_embedder_2.linear_2", 2048, 2048)
    t.linear("context_embedder_2.linear_3", 2048, inner)
    t.embedding("time_embed.timestep_embedder", 256, inner)
    if _get(c, "use_meanflow", False):
        t.embedding("time_embed.timestep_embedder_r", 256, inner)
    t.add("cond_type_embed.weight", 3, inner, kind="embedding")
    for i in range(_get(c, "num_layers", 54)):
        b = f"transformer_blocks.{i}"
        t.linear(f"{b}.norm1.linear", inner, 6 * inner)
        t.linear(f"{b}.norm1_context.linear", inner, 6 * inner)
        for p in ("to_q", "to_k", "to_v"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        for q in ("norm_q", "norm_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        for p in ("add_k_proj", "add_v_proj", "add_q_proj"):
            t.linear(f"{b}.attn.{p}", inner, inner)
        for q in ("norm_added_q", "norm_added_k"):
            t.norm(f"{b}.attn.{q}", head_dim, bias=False)
        t.linear(f"{b}.attn.to_out.0", inner, inner)
        t.linear(f"{b}.attn.to_add_out", inner, inner)
        t.mlp(f"{b}.ff", inner, mlp)
        t.mlp(f"{b}.ff_context", inner, mlp)
    t.linear("norm_out.linear", inner, 2 * inner)
    t.linear("proj_out", inner, patch_t * patch * patch * _get(c, "out_channels", 32))
    return t


# ---------------------------------------------------------------- UNet


def _resnet(t: _Tensors, name: str, inputs: int, outputs: int, temb: int | None, dims: int = 2) -> None:
    """ResnetBlock2D: GroupNorm, 3x3 conv, (time embedding projection), GroupNorm, 3x3 conv, 1x1 shortcut
    (HunyuanVideoResnetBlockCausal3D: the same in 3-D, `.conv` inside each causal conv)."""
    conv = ".conv" if dims == 3 else ""
    t.norm(f"{name}.norm1", inputs)
    t.conv(f"{name}.conv1{conv}", inputs, outputs, (3,) * dims)
    if temb is not None:
        t.linear(f"{name}.time_emb_proj", temb, outputs)
    t.norm(f"{name}.norm2", outputs)
    t.conv(f"{name}.conv2{conv}", outputs, outputs, (3,) * dims)
    if inputs != outputs:
        t.conv(f"{name}.conv_shortcut{conv}", inputs, outputs, (1,) * dims)


def _project(t: _Tensors, name: str, width: int, linear: bool) -> None:
    if linear:
        t.linear(name, width, width)
    else:
        t.conv(name, width, width, (1, 1))


def _transformer_2d(t: _Tensors, name: str, width: int, depth: int, cross: int, linear: bool) -> None:
    """Transformer2DModel: GroupNorm, proj_in, BasicTransformerBlocks (self-attention, cross-attention, GEGLU),
    proj_out; the projections are linear layers or 1x1 convolutions (`use_linear_projection`)."""
    t.norm(f"{name}.norm", width)
    _project(t, f"{name}.proj_in", width, linear)
    for j in range(depth):
        b = f"{name}.transformer_blocks.{j}"
        for k, (attn, source) in enumerate((("attn1", width), ("attn2", cross))):
            t.norm(f"{b}.norm{k + 1}", width)
            t.linear(f"{b}.{attn}.to_q", width, width, bias=False)
            t.linear(f"{b}.{attn}.to_k", source, width, bias=False)
            t.linear(f"{b}.{attn}.to_v", source, width, bias=False)
            t.linear(f"{b}.{attn}.to_out.0", width, width)
        t.norm(f"{b}.norm3", width)
        t.mlp(f"{b}.ff", width, 4 * width, gated=True)
    _project(t, f"{name}.proj_out", width, linear)


def _per_block(value: Any, blocks: int) -> list[int]:
    return list(value) if isinstance(value, (list, tuple)) else [value] * blocks


def unet(c: Config) -> _Tensors:
    """UNet2DConditionModel as SD 1.x and SDXL configure it (CrossAttn/plain down and up blocks, a cross-attention
    mid block, SDXL's text_time added embedding)."""
    known = {"CrossAttnDownBlock2D", "DownBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"}
    downs = list(_get(c, "down_block_types", ("CrossAttnDownBlock2D",) * 3 + ("DownBlock2D",)))
    ups = list(_get(c, "up_block_types", ("UpBlock2D",) + ("CrossAttnUpBlock2D",) * 3))
    mid = _get(c, "mid_block_type", "UNetMidBlock2DCrossAttn")
    if not set(downs + ups) <= known or mid != "UNetMidBlock2DCrossAttn" or _get(c, "class_embed_type", None) or (
            _get(c, "encoder_hid_dim", None)):
        raise ValueError("UNet2DConditionModel blocks other than SD 1.x / SDXL's are not read yet")
    t = _Tensors()
    channels = list(_get(c, "block_out_channels", (320, 640, 1280, 1280)))
    n = len(channels)
    layers = _per_block(_get(c, "layers_per_block", 2), n)
    depth = _per_block(_get(c, "transformer_layers_per_block", 1), n)
    cross, linear = _get(c, "cross_attention_dim", 1280), _get(c, "use_linear_projection", False)
    temb = 4 * channels[0]
    t.conv("conv_in", _get(c, "in_channels", 4), channels[0], (3, 3))
    t.embedding("time_embedding", channels[0], temb)
    if _get(c, "addition_embed_type", None) == "text_time":
        t.embedding("add_embedding", _get(c, "projection_class_embeddings_input_dim", 0), temb)
    elif _get(c, "addition_embed_type", None) is not None:
        raise ValueError(f"UNet2DConditionModel addition_embed_type {c['addition_embed_type']!r}")
    out = channels[0]
    for i, kind in enumerate(downs):
        b, inputs, out = f"down_blocks.{i}", out, channels[i]
        for j in range(layers[i]):
            _resnet(t, f"{b}.resnets.{j}", inputs if j == 0 else out, out, temb)
            if kind.startswith("CrossAttn"):
                _transformer_2d(t, f"{b}.attentions.{j}", out, depth[i], cross, linear)
        if i < n - 1:
            t.conv(f"{b}.downsamplers.0.conv", out, out, (3, 3))
    _resnet(t, "mid_block.resnets.0", channels[-1], channels[-1], temb)
    _transformer_2d(t, "mid_block.attentions.0", channels[-1], depth[-1], cross, linear)
    _resnet(t, "mid_block.resnets.1", channels[-1], channels[-1], temb)
    reverse, layers, depth = channels[::-1], layers[::-1], depth[::-1]
    out = reverse[0]
    for i, kind in enumerate(ups):
        b, previous, out, skip_in = f"up_blocks.{i}", out, reverse[i], reverse[min(i + 1, n - 1)]
        for j in range(layers[i] + 1):
            skip = skip_in if j == layers[i] else out
            _resnet(t, f"{b}.resnets.{j}", (previous if j == 0 else out) + skip, out, temb)
            if kind.startswith("CrossAttn"):
                _transformer_2d(t, f"{b}.attentions.{j}", out, depth[i], cross, linear)
        if i < n - 1:
            t.conv(f"{b}.upsamplers.0.conv", out, out, (3, 3))
    t.norm("conv_norm_out", channels[0])
    t.conv("conv_out", channels[0], _get(c, "out_channels", 4), (3, 3))
    return t


# ---------------------------------------------------------------- VAEs


def _vae_mid(t: _Tensors, name: str, width: int, attention: bool, dims: int = 2) -> None:
    """UNetMidBlock2D of the VAE (HunyuanVideoMidBlock3D): resnet, one single-head attention with GroupNorm, resnet."""
    _resnet(t, f"{name}.resnets.0", width, width, None, dims)
    if attention:
        t.norm(f"{name}.attentions.0.group_norm", width)
        for p in ("to_q", "to_k", "to_v", "to_out.0"):
            t.linear(f"{name}.attentions.0.{p}", width, width)
    _resnet(t, f"{name}.resnets.1", width, width, None, dims)


def autoencoder_kl(c: Config) -> _Tensors:
    """AutoencoderKL (SD, SDXL, SD3 and Flux VAEs): encoder to 2 x latent channels (mean and log-variance),
    optional 1x1 quant convs, decoder with one more resnet per up block."""
    t = _Tensors()
    channels = list(_get(c, "block_out_channels", (64,)))
    n, per_block = len(channels), _get(c, "layers_per_block", 1)
    latent, attention = _get(c, "latent_channels", 4), _get(c, "mid_block_add_attention", True)
    t.conv("encoder.conv_in", _get(c, "in_channels", 3), channels[0], (3, 3))
    out = channels[0]
    for i in range(n):
        inputs, out = out, channels[i]
        for j in range(per_block):
            _resnet(t, f"encoder.down_blocks.{i}.resnets.{j}", inputs if j == 0 else out, out, None)
        if i < n - 1:
            t.conv(f"encoder.down_blocks.{i}.downsamplers.0.conv", out, out, (3, 3))
    _vae_mid(t, "encoder.mid_block", channels[-1], attention)
    t.norm("encoder.conv_norm_out", channels[-1])
    t.conv("encoder.conv_out", channels[-1], 2 * latent, (3, 3))
    if _get(c, "use_quant_conv", True):
        t.conv("quant_conv", 2 * latent, 2 * latent, (1, 1))
    if _get(c, "use_post_quant_conv", True):
        t.conv("post_quant_conv", latent, latent, (1, 1))
    t.conv("decoder.conv_in", latent, channels[-1], (3, 3))
    _vae_mid(t, "decoder.mid_block", channels[-1], attention)
    reverse = channels[::-1]
    out = reverse[0]
    for i in range(n):
        previous, out = out, reverse[i]
        for j in range(per_block + 1):
            _resnet(t, f"decoder.up_blocks.{i}.resnets.{j}", previous if j == 0 else out, out, None)
        if i < n - 1:
            t.conv(f"decoder.up_blocks.{i}.upsamplers.0.conv", out, out, (3, 3))
    t.norm("decoder.conv_norm_out", channels[0])
    t.conv("decoder.conv_out", channels[0], _get(c, "out_channels", 3), (3, 3))
    return t


def autoencoder_kl_flux2(c: Config) -> _Tensors:
    """AutoencoderKLFlux2 (FLUX.2's VAE): AutoencoderKL's encoder and decoder at its own defaults (4 levels to 512,
    2 resnets a level, 32 latent channels, both quant convs), and a BatchNorm without affine weights over the
    2 x 2-patched latents whose running mean and variance the pipeline reads to denormalise them."""
    if _get(c, "decoder_block_out_channels", None) not in (None, _get(c, "block_out_channels", None)):
        raise ValueError("AutoencoderKLFlux2 with its own decoder_block_out_channels is not read yet")
    defaults = {"block_out_channels": (128, 256, 512, 512), "layers_per_block": 2, "latent_channels": 32}
    t = autoencoder_kl({**defaults, **{key: value for key, value in c.items() if value is not None}})
    channels = prod(_get(c, "patch_size", (2, 2))) * _get(c, "latent_channels", 32)
    t.add("bn.running_mean", channels, kind="buffer")
    t.add("bn.running_var", channels, kind="buffer")
    t.add("bn.num_batches_tracked", kind="index")
    return t


def autoencoder_kl_hunyuan_video(c: Config) -> _Tensors:
    """AutoencoderKLHunyuanVideo: AutoencoderKL's layout in causal 3-D convolutions (3x3x3, 1x1x1 shortcuts and
    quant convs); a level has a down (up) sampler where it compresses space (its index below log2 of the spatial
    ratio) or time (the levels before the last whose index reaches len - 1 - log2 of the temporal ratio)."""
    if _get(c, "temporal_compression_ratio", 4) != 4:
        raise ValueError("AutoencoderKLHunyuanVideo with a temporal ratio other than 4 is not read yet")
    t = _Tensors()
    channels = list(_get(c, "block_out_channels", (128, 256, 512, 512)))
    n, per_block = len(channels), _get(c, "layers_per_block", 2)
    latent, attention = _get(c, "latent_channels", 16), _get(c, "mid_block_add_attention", True)
    spatial = _get(c, "spatial_compression_ratio", 8).bit_length() - 1

    def sampled(i: int) -> bool:
        return i < spatial or (n - 1 - 2 <= i < n - 1)

    t.conv("encoder.conv_in.conv", _get(c, "in_channels", 3), channels[0], (3, 3, 3))
    out = channels[0]
    for i in range(n):
        inputs, out = out, channels[i]
        for j in range(per_block):
            _resnet(t, f"encoder.down_blocks.{i}.resnets.{j}", inputs if j == 0 else out, out, None, 3)
        if sampled(i):
            t.conv(f"encoder.down_blocks.{i}.downsamplers.0.conv.conv", out, out, (3, 3, 3))
    _vae_mid(t, "encoder.mid_block", channels[-1], attention, 3)
    t.norm("encoder.conv_norm_out", channels[-1])
    t.conv("encoder.conv_out.conv", channels[-1], 2 * latent, (3, 3, 3))
    t.conv("decoder.conv_in.conv", latent, channels[-1], (3, 3, 3))
    _vae_mid(t, "decoder.mid_block", channels[-1], attention, 3)
    reverse = channels[::-1]
    out = reverse[0]
    for i in range(n):
        previous, out = out, reverse[i]
        for j in range(per_block + 1):
            _resnet(t, f"decoder.up_blocks.{i}.resnets.{j}", previous if j == 0 else out, out, None, 3)
        if sampled(i):
            t.conv(f"decoder.up_blocks.{i}.upsamplers.0.conv.conv", out, out, (3, 3, 3))
    t.norm("decoder.conv_norm_out", channels[0])
    t.conv("decoder.conv_out.conv", channels[0], _get(c, "out_channels", 3), (3, 3, 3))
    t.conv("quant_conv", 2 * latent, 2 * latent, (1, 1, 1))
    t.conv("post_quant_conv", latent, latent, (1, 1, 1))
    return t


def _hv15_resnet(t: _Tensors, name: str, inputs: int, outputs: int) -> None:
    """HunyuanVideo15ResnetBlock: Wan's block, its causal convs a module deeper (conv1.conv)."""
    _causal_resnet(t, name, inputs, outputs, conv=".conv")


def _hv15_mid(t: _Tensors, name: str, width: int) -> None:
    _hv15_resnet(t, f"{name}.resnets.0", width, width)
    t.add(f"{name}.attentions.0.norm.gamma", width, 1, 1, 1)
    for p in ("to_q", "to_k", "to_v", "proj_out"):
        t.conv(f"{name}.attentions.0.{p}", width, width, (1, 1, 1))
    _hv15_resnet(t, f"{name}.resnets.1", width, width)


def autoencoder_kl_hunyuan_video15(c: Config) -> _Tensors:
    """AutoencoderKLHunyuanVideo15 (HunyuanVideo 1.5's 16x spatial, 4x temporal, 32-channel VAE): causal 3-D
    convolutions with RMS norms; a down (up) sampler is a conv to the next level's channels over 4 (spatial) or 8
    (spatial and temporal) then a pixel (un)shuffle; no quant convs."""
    if _get(c, "downsample_match_channel", True) is not True or _get(c, "upsample_match_channel", True) is not True:
        raise ValueError("AutoencoderKLHunyuanVideo15 without matched sampler channels is not read yet")
    t = _Tensors()
    channels = list(_get(c, "block_out_channels", (128, 256, 512, 1024, 1024)))
    n, per_block, latent = len(channels), _get(c, "layers_per_block", 2), _get(c, "latent_channels", 32)
    spatial = _get(c, "spatial_compression_ratio", 16).bit_length() - 1
    temporal = _get(c, "temporal_compression_ratio", 4).bit_length() - 1
    t.conv("encoder.conv_in.conv", _get(c, "in_channels", 3), channels[0], (3, 3, 3))
    inputs = channels[0]
    for i in range(n):
        for j in range(per_block):
            _hv15_resnet(t, f"encoder.down_blocks.{i}.resnets.{j}", inputs if j == 0 else channels[i], channels[i])
        inputs = channels[i]
        if i < spatial:
            factor = 8 if i >= spatial - temporal else 4
            t.conv(f"encoder.down_blocks.{i}.downsamplers.0.conv.conv", channels[i], channels[i + 1] // factor,
                   (3, 3, 3))
            inputs = channels[i + 1]
    _hv15_mid(t, "encoder.mid_block", channels[-1])
    t.add("encoder.norm_out.gamma", channels[-1], 1, 1, 1)
    t.conv("encoder.conv_out.conv", channels[-1], 2 * latent, (3, 3, 3))
    reverse = channels[::-1]
    t.conv("decoder.conv_in.conv", latent, reverse[0], (3, 3, 3))
    _hv15_mid(t, "decoder.mid_block", reverse[0])
    inputs = reverse[0]
    for i in range(n):
        for j in range(per_block + 1):
            _hv15_resnet(t, f"decoder.up_blocks.{i}.resnets.{j}", inputs if j == 0 else reverse[i], reverse[i])
        inputs = reverse[i]
        if i < spatial or i < temporal:
            factor = 8 if i < temporal else 4
            t.conv(f"decoder.up_blocks.{i}.upsamplers.0.conv.conv", reverse[i], reverse[i + 1] * factor, (3, 3, 3))
            inputs = reverse[i + 1]
    t.add("decoder.norm_out.gamma", reverse[-1], 1, 1, 1)
    t.conv("decoder.conv_out.conv", reverse[-1], _get(c, "out_channels", 3), (3, 3, 3))
    return t


def _causal_resnet(t: _Tensors, name: str, inputs: int, outputs: int, *, conv: str = "") -> None:
    """WanResidualBlock: RMS norm (gamma only), causal 3x3x3 conv, RMS norm, causal conv, 1x1x1 shortcut; `conv`
    names the causal conv inside its module where a VAE nests it."""
    t.add(f"{name}.norm1.gamma", inputs, 1, 1, 1)
    t.conv(f"{name}.conv1{conv}", inputs, outputs, (3, 3, 3))
    t.add(f"{name}.norm2.gamma", outputs, 1, 1, 1)
    t.conv(f"{name}.conv2{conv}", outputs, outputs, (3, 3, 3))
    if inputs != outputs:
        t.conv(f"{name}.conv_shortcut", inputs, outputs, (1, 1, 1))


def _wan_mid(t: _Tensors, name: str, width: int) -> None:
    _causal_resnet(t, f"{name}.resnets.0", width, width)
    t.add(f"{name}.attentions.0.norm.gamma", width, 1, 1)
    t.conv(f"{name}.attentions.0.to_qkv", width, 3 * width, (1, 1))
    t.conv(f"{name}.attentions.0.proj", width, width, (1, 1))
    _causal_resnet(t, f"{name}.resnets.1", width, width)


def autoencoder_kl_wan(c: Config) -> _Tensors:
    """AutoencoderKLWan as Wan 2.1 configures it (causal 3-D convolutions, 8x spatial and 4x temporal compression;
    not Wan 2.2's residual 48-channel VAE)."""
    if _get(c, "is_residual", False) or _get(c, "attn_scales", []):
        raise ValueError("AutoencoderKLWan with residual blocks or attn_scales is not read yet")
    t = _Tensors()
    base, z = _get(c, "base_dim", 96), _get(c, "z_dim", 16)
    mult, per_block = list(_get(c, "dim_mult", (1, 2, 4, 4))), _get(c, "num_res_blocks", 2)
    down = list(_get(c, "temperal_downsample", (False, True, True)))
    dims = [base * u for u in [1, *mult]]
    t.conv("encoder.conv_in", _get(c, "in_channels", 3), dims[0], (3, 3, 3))
    k = 0
    for i, (inputs, out) in enumerate(pairwise(dims)):
        for _ in range(per_block):
            _causal_resnet(t, f"encoder.down_blocks.{k}", inputs, out)
            inputs, k = out, k + 1
        if i < len(mult) - 1:
            t.conv(f"encoder.down_blocks.{k}.resample.1", out, out, (3, 3))
            if down[i]:
                t.conv(f"encoder.down_blocks.{k}.time_conv", out, out, (3, 1, 1))
            k += 1
    _wan_mid(t, "encoder.mid_block", dims[-1])
    t.add("encoder.norm_out.gamma", dims[-1], 1, 1, 1)
    t.conv("encoder.conv_out", dims[-1], 2 * z, (3, 3, 3))
    t.conv("quant_conv", 2 * z, 2 * z, (1, 1, 1))
    t.conv("post_quant_conv", z, z, (1, 1, 1))
    base = _get(c, "decoder_base_dim", base)
    dims = [base * u for u in [mult[-1], *mult[::-1]]]
    t.conv("decoder.conv_in", z, dims[0], (3, 3, 3))
    _wan_mid(t, "decoder.mid_block", dims[0])
    up = down[::-1]
    for i, (inputs, out) in enumerate(pairwise(dims)):
        inputs = inputs // 2 if i > 0 else inputs
        for j in range(per_block + 1):
            _causal_resnet(t, f"decoder.up_blocks.{i}.resnets.{j}", inputs if j == 0 else out, out)
        if i < len(mult) - 1:
            t.conv(f"decoder.up_blocks.{i}.upsamplers.0.resample.1", out, out // 2, (3, 3))
            if up[i]:
                t.conv(f"decoder.up_blocks.{i}.upsamplers.0.time_conv", out, 2 * out, (3, 1, 1))
    t.add("decoder.norm_out.gamma", dims[-1], 1, 1, 1)
    t.conv("decoder.conv_out", dims[-1], _get(c, "out_channels", 3), (3, 3, 3))
    return t


def autoencoder_kl_wan22(c: Config) -> _Tensors:
    """AutoencoderKLWan with `is_residual` (Wan 2.2's VAE, TI2V-5B): the encoder's levels are WanResidualDownBlocks
    (the resnets, then a `downsampler` conv, with a time_conv where it halves the frames; the AvgDown3D shortcut has no
    weights), the decoder's WanResidualUpBlocks (resnets from the previous level's full width, an `upsampler` keeping
    the width, with a time_conv to twice it where it doubles the frames; DupUp3D has no weights); the pixels enter and
    leave `patch_size` x `patch_size` patched (in_channels and out_channels 12)."""
    if _get(c, "attn_scales", []):
        raise ValueError("AutoencoderKLWan with attn_scales is not read yet")
    t = _Tensors()
    base, z = _get(c, "base_dim", 96), _get(c, "z_dim", 16)
    mult, per_block = list(_get(c, "dim_mult", (1, 2, 4, 4))), _get(c, "num_res_blocks", 2)
    down = list(_get(c, "temperal_downsample", (False, True, True)))
    dims = [base * u for u in [1, *mult]]
    last = len(mult) - 1
    t.conv("encoder.conv_in", _get(c, "in_channels", 3), dims[0], (3, 3, 3))
    for i, (inputs, out) in enumerate(pairwise(dims)):
        for j in range(per_block):
            _causal_resnet(t, f"encoder.down_blocks.{i}.resnets.{j}", inputs if j == 0 else out, out)
        if i != last:
            t.conv(f"encoder.down_blocks.{i}.downsampler.resample.1", out, out, (3, 3))
            if down[i]:
                t.conv(f"encoder.down_blocks.{i}.downsampler.time_conv", out, out, (3, 1, 1))
    _wan_mid(t, "encoder.mid_block", dims[-1])
    t.add("encoder.norm_out.gamma", dims[-1], 1, 1, 1)
    t.conv("encoder.conv_out", dims[-1], 2 * z, (3, 3, 3))
    t.conv("quant_conv", 2 * z, 2 * z, (1, 1, 1))
    t.conv("post_quant_conv", z, z, (1, 1, 1))
    base = _get(c, "decoder_base_dim", base)
    dims = [base * u for u in [mult[-1], *mult[::-1]]]
    t.conv("decoder.conv_in", z, dims[0], (3, 3, 3))
    _wan_mid(t, "decoder.mid_block", dims[0])
    up = down[::-1]
    for i, (inputs, out) in enumerate(pairwise(dims)):
        for j in range(per_block + 1):
            _causal_resnet(t, f"decoder.up_blocks.{i}.resnets.{j}", inputs if j == 0 else out, out)
        if i != last:
            t.conv(f"decoder.up_blocks.{i}.upsampler.resample.1", out, out, (3, 3))
            if up[i]:
                t.conv(f"decoder.up_blocks.{i}.upsampler.time_conv", out, 2 * out, (3, 1, 1))
    t.add("decoder.norm_out.gamma", dims[-1], 1, 1, 1)
    t.conv("decoder.conv_out", dims[-1], _get(c, "out_channels", 3), (3, 3, 3))
    return t


def _ltx_resnet(t: _Tensors, name: str, inputs: int, out: int, *, noise: bool = False, timed: bool = False) -> None:
    """LTXVideoResnetBlock3d: RMSNorms without weights, two causal convs; a LayerNorm and a 1x1x1 shortcut where the
    width changes; per-channel noise scales, a 4-row scale-shift table with timestep conditioning."""
    t.conv(f"{name}.conv1.conv", inputs, out, (3, 3, 3))
    t.conv(f"{name}.conv2.conv", out, out, (3, 3, 3))
    if inputs != out:
        t.norm(f"{name}.norm3", inputs)
        t.conv(f"{name}.conv_shortcut.conv", inputs, out, (1, 1, 1))
    if noise:
        t.add(f"{name}.per_channel_scale1", inputs, 1, 1)
        t.add(f"{name}.per_channel_scale2", inputs, 1, 1)
    if timed:
        t.add(f"{name}.scale_shift_table", 4, inputs)


def autoencoder_kl_ltx_video(c: Config) -> _Tensors:
    """AutoencoderKLLTXVideo: the pixels enter patch_size x patch_size patched; the encoder's LTXVideoDownBlock3D
    (0.9.0: resnets, a strided conv, a resnet to the next width) or LTXVideo095DownBlock3D (0.9.5: resnets, a
    conv before a space-to-depth of its stride), a mid block, a conv to latent_channels + 1; the decoder's up blocks
    (a resnet to the new width, a conv before a depth-to-space, resnets), with timestep conditioning (PixArt time
    embedders, scale-shift tables) and noise injection where the config says."""
    t = _Tensors()
    patch, latent = _get(c, "patch_size", 4), _get(c, "latent_channels", 128)
    channels = list(_get(c, "block_out_channels", (128, 256, 512, 512)))
    kinds = list(_get(c, "down_block_types", ["LTXVideoDownBlock3D"] * 4))
    scaling, layers = list(_get(c, "spatio_temporal_scaling", (True, True, True, False))), list(
        _get(c, "layers_per_block", (4, 3, 3, 3, 4)))
    down = list(_get(c, "downsample_type", ["conv"] * 4))
    strides = {"conv": 1, "spatial": 4, "temporal": 2, "spatiotemporal": 8}
    is_095 = kinds[-1] == "LTXVideo095DownBlock3D"
    blocks = len(channels) - (1 if is_095 else 0)
    out = channels[0]
    t.conv("encoder.conv_in.conv", _get(c, "in_channels", 3) * patch * patch, out, (3, 3, 3))
    for i in range(blocks):
        inputs, b = out, f"encoder.down_blocks.{i}"
        out = channels[i + 1] if is_095 or i + 1 < blocks else channels[i]
        for j in range(layers[i]):
            _ltx_resnet(t, f"{b}.resnets.{j}", inputs, inputs)
        if scaling[i]:
            conv = down[i] == "conv" or not is_095
            t.conv(f"{b}.downsamplers.0.conv" + ("" if conv else ".conv"), inputs,
                   inputs if conv else out // strides[down[i]], (3, 3, 3))
        if not is_095 and inputs != out:
            _ltx_resnet(t, f"{b}.conv_out", inputs, out)
    for j in range(layers[-1]):
        _ltx_resnet(t, f"encoder.mid_block.resnets.{j}", out, out)
    t.conv("encoder.conv_out.conv", out, latent + 1, (3, 3, 3))
    timed = _get(c, "timestep_conditioning", False)
    channels = list(_get(c, "decoder_block_out_channels", (128, 256, 512, 512)))[::-1]
    scaling = list(_get(c, "decoder_spatio_temporal_scaling", (True, True, True, False)))[::-1]
    layers = list(_get(c, "decoder_layers_per_block", (4, 3, 3, 3, 4)))[::-1]
    noise = list(_get(c, "decoder_inject_noise", [False] * (len(channels) + 1)))[::-1]
    residual_factor = list(_get(c, "upsample_factor", [1] * len(channels)))[::-1]
    out = channels[0]
    t.conv("decoder.conv_in.conv", latent, out, (3, 3, 3))
    if timed:
        t.embedding("decoder.mid_block.time_embedder.timestep_embedder", 256, out * 4)
    for j in range(layers[0]):
        _ltx_resnet(t, f"decoder.mid_block.resnets.{j}", out, out, noise=noise[0], timed=timed)
    for i, factor in enumerate(residual_factor):
        inputs, out, b = out // factor, channels[i] // factor, f"decoder.up_blocks.{i}"
        if timed:
            t.embedding(f"{b}.time_embedder.timestep_embedder", 256, inputs * 4)
        if inputs != out:
            _ltx_resnet(t, f"{b}.conv_in", inputs, out, noise=noise[i + 1], timed=timed)
        if scaling[i]:
            t.conv(f"{b}.upsamplers.0.conv.conv", out * factor, out * factor * 8 // factor, (3, 3, 3))
        for j in range(layers[i + 1]):
            _ltx_resnet(t, f"{b}.resnets.{j}", out, out, noise=noise[i + 1], timed=timed)
    t.conv("decoder.conv_out.conv", out, _get(c, "out_channels", 3) * patch * patch, (3, 3, 3))
    if timed:
        t.add("decoder.timestep_scale_multiplier")
        t.embedding("decoder.time_embedder.timestep_embedder", 256, out * 2)
        t.add("decoder.scale_shift_table", 2, out)
    t.add("latents_mean", latent, kind="buffer")
    t.add("latents_std", latent, kind="buffer")
    return t


# ---------------------------------------------------------------- text encoders (transformers)


def clip_text(c: Config, *, projection: bool = False) -> _Tensors:
    """CLIPTextModel(WithProjection): token and position embeddings, pre-LN layers (q/k/v/out with bias, fc1, fc2),
    a final LayerNorm, and for WithProjection (whose names start text_model.) the bias-free text_projection."""
    t, m = _Tensors(), "text_model." if projection else ""
    width, hidden = _get(c, "hidden_size", 512), _get(c, "intermediate_size", 2048)
    t.add(f"{m}embeddings.token_embedding.weight", _get(c, "vocab_size", 49408), width, kind="embedding")
    t.add(f"{m}embeddings.position_embedding.weight", _get(c, "max_position_embeddings", 77), width, kind="embedding")
    t.add(f"{m}embeddings.position_ids", 1, _get(c, "max_position_embeddings", 77), kind="index")
    for i in range(_get(c, "num_hidden_layers", 12)):
        b = f"{m}encoder.layers.{i}"
        t.norm(f"{b}.layer_norm1", width)
        for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
            t.linear(f"{b}.self_attn.{p}", width, width)
        t.norm(f"{b}.layer_norm2", width)
        t.linear(f"{b}.mlp.fc1", width, hidden)
        t.linear(f"{b}.mlp.fc2", hidden, width)
    t.norm(f"{m}final_layer_norm", width)
    if projection:
        t.linear("text_projection", width, _get(c, "projection_dim", 512), bias=False)
    return t


def t5_encoder(c: Config, *, umt5: bool = False) -> _Tensors:
    """T5EncoderModel / UMT5EncoderModel: shared embedding, layers of bias-free attention and (gated-)GELU FFN with
    RMS-style LayerNorms; T5 keeps a relative position bias in layer 0 only, UMT5 in every layer."""
    t = _Tensors()
    width, kv = _get(c, "d_model", 512), _get(c, "d_kv", 64)
    heads, ffn = _get(c, "num_heads", 8), _get(c, "d_ff", 2048)
    inner, gated = heads * kv, str(_get(c, "feed_forward_proj", "relu")).startswith("gated-")
    t.add("shared.weight", _get(c, "vocab_size", 32128), width, kind="embedding")
    for i in range(_get(c, "num_layers", 6)):
        b = f"encoder.block.{i}.layer"
        for p in ("q", "k", "v"):
            t.linear(f"{b}.0.SelfAttention.{p}", width, inner, bias=False)
        t.linear(f"{b}.0.SelfAttention.o", inner, width, bias=False)
        if umt5 or i == 0:
            t.add(f"{b}.0.SelfAttention.relative_attention_bias.weight",
                  _get(c, "relative_attention_num_buckets", 32), heads, kind="embedding")
        t.norm(f"{b}.0.layer_norm", width, bias=False)
        for p in ("wi_0", "wi_1") if gated else ("wi",):
            t.linear(f"{b}.1.DenseReluDense.{p}", width, ffn, bias=False)
        t.linear(f"{b}.1.DenseReluDense.wo", ffn, width, bias=False)
        t.norm(f"{b}.1.layer_norm", width, bias=False)
    t.norm("encoder.final_layer_norm", width, bias=False)
    return t


def llama(c: Config, *, qkv_bias: bool = False) -> _Tensors:
    """LlamaModel (no LM head: HunyuanVideo's LLaVA-Llama-3 text encoder): embeddings, layers of RMSNorm, grouped-query
    attention and a SwiGLU MLP, a final RMSNorm; the rotary inv_freq and original_inv_freq buffers (fp32).
    Qwen2_5_VLTextModel (HunyuanVideo 1.5's and Qwen-Image's Qwen2.5-VL language model) is the same with biases on
    q, k and v (`qkv_bias`)."""
    t = _Tensors()
    width, heads = _get(c, "hidden_size", 4096), _get(c, "num_attention_heads", 32)
    head_dim, kv = _get(c, "head_dim", width // heads), _get(c, "num_key_value_heads", heads)
    ffn, bias, mlp_bias = _get(c, "intermediate_size", 11008), _get(c, "attention_bias", False), _get(
        c, "mlp_bias", False)
    t.add("embed_tokens.weight", _get(c, "vocab_size", 32000), width, kind="embedding")
    for i in range(_get(c, "num_hidden_layers", 32)):
        b = f"layers.{i}"
        t.linear(f"{b}.self_attn.q_proj", width, heads * head_dim, bias=bias or qkv_bias)
        t.linear(f"{b}.self_attn.k_proj", width, kv * head_dim, bias=bias or qkv_bias)
        t.linear(f"{b}.self_attn.v_proj", width, kv * head_dim, bias=bias or qkv_bias)
        t.linear(f"{b}.self_attn.o_proj", heads * head_dim, width, bias=bias)
        t.linear(f"{b}.mlp.gate_proj", width, ffn, bias=mlp_bias)
        t.linear(f"{b}.mlp.up_proj", width, ffn, bias=mlp_bias)
        t.linear(f"{b}.mlp.down_proj", ffn, width, bias=mlp_bias)
        t.norm(f"{b}.input_layernorm", width, bias=False)
        t.norm(f"{b}.post_attention_layernorm", width, bias=False)
    t.norm("norm", width, bias=False)
    for table in ("inv_freq", "original_inv_freq"):
        t.add(f"rotary_emb.{table}", head_dim // 2, kind="buffer")
    return t


def llama_causal_lm(c: Config) -> _Tensors:
    """LlamaForCausalLM (HiDream's Llama 3.1 8B Instruct): LlamaModel under `model.` and the LM head."""
    t = _Tensors(tensor._replace(name=f"model.{tensor.name}") for tensor in llama(c))
    if not _get(c, "tie_word_embeddings", False):
        t.linear("lm_head", _get(c, "hidden_size", 4096), _get(c, "vocab_size", 32000), bias=False)
    return t


def qwen2_5_vl(c: Config) -> _Tensors:
    """Qwen2_5_VLForConditionalGeneration (Qwen-Image's text encoder, loaded whole): the vision tower (a Conv3d patch
    embedding without bias, blocks of RMSNorms, qkv and proj with biases and a biased SwiGLU, the merger's RMSNorm and
    two linears over spatial_merge_size^2 patches), the language model as Qwen2_5_VLTextModel, and the LM head."""
    v, text = c.get("vision_config") or {}, {**c, **(c.get("text_config") or {})}
    t = _Tensors()
    width, hidden, heads = _get(v, "hidden_size", 1280), _get(v, "intermediate_size", 3420), _get(v, "num_heads", 16)
    patch, merged = _get(v, "patch_size", 14), width * _get(v, "spatial_merge_size", 2) ** 2
    t.conv("model.visual.patch_embed.proj", _get(v, "in_channels", 3), width,
           (_get(v, "temporal_patch_size", 2), patch, patch), bias=False)
    for i in range(_get(v, "depth", 32)):
        b = f"model.visual.blocks.{i}"
        t.norm(f"{b}.norm1", width, bias=False)
        t.norm(f"{b}.norm2", width, bias=False)
        t.linear(f"{b}.attn.qkv", width, 3 * width)
        t.linear(f"{b}.attn.proj", width, width)
        for p in ("gate_proj", "up_proj"):
            t.linear(f"{b}.mlp.{p}", width, hidden)
        t.linear(f"{b}.mlp.down_proj", hidden, width)
    t.norm("model.visual.merger.ln_q", width, bias=False)
    t.linear("model.visual.merger.mlp.0", merged, merged)
    t.linear("model.visual.merger.mlp.2", merged, _get(v, "out_hidden_size", 3584))
    for table in ("inv_freq", "original_inv_freq"):
        t.add(f"model.visual.rotary_pos_emb.{table}", width // heads // 4, kind="buffer")
    t += [tensor._replace(name=f"model.language_model.{tensor.name}") for tensor in llama(text, qkv_bias=True)]
    if not _get(c, "tie_word_embeddings", False):
        t.linear("lm_head", _get(text, "hidden_size", 3584), _get(text, "vocab_size", 152064), bias=False)
    return t


def mistral3(c: Config) -> _Tensors:
    """Mistral3ForConditionalGeneration (FLUX.2 [dev]'s text encoder, loaded whole): the Pixtral vision tower (a
    bias-free patch conv, RMSNorms, bias-free attention and SwiGLU), the projector (an RMSNorm, the patch merger
    over spatial_merge_size^2 patches, two linears), the Mistral language model as LlamaModel, and the LM head unless
    tie_word_embeddings (Mistral3Config's default True)."""
    v, text = c.get("vision_config") or {}, c.get("text_config") or {}
    t, m = _Tensors(), "model.vision_tower"
    width, hidden, depth = _get(v, "hidden_size", 1024), _get(v, "intermediate_size", 4096), _get(
        v, "num_hidden_layers", 24)
    patch, heads = _get(v, "patch_size", 16), _get(v, "num_attention_heads", 16)
    t.conv(f"{m}.patch_conv", _get(v, "num_channels", 3), width, (patch, patch), bias=False)
    t.norm(f"{m}.ln_pre", width, bias=False)
    for i in range(depth):
        b = f"{m}.transformer.layers.{i}"
        t.norm(f"{b}.attention_norm", width, bias=False)
        for p in ("gate_proj", "up_proj"):
            t.linear(f"{b}.feed_forward.{p}", width, hidden, bias=False)
        t.linear(f"{b}.feed_forward.down_proj", hidden, width, bias=False)
        for p in ("k_proj", "v_proj", "q_proj", "o_proj"):
            t.linear(f"{b}.attention.{p}", width, width, bias=False)
        t.norm(f"{b}.ffn_norm", width, bias=False)
    for table in ("inv_freq", "original_inv_freq"):
        t.add(f"{m}.patch_positional_embedding.{table}", _get(v, "head_dim", width // heads) // 2, kind="buffer")
    p, d, bias = "model.multi_modal_projector", _get(text, "hidden_size", 4096), _get(
        c, "multimodal_projector_bias", False)
    layers = _get(c, "vision_feature_layer", -1)
    t.norm(f"{p}.norm", width, bias=False)
    t.linear(f"{p}.patch_merger.merging_layer", width * _get(c, "spatial_merge_size", 2) ** 2, width, bias=False)
    t.linear(f"{p}.linear_1", width * (len(layers) if isinstance(layers, list) else 1), d, bias=bias)
    t.linear(f"{p}.linear_2", d, d, bias=bias)
    t += [tensor._replace(name=f"model.language_model.{tensor.name}") for tensor in llama(text)]
    if not _get(c, "tie_word_embeddings", True):
        t.linear("lm_head", d, _get(text, "vocab_size", 32000), bias=False)
    return t


QWEN3_DEFAULTS = {"intermediate_size": 22016, "head_dim": 128, "vocab_size": 151936}  # Qwen3Config's, not Llama's


def qwen3_causal_lm(c: Config) -> _Tensors:
    """Qwen3ForCausalLM (FLUX.2 [klein]'s text encoder): LlamaModel's layers with an RMSNorm over each head of q and k
    (q_norm, k_norm), and the LM head unless tie_word_embeddings."""
    c = {**QWEN3_DEFAULTS, **{key: value for key, value in c.items() if value is not None}}
    t = _Tensors(tensor._replace(name=f"model.{tensor.name}") for tensor in llama(c))
    width = _get(c, "hidden_size", 4096)
    for i in range(_get(c, "num_hidden_layers", 32)):
        for q in ("q_norm", "k_norm"):
            t.norm(f"model.layers.{i}.self_attn.{q}", c["head_dim"], bias=False)
    if not _get(c, "tie_word_embeddings", False):
        t.linear("lm_head", width, _get(c, "vocab_size", 151936), bias=False)
    return t


CLASSES: dict[str, Callable[[Config], _Tensors]] = {
    "FluxTransformer2DModel": flux,
    "SD3Transformer2DModel": sd3,
    "WanTransformer3DModel": wan,
    "HunyuanVideoTransformer3DModel": hunyuan_video,
    "HunyuanVideo15Transformer3DModel": hunyuan_video15,
    "UNet2DConditionModel": unet,
    "AutoencoderKL": autoencoder_kl,
    "AutoencoderKLWan": lambda c: (autoencoder_kl_wan22 if _get(c, "is_residual", False) else autoencoder_kl_wan)(c),
    "AutoencoderKLHunyuanVideo": autoencoder_kl_hunyuan_video,
    "AutoencoderKLHunyuanVideo15": autoencoder_kl_hunyuan_video15,
    "CLIPTextModel": clip_text,
    "CLIPTextModelWithProjection": lambda c: clip_text(c, projection=True),
    "T5EncoderModel": t5_encoder,
    "UMT5EncoderModel": lambda c: t5_encoder(c, umt5=True),
    "LlamaModel": llama,
    "Qwen2_5_VLTextModel": lambda c: llama(c, qkv_bias=True),
    "Qwen2_5_VLForConditionalGeneration": qwen2_5_vl,
    "QwenImageTransformer2DModel": qwen_image,
    "LTXVideoTransformer3DModel": ltx_video,
    "AutoencoderKLLTXVideo": autoencoder_kl_ltx_video,
    "HiDreamImageTransformer2DModel": hidream,
    "LlamaForCausalLM": llama_causal_lm,
    "AutoencoderKLQwenImage": lambda c: autoencoder_kl_wan({**c, "in_channels": _get(c, "input_channels", 3)}),
    "Flux2Transformer2DModel": flux2,
    "AutoencoderKLFlux2": autoencoder_kl_flux2,
    "Mistral3ForConditionalGeneration": mistral3,
    "Qwen3ForCausalLM": qwen3_causal_lm,
}


def tensors(class_name: str, config: Config) -> tuple[Tensor, ...]:
    """Parameters and buffers, in the class's order."""
    if class_name not in CLASSES:
        raise ValueError(f"{class_name} is not read yet (one of: {', '.join(CLASSES)})")
    return tuple(CLASSES[class_name](config))


def params(class_name: str, config: Config) -> int:
    return sum(t.numel for t in tensors(class_name, config) if t.kind in PARAMETER_KINDS)
