"""The measured cases of TRL's preference trainers (tests/golden/measured_preference.json for DPO, measured_kto.json
for KTO, measured_orpo.json for ORPO, which has no reference) as pytest ids and as the engine's workloads: one reading
for the three golden tests."""

from __future__ import annotations

from vramcalc.core.choices import Attention, Checkpointing, Mode, Objective, Recipe, Reference
from vramcalc.core.dtypes import Precision
from vramcalc.model.families.decoder.saved import lora_measured
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload


def sequences(case) -> int:
    """The batch the trainer was given: DPO's pairs, KTO's unpaired completions."""
    return case["pairs"] if "pairs" in case else case["batch"]


def case_id(case) -> str:
    lora = case["lora"]
    return (f"{case['family']}-{case['attention']}-{case['recipe']}-{sequences(case)}x{case['seq']}-"
            f"{case['checkpointing']}-{case.get('reference', 'none')}"
            + (f"-lora{lora['rank']}-{lora['targets']}" if lora else ""))


def case_workload(case, objective: Objective, **changes) -> Workload:
    lora = case["lora"]
    extra = {}
    if lora:
        extra = {"lora_rank": lora["rank"], "lora_dtype": Precision.FP32,
                 "lora_targets": ("all-linear",) if lora["targets"] == "all-linear" else ("q", "v")}
    fp32 = case["recipe"] == "fp32"
    return Workload(
        model=from_hf_config(case["config"]), mode=Mode.TRAINING, recipe=Recipe.FP32 if fp32 else Recipe.BF16,
        precision=Precision.FP32 if fp32 else Precision.BF16, seq=case["seq"],
        attention=Attention(case["attention"]), checkpointing=Checkpointing(case["checkpointing"]),
        overhead_bytes=0, **{"batch": sequences(case), "objective": objective,
                             "reference": Reference(case.get("reference", "")), **extra, **changes})


def measured_exactly(case) -> bool:
    """LoRA's activations are measured on dense RMSNorm models only (test_golden_peak.py)."""
    return not case["lora"] or lora_measured(from_hf_config(case["config"]))
