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

from ..engines.llamacpp import DRAFT_N_MAX
from ..model.families.decoder.mtp import without_mtp
from ..workload import Workload
from .hardware import calibration


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
    """The workload's speculative decoding (None: it has none): MTP layers drafting `mtp` tokens, or llama-server's
    draft model drafting --spec-draft-n-max's default."""
    if workload.mtp:
        kind, drafted = "mtp", workload.mtp
    elif workload.draft_model is not None:
        kind, drafted = "draft", DRAFT_N_MAX
    else:
        return None
    given = workload.spec_acceptance
    return Speculation(kind=kind, drafted=drafted, given=given is not None,
                       acceptance=default_acceptance(kind) if given is None else given)


def target(workload: Workload) -> Workload:
    """The model that checks the drafts: without its MTP layers and its draft model."""
    return workload.but(model=without_mtp(workload.model), mtp=0, draft_model=None)
