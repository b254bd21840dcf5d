"""Count every preset's parameters exactly, on PyTorch's `meta` device.

A developer tool, not run by CI. For each model preset in app/vramcalc/data/models/
it builds the Hugging Face transformers model from the stored config.json with
`torch.device("meta")` (shapes only: no weights, no memory) and counts unique
parameters (a tied head once). Multimodal presets are built whole, and the
parameters of the vision tower and projector are reported apart from the
language model's. Registered buffers (rotary tables, DeepSeek's
`e_score_correction_bias`) are not parameters and are not counted.

It also records, per parameter name with the layer index replaced by `*`, how
many parameters that name holds in all layers, so a wrong count can be traced
to the tensor that differs.

Usage: python tools/measure_params.py [--out tests/golden/params.json] [SLUG ...]
Needs: pip install torch==2.13.0 transformers
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import sys
from pathlib import Path

import torch
import transformers
from transformers import (
    AutoConfig,
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForImageTextToText,
    AutoModelForSequenceClassification,
    AutoModelForSpeechSeq2Seq,
)

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "app" / "vramcalc" / "data" / "models"
# Remote-code model types that transformers builds with a class of its own (same architecture).
ALIASES = {"kimi_k2": "deepseek_v3"}
# Encoders (embedders and rerankers): AutoModel as an embedder loads them (no masked-LM head), or the classifier
# their `architectures` name (AutoModelForSequenceClassification), as tools/measure_encoders.py does.
ENCODERS = ("bert", "xlm-roberta", "modernbert", "gte")
# Decoder embedders (family "Embedding"): AutoModel, as sentence-transformers and their cards load them (no lm_head,
# whatever the checkpoint stores), except a reranker scored on its LM head's logits (Qwen3-Reranker: "yes" against
# "no" at the last token), built with the class its card uses.
CARD_CLASS = {"qwen3-reranker-0.6b": AutoModelForCausalLM, "qwen3-reranker-4b": AutoModelForCausalLM,
              "qwen3-reranker-8b": AutoModelForCausalLM}
VISION = re.compile(r"(vision|visual|multi_modal_projector|mm_projector|image_newline|patch_embed)")


def build(config_dict: dict, embedder: bool = False, card_class=None):
    kwargs = {k: v for k, v in config_dict.items() if k not in ("model_type", "quantization_config")}
    model_type = ALIASES.get(config_dict["model_type"], config_dict["model_type"])
    if model_type == "new":  # GTE's remote code: transformers' own GteModel, keys as tools/measure_gte.py passes them
        from measure_gte import gte_config
        config, model_type = gte_config(config_dict), "gte"
    elif model_type == "gemma3n":  # its wrapper builds the MobileNet-V5 tower with timm: the text model alone
        text = {k: v for k, v in config_dict["text_config"].items() if k != "model_type"}
        config, model_type = AutoConfig.for_model("gemma3n_text", **text), "gemma3n_text"
    else:
        config = AutoConfig.for_model(model_type, **kwargs)
    if model_type in ("gemma4_assistant", "gemma4_unified_assistant"):  # a drafter: every layer reuses the target's
        # K/V, which transformers 5.23's kv_sharing_modes refuses; patched as tools/measure_types.py patches it
        from measure_types import _all_layers_reuse
        _all_layers_reuse(type(config.get_text_config()))
    with torch.device("meta"):
        if model_type == "whisper":  # WhisperForConditionalGeneration, as tools/measure_speech.py builds it
            return AutoModelForSpeechSeq2Seq.from_config(config)
        if model_type in ENCODERS:
            rerank = any("ForSequenceClassification" in name for name in config_dict.get("architectures") or ())
            return (AutoModelForSequenceClassification if rerank else AutoModel).from_config(config)
        if card_class is not None:
            return card_class.from_config(config)
        if embedder:
            return AutoModel.from_config(config)
        try:
            return AutoModelForCausalLM.from_config(config)
        except ValueError:
            return AutoModelForImageTextToText.from_config(config)


def count(model) -> dict:
    seen, total, vision = set(), 0, 0
    by_name: dict[str, int] = {}
    for name, param in model.named_parameters(remove_duplicate=True):
        if id(param) in seen:
            continue
        seen.add(id(param))
        n = param.numel()
        total += n
        if VISION.search(name):
            vision += n
        key = re.sub(r"\.\d+\.", ".*.", name)
        by_name[key] = by_name.get(key, 0) + n
    return {"params": total, "vision_params": vision, "text_params": total - vision, "by_name": by_name}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "params.json"))
    parser.add_argument("slugs", nargs="*")
    args = parser.parse_args(argv)
    order = json.loads((MODELS / "order.json").read_text())
    out = Path(args.out)
    previous = json.loads(out.read_text())["models"] if out.exists() and args.slugs else {}
    models = dict(previous)
    for slug in args.slugs or order:
        preset = json.loads((MODELS / f"{slug}.json").read_text())
        try:
            model = build(preset["config"], preset.get("family") == "Embedding", CARD_CLASS.get(slug))
        except Exception as error:  # report and go on: a preset transformers cannot build
            print(f"{slug}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        models[slug] = {"class": type(model).__name__, **count(model)}
        print(slug, models[slug]["class"], models[slug]["params"], models[slug]["text_params"], file=sys.stderr)
        del model
    header = {
        "generated": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }
    if previous:  # some presets measured now: say which, beside what the others were measured with
        before = json.loads(out.read_text())
        header = {key: value if before[key] == value else f"{before[key]}; {value} for {', '.join(args.slugs)}"
                  for key, value in header.items()}
    result = {
        **header,
        "tool": "tools/measure_params.py",
        "models": {slug: models[slug] for slug in order if slug in models},
    }
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
