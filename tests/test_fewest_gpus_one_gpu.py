"""llama.cpp's speculative decoding (a draft model, the MTP layers) is modelled on one GPU: --gpus 2 is refused, so
the fewest GPUs is one or none, never a count the command line refuses (in the answers and the cards table)."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.fit import fit_all
from vramcalc.analysis.solve import min_gpus
from vramcalc.core.errors import ValidationError
from vramcalc.workload import Target

CASES = [
    {"model": "gemma-4-e2b-it", "runtime": "llamacpp", "draft_model": "gemma-4-e2b-it-assistant", "seq": "2000000",
     "gpu_layers": "999"},
    {"model": "qwen3.5-27b", "runtime": "llamacpp", "mtp": "1"},
]


@pytest.mark.parametrize("fields", CASES)
def test_no_count_the_command_line_refuses(fields):
    workload = parse_workload({**fields, "gpu": "rtx-3060"})
    with pytest.raises(ValidationError):
        parse_workload({**fields, "gpu": "rtx-3060", "gpus": "2"})
    assert min_gpus(workload, Target(gpu=workload.gpu)) is None
    row = {fit.gpu.slug: fit for fit in fit_all(estimate(workload))}["rtx-3060"]
    assert row.count is None and row.verdict.value == "does not fit"


def test_one_gpu_that_holds_it_stays_one():
    workload = parse_workload({**CASES[1], "gpu": "h100-80gb"})
    assert min_gpus(workload, Target(gpu=workload.gpu)) == 1



def test_the_answer_says_why():
    """Not "what every GPU keeps is more than one card", the reason for a layout that replicates too much."""
    from vramcalc.render.view import present_target

    workload = parse_workload({**CASES[1], "gpu": "rtx-3060"})
    answer = next(a for a in present_target(workload, Target(gpu=workload.gpu)).answers if a.key == "min_gpus")
    assert answer.value is None and "modelled on one GPU" in answer.text
