"""TRL GRPO step times against published runs (tests/data/speed/trl_published.json, tools/validate_trl_speed.py),
recomputed with the engine as it is: no rate is fitted to these rows. What they show (docs/accuracy.md, 'DPO and GRPO
times against published runs'): the three usable open-r1 runs fall within 2x, the worst 23% off; the two runs with
a vLLM GPU apart are under-predicted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import validate_speed  # noqa: E402
import validate_trl_speed  # noqa: E402


def test_every_row_quotes_its_source_and_names_its_inputs():
    rows = validate_trl_speed.table()["rows"]
    assert len(rows) >= 4
    for row in rows:
        assert row["quoted"] and row["url"].startswith("https://github.com/"), row["id"]
        for field in ("objective", "slug", "gpus", "batch", "grad_accum", "seq", "rollout", "step_s"):
            assert row.get(field) is not None, (row["id"], field)


def test_the_published_grpo_steps_are_predicted_within_a_quarter():
    found = validate_trl_speed.results()
    assert len(found) == 3  # the anomalous row (one first iteration, a config that disagrees) is not predicted
    summary = validate_trl_speed.summary(found)
    assert summary["within_2x"] == 3
    assert summary["worst"] < 0.25, found
    assert 0.10 < summary["median"] < 0.25, found


def test_the_runs_with_vllm_on_a_gpu_apart_are_under_predicted_and_rollout_bound():
    # the engine times the rollout at one trainer's batch on the card, not the whole batch of the 7 trainers on
    # the one vLLM GPU, and leaves out the weights' copy to vLLM each step: both runs come out shorter
    for result in validate_trl_speed.results():
        assert result["rollout_s"] / result["predicted"] > 0.75, result
        if result["rollout"] == "vllm-server":
            assert -0.30 < result["error"] < -0.10, result


def test_the_general_speed_table_leaves_these_rows_to_their_own_tool():
    assert not any(source.startswith("trl_") for source, _ in validate_speed.rows())


def test_the_stored_grpo_error_is_the_measured_one():
    """data/speed.json's "trl-grpo" (the page's GRPO error line, speed/validation.py) is what
    `tools/validate_trl_speed.py --write` stores from these rows, not a stale copy."""
    from vramcalc.speed.hardware import calibration

    stored = calibration()["validation"]["trl-grpo"]
    found = validate_trl_speed.summary([r for r in validate_trl_speed.results() if r["objective"] == "grpo"])
    assert stored == {"median": round(found["median"], 3), "worst": round(found["worst"], 3), "rows": found["rows"]}


# ---- the preference trainers (tests/data/speed/trl_preference_published.json; docs/accuracy.md 'Preference-tuning
# times against published runs'): an ORPO, a KTO and a DPO run predicted, a DPO run recorded without its card

PREFERENCE = validate_trl_speed.PREFERENCE
# rows the engine misses by more than 2x, and why (no rate is fitted to them: the reason is the finding)
OFF_BY_2X = {
    "zephyr-orpo-141b-a35b-32xh100": "transformers' eager Mixtral under FSDP ran at about a fifth of the H100's dense "
                                     "BF16 rate; the engine's share (62 %) was fitted to torchtune's compiled SFT runs",
    "trl-docs-kto-qwen2-0.5b-8xh100": "a 0.5B model in fp32, batch 8 x 512: a step of ~0.6 s of matmuls against a "
                                      "rounded 'approximately 30 minutes' for 633 steps; per-step overheads the "
                                      "engine does not time",
}


def _preference_rows():
    return [row for row in validate_trl_speed.table(PREFERENCE)["rows"] if not row.get("anomalous")]


def test_every_preference_row_quotes_its_source_and_its_step_is_its_runtime_over_its_steps():
    rows = validate_trl_speed.table(PREFERENCE)["rows"]
    assert {row["objective"] for row in rows} == {"dpo", "orpo", "kto"}
    for row in rows:
        assert row["quoted"] and row["url"].startswith("https://"), row["id"]
        assert row.get("anomalous") or row.get("inputs_assumed"), row["id"]  # no row states every input it ran
        for field in ("slug", "gpus", "batch", "grad_accum", "seq", "steps", "run_s", "step_s", "config"):
            assert row.get(field) is not None, (row["id"], field)
        assert row["step_s"] == pytest.approx(row["run_s"] / row["steps"], rel=0.01), row["id"]


def _within_2x(rows, off):
    """A published step per row, each predicted within 2x or a strict expected failure naming why not."""
    return [pytest.param(row, id=row["id"], marks=pytest.mark.xfail(strict=True, reason=off[row["id"]]))
            if row["id"] in off else pytest.param(row, id=row["id"]) for row in rows]


@pytest.mark.parametrize("row", _within_2x(_preference_rows(), OFF_BY_2X))
def test_a_published_preference_step_is_predicted_within_2x(row):
    _predicted_within_2x(row)


def _predicted_within_2x(row):
    predicted = validate_trl_speed.predict(row).step_s
    assert predicted is not None
    assert 0.5 < predicted / row["step_s"] < 2


def test_every_preference_run_took_longer_than_predicted():
    # what the page says (speed.error.preference): every run slower than predicted, none faster; the two on
    # FSDP / DDP eager stacks by 3-5x, the single-GPU QLoRA DPO run within a quarter
    found = {r["id"]: r["measured"] / r["predicted"] for r in validate_trl_speed.results(PREFERENCE)}
    assert len(found) == 3 and all(ratio > 1 for ratio in found.values()), found
    assert 3 < found["zephyr-orpo-141b-a35b-32xh100"] < 4 and 4 < found["trl-docs-kto-qwen2-0.5b-8xh100"] < 6
    assert found["neuralhermes-2.5-mistral-7b-dpo-qlora-1xa100"] < 1.25


def test_the_dpo_run_without_its_card_lies_between_the_h100_and_a100_predictions():
    # why it is recorded and not predicted: the card it ran on decides the error, and it is not stated
    row = next(r for r in validate_trl_speed.table(PREFERENCE)["rows"] if r.get("anomalous"))
    assert row["objective"] == "dpo"
    h100 = validate_trl_speed.predict(row).step_s
    a100 = validate_trl_speed.predict({**row, "slug": "a100-80gb"}).step_s
    assert h100 < row["step_s"] / 2 and 0.5 < a100 / row["step_s"] < 2, (h100, a100)


def test_the_stored_preference_line_is_the_measured_one():
    from vramcalc.speed.hardware import calibration

    stored = calibration()["validation"]["trl-pref"]
    assert stored == validate_trl_speed.preference_line(validate_trl_speed.results(PREFERENCE))


@pytest.mark.parametrize("objective", ["dpo", "orpo", "kto"])
def test_a_preference_answer_carries_the_published_runs_range(objective):
    from vramcalc.inputs.parse import parse_workload
    from vramcalc.speed.validation import expected_error

    workload = parse_workload({"model": "mistral-7b", "mode": "training", "objective": objective, "gpu": "h100-80gb",
                               "batch": "2"})
    said = expected_error(workload)
    values = dict(said.values)
    assert said.key == "speed.error.preference"
    assert values["low"] == "1.2" and values["high"] == "4.8" and values["rows"] == 3 and values["worst"] == "79%"


def test_objectives_with_no_published_run_still_say_not_checked():
    from vramcalc.inputs.parse import parse_workload
    from vramcalc.speed.validation import expected_error

    workload = parse_workload({"model": "qwen2.5-7b", "mode": "training", "objective": "rloo", "gpu": "h100-80gb",
                               "batch": "8"})
    assert expected_error(workload).key == "speed.error.objective"


# ---- the Hugging Face Trainer's supervised runs (tests/data/speed/trl_sft_published.json; docs/accuracy.md 'Hugging
# Face Trainer SFT times against published runs'): too few to fit a rate of the Trainer's own, so none is fitted

SFT = validate_trl_speed.SFT
SFT_OFF_BY_2X = {
    "philschmid-llama-3.1-8b-qlora-packed-1xl4": "QLoRA r 256 under eager transformers on an L4 (72 W): the step "
                                                 "took 4.8x the engine's, whose share was fitted to torchtune's "
                                                 "compiled bf16 runs",
    "trl-notebook-qwen3-8b-qlora-1xa100-40gb": "QLoRA with fp16 compute under eager transformers: 2.4x the engine's "
                                               "step even at the upper bound of its lengths",
    "trl-notebook-qwen3-14b-qlora-offload-1xt4": "a Colab T4 (70 W) with activations offloaded over PCIe and "
                                                 "bitsandbytes dequantising every matmul: 17x the engine's step",
}


def _sft_rows():
    return [row for row in validate_trl_speed.table(SFT)["rows"] if not row.get("anomalous")]


def test_every_sft_row_quotes_its_source_and_its_step_is_its_time_over_its_steps():
    rows = validate_trl_speed.table(SFT)["rows"]
    assert {row["objective"] for row in rows} == {"sft"} and len(_sft_rows()) == 3
    for row in rows:
        assert row["quoted"] and row["url"].startswith("https://github.com/") and row["config"], row["id"]
    for row in _sft_rows():
        for field in ("slug", "gpus", "batch", "grad_accum", "seq", "steps", "run_s", "step_s", "lora_rank"):
            assert row.get(field) is not None, (row["id"], field)
        assert row["step_s"] == pytest.approx(row["run_s"] / row["steps"], rel=0.01), row["id"]


def test_the_sft_rows_are_read_as_their_sources_ran_them():
    # what values() hands the engine: the offloading and Liger's fused loss the T4 run turned on, the 4-bit base
    t4 = next(row for row in _sft_rows() if row["slug"] == "tesla-t4")
    values = validate_trl_speed.values(t4)
    assert values["activation_offload"] == "1" and values["fused_ce"] == "1" and values["precision"] == "nf4"
    assert values["objective"] == "sft" and values["lora_rank"] == "32"


@pytest.mark.parametrize("row", _within_2x(_sft_rows(), SFT_OFF_BY_2X))
def test_a_published_sft_step_is_predicted_within_2x(row):
    _predicted_within_2x(row)


def test_every_trainer_sft_run_took_longer_than_predicted_and_none_is_counted_elsewhere():
    # the finding the rows hold (and why no rate is fitted to three one-GPU QLoRA runs on three kinds of card):
    # each took 2-20x the predicted step; they stay out of the GRPO and preference lines --write stores
    found = validate_trl_speed.results(SFT)
    ratios = sorted(r["measured"] / r["predicted"] for r in found)
    assert len(ratios) == 3 and ratios[0] > 2 and ratios[-1] < 20, ratios
    assert not {r["id"] for r in found} & {r["id"] for r in validate_trl_speed.results(PREFERENCE)}


def test_the_stored_trainer_line_is_the_measured_one():
    from vramcalc.speed.hardware import calibration

    stored = calibration()["validation"]["trl-sft"]
    assert stored == validate_trl_speed.trainer_line(validate_trl_speed.results(validate_trl_speed.SFT))
    assert stored["low"] > 1  # every run slower than predicted: what the answer's words say


@pytest.mark.parametrize(("framework", "said"), [("trainer", True), ("axolotl", True), ("torchtune", False),
                                                  ("unsloth", False)])
def test_a_trainer_sft_answer_says_its_own_runs_were_slower(framework, said):
    """The SFT rate is fitted to torchtune's compiled runs; under the Hugging Face Trainer the answer also says that
    the Trainer's published runs took longer (tests/data/speed/trl_sft_published.json)."""
    from vramcalc.inputs.parse import parse_workload
    from vramcalc.speed.validation import expected_error

    workload = parse_workload({"model": "llama-3.1-8b", "mode": "training", "lora_rank": "16", "gpu": "a100-80gb",
                               "framework": framework})
    key = expected_error(workload).key
    assert key == ("speed.error.trainer" if said else "speed.error"), key
