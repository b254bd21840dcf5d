"""Count Alibaba's GTE v1.5 / multilingual encoders exactly, and measure one embedding forward, for the golden tests.

A developer tool, not run by CI. Same method as tools/measure_encoders.py.

The hub checkpoints (gte-base-en-v1.5, gte-large-en-v1.5, gte-multilingual-base, gte-multilingual-reranker-base)
ship config.json with model_type "new" and remote code (Alibaba-NLP/new-impl, NewModel: a fused qkv_proj, a GLU
up_gate_proj, post-norm attn_ln / mlp_ln, rotary positions). transformers 5.23 has a class of its own for them,
models/gte (GteModel, model_type "gte"), into which conversion_mapping.py's "gte" entry loads the hub's tensors (the
`new.` prefix dropped, qkv_proj and up_gate_proj chunked into q/k/v and up/gate): the same shapes. So both are
counted here with GteModel on PyTorch's `meta` device, as an embedder loads them (AutoModel: GteModel without its
pooler) and as a reranker (AutoModelForSequenceClassification: the pooler's dense and the classifier), a "new"
config's keys passed as GteConfig's (rope_theta and rope_scaling, which make no parameter, left out: GteConfig has
no "ntk" rope type).

Activations: one forward of GteModel (SDPA and eager, fp32 and bf16) of a batch of `batch` sequences of `seq` tokens
under `torch.no_grad()` on the CPU, tiny random-weight models, no padding (every attention_mask 1), the peak of live
tensor storages above the weights, buffers and inputs (tools/measure_peak.py's forward_peak).

The hub's remote code (`--remote-code DIR`, DIR holding a package `newimpl` with Alibaba-NLP/new-impl's
modeling.py and configuration.py, not committed here): what `AutoModel.from_pretrained(..., trust_remote_code=True)`
builds for a "new" config, NewModel (NewForSequenceClassification for a reranker). On transformers 5.23 it needs two
shims: `get_extended_attention_mask`, gone from transformers 5, put back as transformers 4.57 wrote it (as
tools/measure_remote_encoders.py does for nomic-bert), and `pad_token_id` set in the config (NewEmbeddings reads
config.pad_token_id, which PretrainedConfig no longer defines; 0 here, as BERT's). NewPreTrainedModel does not declare
`_supports_sdpa`, so transformers 5.23 loads it with attn_implementation "eager" (NewAttention: scores, scaled,
masked, softmax) and refuses "sdpa" (ValueError in PreTrainedModel.__init__, even set on the config): NewSdpaAttention
cannot be built, and only eager is measured.
xformers (`use_memory_efficient_attention`, required by `unpad_inputs`) is not measured: the released configs set both
false, and it has no CPU kernel here. The NTK rotary cache (max_position_embeddings × the scaling factor rows of cos
and sin, head_dim wide, in the dtype the model is built in) is a buffer made at load, recorded beside the peak.
Writes --remote-out (tests/golden/gte_remote.json).

Usage: python tools/measure_gte.py [--out tests/golden/gte.json] [--explain NAME ATTENTION DTYPE BATCH SEQ]
       python tools/measure_gte.py --remote-code DIR [--remote-out tests/golden/gte_remote.json]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import DTYPES, forward_peak, write_golden

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "app" / "vramcalc" / "data" / "models"
# GteConfig's keys a "new" config shares (the rest are NewConfig's switches, or rope keys that make no parameter)
KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
        "max_position_embeddings", "type_vocab_size", "layer_norm_eps", "num_labels", "id2label")
# NewConfig's defaults (Alibaba-NLP/new-impl configuration.py) where GteConfig's differ
NEW_DEFAULTS = {"vocab_size": 30528, "max_position_embeddings": 2048, "type_vocab_size": 1}


def preset(name: str) -> dict:
    return json.loads((PRESETS / f"{name}.json").read_text(encoding="utf-8"))["config"]


CASES: list[tuple[str, dict]] = [
    ("new/gte-base-en-v1.5", preset("gte-base-en-v1.5")),
    ("new/gte-large-en-v1.5", preset("gte-large-en-v1.5")),
    ("new/gte-multilingual-base", preset("gte-multilingual-base")),
    ("new/gte-multilingual-reranker-base", preset("gte-multilingual-reranker-base")),
    ("new/perturbed", {"model_type": "new", "hidden_size": 320, "num_hidden_layers": 3, "num_attention_heads": 5,
                       "intermediate_size": 1000, "vocab_size": 7001, "type_vocab_size": 3,
                       "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ("gte/defaults", {"model_type": "gte"}),  # GteConfig's: gte-multilingual-base's shape
    ("gte/gte-base-en-v1.5", {**{k: v for k, v in preset("gte-base-en-v1.5").items() if k in KEYS},
                              "model_type": "gte"}),
    ("gte/perturbed", {"model_type": "gte", "hidden_size": 192, "num_hidden_layers": 4, "num_attention_heads": 3,
                       "intermediate_size": 500, "vocab_size": 4001, "type_vocab_size": 0, "num_labels": 4}),
]


def gte_config(config: dict, **extra) -> transformers.PretrainedConfig:
    values = {k: v for k, v in config.items() if k in KEYS}
    if config.get("model_type") == "new":
        values = {**{k: v for k, v in NEW_DEFAULTS.items() if k not in values}, **values}
    return AutoConfig.for_model("gte", **json.loads(json.dumps({**values, **extra})))


def count(config: dict, auto) -> int:
    with torch.device("meta"):
        model = auto.from_config(gte_config(config))
    return sum(p.numel() for p in model.parameters())  # unique: a tied weight once


# ---------------------------------------------------------------- one embedding forward

TINY: dict[str, dict] = {
    "gte-256": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                "vocab_size": 1000, "type_vocab_size": 1, "max_position_embeddings": 2048},
    "gte-192": {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                "vocab_size": 900, "type_vocab_size": 0, "max_position_embeddings": 2048},
    "gte-256-narrow-mlp": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8,
                           "intermediate_size": 128, "vocab_size": 1000, "type_vocab_size": 2,
                           "max_position_embeddings": 2048},  # attention's moment the peak
}
SHAPES = ((1, 128), (4, 256), (2, 1024))


def measure_forward(name: str, attention: str, dtype: str, batch: int, seq: int, reranker: bool = False,
                    explain: bool = False) -> int:
    cfg = gte_config({"model_type": "gte", **TINY[name]})
    cfg._attn_implementation = attention
    auto = AutoModelForSequenceClassification if reranker else AutoModel
    torch.manual_seed(0)
    model = auto.from_config(cfg, attn_implementation=attention).to(DTYPES[dtype]).eval()
    ids = torch.randint(5, 900, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.long)
    return forward_peak(model, ids, mask, explain)


def forward_plan() -> list[tuple[str, str, str, int, int, bool]]:
    cases = [(name, attention, dtype, batch, seq, False) for name in TINY for attention in ("sdpa", "eager")
             for dtype in DTYPES for batch, seq in SHAPES]
    return [*cases, ("gte-256", "sdpa", "bf16", 4, 256, True)]


# the hub's remote code: TINY's shapes as "new" configs, NewConfig's defaults otherwise; gte-192 with NTK scaling
REMOTE_TINY: dict[str, dict] = {**{name: {"model_type": "new", **config} for name, config in TINY.items()},
                                "gte-192": {"model_type": "new", **TINY["gte-192"],
                                            "rope_scaling": {"type": "ntk", "factor": 2.0}}}


def remote_model(code: str, name: str, attention: str, dtype: str, reranker: bool = False):
    sys.path.insert(0, code)
    from newimpl.configuration import NewConfig  # type: ignore[import-not-found]
    from newimpl.modeling import NewForSequenceClassification, NewModel  # type: ignore[import-not-found]

    from measure_remote_encoders import extended_mask

    config = NewConfig(**{k: v for k, v in REMOTE_TINY[name].items() if k != "model_type"}, pad_token_id=0)
    config._attn_implementation = attention  # eager: what from_pretrained picks; "sdpa" is refused
    torch.manual_seed(0)
    model = (NewForSequenceClassification if reranker else NewModel)(config).to(DTYPES[dtype]).eval()
    base = model.new if reranker else model
    base.get_extended_attention_mask = lambda mask, shape: extended_mask(mask, DTYPES[dtype])
    return model, base


def remote_forward(code: str, name: str, attention: str, dtype: str, batch: int, seq: int, reranker: bool = False,
                   explain: bool = False) -> tuple[int, int]:
    model, base = remote_model(code, name, attention, dtype, reranker)
    rotary = base.embeddings.rotary_emb
    cache = sum(t.numel() * t.element_size() for t in (rotary.cos_cached, rotary.sin_cached))
    ids = torch.randint(5, 900, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.long)
    return forward_peak(model, ids, mask, explain), cache


def remote_main(code: str, out: str) -> None:
    from transformers import PreTrainedModel
    assert not hasattr(PreTrainedModel, "get_extended_attention_mask")  # the shim is needed
    sys.path.insert(0, code)
    from newimpl.configuration import NewConfig
    from newimpl.modeling import NewModel
    try:
        NewModel(NewConfig(hidden_size=64, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64))
        needs_pad = False
    except AttributeError:
        needs_pad = True
    small = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
             "pad_token_id": 0}
    picked = NewModel(NewConfig(**small)).config._attn_implementation
    try:
        NewModel(NewConfig(**small, attn_implementation="sdpa"))
        sdpa = "built"
    except ValueError:
        sdpa = "refused"
    print("needs pad_token_id:", needs_pad, "| attn_implementation picked:", picked, "| sdpa:", sdpa)
    plan = [(name, "eager", dtype, batch, seq, False) for name in REMOTE_TINY for dtype in DTYPES
            for batch, seq in SHAPES]
    forwards = []
    for name, attention, dtype, batch, seq, reranker in [*plan, ("gte-256", "eager", "bf16", 4, 256, True)]:
        peak, cache = remote_forward(code, name, attention, dtype, batch, seq, reranker)
        forwards.append({"name": name, "code": "remote", "config": REMOTE_TINY[name], "attention": attention,
                         "dtype": dtype, "batch": batch, "seq": seq, "reranker": reranker,
                         "peak_above_start_bytes": peak, "rotary_cache_bytes": cache})
        print(name, attention, dtype, batch, seq, reranker, f"{peak:,}", f"cache {cache:,}")
    about = (f"tools/measure_gte.py --remote-code, {datetime.date.today()}, Alibaba-NLP/new-impl modeling.py "
             f"(NewModel, public index id 16234270733) on transformers {transformers.__version__} with two shims "
             f"(get_extended_attention_mask as 4.57's, pad_token_id 0; from_pretrained picks attn_implementation "
             f"{picked!r}, sdpa {sdpa}), torch {torch.__version__}, Python {platform.python_version()}, "
             f"{platform.machine()}")
    Path(out).write_text(json.dumps({"_about": about, "forward": forwards}, indent=1) + "\n", encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "gte.json"))
    parser.add_argument("--explain", nargs=5, metavar=("NAME", "ATTENTION", "DTYPE", "BATCH", "SEQ"))
    parser.add_argument("--remote-code", metavar="DIR", help="measure the hub's NewModel from DIR/newimpl instead")
    parser.add_argument("--remote-out", default=str(ROOT / "tests" / "golden" / "gte_remote.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.remote_code:
        remote_main(args.remote_code, args.remote_out)
        return
    if args.explain:
        name, attention, dtype, batch, seq = args.explain
        print(f"{measure_forward(name, attention, dtype, int(batch), int(seq), explain=True):,}")
        return
    params = []
    for label, config in CASES:
        embedder, reranker = count(config, AutoModel), count(config, AutoModelForSequenceClassification)
        params.append({"name": label, "config": config, "embedder_params": embedder, "reranker_params": reranker})
        print(f"{label:40s} {embedder:>14,} {reranker:>14,}")
    forwards = []
    for name, attention, dtype, batch, seq, reranker in forward_plan():
        peak = measure_forward(name, attention, dtype, batch, seq, reranker)
        forwards.append({"name": name, "config": {"model_type": "gte", **TINY[name]}, "attention": attention,
                         "dtype": dtype, "batch": batch, "seq": seq, "reranker": reranker,
                         "peak_above_start_bytes": peak})
        print(name, attention, dtype, batch, seq, reranker, f"{peak:,}", f"{peak / (batch * seq):,.0f}/token")
    write_golden(args.out, "measure_gte.py", {"params": params, "forward": forwards}, "; models/gte GteModel")


if __name__ == "__main__":
    main()
