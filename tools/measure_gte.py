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

Usage: python tools/measure_gte.py [--out tests/golden/gte.json] [--explain NAME ATTENTION DTYPE BATCH SEQ]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import warnings
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import forward_peak

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "app" / "vramcalc" / "data" / "models"
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "gte.json"))
    parser.add_argument("--explain", nargs=5, metavar=("NAME", "ATTENTION", "DTYPE", "BATCH", "SEQ"))
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
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
    about = (f"tools/measure_gte.py, {datetime.date.today()}, transformers {transformers.__version__} (models/gte "
             f"GteModel), torch {torch.__version__}, Python {platform.python_version()}, {platform.machine()}")
    out = {"_about": about, "params": params, "forward": forwards}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
