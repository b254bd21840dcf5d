"""Speculative decoding's tokens per step (Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via
Speculative Decoding", section 3.1): k tokens drafted per step, each accepted with probability a when every earlier
one was (taken independent of position), so a step yields on average

    E = (1 - a^(k+1)) / (1 - a)   (k + 1 when a = 1)

tokens: the accepted drafts and the model's own next token. The acceptance is a property of the model, its drafter
and the text, not of the card: an input (`spec_acceptance`), else a default from published runs (data/speed.json
`speculative`). What a step costs is speed/inference.py's: the model's check of k + 1 tokens per sequence and k
forwards of the drafter (a draft model's decode step, or one MTP layer and the shared head)."""

from __future__ import annotations

import dataclasses

from ..core.choices import Runtime
from ..engines.llamacpp import DRAFT_N_MAX, draft_workload
from ..engines.transformers import ASSISTANT_TOKENS
from ..engines.vllm import VLLM_DRAFT_TOKENS
from ..model.families.decoder.mtp import without_mtp
from ..model.families.decoder.spec import ModelSpec
from ..workload import Workload
from .hardware import calibration

# k with a draft model, by engine: llama-server's --spec-draft-n-max default, the num_speculative_tokens vLLM's command
# is printed with, transformers' num_assistant_tokens default (it may stop sooner: its confidence threshold)
DRAFTED = {Runtime.LLAMACPP: DRAFT_N_MAX, Runtime.VLLM: VLLM_DRAFT_TOKENS, Runtime.TRANSFORMERS: ASSISTANT_TOKENS}


@dataclasses.dataclass(frozen=True)
class Speculation:
    kind: str  # "mtp" (the model's MTP layers) or "draft" (llama-server's draft model)
    drafted: int  # k, tokens drafted per step
    acceptance: float  # a
    given: bool  # `acceptance` is the user's (else the default)

    @property
    def tokens(self) -> float:
        """E, the tokens one step yields on average."""
        return expected_tokens(self.acceptance, self.drafted)


def expected_tokens(acceptance: float, drafted: int) -> float:
    """(1 - a^(k+1)) / (1 - a): Leviathan et al.'s expected tokens per step of k drafts accepted at rate a."""
    if acceptance >= 1.0:
        return float(drafted + 1)
    return (1.0 - acceptance ** (drafted + 1)) / (1.0 - acceptance)


def default_acceptance(kind: str) -> float:
    return float(calibration()["speculative"][kind])


def speculation(workload: Workload) -> Speculation | None:
    """The workload's speculative decoding (None: it has none): MTP layers drafting `mtp` tokens, or a draft model
    drafting its engine's count (DRAFTED)."""
    if workload.mtp:
        kind, drafted = "mtp", workload.mtp
    elif workload.draft_model is not None:
        kind, drafted = "draft", DRAFTED.get(workload.runtime, DRAFT_N_MAX)
    else:
        return None
    given = workload.spec_acceptance
    return Speculation(kind=kind, drafted=drafted, given=given is not None,
                       acceptance=default_acceptance(kind) if given is None else given)


def target(workload: Workload) -> Workload:
    """The model that checks the drafts: without its MTP layers and its draft model."""
    return workload.but(model=without_mtp(workload.model), mtp=0, draft_model=None)


def draft_run(workload: Workload, draft: ModelSpec) -> Workload:
    """The draft model's own decode step as its engine runs it: llama.cpp's draft context (its GGUF, -ngld), else
    the model's dtype (vLLM's draft ModelConfig takes the target's; transformers' assistant is loaded so), vLLM's
    cache type the model's, transformers' assistant cache its own dtype."""
    if workload.runtime is Runtime.LLAMACPP:
        return draft_workload(workload, draft)
    kv = workload.kv_precision if workload.runtime is Runtime.VLLM else None
    return workload.but(model=draft, precision=workload.activation_precision, kv_precision=kv, draft_model=None,
                        mtp=0, text_only=True, images=0, image_tokens=0, batch=workload.batch)
