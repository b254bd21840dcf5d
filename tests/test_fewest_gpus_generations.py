"""The fewest GPUs for GRPO and RLOO: TRL refuses a count of GPUs whose generation batch (--batch × GPUs ×
--grad-accum) the generations per prompt do not divide, so that count is no answer even where it has room."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.solve import min_gpus
from vramcalc.core.errors import ValidationError
from vramcalc.workload import Target

FIELDS = {"model": "qwen3-0.6b", "mode": "training", "lora_rank": "16", "objective": "grpo", "batch": "2",
          "seq": "1024", "gpu": "h100-80gb"}


def test_the_answer_is_a_count_trl_runs():
    """8 generations a prompt, 2 prompts a GPU: one GPU (batch 2) is refused, 4 GPUs (8) run."""
    workload = parse_workload({**FIELDS, "gpus": "4"})
    with pytest.raises(ValidationError, match="num_generations"):
        parse_workload({**FIELDS, "gpus": "1"})
    with pytest.raises(ValidationError, match="num_generations"):
        parse_workload({**FIELDS, "gpus": "2"})
    answer = min_gpus(workload, Target(gpu=workload.gpu, count=4))
    assert answer == 4
    parse_workload({**FIELDS, "gpus": str(answer)})


def test_a_count_that_divides_stays_one():
    workload = parse_workload({**FIELDS, "batch": "8", "gpus": "4"})
    assert min_gpus(workload, Target(gpu=workload.gpu, count=4)) == 1


def test_a_count_off_the_doubling_search():
    """6 generations, 4 prompts a GPU: multiples of 3 GPUs only, which 1, 2, 4, 8, ... never meet."""
    workload = parse_workload({**FIELDS, "num_generations": "6", "batch": "4", "gpus": "3"})
    assert min_gpus(workload, Target(gpu=workload.gpu, count=3)) == 3
