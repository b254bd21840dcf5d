"""KTO's step, phase by phase, against TRL's KTOTrainer measured on small models (tests/golden/measured_kto.json,
written by tools/measure_kto.py: every storage an ATen op makes, counted until it is freed, over two steps of
`KTOTrainer.training_step` and AdamW)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from preference_cases import case_id, case_workload, measured_exactly
from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Objective, Reference
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.parse import parse_workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_kto.json").read_text(encoding="utf-8"))
TOLERANCE = 0.10  # as the supervised step's (test_golden_peak.py)
# the engine's phase, and the measured phase whose peak it is held to
PHASES = {"kl": "kl", "forward": "forward", "reference": "reference", "loss": "backward", "layers": "layers",
          "optimizer": "optimizer"}


CASES = [pytest.param(case, id=case_id(case)) for case in GOLDEN["kto"] if measured_exactly(case)]


def test_every_planned_case_was_measured():
    assert not GOLDEN["skipped"] and len(CASES) == len(GOLDEN["kto"]) >= 20


@pytest.mark.parametrize("case", CASES)
def test_kto_peak_and_every_phase(case):
    breakdown = estimate(case_workload(case, Objective.KTO))
    engine = breakdown.phase_totals()
    engine["layers"] = max(engine["backward_start"], engine["backward_end"])
    measured = case["phases"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=TOLERANCE)
    assert ("reference" in engine) == ("reference" in measured) == (case["reference"] != "precomputed")
    assert "kl" in engine and "kl" in measured
    for ours, theirs in PHASES.items():
        if theirs in measured:
            assert engine[ours] == pytest.approx(measured[theirs]["peak"], rel=TOLERANCE), ours


@pytest.mark.parametrize("case", CASES)
def test_kto_model_states_are_exact(case):
    """The policy's (and a reference copy's) weights, gradients and AdamW state, byte for byte."""
    breakdown = estimate(case_workload(case, Objective.KTO))
    assert breakdown.size_of("weights") == case["weight_bytes"]
    assert breakdown.size_of("gradients") == case["trainable_bytes"]
    assert breakdown.size_of("optimizer") == 2 * case["trainable_bytes"]


def test_kto_trains_on_its_batch_and_scores_the_kl_batch_without_gradients():
    """Against DPO of the same sequences (half as many pairs): the same activations; the KL phase holds the states
    and a no-grad forward only, below the reference's, which has the policy's activations beside it."""
    case = next(c for c in GOLDEN["kto"] if c["family"] == "llama" and c["reference"] == "copy" and not c["lora"]
                and c["checkpointing"] == "none" and c["recipe"] == "bf16")
    kto = estimate(case_workload(case, Objective.KTO))
    dpo = estimate(case_workload(case, Objective.DPO, batch=case["batch"] // 2))
    assert kto.size_of("activations") == dpo.size_of("activations")
    assert kto.phases["kl"]["activations"] == 0 < kto.phases["reference"]["activations"]
    assert kto.phase_totals()["kl"] < kto.phase_totals()["reference"]
    precomputed = estimate(case_workload(case, Objective.KTO, reference=Reference.PRECOMPUTED))
    assert "reference" not in precomputed.phases and "kl" in precomputed.phases


@pytest.mark.parametrize(("changes", "field"), [
    ({"batch": "1"}, "batch"),  # KTOTrainer: "Actual (not effective) batch size must be > 1"
    ({"reference": "none"}, "reference"),
    ({"fused_ce": "1"}, "fused_ce"),  # TRL refuses Liger's fused linear cross-entropy: it patches the forward
])
def test_kto_refuses_what_trl_refuses(changes, field):
    with pytest.raises(ValidationError) as error:
        parse_workload({"model": "llama-3.1-8b", "mode": "training", "objective": "kto", "batch": "4", **changes})
    assert error.value.field == field



def test_reverse_answers_offer_no_batch_trl_refuses():
    """The largest batch on a card is at least 2, or none: where one completion fits and two do not, none."""
    from vramcalc.analysis.solve import fits, max_batch
    from vramcalc.inputs.parse import parse_target

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": "kto", "seq": "4096",
              "batch": "2", "gpu": "h200"}
    workload, target = parse_workload(values), parse_target(values)
    most = max_batch(workload, target)
    assert most is not None and most >= 2
    assert fits(workload.but(batch=most), target) and not fits(workload.but(batch=most + 1), target)
    seq = next(s for s in range(4096, 131072, 1024)
               if fits(workload.but(seq=s, batch=1), target) and not fits(workload.but(seq=s, batch=2), target))
    assert max_batch(workload.but(seq=seq), target) is None
