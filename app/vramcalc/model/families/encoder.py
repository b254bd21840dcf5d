"""An encoder embedder or reranker (BERT, XLM-RoBERTa, ModernBERT): what it has beside the layers that the
decoder's spec does not describe, and how it is used. Its tensors join `outside_tensors`
(decoder/tensors.py), so `param_count` is the model an embedder or a reranker loads."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Encoder:
    family: str  # the config's model_type: bert, xlm-roberta, modernbert
    type_vocab: int = 0  # BERT's token_type_embeddings rows (type_vocab_size)
    pooler: bool = False  # BertPooler: a dense h -> h with its bias (AutoModel of BERT and XLM-R)
    labels: int = 0  # a reranker's classifier (AutoModelForSequenceClassification): its outputs; 0: an embedder
    head_dense: bool = False  # the classifier's dense h -> h before it (XLM-R's and ModernBERT's heads)
    head_bias: bool = True  # ... with a bias (ModernBERT: classifier_bias)
    head_norm: int = 0  # ModernBERT's prediction head LayerNorm: 1 weight, 2 with norm_bias

    @property
    def reranker(self) -> bool:
        return self.labels > 0
