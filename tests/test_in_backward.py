"""The optimizer inside the backward (torchtune's optimizer_in_bwd) against steps measured on small
transformers models (tests/golden/measured_in_backward.json, written by tools/measure_in_backward.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from test_golden_peak import PEAK_TOLERANCE, _training_id, _training_workload
from vramcalc import ValidationError, parse_workload
from vramcalc.analysis.evaluate import estimate

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_in_backward.json").read_text(encoding="utf-8"))
CASES = GOLDEN["training"]


def _in_backward(case):
    return dataclasses.replace(_training_workload(case), optimizer_in_backward=True)


@pytest.mark.parametrize("case", CASES, ids=[_training_id(c) for c in CASES])
def test_the_step_with_the_optimizer_in_the_backward(case):
    breakdown = estimate(_in_backward(case))
    phases, measured = breakdown.phase_totals(), case["phases"]
    assert "optimizer" not in phases  # stepped inside the backward: measured, its phase holds only the states
    assert measured["optimizer"]["peak"] == measured["optimizer"]["start"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=PEAK_TOLERANCE)
    assert max(phases["backward_start"], phases["backward_end"]) == pytest.approx(
        measured["layers"]["peak"], rel=PEAK_TOLERANCE)


@pytest.mark.parametrize("case", CASES[:1], ids=[_training_id(c) for c in CASES[:1]])
def test_the_backward_then_holds_less_than_the_whole_gradient(case):
    plain, fused = estimate(_training_workload(case)), estimate(_in_backward(case))
    plain_phases, fused_phases = plain.phase_totals(), fused.phase_totals()
    layers = max(fused_phases["backward_start"], fused_phases["backward_end"])
    assert layers < max(plain_phases["backward_start"], plain_phases["backward_end"])
    assert case["phases"]["layers"]["peak"] < layers + plain.size_of("gradients")


TRAINING = {"mode": "training", "model": "llama-3.2-1b", "optimizer_in_backward": "1"}


@pytest.mark.parametrize(("extra", "field"), [
    ({"grad_accum": "4"}, "grad_accum"),
    ({"recipe": "mixed", "precision": "bf16"}, "optimizer_in_backward"),
    ({"objective": "dpo"}, "optimizer_in_backward"),
])
def test_what_it_does_not_run_with_is_refused_naming_the_field(extra, field):
    with pytest.raises(ValidationError) as error:
        estimate(parse_workload({**TRAINING, **extra}))
    assert error.value.field == field


def test_several_gpus_are_refused_naming_the_field(capsys):
    from vramcalc.cli import main

    assert main(["--model", "llama-3.2-1b", "--mode", "training", "--optimizer-in-backward", "--gpus", "2"]) != 0
    assert "optimizer_in_backward" in capsys.readouterr().err
