"""Speculative decoding's speed (speed/speculative.py, speed/inference.py decode_step): Leviathan et al.'s tokens per
step, and the predicted speed-ups against the published runs of tests/data/speed/speculative_published.json (the
errors are in docs/accuracy.md, "Speculative decoding")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import DEFAULTS, estimate
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.parse import parse_workload
from vramcalc.speed import speed_of
from vramcalc.speed.hardware import device
from vramcalc.speed.inference import draft_seconds, forward, placement_of
from vramcalc.speed.speculative import expected_tokens, target
from vramcalc.workload import Machine

ROWS = json.loads((Path(__file__).parent / "data" / "speed" / "speculative_published.json").read_text())["rows"]


def test_expected_tokens_per_step():
    assert expected_tokens(0.0, 3) == 1.0
    assert expected_tokens(1.0, 3) == 4.0
    assert expected_tokens(0.85, 1) == pytest.approx(1.85)
    assert expected_tokens(0.7, 3) == pytest.approx(1 + 0.7 + 0.49 + 0.343)


def decode(values: dict[str, str]) -> float:
    workload = parse_workload({**DEFAULTS, **values})
    speed = speed_of(estimate(workload), workload.gpu, workload.devices, Machine())
    assert speed.decode_tokens_per_s is not None
    return speed.decode_tokens_per_s


def test_acceptance_sets_the_speed_up_and_the_basis_says_so():
    plain = {"model": "llama-3.1-8b", "precision": "q8_0", "runtime": "llamacpp", "gpu": "rtx-3060"}
    drafted = {**plain, "draft_model": "llama-3.2-1b"}
    base, none, most = decode(plain), decode({**drafted, "spec_acceptance": "0"}), decode(
        {**drafted, "spec_acceptance": "1"})
    assert none < base < decode(drafted) < most  # a = 0: every step pays the check and the drafts for one token
    workload = parse_workload({**DEFAULTS, **drafted})
    basis = speed_of(estimate(workload), workload.gpu, 1, Machine()).basis
    assert [p.key for p in basis if p.key.startswith("speed.speculative")] == ["speed.speculative",
                                                                               "speed.speculative.draft_checked"]


def test_acceptance_out_of_range_names_its_field():
    with pytest.raises(ValidationError) as error:
        parse_workload({**DEFAULTS, "spec_acceptance": "1.5"})
    assert error.value.field == "spec_acceptance"


def test_the_check_costs_a_step_when_memory_bound_and_more_when_compute_bound():
    """A step checking 2 tokens per sequence reads the weights once (one token's step at batch 1) but does twice the
    matmuls (twice the step when the batch is compute-bound): why speculation gains less at a large batch."""
    workload = parse_workload({**DEFAULTS, "model": "llama-3.1-8b", "runtime": "vllm", "seq": "512"})
    card, machine = device(workload.gpu, Machine()), Machine()
    placement = placement_of(estimate(workload), 1, 1)

    def ratio(batch: int) -> float:
        one, two = (forward(workload, card, machine, placement, batch=batch, depth=256, tokens=t) for t in (1, 2))
        return two.seconds / one.seconds

    assert ratio(1) < 1.05 and ratio(1024) > 1.6


def measured_run(row) -> tuple[float, float]:
    """(plain tokens/s, speculative tokens/s) of a llama.cpp row: the check of drafted + 1 tokens and `drafted`
    drafts per step, at the measured tokens per step, at the run's middle depth."""
    values = {"model": row["model"], "precision": row["weights"], "runtime": "llamacpp", "gpu": row["gpu"],
              "draft_model": row["draft_model"], "draft_precision": row["draft_weights"],
              "prompt_tokens": str(row["prompt_tokens"]), "output_tokens": str(row["output_tokens"])}
    workload = parse_workload({**DEFAULTS, **values})
    card, machine = device(workload.gpu, Machine()), Machine()
    placement = placement_of(estimate(workload), 1, 1)
    checker, k = target(workload), row["drafted"]
    depth = row["prompt_tokens"] + row["output_tokens"] // 2
    plain = forward(checker, card, machine, placement, batch=1, depth=depth).seconds
    check = forward(checker, card, machine, placement, batch=1, depth=depth, tokens=k + 1).seconds
    draft = draft_seconds(workload, checker, card, machine, placement, batch=1, depth=depth)
    return 1 / plain, row["tokens_per_step"] / (check + k * draft)


def test_llamacpp_draft_run():
    """llama.cpp issue #5877 (RTX 3060): the plain decode within 20 %, the speculative one over by about 60 %:
    llama-speculative's per-token sampling on the CPU (128k vocabulary, the draft's and the check's) and its other
    host work per step are not modelled (docs/accuracy.md). The test holds the model to what it does today."""
    row = next(r for r in ROWS if r.get("draft_model"))
    plain, spec = measured_run(row)
    assert plain / row["baseline_tokens_per_s"] - 1 == pytest.approx(0.17, abs=0.05)
    assert spec / row["tokens_per_s"] - 1 == pytest.approx(0.64, abs=0.1)


@pytest.mark.parametrize("row", [r for r in ROWS if r.get("ratio_only")], ids=lambda r: r["url"].split("/")[-1])
def test_mtp_speed_up(row):
    """DeepSeek's MTP at k = 1, batch 1: the predicted speed-up within 5 % of the published one."""
    base = {"model": row["model"], "precision": row["weights"], "runtime": "vllm", "gpu": row["assumed_gpu"],
            "gpus": str(row["gpus"]), "prompt_tokens": "1000", "output_tokens": "1000"}
    speedup = decode({**base, "mtp": "1", "spec_acceptance": str(row["acceptance"])}) / decode(base)
    assert speedup / row["speedup"] - 1 == pytest.approx(0, abs=0.05)


def test_a_draft_models_basis_says_how_far_off_the_published_run_was():
    values = {"model": "llama-3.1-8b", "precision": "q4_k_m", "runtime": "llamacpp", "gpu": "rtx-4090",
              "draft_model": "llama-3.2-1b"}
    workload = parse_workload({**DEFAULTS, **values})
    keys = [p.key for p in speed_of(estimate(workload), workload.gpu, 1, Machine()).basis]
    assert keys.count("speed.speculative.draft_checked") == 1
    workload = parse_workload({**DEFAULTS, **values, "draft_model": ""})
    assert "speed.speculative.draft_checked" not in [p.key for p in speed_of(estimate(workload), workload.gpu, 1,
                                                                             Machine()).basis]
