"""Memory other programs hold on each GPU (reserve_gb, issue 25): part of what each GPU holds beside the
model, so every verdict and llama.cpp's own fit see that much less; vLLM, which claims a share of the card's
total memory, stops at start when that share and the reserve do not both fit."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.speed_answers import fit_plan
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GB
from vramcalc.engines.llamacpp_fit import llamacpp_fit
from vramcalc.inputs.parse import parse_target, parse_workload
from vramcalc.render.messages import ENGLISH

LLAMACPP = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4060-ti-16gb"}


@pytest.mark.parametrize("values", [LLAMACPP, {"model": "qwen3-8b", "gpu": "rtx-4090"},
                                    {"model": "qwen3-8b", "mode": "training", "lora_rank": "16"}])
def test_the_reserve_adds_to_the_overhead_row_and_says_so(values):
    without = estimate(parse_workload(values))
    held = estimate(parse_workload({**values, "reserve_gb": "1.2"}))
    assert held.bytes_of("overhead") - without.bytes_of("overhead") == 1_200_000_000
    assert held.total_bytes - without.total_bytes == 1_200_000_000
    row = next(c for c in held.components if c.key == "overhead")
    assert "1.20 GB that other programs already hold on the GPU" in ENGLISH.say(row.formula)


def test_llamacpps_own_fit_sees_that_much_less_free():
    target = parse_target(LLAMACPP)
    plain, held = parse_workload(LLAMACPP), parse_workload({**LLAMACPP, "reserve_gb": "2"})
    free = target.gpu.usable_bytes - plain.overhead_bytes
    assert fit_plan(held, target) == llamacpp_fit(plain, free - 2 * GB)
    assert fit_plan(held, target).gpu_layers <= fit_plan(plain, target).gpu_layers


def test_vllm_is_refused_when_its_share_and_the_reserve_do_not_both_fit():
    # the estimate path (0.20-0.33; 0.34 with --no-enable-extensible-kv-cache) stops when less than its share is free
    vllm = {"model": "qwen3-8b", "runtime": "vllm", "gpu": "rtx-4090", "gpu_memory_utilization": "0.9",
            "no_extensible_kv_cache": "1"}
    with pytest.raises(ValidationError) as error:
        parse_workload({**vllm, "reserve_gb": "3"})  # 0.9 of 23.6 GiB claimed, 3 GB held elsewhere: 0.88 at most
    assert error.value.field == "reserve_gb" and "0.88 or less" in str(error.value)
    small = estimate(parse_workload({**vllm, "reserve_gb": "1"}))  # it fits in the 10 % vLLM leaves: no change
    assert small.runtime == estimate(parse_workload(vllm)).runtime
