"""LoRA on the output head alone (`--lora-targets head`), against bytes measured with peft at 2 and 4 layers
(tests/golden/measured_lora_head_only.json, written by tools/measure_lora_head_only.py): with every layer and the
embedding frozen nothing in the layers needs a gradient, so without checkpointing they save nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode
from vramcalc.core.dtypes import Precision
from vramcalc.memory.activations import saved_per_token
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_lora_head_only.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]
TOLERANCE = 0.002


def _id(case):
    return "-".join(str(v) for v in (case["family"], f"{case['layers']}L", case["checkpointing"],
                                     case["lora_dropout"]))


def _workload(case, targets=("head",)):
    return Workload(model=from_hf_config(case["config"]), mode=Mode.TRAINING, precision=Precision(case["precision"]),
                    batch=case["batch"], seq=case["seq"], attention=Attention(case["attention"]),
                    checkpointing=Checkpointing(case["checkpointing"]), overhead_bytes=0, lora_rank=8,
                    lora_targets=targets, lora_dropout=case["lora_dropout"],
                    lora_dtype=Precision(case["adapter_dtype"]))


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_a_head_only_lora_step(case):
    breakdown = estimate(_workload(case))
    saved = breakdown.size_of("activations") + breakdown.size_of("logits")
    assert saved == pytest.approx(case["saved_bytes"], rel=TOLERANCE)


def test_without_checkpointing_the_layers_save_nothing():
    """Measured: the same bytes at 2 and at 4 layers, none of them credited to a decoder layer."""
    nones = [case for case in CASES if case["checkpointing"] == "none"]
    assert nones and all(set(case["forward_by_layer"]) == {"outside"} for case in nones)
    for case in nones:
        assert saved_per_token(_workload(case)) == 0


def test_with_other_targets_the_head_adds_only_its_adapter():
    """The head with q,v: the layers as q,v alone (the head changes only what is saved outside them)."""
    case = CASES[0]
    assert saved_per_token(_workload(case, ("q", "v", "head"))) == saved_per_token(_workload(case, ("q", "v")))
