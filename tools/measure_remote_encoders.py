"""Measure one embedding forward of the remote-code encoders nomic-bert and JinaBERT v2, for the golden tests.

A developer tool, not run by CI. Same method as tools/measure_encoders.py: one forward of a batch of `batch`
sequences of `seq` tokens under `torch.no_grad()` on the CPU, tiny random-weight models, fp32 and bf16, no padding
(every attention_mask 1), the peak of live tensor storages above the weights, buffers and inputs
(tools/measure_peak.py's PeakTracker). Both run as Hugging Face remote code, which calls
`get_extended_attention_mask`, gone from transformers 5: it is put back on the model as transformers 4.57 wrote it
(mask[:, None, None, :] cast to the model's dtype, (1 - mask) · finfo.min). nomic-bert also has a class of its own in
transformers 5 (`native_nomic`), measured beside its remote code ("code": "transformers"): the one the engine models.

nomic-bert: `NomicBertModel(config, add_pooling_layer=False)` from nomic-ai's `modeling_hf_nomic_bert.py` (the copy
in aahrong/nomic-embed-text-v1.5 at 3185eb0, with its configuration_hf_nomic_bert.py), which is not committed here:
pass the directory holding both files with --nomic-code. Its attention always calls SDPA (no eager path); rotary on
q and k, a SwiGLU MLP (fc11, fc12, fc2), post-norm.

JinaBERT v2: jinaai/jina-bert-implementation's modeling_bert.py is not in the public index, so its forward is
rebuilt below (`JinaBertV2`) from the public descriptions of it: the checkpoints' tensor names (llama.cpp's
`convert_hf_to_gguf.py` JinaBertV2Model and `src/models/bert.cpp`, TEI's `backends/candle/src/models/jina.rs`),
the MLX port in Nexa AI's SDK (JinaBertEmbeddings/SelfAttention/GLUMLP/Encoder) and the torch port of a
transformers pull request (JinaBertSelfAttention with `attention_mask + bias` under attn_implementation "torch"),
and jina's earlier in-house `modeling_jbert.py` (roycms/jina-embeddings-v2-base-en at 78371375), whose encoder
builds the 1 × heads × L × L ALiBi tensor once, at the configured length, and slices it per forward. BertModel's
embeddings (word + token type, LayerNorm; no position table), layers of BERT's self-attention (query, key, value;
SDPA with the extended mask plus the ALiBi slice, as "torch" does, or eager: scores, scaled, masked, the ALiBi added,
softmax) and output (dense, residual, LayerNorm), then the GLU MLP (gated_layers h -> 2·I without a bias, GELU of the
first half times the second, wo I -> h, residual and LayerNorm). jina-embeddings-v2-base-code's code,
jina-bert-v2-qk-post-norm, as TEI's `jina_code.rs` and the pull request's port run it: LayerNorms on the query and
key projections, and the layer's residuals at the layer, layer_norm_1 after the attention block's own LayerNorm.
The ALiBi buffer (heads × L × L in the model's dtype, L the configured max_position_embeddings) exists before the
forward, like the weights, and is counted at the start; its bytes are recorded beside the peak.

Usage: python tools/measure_remote_encoders.py --nomic-code DIR [--out tests/golden/remote_encoders.json]
Needs: pip install torch==2.13.0 transformers==5.23.0 einops
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import sys
from pathlib import Path
from typing import Any

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import DTYPES, forward_peak, write_golden

ROOT = Path(__file__).resolve().parent.parent

# tiny configs: nomic-embed-text-v1.5's switches (rotary on the whole head, SwiGLU, no biases), two widths
NOMIC = {
    "nomic-256": {"n_embd": 256, "n_head": 8, "n_layer": 2, "n_inner": 768, "vocab_size": 1000},
    "nomic-192": {"n_embd": 192, "n_head": 3, "n_layer": 3, "n_inner": 500, "vocab_size": 900},
    "nomic-256-narrow-mlp": {"n_embd": 256, "n_head": 8, "n_layer": 2, "n_inner": 128, "vocab_size": 1000},  # attention
}
NOMIC_COMMON = {"activation_function": "swiglu", "rotary_emb_fraction": 1.0, "rotary_emb_base": 1000,
                "qkv_proj_bias": False, "mlp_fc1_bias": False, "mlp_fc2_bias": False, "prenorm": False,
                "pad_vocab_size_multiple": 64, "type_vocab_size": 2, "n_positions": 2048, "layer_norm_epsilon": 1e-12,
                "attn_pdrop": 0.0, "resid_pdrop": 0.0, "embd_pdrop": 0.0}  # SDPA applies attn_pdrop even in eval()
# as their config.json says them (model_type bert; qk-post-norm named by _name_or_path, as TEI reads it)
JINA_COMMON: dict[str, Any] = {"model_type": "bert", "position_embedding_type": "alibi", "feed_forward_type": "geglu",
               "type_vocab_size": 2, "max_position_embeddings": 1024}
JINA: dict[str, dict[str, Any]] = {
    "jina-256": {"hidden_size": 256, "num_attention_heads": 8, "num_hidden_layers": 2, "intermediate_size": 1024,
                 "vocab_size": 1000},
    "jina-192": {"hidden_size": 192, "num_attention_heads": 3, "num_hidden_layers": 3, "intermediate_size": 500,
                 "vocab_size": 900},
    "jina-256-qk-post-norm": {"hidden_size": 256, "num_attention_heads": 8, "num_hidden_layers": 2,
                              "intermediate_size": 1024, "vocab_size": 1000,
                              "_name_or_path": "jinaai/jina-bert-v2-qk-post-norm"},
}
SHAPES = ((1, 128), (4, 256), (2, 1024))


def extended_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """transformers 4.57 ModuleUtilsMixin.get_extended_attention_mask for a 2-D mask of an encoder."""
    extended = mask[:, None, None, :].to(dtype=dtype)
    return (1.0 - extended) * torch.finfo(dtype).min


# ---------------------------------------------------------------- JinaBERT v2, rebuilt


def alibi_slopes(heads: int) -> list[float]:
    """ALiBi's head slopes (Press et al.; jina's _get_alibi_head_slopes): a power of two's geometric series, else
    the nearest lower power's and every other one of the next power's."""
    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(heads).is_integer():
        return power_of_2(heads)
    low = 2 ** math.floor(math.log2(heads))
    return power_of_2(low) + alibi_slopes(2 * low)[0::2][: heads - low]


class JinaBertV2(nn.Module):
    """JinaBERT v2's embedder forward, rebuilt (see the module docstring for the sources)."""

    def __init__(self, c: dict, attention: str):
        super().__init__()
        h, a, i = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
        self.heads, self.ffn, self.attention = a, i, attention
        self.word_embeddings = nn.Embedding(c["vocab_size"], h)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], h)
        self.emb_norm = nn.LayerNorm(h, eps=1e-12)
        self.layers = nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            layer = nn.ModuleDict({"query": nn.Linear(h, h), "key": nn.Linear(h, h), "value": nn.Linear(h, h),
                                   "dense": nn.Linear(h, h), "attn_norm": nn.LayerNorm(h, eps=1e-12),
                                   "gated_layers": nn.Linear(h, 2 * i, bias=False), "wo": nn.Linear(i, h),
                                   "mlp_norm": nn.LayerNorm(h, eps=1e-12)})
            if c.get("_name_or_path") == "jinaai/jina-bert-v2-qk-post-norm":  # q/k norms and layer_norm_1
                for name in ("layer_norm_q", "layer_norm_k", "layer_norm_1"):
                    layer[name] = nn.LayerNorm(h, eps=1e-12)
            self.layers.append(layer)
        p = c["max_position_embeddings"]
        distance = (torch.arange(p)[None, :] - torch.arange(p)[:, None]).abs().unsqueeze(0).expand(a, -1, -1)
        alibi = (torch.tensor(alibi_slopes(a)) * -1).unsqueeze(1).unsqueeze(1) * distance
        self.register_buffer("alibi", alibi.unsqueeze(0), persistent=False)
        self.register_buffer("token_type_ids", torch.zeros((1, p), dtype=torch.long), persistent=False)

    def split(self, x: torch.Tensor) -> torch.Tensor:  # BertSelfAttention.transpose_for_scores
        return x.view(*x.shape[:-1], self.heads, -1).permute(0, 2, 1, 3)

    def self_attention(self, layer: nn.ModuleDict, x: torch.Tensor, mask: torch.Tensor, bias: torch.Tensor):
        """JinaBertSelfAttention: its locals (q, k, v, the scores) live until it returns."""
        mixed_query = layer["query"](x)
        if "layer_norm_q" in layer:
            mixed_query = layer["layer_norm_q"](mixed_query)
            key = self.split(layer["layer_norm_k"](layer["key"](x)))
        else:
            key = self.split(layer["key"](x))
        value = self.split(layer["value"](x))
        query = self.split(mixed_query)
        b, _, s, _ = query.shape
        if self.attention == "sdpa":  # attn_implementation "torch": the mask and the ALiBi slice summed per layer
            new_bias = mask + bias
            context = nn.functional.scaled_dot_product_attention(query, key, value, new_bias)
            context = context.permute(0, 2, 1, 3).contiguous()
            return context.view(b, s, -1)
        scores = torch.matmul(query, key.transpose(-1, -2))
        scores = scores / math.sqrt(query.shape[-1])
        scores = scores + mask
        probs = nn.functional.softmax(scores + bias, dim=-1)
        context = torch.matmul(probs, value).permute(0, 2, 1, 3).contiguous()
        return context.view(b, s, -1)

    def attention_block(self, layer: nn.ModuleDict, x: torch.Tensor, mask: torch.Tensor, bias: torch.Tensor):
        """JinaBertAttention: self-attention, then BertSelfOutput (dense, residual, LayerNorm)."""
        context = self.self_attention(layer, x, mask, bias)
        return layer["attn_norm"](layer["dense"](context) + x)

    def mlp(self, layer: nn.ModuleDict, x: torch.Tensor) -> torch.Tensor:
        """JinaBertGLUMLP: gated_layers, GELU of the first half times the second, wo, residual and LayerNorm."""
        residual = x
        x = layer["gated_layers"](x)
        gated, non_gated = x[:, :, : self.ffn], x[:, :, self.ffn:]
        x = nn.functional.gelu(gated) * non_gated
        x = layer["wo"](x)
        return layer["mlp_norm"](x + residual)

    def code_mlp(self, layer: nn.ModuleDict, x: torch.Tensor) -> torch.Tensor:
        """The qk-post-norm MLP (up_gated_layer, the activation, down_layer), its residual left to the layer."""
        x = layer["gated_layers"](x)
        up, gated = x[:, :, : self.ffn], x[:, :, self.ffn:]
        x = up * nn.functional.gelu(gated)
        return layer["wo"](x)

    def layer(self, layer: nn.ModuleDict, x: torch.Tensor, mask: torch.Tensor, bias: torch.Tensor):
        """JinaBertLayer: attention, then the MLP on its output; with qk-post-norm (TEI's jina_code.rs
        JinaCodeBertLayer), layer_norm_1 over the attention's output plus the layer's input, the MLP, then
        layer_norm_2 (counted as mlp_norm) over its output plus layer_norm_1's."""
        attention_output = self.attention_block(layer, x, mask, bias)
        if "layer_norm_1" not in layer:
            return self.mlp(layer, attention_output)
        residual = layer["layer_norm_1"](x + attention_output)
        mlp_output = self.code_mlp(layer, residual)
        return layer["mlp_norm"](residual + mlp_output)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        b, s = input_ids.shape
        types = self.token_type_ids[:, :s].expand(b, s)
        embeddings = self.emb_norm(self.word_embeddings(input_ids) + self.token_type_embeddings(types))
        mask = extended_mask(attention_mask, embeddings.dtype)
        return self.encoder(embeddings, mask)

    def encoder(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """JinaBertEncoder: the ALiBi buffer sliced to the batch's length, the layers in turn."""
        s = hidden.shape[1]
        bias = self.alibi[:, :, :s, :s]
        for layer in self.layers:
            hidden = self.layer(layer, hidden, mask, bias)
        return hidden


# ---------------------------------------------------------------- nomic-bert, its own code


def nomic_module(code: str):
    """Import modeling_hf_nomic_bert.py and its configuration from `code` as a package (it imports relatively)."""
    init = Path(code) / "__init__.py"
    if not init.exists():
        init.write_text("", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("nomic_code", init, submodule_search_locations=[code])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["nomic_code"] = package
    spec.loader.exec_module(package)
    return (importlib.import_module("nomic_code.modeling_hf_nomic_bert"),
            importlib.import_module("nomic_code.configuration_hf_nomic_bert"))


def native_nomic(name: str, attention: str) -> nn.Module:
    """transformers 5's own NomicBertModel (models/nomic_bert: separate q, k and v, gate, up and down, one rotary
    table a forward), which loads the checkpoints through conversion_mapping.py's nomic_bert renames: what
    `AutoModel.from_pretrained` runs without trust_remote_code (the remote code fails on transformers 5). Its MLP is
    the checkpoint's width: the remote code's fc11 rounds n_inner up to 256."""
    from transformers import AutoConfig, AutoModel

    c = NOMIC[name]
    config = AutoConfig.for_model("nomic_bert", hidden_size=c["n_embd"], num_attention_heads=c["n_head"],
                                  num_hidden_layers=c["n_layer"], intermediate_size=-(-c["n_inner"] // 256) * 256,
                                  vocab_size=c["vocab_size"], max_position_embeddings=NOMIC_COMMON["n_positions"],
                                  layer_norm_eps=NOMIC_COMMON["layer_norm_epsilon"])
    return AutoModel.from_config(config, attn_implementation=attention)


def build(name: str, attention: str, dtype: str, nomic=None, code: str = "remote") -> nn.Module:
    torch.manual_seed(0)
    if name in NOMIC and code == "transformers":
        model = native_nomic(name, attention)
    elif name in NOMIC:
        modeling, configuration = nomic
        config = configuration.NomicBertConfig(**NOMIC[name], **NOMIC_COMMON)
        model = modeling.NomicBertModel(config, add_pooling_layer=False)
        model.get_extended_attention_mask = lambda mask, shape: extended_mask(mask, model.emb_ln.weight.dtype)
    else:
        model = JinaBertV2({**JINA_COMMON, **JINA[name]}, attention)
    return model.to(DTYPES[dtype]).eval()


def measure(name: str, attention: str, dtype: str, batch: int, seq: int, nomic=None, explain: bool = False,
            code: str = "remote"):
    model = build(name, attention, dtype, nomic, code)
    ids = torch.randint(5, 900, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.long)
    peak = forward_peak(model, ids, mask, explain)
    alibi = getattr(model, "alibi", None)
    table = 0 if alibi is None else alibi.untyped_storage().nbytes()  # a buffer: counted at the start
    return peak, table


def plan() -> list[tuple[str, str, str, str, int, int]]:
    """(name, code, attention, dtype, batch, seq): nomic-bert's remote code (SDPA only) and transformers' own
    class, JinaBERT v2 rebuilt."""
    cases = []
    for name, code, attentions in ([(name, "remote", ("sdpa",)) for name in NOMIC]
                                   + [(name, "transformers", ("sdpa", "eager")) for name in NOMIC]
                                   + [(name, "remote", ("sdpa", "eager")) for name in JINA]):
        for attention in attentions:
            for dtype in DTYPES:
                cases += [(name, code, attention, dtype, batch, seq) for batch, seq in SHAPES]
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nomic-code", required=True, help="directory with modeling_hf_nomic_bert.py and "
                        "configuration_hf_nomic_bert.py (nomic-ai's remote code)")
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "remote_encoders.json"))
    parser.add_argument("--explain", nargs=5, metavar=("NAME", "ATTENTION", "DTYPE", "BATCH", "SEQ"))
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    nomic = nomic_module(os.path.abspath(args.nomic_code))
    if args.explain:
        name, attention, dtype, batch, seq = args.explain
        print(f"{measure(name, attention, dtype, int(batch), int(seq), nomic, explain=True)[0]:,}")
        return
    forwards = []
    for name, code, attention, dtype, batch, seq in plan():
        peak, table = measure(name, attention, dtype, batch, seq, nomic, code=code)
        family = "nomic_bert" if name in NOMIC else "jina-bert-v2"
        config = ({"model_type": "nomic_bert", **NOMIC[name], **NOMIC_COMMON} if name in NOMIC
                  else {**JINA_COMMON, **JINA[name]})
        forwards.append({"name": name, "family": family, "code": code, "config": config, "attention": attention,
                         "dtype": dtype,
                         "batch": batch, "seq": seq, "peak_above_start_bytes": peak,
                         **({"alibi_buffer_bytes": table} if family == "jina-bert-v2" else {})})
        print(name, code, attention, dtype, batch, seq, f"{peak:,}", f"{peak / (batch * seq):,.0f}/token")
    write_golden(args.out, "measure_remote_encoders.py", {"forward": forwards},
                 "; nomic-bert: modeling_hf_nomic_bert.py of aahrong/nomic-embed-text-v1.5 at 3185eb0; "
                 "JinaBERT v2: rebuilt (docstring)")


if __name__ == "__main__":
    main()
