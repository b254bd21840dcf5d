"""bitsandbytes under transformers generate (speed/bnb.py): held to the published decode runs of
tests/data/speed/transformers_bnb_*.json (docs/accuracy.md, "bitsandbytes decode speed")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.inputs.parse import parse_workload
from vramcalc.speed import speed_of
from vramcalc.workload import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import validate_speed

# Rows the model misses by 2x or more, and why (docs/accuracy.md): the RTX 4090 rows ran on a desktop whose CPU
# runs transformers' per-layer Python in about half the time of the H100 and A100 servers the host rate is fitted
# to; the A10G's LLM.int8() is bitsandbytes of December 2023, before 0.45 rewrote it (1.6-1.8x faster, its README).
MISSED = {
    ("rtx-4090", "llama-3.1-8b", "bnb-int8", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "llama-3.1-8b", "nf4", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "qwen2.5-14b", "bnb-int8", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "qwen2.5-14b", "nf4", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("a10g", "mistral-7b", "bnb-int8", "decode-b1"): "LLM.int8() of bitsandbytes 0.41, before the 0.45 rewrite",
    ("a10g", "yi-6b", "bnb-int8", "decode-b1"): "LLM.int8() of bitsandbytes 0.41, before the 0.45 rewrite",
}
ROWS = validate_speed.results("transformers_bnb")


def _key(row: dict) -> tuple[str, str, str, str]:
    return row["gpu"], row["model"], row["weights"], row["test"]


def test_the_published_rows_are_predicted():
    assert len(ROWS) == 73  # with optimum-quanto PR #62's Yi-6B and Sheared-LLaMA-1.3B, presets since 2026-12-07
    assert {row["source"] for row in ROWS} == {"transformers_bnb_benchmarking_v045",
                                              "transformers_bnb_optimum_a100_llama2_13b",
                                              "transformers_bnb_quanto_pr62_a10g"}


def test_the_error_is_the_one_reported():
    """The median is 16.5 %, over the 15 % goal since the six rows of Yi-6B and Sheared-LLaMA-1.3B joined (14.0 %
    without them): their A10G source, bitsandbytes 0.41 of December 2023, decodes every model slower than predicted
    (16-bit: Llama-2-7B +47 %, Mistral-7B +43 %, Yi-6B +33 %, Sheared-LLaMA +17 %; docs/accuracy.md)."""
    stats = validate_speed.summary(ROWS)["transformers-cuda decode"]
    assert stats["median"] <= 0.17
    assert stats["worst"] <= 1.2
    assert stats["within_2x"] == len(ROWS) - len(MISSED)


@pytest.mark.parametrize("row", [pytest.param(row, id="-".join(_key(row)), marks=pytest.mark.xfail(
    strict=True, reason=MISSED[_key(row)])) if _key(row) in MISSED else pytest.param(row, id="-".join(_key(row)))
    for row in ROWS])
def test_each_row_within_2x(row):
    assert 0.5 < 1 + row["error"] < 2


def _decode(precision: str, gpu: str, batch: int = 1) -> float:
    workload = parse_workload({"model": "llama-3.1-8b", "runtime": "transformers", "precision": precision,
                               "gpu": gpu, "prompt_tokens": "64", "output_tokens": "100", "batch": str(batch)})
    rate = speed_of(estimate(workload), workload.gpu, 1, Machine()).decode_tokens_per_s
    assert rate is not None
    return rate


@pytest.mark.parametrize("gpu", ["rtx-4090", "h100-80gb"])
@pytest.mark.parametrize("batch", [1, 8, 32])
def test_llm_int8_decodes_slower_than_bf16(gpu, batch):
    """The rows: 22.3 against 47.4 tokens/s on the RTX 4090 at batch 1, 12.2 against 41.0 on the H100."""
    assert _decode("bnb-int8", gpu, batch) < 0.6 * _decode("bf16", gpu, batch)


@pytest.mark.parametrize("gpu", ["rtx-4090", "h100-80gb"])
def test_nf4_dequantises_at_batch_above_one(gpu):
    """More than one token: dequantize_4bit then a 16-bit matmul, slower than bf16 (the rows: 23.5 against 41.8
    tokens/s on the RTX 4090 at batch 8) and than nf4's own batch-1 kernel."""
    assert _decode("nf4", gpu, 8) < _decode("bf16", gpu, 8)
    assert _decode("nf4", gpu, 8) < 0.8 * _decode("nf4", gpu, 1)
