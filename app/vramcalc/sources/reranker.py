"""Whether a decoder's config.json is a reranker's, read with the keys vLLM reads (vllm-project/vllm at 00620f9,
vllm/model_executor/models/config.py `Qwen3ForSequenceClassificationConfig` and adapters.py
`SequenceClassificationConfig`, `seq_cls_model_loader`), as its `--hf_overrides` give them or a config carries them:

- `classifier_from_token` (the head's rows, by token) with `is_original_qwen3_reranker: true` (two tokens, no and
  yes: method from_2_way_softmax, one label) or with `method` (`from_2_way_softmax`: two tokens, one label;
  `no_post_processing`: a label per token): a causal LM checkpoint scored on its head, converted as it loads;
- else `architectures` naming a `*ForSequenceClassification` (tomaarsen/Qwen3-Reranker-*-seq-cls): a converted
  checkpoint with a `score` of its own, as many labels as `id2label` (else `num_labels`, else transformers' 2).

A preset gives the first as its `hf_overrides`, the overrides Qwen3-Reranker's users pass to vLLM."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ValidationError
from ..model.families.reranker import Reranker
from .fields import MAX_DIM, read_bool, read_int, read_text, short

METHODS = ("from_2_way_softmax", "no_post_processing")  # adapters.py SEQ_CLS_LOAD_METHODS
MAX_TOKENS = 100  # the rows a score takes from the head: a handful in any real reranker
RERANKER_KEYS = frozenset({"classifier_from_token", "is_original_qwen3_reranker", "method"})


def read_reranker(config: Mapping[str, object], model_type: str) -> Reranker | None:
    """The reranker a decoder's config describes, or None for a plain decoder; a key vLLM would refuse, refused."""
    original = read_bool(config, "is_original_qwen3_reranker", default=False)
    method = read_text(config, "method")
    raw = config.get("classifier_from_token")
    names = config.get("architectures")
    classifier = next((str(name) for name in names if str(name).endswith("ForSequenceClassification")), "") if (
        isinstance(names, list)) else ""
    if raw is None:
        if original or method:
            key = "is_original_qwen3_reranker" if original else "method"
            raise ValidationError("classifier_from_token", None, f"{key} needs the head's tokens, as [\"no\", \"yes\"]")
        if not classifier:
            return None
        id2label = config.get("id2label")
        labels = len(id2label) if isinstance(id2label, Mapping) and id2label else read_int(
            config, "num_labels", 1, MAX_DIM, default=2)
        return Reranker(labels=labels, architecture=classifier, scored=True)
    if not isinstance(raw, list) or not raw or len(raw) > MAX_TOKENS or not all(
            isinstance(token, str) and len(token) <= 100 for token in raw):
        raise ValidationError("classifier_from_token", short(raw), "expected a list of tokens, as [\"no\", \"yes\"]")
    tokens = tuple(raw)
    if original:
        method = METHODS[0]  # Qwen3ForSequenceClassificationConfig: two tokens, from_2_way_softmax
    if method not in METHODS:
        raise ValidationError("method", method or None, "vLLM converts a head with from_2_way_softmax or "
                                                        "no_post_processing")
    if method == METHODS[0] and len(tokens) != 2:
        raise ValidationError("classifier_from_token", short(raw), f"{method} takes two tokens, as [\"no\", \"yes\"]")
    prefix = classifier.removesuffix("ForSequenceClassification") or (
        str(names[0]).removesuffix("ForCausalLM") if isinstance(names, list) and names else model_type.title())
    return Reranker(tokens=tokens, labels=1 if method == METHODS[0] else len(tokens), method=method,
                    architecture=f"{prefix}ForSequenceClassification")
