"""Count encoder embedders and rerankers exactly, and measure one embedding forward, for the golden tests.

A developer tool, not run by CI.

Parameters: each encoder type (bert, xlm-roberta, modernbert, and BERT's other members: roberta, camembert,
data2vec-text, xlm-roberta-xl, electra, distilbert, deberta-v2, ernie, roberta-prelayernorm, megatron-bert) built
with transformers on PyTorch's `meta` device, as an embedder uses it (`AutoModel`: no masked-LM head; the pooler
where the class builds one) and as a reranker (`AutoModelForSequenceClassification`: the classifier head),
full-size (a released model's config.json, or the class's defaults) and perturbed (other depth, widths, labels and
switches). DeBERTa-v2 runs eager only (transformers 5.23 has no SDPA for it): its forwards are eager, and one more
sequence length (32) where the MLP's moment is the peak.

Activations: one forward of a batch of `batch` sequences of `seq` tokens under `torch.no_grad()` on the CPU,
tiny random-weight models, eager and sdpa attention, fp32 and bf16, the peak of live tensor storages above the
weights and inputs (tools/measure_peak.py's PeakTracker: every storage an ATen op makes, freed with its
storage), with no padding (every attention_mask 1). Decoder embedders (Qwen3-Embedding) as sentence-transformers
runs them: `AutoModel` (the Qwen3Model, no lm_head), its last hidden state.

Usage: python tools/measure_encoders.py [--out tests/golden/encoders.json]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import DTYPES, forward_peak, write_golden

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "app" / "vramcalc" / "data" / "models"


def preset(name: str) -> dict:
    config = json.loads((PRESETS / f"{name}.json").read_text(encoding="utf-8"))["config"]
    return {k: v for k, v in config.items() if k != "model_type"}


# model_type: [(label, config without model_type)]; {} is the class's defaults (ModernBERT-base's)
CASES: dict[str, list[tuple[str, dict]]] = {
    "bert": [
        ("bge-large-en-v1.5", preset("bge-large-en-v1.5")),
        ("all-minilm-l6-v2", preset("all-minilm-l6-v2")),
        ("perturbed", {"hidden_size": 320, "num_hidden_layers": 5, "num_attention_heads": 5,
                       "intermediate_size": 1000, "vocab_size": 7001, "max_position_embeddings": 300,
                       "type_vocab_size": 3, "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ],
    "xlm-roberta": [
        ("bge-m3", preset("bge-m3")),
        ("bge-reranker-v2-m3", preset("bge-reranker-v2-m3")),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4,
                       "intermediate_size": 700, "vocab_size": 5003, "max_position_embeddings": 130,
                       "type_vocab_size": 2, "num_labels": 5}),
    ],
    "modernbert": [
        ("modernbert-base", preset("modernbert-base")),
        ("modernbert-large", {"hidden_size": 1024, "intermediate_size": 2624, "num_hidden_layers": 28,
                              "num_attention_heads": 16}),
        ("perturbed", {"hidden_size": 192, "intermediate_size": 500, "num_hidden_layers": 4,
                       "num_attention_heads": 3, "vocab_size": 4001, "norm_bias": True, "attention_bias": True,
                       "mlp_bias": True, "classifier_bias": True, "pad_token_id": 0,
                       "id2label": {"0": "x", "1": "y", "2": "z"}}),
    ],
    # BERT's other members (2026-12-07): the class's defaults ({}), a larger or released layout, and perturbed
    "roberta": [
        ("defaults", {}),
        ("large", {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
                   "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-5, "pad_token_id": 1}),
        ("perturbed", {"hidden_size": 320, "num_hidden_layers": 3, "num_attention_heads": 5, "intermediate_size": 900,
                       "vocab_size": 5003, "max_position_embeddings": 130, "type_vocab_size": 3, "num_labels": 3}),
    ],
    "camembert": [
        ("defaults", {}),
        ("base", {"vocab_size": 32005, "max_position_embeddings": 514, "type_vocab_size": 1}),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 600,
                       "vocab_size": 3001, "max_position_embeddings": 66, "type_vocab_size": 1, "num_labels": 1}),
    ],
    "data2vec-text": [
        ("defaults", {}),
        ("large", {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
                   "vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 4, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 2001, "max_position_embeddings": 100, "type_vocab_size": 2, "num_labels": 4}),
    ],
    "xlm-roberta-xl": [
        ("defaults", {}),
        ("xxl", {"hidden_size": 4096, "num_hidden_layers": 48, "num_attention_heads": 32,
                 "intermediate_size": 16384}),
        ("perturbed", {"hidden_size": 320, "num_hidden_layers": 3, "num_attention_heads": 5, "intermediate_size": 700,
                       "vocab_size": 6007, "max_position_embeddings": 200, "type_vocab_size": 2, "num_labels": 3}),
    ],
    "electra": [
        ("defaults", {}),
        ("base", {"embedding_size": 768, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072}),
        ("large", {"embedding_size": 1024, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                   "intermediate_size": 4096}),
        ("perturbed", {"embedding_size": 96, "hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3,
                       "intermediate_size": 500, "vocab_size": 4001, "max_position_embeddings": 300,
                       "type_vocab_size": 3, "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ],
    "distilbert": [
        ("defaults", {}),
        ("multilingual", {"vocab_size": 119547}),
        ("perturbed", {"dim": 192, "n_layers": 3, "n_heads": 3, "hidden_dim": 500, "vocab_size": 4001,
                       "max_position_embeddings": 300, "sinusoidal_pos_embds": True, "num_labels": 3}),
    ],
    "deberta-v2": [
        ("defaults", {}),
        ("v3-base", {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                     "intermediate_size": 3072, "relative_attention": True, "position_buckets": 256,
                     "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
                     "layer_norm_eps": 1e-7, "max_relative_positions": -1, "position_biased_input": False,
                     "type_vocab_size": 0, "vocab_size": 128100}),
        ("v2-xlarge", {"hidden_size": 1536, "num_hidden_layers": 24, "num_attention_heads": 24,
                       "attention_head_size": 64, "intermediate_size": 6144, "relative_attention": True,
                       "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": True,
                       "pos_att_type": "p2c|c2p", "conv_kernel_size": 3, "conv_act": "gelu",
                       "position_biased_input": False, "type_vocab_size": 0, "vocab_size": 128100}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 4001, "embedding_size": 128, "relative_attention": True,
                       "max_relative_positions": 64, "share_att_key": False, "pos_att_type": ["c2p", "p2c"],
                       "type_vocab_size": 2, "conv_kernel_size": 5, "conv_groups": 3, "position_biased_input": True,
                       "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ],
    "ernie": [
        ("defaults", {}),
        ("task-ids", {"use_task_id": True, "vocab_size": 40000, "max_position_embeddings": 2048,
                      "type_vocab_size": 4}),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 700,
                       "vocab_size": 3001, "max_position_embeddings": 200, "use_task_id": True,
                       "task_type_vocab_size": 5, "type_vocab_size": 3, "num_labels": 3}),
    ],
    "roberta-prelayernorm": [
        ("defaults", {}),
        ("large", {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
                   "max_position_embeddings": 514, "type_vocab_size": 1}),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 700,
                       "vocab_size": 3001, "max_position_embeddings": 200, "type_vocab_size": 3, "num_labels": 3}),
    ],
    "megatron-bert": [
        ("defaults", {}),
        ("uncased", {"vocab_size": 30592}),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 700,
                       "vocab_size": 3001, "max_position_embeddings": 200, "type_vocab_size": 3, "num_labels": 3}),
    ],
    # the family's last members (2026-12-07, enc3)
    "rembert": [
        ("defaults", {}),
        ("equal-width", {"input_embedding_size": 1152}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 4001, "max_position_embeddings": 300, "input_embedding_size": 64,
                       "output_embedding_size": 80, "type_vocab_size": 3, "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ],
    "roformer": [
        ("defaults", {}),
        ("small", {"embedding_size": 128, "hidden_size": 384, "num_attention_heads": 6, "intermediate_size": 1536,
                   "num_hidden_layers": 6, "vocab_size": 50000}),
        ("perturbed", {"embedding_size": 96, "hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3,
                       "intermediate_size": 500, "vocab_size": 4001, "max_position_embeddings": 300,
                       "type_vocab_size": 3, "rotary_value": True, "num_labels": 3}),
    ],
    "xmod": [
        ("defaults", {}),
        ("81-languages", {"vocab_size": 250002, "max_position_embeddings": 514, "type_vocab_size": 1,
                          "languages": [f"l{i:02d}_XX" for i in range(81)]}),
        ("perturbed", {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 700,
                       "vocab_size": 3001, "max_position_embeddings": 200, "type_vocab_size": 3, "pre_norm": True,
                       "adapter_reduction_factor": 3, "adapter_layer_norm": True,
                       "languages": ["en_XX", "de_DE", "fr_XX"], "num_labels": 3}),
    ],
    "roc_bert": [
        ("defaults", {}),
        ("no-concat", {"concat_input": False}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 4001, "max_position_embeddings": 300, "pronunciation_vocab_size": 77,
                       "pronunciation_embed_dim": 40, "shape_vocab_size": 999, "shape_embed_dim": 24,
                       "enable_shape": False, "type_vocab_size": 3, "num_labels": 3}),
    ],
    "big_bird": [
        ("defaults", {}),
        ("large-no-bias", {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                           "intermediate_size": 4096, "use_bias": False}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 4001, "max_position_embeddings": 1024, "type_vocab_size": 3, "block_size": 16,
                       "num_random_blocks": 2, "id2label": {"0": "a", "1": "b", "2": "c"}}),
    ],
    "bert-generation": [  # no *ForSequenceClassification: the encoder only
        ("defaults", {}),
        ("base", {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072}),
        ("perturbed", {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
                       "vocab_size": 4001, "max_position_embeddings": 300}),
    ],
}


def count(model_type: str, config: dict, auto) -> int | None:
    """The parameters of `auto`'s model of the config; None where transformers has no such class (BertGeneration's
    *ForSequenceClassification)."""
    if model_type == "bert-generation" and auto is AutoModelForSequenceClassification:
        return None
    with torch.device("meta"):
        model = auto.from_config(AutoConfig.for_model(model_type, **json.loads(json.dumps(config))))
    return sum(p.numel() for p in model.parameters())  # unique: a tied weight once


# ---------------------------------------------------------------- one embedding forward

# DeBERTa-v3's layout (relative attention, position buckets, shared keys, both disentangled terms), tiny
DEBERTA_V3 = {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 700,
              "vocab_size": 1000, "max_position_embeddings": 512, "relative_attention": True, "position_buckets": 64,
              "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
              "position_biased_input": False, "max_relative_positions": -1}
NARROW = {"hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3, "intermediate_size": 500,
          "vocab_size": 900, "max_position_embeddings": 2050}
TINY: dict[str, dict] = {
    "bert": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
             "vocab_size": 1000, "max_position_embeddings": 2048},
    "bert-narrow": {"model_type": "bert", "hidden_size": 192, "num_hidden_layers": 3, "num_attention_heads": 3,
                    "intermediate_size": 500, "vocab_size": 900, "max_position_embeddings": 2048},
    "xlm-roberta": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 700,
                    "vocab_size": 1000, "max_position_embeddings": 2050},
    "modernbert": {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 384,
                   "vocab_size": 1000, "local_attention": 64, "pad_token_id": 0},
    "qwen3": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
              "head_dim": 32, "intermediate_size": 688, "vocab_size": 1000, "tie_word_embeddings": True},
    "roberta": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                "vocab_size": 1000, "max_position_embeddings": 2050},
    "electra": {"hidden_size": 256, "embedding_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                "intermediate_size": 700, "vocab_size": 1000, "max_position_embeddings": 2048},
    "distilbert": {"dim": 256, "n_layers": 2, "n_heads": 8, "hidden_dim": 1024, "vocab_size": 1000,
                   "max_position_embeddings": 2048},
    "deberta-v2": DEBERTA_V3,
    "deberta-v2-mlp": {**DEBERTA_V3, "model_type": "deberta-v2", "hidden_size": 128, "num_attention_heads": 2,
                       "intermediate_size": 2048},
    "deberta-v2-wide": {**DEBERTA_V3, "model_type": "deberta-v2", "position_buckets": 256},
    "xlm-roberta-xl": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                       "vocab_size": 1000, "max_position_embeddings": 2050},
    "xlm-roberta-xl-narrow": {"model_type": "xlm-roberta-xl", **NARROW},
    "roberta-prelayernorm": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8,
                             "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2050},
    "roberta-prelayernorm-narrow": {"model_type": "roberta-prelayernorm", **NARROW},
    # enc3: RoCBERT (its pronunciation and shape tables at the input) and BertGeneration keep BERT's tensors
    "roc_bert": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                 "vocab_size": 1000, "max_position_embeddings": 2048, "pronunciation_embed_dim": 64,
                 "shape_embed_dim": 32, "pronunciation_vocab_size": 50, "shape_vocab_size": 60},
    "bert-generation": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8,
                        "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048},
    # their own eager self-attention (encoder._legacy_eager), and an MLP-heavy layout where the MLP peaks
    "megatron-bert": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                      "vocab_size": 1000, "max_position_embeddings": 2048},
    "megatron-bert-mlp": {"model_type": "megatron-bert", "hidden_size": 128, "num_hidden_layers": 3,
                          "num_attention_heads": 2, "intermediate_size": 2048, "vocab_size": 1000,
                          "max_position_embeddings": 2048},
    "rembert": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                "vocab_size": 1000, "max_position_embeddings": 2048, "input_embedding_size": 128},
    "rembert-mlp": {"model_type": "rembert", "hidden_size": 128, "num_hidden_layers": 3, "num_attention_heads": 2,
                    "intermediate_size": 2048, "vocab_size": 1000, "max_position_embeddings": 2048,
                    "input_embedding_size": 64},
    "roformer": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024,
                 "vocab_size": 1000, "max_position_embeddings": 2048, "embedding_size": 128},
    "roformer-mlp": {"model_type": "roformer", "hidden_size": 128, "num_hidden_layers": 3, "num_attention_heads": 2,
                     "intermediate_size": 2048, "vocab_size": 1000, "max_position_embeddings": 2048},
}
# transformers 5.23 refuses sdpa for DebertaV2Model, MegatronBertModel, RemBertModel, RoFormerModel (and BigBird)
EAGER_ONLY = {"deberta-v2", "megatron-bert", "rembert", "roformer"}


def measure_forward(name: str, attention: str, dtype: str, batch: int, seq: int, reranker: bool = False) -> int:
    config = dict(TINY[name])
    model_type = config.pop("model_type", name)
    cfg = AutoConfig.for_model(model_type, **config)
    cfg._attn_implementation = attention
    auto = AutoModelForSequenceClassification if reranker else AutoModel
    torch.manual_seed(0)
    model = auto.from_config(cfg, attn_implementation=attention).to(DTYPES[dtype]).eval()
    ids = torch.randint(5, 900, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.long)
    return forward_peak(model, ids, mask)


def forward_plan() -> list[tuple[str, str, str, int, int, bool]]:
    cases = []
    for name, config in TINY.items():
        eager_only = config.get("model_type", name) in EAGER_ONLY
        for attention in ("eager",) if eager_only else ("eager", "sdpa"):
            for dtype in ("fp32", "bf16"):
                for batch, seq in ((1, 32), (1, 128), (4, 256), (2, 1024)) if eager_only else (
                        (1, 128), (4, 256), (2, 1024)):
                    cases.append((name, attention, dtype, batch, seq, False))
    for name in ("bert", "xlm-roberta", "modernbert", "roberta", "electra", "distilbert", "deberta-v2"):
        cases.append((name, "eager" if name in EAGER_ONLY else "sdpa", "bf16", 4, 256, True))
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "encoders.json"))
    parser.add_argument("--types", default="", help="comma-separated model_types: measure only their counts and "
                        "forwards and keep the file's others (a partial rerun)")
    args = parser.parse_args(argv)
    only = set(filter(None, args.types.split(",")))
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    old = json.loads(Path(args.out).read_text(encoding="utf-8")) if Path(args.out).exists() else {}
    params = [case for case in old.get("params", []) if only and case["config"]["model_type"] not in only]
    for model_type, cases in CASES.items():
        if only and model_type not in only:
            continue
        for label, config in cases:
            embedder = count(model_type, config, AutoModel)
            reranker = count(model_type, config, AutoModelForSequenceClassification)
            params.append({"name": f"{model_type}/{label}", "config": {"model_type": model_type, **config},
                           "embedder_params": embedder, "reranker_params": reranker})
            print(f"{model_type:12s} {label:20s} {embedder:>14,} {reranker or 0:>14,}")
    forwards = [case for case in old.get("forward", []) if only and case["config"]["model_type"] not in only]
    for name, attention, dtype, batch, seq, reranker in forward_plan():
        if only and TINY[name].get("model_type", name) not in only:
            continue
        peak = measure_forward(name, attention, dtype, batch, seq, reranker)
        config = dict(TINY[name])
        forwards.append({"config": {"model_type": config.pop("model_type", name), **config}, "attention": attention,
                         "dtype": dtype, "batch": batch, "seq": seq, "reranker": reranker,
                         "peak_above_start_bytes": peak})
        print(name, attention, dtype, batch, seq, reranker, f"{peak:,}", f"{peak / (batch * seq):,.0f}/token")
    # keep the sections other tools or hands wrote ("remote": nomic-bert and JinaBERT v2's counts)
    kept = {key: value for key, value in old.items() if key not in ("_about", "params", "forward")}
    write_golden(args.out, "measure_encoders.py", {"params": params, "forward": forwards, **kept})


if __name__ == "__main__":
    main()
