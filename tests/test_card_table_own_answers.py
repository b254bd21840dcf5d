"""The cards table (fit_all, the page's table, `--json` "gpus") row by row against what the command line answers
with that card as --gpu: a card its engine refuses is refused in the table too, and an engine whose breakdown
changes with the card counts each row with that card's."""

from __future__ import annotations

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.fit import fit_all
from vramcalc.core.errors import ValidationError


def _rows(fields: dict[str, str], form: str) -> dict[str, object]:
    return {fit.gpu.slug: fit for fit in fit_all(estimate(parse_workload({**fields, "gpu": form})))}


@pytest.mark.parametrize(("fields", "card"), [
    ({"runtime": "vllm", "model": "llama-3.1-8b", "seq": "8192"}, "apple-m4-max-128gb"),
    ({"runtime": "vllm", "model": "qwen3-embedding-0.6b", "mode": "embedding"}, "apple-m3-ultra-512gb"),
    ({"runtime": "faster-whisper", "model": "whisper-small", "mode": "speech"}, "apple-m4-24gb"),
    ({"runtime": "faster-whisper", "model": "whisper-small", "mode": "speech"}, "mi300x"),
])
def test_a_card_the_engine_refuses_is_refused_in_the_table(fields, card):
    with pytest.raises(ValidationError) as refused:
        parse_workload({**fields, "gpu": card})
    row = _rows(fields, "h100-80gb")[card]
    assert row.refused == str(refused.value) and row.count is None


@pytest.mark.parametrize("form", ["apple-m4-max-128gb", "h100-80gb"])
def test_tei_rows_count_each_cards_own_attention(form):
    """TEI runs bge-m3 in float16 unpadded (flash) on NVIDIA cards and padded on a Mac (candle's Metal backend has
    no flash): an NVIDIA row is the NVIDIA answer whichever card the form names."""
    fields = {"runtime": "tei", "model": "bge-m3", "mode": "embedding", "seq": "512", "batch": "8"}
    own = estimate(parse_workload({**fields, "gpu": "rtx-4090"}))
    row = _rows(fields, form)["rtx-4090"]
    assert row.utilization == pytest.approx(own.total_bytes / own.workload.gpu.usable_bytes, rel=1e-9)


@pytest.mark.parametrize("extra", [{}, {"max_num_seqs": "8"}, {"kv_precision": "fp8"}, {"tp": "2", "gpus": "2"}])
def test_vllm_rows_need_the_pool_to_hold_the_sequences(extra):
    """vLLM does not start when its pool (gpu_memory_utilization of the card, less the rest) cannot hold the
    sequences asked: Llama 3.1 70B, 4 × 32,768 tokens on one MI300X is 99 % of its memory but a pool of 2.41
    sequences, so the answer with --gpu mi300x needs 2 GPUs, and its row says so."""
    from vramcalc.analysis.solve import min_gpus
    from vramcalc.workload import Target

    fields = {"runtime": "vllm", "model": "llama-3.1-70b", "seq": "32768", "batch": "4", **extra}
    for form in ("h100-80gb", "mi300x"):
        rows = _rows(fields, form)
        for slug in ("mi300x", "rtx-4090", "a100-40gb", "h200", "b200"):
            own = parse_workload({**fields, "gpu": slug})
            assert rows[slug].count == min_gpus(own, Target(gpu=own.gpu, count=own.devices)), (form, slug)
    assert _rows({"runtime": "vllm", "model": "llama-3.1-70b", "seq": "32768", "batch": "4"},
                 "h100-80gb")["mi300x"].verdict.value == "does not fit"
