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
# to. (The A10G's bnb-int8 rows, bitsandbytes of December 2023, are predicted with bnb_version 0.41.3 since
# 2026-12-07: mistral-7b +116 % -> +28 %, llama-2-7b +72 % -> +2 %.)
MISSED = {
    ("rtx-4090", "llama-3.1-8b", "bnb-int8", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "llama-3.1-8b", "nf4", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "qwen2.5-14b", "bnb-int8", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
    ("rtx-4090", "qwen2.5-14b", "nf4", "decode-b1"): "a desktop host, twice as fast as the servers' per layer",
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
    """The median is 13.9 % over 73 rows, within the 15 % goal: the six rows of Yi-6B and Sheared-LLaMA-1.3B that
    joined on 2026-12-07 took it to 16.5 % until LLM.int8() before bitsandbytes 0.45 was modelled (speed/bnb.py).
    Their A10G source still decodes 16-bit models slower than predicted (Llama-2-7B +47 %, Mistral-7B +43 %, Yi-6B
    +33 %, Sheared-LLaMA +17 %; docs/accuracy.md)."""
    stats = validate_speed.summary(ROWS)["transformers-cuda decode"]
    assert stats["median"] <= validate_speed.GOALS["decode"]
    assert stats["worst"] <= 1.2
    assert stats["within_2x"] == len(ROWS) - len(MISSED)


@pytest.mark.parametrize("row", [pytest.param(row, id="-".join(_key(row)), marks=pytest.mark.xfail(
    strict=True, reason=MISSED[_key(row)])) if _key(row) in MISSED else pytest.param(row, id="-".join(_key(row)))
    for row in ROWS])
def test_each_row_within_2x(row):
    assert 0.5 < 1 + row["error"] < 2


def _decode(precision: str, gpu: str, batch: int = 1, **extra: str) -> float:
    workload = parse_workload({"model": "llama-3.1-8b", "runtime": "transformers", "precision": precision,
                               "gpu": gpu, "prompt_tokens": "64", "output_tokens": "100", "batch": str(batch),
                               **extra})
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


@pytest.mark.parametrize("gpu", ["rtx-4090", "h100-80gb", "a10g"])
def test_llm_int8_before_0_45_is_the_readmes_ratio_slower(gpu):
    """bitsandbytes' benchmarking README: v0.44.1's INT8+Decomp latency is 1.63-1.82x v0.45.0's on the same
    machines (0.41.3-0.44's MatMul8bitLt: more kernels and host synchronisations per layer); 4-bit and 16-bit
    layers are not that path."""
    new, old = _decode("bnb-int8", gpu), _decode("bnb-int8", gpu, bnb_version="0.44.1")
    assert new / old == pytest.approx(1.69, rel=0.01)
    assert _decode("bnb-int8", gpu, bnb_version="0.45.0") == new
    assert _decode("bf16", gpu, bnb_version="0.41.3") == _decode("bf16", gpu)


@pytest.mark.parametrize(("precision", "calls"), [("nf4", 1), ("nf4-dq", 2)])
def test_4bit_before_0_45_switches_the_device_at_every_call(precision, calls):
    """bitsandbytes 0.41.3's gemv_4bit, dequantize_4bit and dequantize_blockwise call pre_call/post_call
    (torch.cuda.set_device there and back); 0.45 enters a nullcontext on one GPU. On the host-bound H100 the
    README's v0.44.1 step is longer by about 26 us per call and linear layer (224 in Llama 3.1 8B)."""
    new, old = _decode(precision, "h100-80gb"), _decode(precision, "h100-80gb", bnb_version="0.44.1")
    assert 1 / old - 1 / new == pytest.approx(224 * calls * 26e-6, rel=0.01)
    assert _decode(precision, "h100-80gb", bnb_version="0.45.0") == new


def test_the_a10g_rows_carry_their_bitsandbytes():
    """optimum-quanto PR #62 ran on 2023-12-21: bitsandbytes 0.41.3 at the newest. Yi-6B's and Sheared-LLaMA's
    rows (+20 %, +6 %) joined after the factor was set on the other two."""
    a10g = [row for row in ROWS if row["gpu"] == "a10g" and row["weights"] == "bnb-int8"]
    assert len(a10g) == 4 and all(0.5 < 1 + row["error"] < 1.35 for row in a10g)
