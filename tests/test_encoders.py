"""Encoder embedders and rerankers (BERT, XLM-RoBERTa, ModernBERT): counted exactly against transformers 5.23 on
the meta device (tests/golden/encoders.json, tools/measure_encoders.py), as an embedder loads them (AutoModel) and
as a reranker (AutoModelForSequenceClassification), full-size and perturbed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.encoder import ENCODER_TYPES
from vramcalc.sources.hf_config import from_hf_config

GOLDEN = json.loads((Path(__file__).parent / "golden" / "encoders.json").read_text(encoding="utf-8"))
PARAMS = GOLDEN["params"]


@pytest.mark.parametrize("case", PARAMS, ids=[case["name"] for case in PARAMS])
def test_an_encoder_counts_as_transformers_builds_it(case):
    config = {k: v for k, v in case["config"].items() if k != "architectures"}
    embedder = from_hf_config({**config, "architectures": ["XLMRobertaModel"]})
    reranker = from_hf_config({**config, "architectures": ["XLMRobertaForSequenceClassification"]})
    assert not embedder.assumptions, [ENGLISH.say(a) for a in embedder.assumptions]
    assert embedder.encoder is not None and not embedder.encoder.reranker and reranker.encoder.reranker
    assert (param_count(embedder), param_count(reranker)) == (case["embedder_params"], case["reranker_params"])


def test_every_encoder_type_has_a_full_size_and_a_perturbed_case():
    names = {case["name"] for case in PARAMS}
    assert all(f"{kind}/perturbed" in names and sum(n.startswith(kind + "/") for n in names) >= 3
               for kind in ENCODER_TYPES)


def test_a_reranker_has_its_classifier_and_an_embedder_its_pooler():
    bge = {case["name"]: case for case in PARAMS}["xlm-roberta/bge-m3"]["config"]
    reranker = from_hf_config({**bge, "architectures": ["XLMRobertaForSequenceClassification"],
                               "id2label": {"0": "LABEL_0"}})
    assert param_count(reranker) == 567_755_777  # bge-reranker-v2-m3: XLM-R less its pooler, with a dense and 1 label
    assert param_count(from_hf_config(bge)) == 567_754_752  # bge-m3: XLMRobertaModel with its pooler
