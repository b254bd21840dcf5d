"""Activation offloading (torchtune's OffloadActivations hooks, Unsloth's offloaded checkpointing) against steps
measured on small transformers models (tests/golden/measured_activation_offload.json, written by
tools/measure_activation_offload.py: the device's storages counted by measure_peak's tracker, the host copies
made outside it and counted apart)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from test_golden_peak import PEAK_TOLERANCE, _training_id, _training_workload
from vramcalc import ValidationError, parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Framework
from vramcalc.training import offload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_activation_offload.json").read_text(encoding="utf-8"))
CASES = GOLDEN["training"]
MECHANIC = {"none": {}, "torchtune": {"activation_offload": True}, "unsloth": {"framework": Framework.UNSLOTH}}


@pytest.fixture(autouse=True)
def _small_inputs_offloaded(monkeypatch):
    # The tool's models have layer inputs below Unsloth's 2 MiB and sequences below its 512 tokens, and it offloads
    # them anyway (its docstring); its host pool is not made. The engine is asked the same.
    monkeypatch.setattr(offload, "UNSLOTH_MIN_INPUT_BYTES", 0)
    monkeypatch.setattr(offload, "UNSLOTH_MIN_SEQ", 0)
    monkeypatch.setattr(offload, "UNSLOTH_POOL", (0, 0))


def _workload(case):
    return dataclasses.replace(_training_workload(case), **MECHANIC[case["activation_offload"]])


def _id(case):
    return f"{_training_id(case)}-{case['activation_offload']}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_phase_of_the_step(case):
    breakdown = estimate(_workload(case))
    phases, measured = breakdown.phase_totals(), case["phases"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=PEAK_TOLERANCE)
    assert phases["forward"] == pytest.approx(measured["forward"]["end"], rel=PEAK_TOLERANCE)
    assert phases["loss"] == pytest.approx(measured["backward"]["peak"], rel=PEAK_TOLERANCE)
    assert max(phases["backward_start"], phases["backward_end"]) == pytest.approx(
        measured["layers"]["peak"], rel=PEAK_TOLERANCE)
    assert phases["optimizer"] == pytest.approx(measured["optimizer"]["peak"], rel=PEAK_TOLERANCE)


OFFLOADED = [c for c in CASES if c["activation_offload"] != "none"]


@pytest.mark.parametrize("case", OFFLOADED, ids=[_id(c) for c in OFFLOADED])
def test_host_memory(case):
    # Unsloth's host buffers hold the layer inputs, as counted; torchtune copies a tensor each time it is saved,
    # so the engine's figure is a floor: measured 1.1 to 1.4 times it (training/offload.py)
    engine, measured = estimate(_workload(case)).host_bytes, case["host_bytes_at_forward_end"]
    if case["activation_offload"] == "unsloth":
        assert engine == measured
    else:
        assert engine <= measured <= 1.4 * engine


@pytest.mark.parametrize("case", OFFLOADED, ids=[_id(c) for c in OFFLOADED])
def test_offloading_lowers_the_forward_as_measured(case):
    plain = estimate(_training_workload(case)).phase_totals()["forward"]
    offloaded = estimate(_workload(case)).phase_totals()["forward"]
    assert offloaded < plain
    baseline = [c for c in CASES if c["activation_offload"] == "none" and _training_id(c) == _training_id(case)]
    for base in baseline:  # the saving itself, measured against the same step without offloading
        saved = base["phases"]["forward"]["end"] - case["phases"]["forward"]["end"]
        assert plain - offloaded == pytest.approx(saved, rel=PEAK_TOLERANCE)


def test_unsloth_below_its_thresholds_checkpoints_without_offloading(monkeypatch):
    monkeypatch.setattr(offload, "UNSLOTH_MIN_SEQ", 512)
    case = next(c for c in CASES if c["activation_offload"] == "unsloth")
    assert estimate(_workload(case)).host_bytes == 0  # 256 tokens: plain checkpointing (Unsloth's heuristic)


TRAINING = {"mode": "training", "model": "llama-3.2-1b", "activation_offload": "1"}


def test_the_host_bytes_are_in_the_json():
    from vramcalc.render.export import to_json

    document = to_json(estimate(parse_workload(TRAINING)), [])
    assert document["activation_offload_host_bytes"] > 0
    assert document["host_bytes"] >= document["activation_offload_host_bytes"]


def test_inference_refuses_it_naming_the_field():
    with pytest.raises(ValidationError) as error:
        parse_workload({**TRAINING, "mode": "inference"})
    assert error.value.field == "activation_offload"


@pytest.mark.parametrize("checkpointing", ["layer", "none"])
def test_activation_offloading_under_unsloth_is_refused_naming_it(checkpointing):
    """Unsloth's offloading is its checkpointing's (training/offload.py): before, --activation-offload under
    --framework unsloth changed nothing and said nothing, with or without checkpointing."""
    with pytest.raises(ValidationError) as refused:
        parse_workload({"model": "qwen3-0.6b", "mode": "training", "seq": "1024", "framework": "unsloth",
                        "checkpointing": checkpointing, "activation_offload": "1"}, given={"checkpointing"})
    assert refused.value.field == "activation_offload" and "Unsloth" in str(refused.value)
