"""bitsandbytes under transformers 5 converts nn.Linear modules only: a mixture of experts' fused expert
tensors stay in bf16. Held to the bytes measured by tools/measure_bnb_experts.py (transformers 5.23,
bitsandbytes 0.50.2, small random models loaded in 4 and 8 bits on the CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import breakdown_notes
from vramcalc.core.errors import ValidationError
from vramcalc.formats.weights import weights
from vramcalc.render.messages import ENGLISH

MEASURED = json.loads((Path(__file__).parent / "golden" / "measured_bnb_experts.json").read_text(encoding="utf-8"))
CASES = MEASURED["cases"]
PACKED = {"nf4": ("other uint8", 2), "bnb-int8": ("other int8", 1)}  # values per stored byte


@pytest.mark.parametrize("case", CASES, ids=[f"{c['config']['model_type']}-{c['precision']}" for c in CASES])
def test_the_experts_stay_in_bf16_as_measured(case):
    workload = parse_workload({"model": "config", "precision": case["precision"]}, config=case["config"])
    quantised, rest = weights(workload.model, workload.precision)
    key, per_byte = PACKED[case["precision"]]
    assert quantised.params == case["bytes"][key] * per_byte
    assert rest.params * 2 == case["bytes"]["experts bfloat16"] + case["bytes"]["other bfloat16"]


def _precision(config, **values):
    return parse_workload({"model": "config", "precision": "nf4", **values}, config=config).precision


def test_who_loads_the_model_decides():
    moe = CASES[0]["config"]
    assert _precision(moe).experts_kept  # transformers' from_pretrained
    assert _precision(moe, mode="training", lora_rank="16").experts_kept  # the Trainer loads it so too
    assert not _precision(moe, mode="training", lora_rank="16", framework="unsloth").experts_kept  # converts them
    with pytest.raises(ValidationError, match="no bitsandbytes"):  # vLLM 0.34 dropped bitsandbytes
        _precision(moe, runtime="vllm")
    dense = {key: value for key, value in moe.items() if "expert" not in key} | {"model_type": "qwen3"}
    assert not _precision(dense).experts_kept


def test_the_answer_says_why():
    workload = parse_workload({"model": "config", "precision": "nf4"}, config=CASES[0]["config"])
    notes = [ENGLISH.say(note) for note in breakdown_notes(workload)]
    assert any("bitsandbytes#1849" in note for note in notes), notes


def test_the_reverse_answers_load_the_formats_as_the_answer_does():
    """"The most precise weights that fit" and the suggestions try each format as transformers 5 loads it: Qwen3.5
    35B-A3B in nf4 keeps its experts in bf16 (63.5 GiB of weights), so on a 24 GB card no format fits, though nf4
    with the experts converted (20.4 GiB) would."""
    from vramcalc.analysis.solve import solve
    from vramcalc.analysis.suggest import changes
    from vramcalc.inputs.parse import parse_target

    target = parse_target({"gpu": "rtx-4090"})
    for precision in ("bf16", "nf4"):
        workload = parse_workload({"model": "qwen3.5-35b-a3b", "precision": precision, "seq": "1024"})
        solution = solve(workload, target)
        assert solution.best_format is None, precision
        assert not any(change.key == "change.format" for change in changes(workload, target, solution))


def test_qlora_is_suggested_as_the_trainer_loads_it():
    """The trainer loads nf4 through from_pretrained: the experts stay bf16, and QLoRA does not fit a 48 GB card
    (Unsloth converts them: there it does)."""
    from vramcalc.analysis.solve import solve
    from vramcalc.analysis.suggest import changes
    from vramcalc.inputs.parse import parse_target

    target = parse_target({"gpu": "rtx-6000-ada"})
    for framework, suggested in (("trainer", False), ("unsloth", True)):
        workload = parse_workload({"model": "qwen3-30b-a3b", "mode": "training", "seq": "512",
                                   "framework": framework})
        keys = [change.key for change in changes(workload, target, solve(workload, target))]
        assert ("change.qlora" in keys or "change.qlora_checkpointing" in keys) is suggested, (framework, keys)


def test_vllm_names_a_quantization_method_only_for_formats_it_runs():
    """vLLM's --quantization flags (and SGLang's beside them) are for formats vLLM 0.34 loads: no bitsandbytes."""
    from vramcalc.engines.vllm import VLLM_QUANTIZATION

    for name, method in VLLM_QUANTIZATION.items():
        parse_workload({"runtime": "vllm", "precision": name})  # refused formats would leave a dead method
        assert method != "bitsandbytes", name
