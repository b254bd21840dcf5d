"""Write the catalog's configs as model presets (app/vramcalc/data/models/<slug>.json).

A developer tool, run once when the catalog changes: it reads
shared/catalog/configs/ (verbatim Hugging Face config.json files, and under
_values/ configs assembled from named sources) and shared/catalog/sources.json,
and writes one preset per model with its source, Hugging Face id, family and
published parameter count. Existing presets are never overwritten: their slugs
are in links people have shared. The incomplete _values entries (marked
INCOMPLETE in sources.json) are skipped unless COMPLETED below gives the
missing values with their source.

Usage: python tools/import_catalog.py [--catalog ../shared/catalog]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "app" / "vramcalc" / "data" / "models"

# slug: (display name, family, published parameter count as the source states it)
CATALOG = {
    "llama-3.1-8b": ("Llama 3.1 8B", "Llama", "8,030,261,248 (HF safetensors)"),
    "llama-3.1-70b": ("Llama 3.1 70B", "Llama", "70,553,706,496 (HF safetensors)"),
    "llama-3.3-70b-instruct": ("Llama 3.3 70B Instruct", "Llama", "70,553,706,496 (HF safetensors)"),
    "llama-4-scout-17b-16e-instruct": ("Llama 4 Scout 17B-16E", "Llama", "109B total, 17B active (Meta)"),
    "llama-4-maverick-17b-128e-instruct": ("Llama 4 Maverick 17B-128E", "Llama",
                                           "401,583,781,376 (HF safetensors); 17B active"),
    "deepseek-r1-distill-llama-70b": ("DeepSeek-R1-Distill-Llama 70B", "DeepSeek",
                                      "70.6B (same shapes as Llama 3.3 70B)"),
    "qwen3-0.6b": ("Qwen3 0.6B", "Qwen", "0.6B (model card)"),
    "qwen3-1.7b": ("Qwen3 1.7B", "Qwen", "1.7B (model card)"),
    "qwen3-4b": ("Qwen3 4B", "Qwen", "4.0B (model card)"),
    "qwen3-8b": ("Qwen3 8B", "Qwen", "8,190,735,360 (HF safetensors)"),
    "qwen3-14b": ("Qwen3 14B", "Qwen", "14.8B (model card)"),
    "qwen3-32b": ("Qwen3 32B", "Qwen", "32.8B (model card)"),
    "qwen3-30b-a3b": ("Qwen3 30B-A3B", "Qwen", "30.5B total, 3.3B active (model card)"),
    "qwen3-235b-a22b": ("Qwen3 235B-A22B", "Qwen", "235,093,634,560 (HF safetensors); 22B active"),
    "qwen3-235b-a22b-fp8": ("Qwen3 235B-A22B FP8", "Qwen", "235B total, 22B active; FP8 checkpoint"),
    "qwen3-next-80b-a3b-thinking": ("Qwen3-Next 80B-A3B Thinking", "Qwen", "80B total, 3B active (model card)"),
    "qwen2.5-vl-7b-instruct": ("Qwen2.5-VL 7B Instruct", "Qwen", "8,292,166,656 (HF safetensors, vision included)"),
    "qwen2.5-coder-32b-instruct": ("Qwen2.5-Coder 32B Instruct", "Qwen", "32.8B (model card)"),
    "deepseek-v3": ("DeepSeek-V3", "DeepSeek", "671B total, 37B active; 685B with the MTP module (README)"),
    "deepseek-r1": ("DeepSeek-R1", "DeepSeek", "671B total, 37B active; 685B with the MTP module (README)"),
    "deepseek-v2-lite": ("DeepSeek-V2-Lite", "DeepSeek", "15,706,484,224 (HF safetensors); 2.4B active"),
    "deepseek-r1-distill-qwen-32b": ("DeepSeek-R1-Distill-Qwen 32B", "DeepSeek", "32,763,876,352 (HF safetensors)"),
    "kimi-k2-instruct": ("Kimi K2 Instruct", "Kimi", "1T total, 32B active (model card)"),
    "gemma-3-1b-it": ("Gemma 3 1B", "Gemma", "999,885,952 (keras-hub)"),
    "gemma-3-4b-it": ("Gemma 3 4B", "Gemma", "4,300,079,472 (HF safetensors, vision included)"),
    "gemma-3-12b-it": ("Gemma 3 12B", "Gemma", "12.2B with vision (HF)"),
    "gemma-3-27b-it": ("Gemma 3 27B", "Gemma", "27,432,406,640 (HF safetensors, vision included)"),
    "gemma-2-2b": ("Gemma 2 2B", "Gemma", "2,614,341,888 (HF safetensors)"),
    "gemma-2-27b": ("Gemma 2 27B", "Gemma", "27,227,128,320 (HF safetensors)"),
    "mistral-7b-v0.3": ("Mistral 7B v0.3", "Mistral", "7,248,023,552 (HF safetensors)"),
    "mistral-nemo-instruct-2407": ("Mistral Nemo 12B Instruct", "Mistral", "12.2B (model card)"),
    "ministral-8b-instruct-2410": ("Ministral 8B Instruct", "Mistral", "8.02B (model card)"),
    "mixtral-8x22b-v0.1": ("Mixtral 8x22B", "Mistral", "141B total, 39B active (Mistral)"),
    "phi-4": ("Phi-4 14B", "Phi", "14.7B (model card)"),
    "phi-4-mini-instruct": ("Phi-4-mini 3.8B", "Phi", "3.8B (model card)"),
    "phi-3.5-moe-instruct": ("Phi-3.5-MoE 42B-A6.6B", "Phi", "41.9B total, 6.6B active (model card)"),
    "gpt-oss-20b": ("gpt-oss-20b", "gpt-oss", "20.91B total, 3.61B active; checkpoint 12.8 GiB (model card)"),
    "gpt-oss-120b": ("gpt-oss-120b", "gpt-oss", "116.83B total, 5.13B active; checkpoint 60.8 GiB (model card)"),
    "glm-4.5": ("GLM-4.5 355B-A32B", "GLM", "355B total, 32B active (model card)"),
    "glm-4.5-air": ("GLM-4.5-Air 106B-A12B", "GLM", "106B total, 12B active (model card)"),
    "olmo-2-1124-7b": ("OLMo 2 7B", "OLMo", "7.3B (model card)"),
    "olmo-2-1124-13b": ("OLMo 2 13B", "OLMo", "13.7B (model card)"),
    "granite-3.3-8b-instruct": ("Granite 3.3 8B Instruct", "Granite", "8,170,864,640 (HF safetensors)"),
    "command-r-v01": ("Command R 35B", "Cohere", "35B (model card)"),
    "falcon3-7b": ("Falcon3 7B", "Falcon", "7.46B (model card)"),
    "falcon3-10b": ("Falcon3 10B", "Falcon", "10.3B (model card)"),
    "smollm3-3b": ("SmolLM3 3B", "SmolLM", "3.08B (model card)"),
    "smollm2-1.7b": ("SmolLM2 1.7B", "SmolLM", "1.71B (model card)"),
}

# Values the incomplete catalog entries lack, with where they come from.
COMPLETED = {
    "granite-3.3-8b-instruct": (
        {"intermediate_size": 12800, "num_attention_heads": 32, "vocab_size": 49159, "tie_word_embeddings": True,
         "max_position_embeddings": 131072},
        ("intermediate_size, heads, vocabulary and tied embeddings as in ibm-granite/granite-3.3-8b-instruct's "
         "config.json; with them the count equals the HF safetensors total 8,170,864,640 exactly"),
    ),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalog", default=str(ROOT.parent / "shared" / "catalog"))
    args = parser.parse_args(argv)
    catalog = Path(args.catalog)
    sources = json.loads((catalog / "sources.json").read_text())
    order = json.loads((MODELS / "order.json").read_text())
    for key, source in sources.items():
        slug = key.removeprefix("_values/")
        if slug not in CATALOG or (MODELS / f"{slug}.json").exists():
            continue
        config = json.loads((catalog / "configs" / f"{key}.json").read_text())
        note = source.get("note", "")
        if "INCOMPLETE" in note:
            if slug not in COMPLETED:
                continue
            extra, why = COMPLETED[slug]
            config.update(extra)
            note = f"{note}; completed: {why}"
        display, family, published = CATALOG[slug]
        if source.get("values_only"):
            where = "values from: " + "; ".join(source["sources"])
        else:
            where = f"{source['repo']}:{source['path']}" + (f"@{source['commit'][:8]}" if source.get("commit") else "")
        preset = {
            "display_name": display,
            "hf_id": source["hf_id"].split(" ")[0].split("(")[0],
            "family": family,
            "published_params": published,
            "source": where + (f" ({note})" if note else ""),
            "config": config,
        }
        (MODELS / f"{slug}.json").write_text(json.dumps(preset, indent=2, ensure_ascii=False) + "\n")
        order.append(slug)
        print("added", slug)
    (MODELS / "order.json").write_text(json.dumps(order, indent=2) + "\n")


if __name__ == "__main__":
    main()
