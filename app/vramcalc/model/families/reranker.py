"""A decoder served as a reranker: a causal LM scored on some rows of its LM head (Qwen3-Reranker: the "yes" and
"no" logits of the last token), or a checkpoint converted to a sequence classifier (`Qwen3ForSequenceClassification`
with a `score` of its own). Each engine loads the first its own way (decoder/spec.py `as_embedder`): transformers
as the causal LM the card loads, its whole head and every position's logits; vLLM with `from_2_way_softmax`, the
"yes" row minus the "no" row as a 1 × h score and no head; llama.cpp's GGUF with the two rows as `cls.output`."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Reranker:
    tokens: tuple[str, ...] = ()  # classifier_from_token: the head's rows it is scored on; (): a converted checkpoint
    labels: int = 1  # the score's rows vLLM builds (from_2_way_softmax: 1; no_post_processing: one per token), or a
    # converted checkpoint's num_labels
    method: str = ""  # vLLM's: from_2_way_softmax (is_original_qwen3_reranker) or no_post_processing
    architecture: str = ""  # the *ForSequenceClassification class vLLM's hf_overrides name
    scored: bool = False  # the head replaced by the score (as loaded by vLLM or llama.cpp, or a converted checkpoint)

    @property
    def from_head(self) -> bool:
        """The checkpoint is a causal LM whose head's rows score it (vLLM converts it as it loads)."""
        return bool(self.tokens)

    @property
    def rows(self) -> int:
        """The score's rows as loaded: `labels`, once the head is replaced."""
        return self.labels if self.scored else 0
