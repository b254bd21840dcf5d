"""LoRA against bytes measured with peft on small transformers models
(tests/golden/measured_lora.json, written by tools/measure_lora.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode
from vramcalc.core.dtypes import Precision
from vramcalc.model.families.decoder.saved import lora_measured
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_lora.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]
ACTIVATION_TOLERANCE = 0.10
PEFT_NAMES = {"q_proj": "q", "k_proj": "k", "v_proj": "v", "o_proj": "o", "gate_proj": "gate", "up_proj": "up",
              "down_proj": "down"}


def _id(case):
    lora = case["lora"]
    targets = lora["target_modules"] if isinstance(lora["target_modules"], str) else "+".join(lora["target_modules"])
    return (f"{case['family']}-{case['attention']}-{case['batch']}x{case['seq']}-{case['checkpointing']}-r{lora['r']}-"
            f"{targets}-d{lora['lora_dropout']}-{lora['adapter_dtype']}")


def _workload(case):
    lora = case["lora"]
    modules = lora["target_modules"]
    targets = ("all-linear",) if modules == "all-linear" else tuple(PEFT_NAMES[m] for m in modules)
    return Workload(
        model=from_hf_config(case["config"]), mode=Mode.TRAINING, precision=Precision(case["precision"]),
        batch=case["batch"], seq=case["seq"], attention=Attention(case["attention"]),
        checkpointing=Checkpointing(case["checkpointing"]), overhead_bytes=0, lora_rank=lora["r"],
        lora_targets=targets, lora_dropout=lora["lora_dropout"],
        lora_dtype=Precision.BF16 if lora["adapter_dtype"] == "bf16" else Precision.FP32,
    )


DENSE = [case for case in CASES if lora_measured(from_hf_config(case["config"]))]
OTHER = [case for case in CASES if case not in DENSE]


@pytest.mark.parametrize("case", DENSE, ids=[_id(c) for c in DENSE])
def test_lora_activations_and_states_on_dense_models(case):
    breakdown = estimate(_workload(case))
    measured = case.get("measured", case)
    estimated = breakdown.size_of("activations") + breakdown.size_of("logits")
    assert estimated == pytest.approx(measured["saved_bytes"], rel=ACTIVATION_TOLERANCE)
    assert breakdown.size_of("gradients") == measured["gradient_bytes"]
    assert breakdown.size_of("optimizer") == measured["adamw_state_bytes"]
    assert breakdown.assumptions == ()


@pytest.mark.parametrize("case", OTHER, ids=[_id(c) for c in OTHER])
def test_lora_on_other_architectures_says_it_is_approximate(case):
    try:
        breakdown = estimate(_workload(case))
    except ValueError:
        pytest.skip("a rank above a width this reader adapts")
    assert any("LoRA" in text for text in map(ENGLISH.say, breakdown.assumptions))


def test_the_golden_file_covers_dense_models():
    assert {case["family"] for case in DENSE} >= {"llama", "qwen3"}
