"""The cards table under vLLM: each row is what vLLM would need on that card, whatever card the form names. vLLM
sizes its profiling run by the card (arg_utils.get_batch_defaults: 2048/256 below 70 GiB, 8192/1024 from 70 GiB,
16384/1024 from 160 GiB) and rounds the KV cache to the block its attention backend picks there (64 on CUDA, 16
under ROCm's ROCM_ATTN, a hybrid's enlarged block per unit): engines/vllm.py."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.fit import fit_all

CARDS = ("rtx-3090", "a100-80gb", "h100-80gb", "mi300x", "b200")


def _own(fields: dict[str, str], slug: str) -> float:
    breakdown = estimate(parse_workload({**fields, "gpu": slug}))
    return breakdown.total_bytes / breakdown.workload.gpu.usable_bytes


@pytest.mark.parametrize("model", ["qwen3.5-27b", "llama-3.1-8b"])
@pytest.mark.parametrize("form", ["h100-80gb", "rtx-3090", "mi300x"])
def test_each_row_is_its_own_cards_answer(model, form):
    fields = {"runtime": "vllm", "model": model, "seq": "32768", "batch": "4"}
    rows = {fit.gpu.slug: fit for fit in fit_all(estimate(parse_workload({**fields, "gpu": form})))}
    for slug in CARDS:
        assert rows[slug].utilization == pytest.approx(_own(fields, slug), rel=1e-9), (model, form, slug)


def test_the_rows_differ_where_vllms_settings_do():
    """Not one breakdown shifted by overheads: an RTX 3090's profiling run samples 256 sequences, an H100's 1,024
    (Qwen3.5's 248,320-token vocabulary: about 6 GiB apart), and the MI300X's hybrid block is 784 tokens, the
    H100's 832."""
    fields = {"runtime": "vllm", "model": "qwen3.5-27b", "seq": "32768", "batch": "4"}
    small, large = (estimate(parse_workload({**fields, "gpu": slug})) for slug in ("rtx-3090", "h100-80gb"))
    assert large.bytes_of("activations") - small.bytes_of("activations") > 5 * 2**30
    rocm, cuda = (estimate(parse_workload({**fields, "gpu": slug})) for slug in ("mi300x", "h100-80gb"))
    assert rocm.bytes_of("kv_cache") < cuda.bytes_of("kv_cache")
