"""The estimator against bytes measured on Hugging Face transformers models
(tests/golden/measured.json, written by tools/measure_reference.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode, Optimizer
from vramcalc.core.dtypes import Precision
from vramcalc.model.table import param_count
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]

STATE_TOLERANCE = 0.01  # parameters, weights, gradients, optimizer state, KV cache
ACTIVATION_TOLERANCE = 0.10  # training activations + logits


def _ids(kind):
    return [
        "-".join(str(case.get(k, ""))
                 for k in ("family", "attention", "precision", "batch", "seq", "checkpointing")).strip("-")
        for case in CASES
        if case["kind"] == kind
    ]


def _cases(kind):
    return [case for case in CASES if case["kind"] == kind]


def _workload(case, **overrides):
    fields = dict(model=from_hf_config(case["config"]), overhead_bytes=0)
    fields.update(overrides)
    return Workload(**fields)


@pytest.mark.parametrize("case", _cases("states"), ids=_ids("states"))
def test_parameter_count_is_exact(case):
    assert param_count(from_hf_config(case["config"])) == case["measured"]["params"]


@pytest.mark.parametrize("case", _cases("states"), ids=_ids("states"))
def test_weights_gradients_and_adamw_state(case):
    workload = _workload(case, mode=Mode.TRAINING, precision=Precision.FP32, optimizer=Optimizer.ADAMW)
    breakdown = estimate(workload)
    measured = case["measured"]
    assert breakdown.size_of("weights") == pytest.approx(measured["weight_bytes_fp32"], rel=STATE_TOLERANCE)
    assert breakdown.size_of("gradients") == pytest.approx(measured["gradient_bytes_fp32"], rel=STATE_TOLERANCE)
    assert breakdown.size_of("optimizer") == pytest.approx(measured["adamw_state_bytes"], rel=STATE_TOLERANCE)


def _decoding(case, spec):
    """The cache while tokens are generated. Measured right after the prefill, a sliding or chunked
    layer of window W shows its last W - 1 tokens; each decoding step appends one before it cuts
    again, so it holds W (checked after one step on mistral-swa and llama4_text), which the engine
    counts. Every other layer is as measured."""
    measured = case["measured"]
    per_layer = measured.get("kv_cache_layer_bytes")
    if per_layer is None:
        return measured["kv_cache_bytes"]
    one_token = case["batch"] * 2 * spec.kv_heads * spec.head_dim * 2  # bf16 K and V
    return sum(
        size + (one_token if spec.tokens_kept(kind, case["seq"]) < case["seq"] else 0)
        for size, kind in zip(per_layer, spec.kinds, strict=True)
    )


@pytest.mark.parametrize("case", _cases("kv_cache"), ids=_ids("kv_cache"))
def test_kv_cache(case):
    workload = _workload(case, precision=Precision(case["precision"]), batch=case["batch"], seq=case["seq"])
    expected = _decoding(case, workload.model)
    assert estimate(workload).size_of("kv_cache") == pytest.approx(expected, rel=STATE_TOLERANCE)


@pytest.mark.parametrize("case", _cases("training"), ids=_ids("training"))
def test_training_activations_and_logits(case):
    workload = _workload(
        case,
        mode=Mode.TRAINING,
        precision=Precision(case["precision"]),
        batch=case["batch"],
        seq=case["seq"],
        attention=Attention(case["attention"]),
        checkpointing=Checkpointing(case["checkpointing"]),
    )
    breakdown = estimate(workload)
    estimated = breakdown.size_of("activations") + breakdown.size_of("logits")
    assert estimated == pytest.approx(case["measured"]["saved_bytes"], rel=ACTIVATION_TOLERANCE)
    assert breakdown.size_of("gradients") == pytest.approx(case["measured"]["gradient_bytes"], rel=STATE_TOLERANCE)
