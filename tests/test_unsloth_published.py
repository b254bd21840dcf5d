"""Unsloth's published context-length tables against the engine (tests/data/unsloth_published.json, which quotes
each source and lists what it states and what it leaves out; docs/accuracy.md, "Unsloth's published figures").

The README's tables (unslothai/unsloth e3162dc5, Unsloth 2025.1.5): Llama 3.1 8B Instruct and Llama 3.3 70B
Instruct, 4-bit QLoRA on q, k, v, o, gate, up and down at rank 32, batch 1, sequences padded to the length; the
answer is the longest sequence that trained on a card of that memory. Assumed, as the same README's example runs:
AdamW 8-bit and Unsloth's offloaded checkpointing (what `--framework unsloth` sets); "GB" read as GiB (an A100 80GB
has 80 GiB), the card's whole memory, CUDA context included.

A context length is the memory left after the fixed part divided by the bytes per token, so an error in either
moves it by more than its own share: 15 % for these reverse answers, where the bytes are held at 10 %. The tables
are straight lines (every row on one slope), so their two parts are tested on their own as well: the memory at no
tokens, which the engine matches, and the bytes per token, which it counts about 1.34 times Unsloth's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.solve import last_within
from vramcalc.core.units import GIB
from vramcalc.inputs.options import MAX_SEQ

DATA = json.loads((Path(__file__).parent / "data" / "unsloth_published.json").read_text(encoding="utf-8"))
TABLES = {table["model"]: table for table in DATA["context_tables"]}
CONTEXT_TOLERANCE = 0.15
TOLERANCE = 0.10

# The engine counts transformers' and peft's layer (measured on the CPU: model/families/decoder/saved.py) in the
# recompute, and three MLP-wide gradient tensors in its backward. Unsloth replaces both with its kernels
# (unsloth/kernels/fast_lora.py: LoRA_MLP saves X, e and g and computes the SwiGLU backward in place, one MLP-wide
# tensor, DW; LoRA_QKV and LoRA_W save their input; its Triton RMSNorm saves X and r). Counted from that source,
# about 21 to 22.5 hidden sizes per token, under the 27.5 the tables imply; the engine's 37. Not measurable here.
PER_TOKEN_GAP = ("the engine counts 304,200 B a token for Llama 3.1 8B and 603,336 for Llama 3.3 70B, the tables "
                 "227,500 and 444,600 (1.34 and 1.36 times): transformers' and peft's layer and 3 MLP-wide "
                 "gradients, where Unsloth's fast_lora kernels save X, e, g and compute the SwiGLU backward in place")


def setup(model: str) -> dict[str, str]:
    return {"mode": "training", "model": model, "framework": "unsloth", "lora_rank": "32",
            "lora_targets": "q,k,v,o,gate,up,down", "batch": "1", "optimizer": "adamw-8bit"}


def total(values: dict[str, str], seq: int) -> int:
    return estimate(parse_workload({**values, "seq": str(seq)})).total_bytes


def longest(values: dict[str, str], capacity: int) -> int | None:
    """The engine's reverse answer, as `vramcalc fit` finds it (analysis/solve.py), on a card of `capacity` bytes."""
    return last_within(lambda seq: total(values, seq), capacity, 1, MAX_SEQ, 4096)


def line(table: dict) -> tuple[float, float]:
    """The table's straight line: (bytes at no tokens, bytes per token), from its first and last rows."""
    rows = table["rows"]
    first, last = rows[0], rows[-1]
    per_token = (last["gpu_gb"] - first["gpu_gb"]) * GIB / (last["unsloth"] - first["unsloth"])
    return first["gpu_gb"] * GIB - first["unsloth"] * per_token, per_token


def engine_line(model: str) -> tuple[float, float]:
    """The engine's bytes against the sequence are a straight line above Unsloth's 512-token threshold."""
    a, b = total(setup(model), 20_000), total(setup(model), 40_000)
    return 2 * a - b, (b - a) / 20_000


# (model, card GiB): the rows within 15 %; every other row is a strict expected failure, so a fix shows up. The
# 8 GB row of Llama 3.1 8B was within while the engine kept Unsloth's adapters in bf16 (its fixed part 0.31 GiB
# under, offsetting the per-token excess); Unsloth keeps them in fp32 (frameworks.py), which leaves 0.52 GiB for
# tokens, not 0.83: 1,841 tokens against 2,972.
WITHIN: set[tuple[str, int]] = set()


def _rows():
    for model, table in TABLES.items():
        for row in table["rows"]:
            within = (model, row["gpu_gb"]) in WITHIN
            yield pytest.param(model, row["gpu_gb"], row["unsloth"], id=f"{model}-{row['gpu_gb']}GB",
                               marks=() if within else pytest.mark.xfail(strict=True, reason=PER_TOKEN_GAP))


@pytest.mark.parametrize(("model", "gib", "published"), _rows())
def test_unsloths_published_context_lengths(model, gib, published):
    assert longest(setup(model), gib * GIB) == pytest.approx(published, rel=CONTEXT_TOLERANCE)


def test_golden_data_the_tables_are_straight_lines():
    """Every row on its table's line within 10 tokens: the rows are one slope, measured and extended, so the line's
    two parts are what there is to compare."""
    for table in TABLES.values():
        fixed, per_token = line(table)
        for row in table["rows"]:
            assert (row["gpu_gb"] * GIB - fixed) / per_token == pytest.approx(row["unsloth"], abs=10)


@pytest.mark.parametrize("model", list(TABLES))
def test_the_memory_at_no_tokens_matches(model):
    """Weights in NF4 with bf16 embeddings and head, the rank-32 adapters, their gradients and 8-bit state, the
    CUDA context: 7.48 GiB for 8B against the table's 7.37, 45.04 for 70B against 42.99."""
    assert engine_line(model)[0] == pytest.approx(line(TABLES[model])[0], rel=TOLERANCE)


@pytest.mark.parametrize("model", list(TABLES))
@pytest.mark.xfail(strict=True, reason=PER_TOKEN_GAP)
def test_the_bytes_per_token_match(model):
    assert engine_line(model)[1] == pytest.approx(line(TABLES[model])[1], rel=TOLERANCE)


def test_the_gap_is_per_token_not_fixed():
    """Both models miss by the same factor per token (the same layer kernels), within 3 %: a fixed-part error would
    not scale with the model's width."""
    ratios = [engine_line(model)[1] / line(TABLES[model])[1] for model in TABLES]
    assert min(ratios) > 1.25 and max(ratios) / min(ratios) < 1.03


# ---------------------------------------------------------------- Unsloth's notebooks, as saved with their outputs

# unslothai/notebooks print torch.cuda.max_memory_reserved() / 1024^3 after loading (the model, NF4, with its
# adapters) and after training (the session's peak). The engine's counters: `weights` (with the adapters) for the
# first, the total less the overhead row (its torch.cuda.max_memory_allocated) for the second, at the padded length
# each run's "assumed" says. Reserved holds the allocator's free blocks too, and the length is assumed: 10 % for the
# loaded weights, 15 % for the peak (the engine moves 8 to 14 % between 512 and 2,048 tokens on these runs).
RUNS = {run["id"]: run for run in DATA["notebook_runs"]}
LOADED_TOLERANCE = 0.10
PEAK_TOLERANCE = 0.15

PRE_CCE = ("Unsloth before Cut Cross Entropy (unslothai/unsloth fa8e59e, 2024-11-17) computed the whole logits of "
           "its large vocabulary (128K to 256K) in its Triton loss; the engine counts today's fused loss: under by "
           "{error}; with transformers' unfused loss (an fp32 copy and gradient) over by 18 to 53 %")
LOADED_OFF = {
    "gemma-2-2b-alpaca": "0.46 GiB more reserved after loading than the NF4 layers, bf16 embeddings (tied to the head) "
                         "and fp32 adapters: not determined (load-time blocks left in the cache, or an untied head)",
    "llama-3.2-3b-finetome": "0.33 GiB more reserved after loading, also a model with tied embeddings: not determined",
    "qwen3-14b-reasoning": "1.6 GiB more reserved after loading: unsloth/Qwen3-14B with load_in_4bit loads "
                           "Unsloth's dynamic 4-bit checkpoint (models/mapper.py), which keeps some linear layers in "
                           "16-bit where the engine's nf4 quantises all; on Qwen3 32B, mapped the same way, the engine "
                           "is 5.9 % over (an A100), so not the whole cause (the T4's float16 is the other difference)",
}
PEAK_OFF = {"llama-3.1-8b-alpaca": "16 %", "qwen2.5-7b-alpaca": "16 %", "gemma-2-9b-alpaca": "21 %",
            "llama-3-8b-guanaco": "24 %", "llama-3.2-3b-finetome": "51 %", "gemma-2-2b-alpaca": "63 %"}


def notebook_setup(run: dict) -> dict[str, str]:
    stated, engine = run["stated"], run["engine"]
    return {"mode": "training", "framework": "unsloth", "model": engine["model"], "gpu": engine["gpu"],
            "lora_rank": str(stated["lora_rank"]), "lora_targets": stated["lora_targets"],
            "batch": str(stated["per_device_train_batch_size"]), "seq": str(engine["seq"]), "optimizer": "adamw-8bit"}


def notebook_counters(run: dict) -> tuple[float, float]:
    """(weights with the adapters, total less the overhead row), in GiB."""
    parts = {part.key: part.bytes for part in estimate(parse_workload(notebook_setup(run))).components}
    return parts["weights"] / GIB, (sum(parts.values()) - parts["overhead"]) / GIB


def _notebook(off: dict[str, str], reason: str):
    for name in RUNS:
        why = reason.format(error=off[name], why=off[name]) if name in off else ""
        marks = pytest.mark.xfail(strict=True, reason=why) if name in off else ()
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", _notebook(LOADED_OFF, "{why}"))
def test_unsloths_notebooks_weights_after_loading(name):
    run = RUNS[name]
    assert notebook_counters(run)[0] == pytest.approx(run["start_gib"], rel=LOADED_TOLERANCE)


@pytest.mark.parametrize("name", _notebook(PEAK_OFF, PRE_CCE))
def test_unsloths_notebooks_peak(name):
    run = RUNS[name]
    assert notebook_counters(run)[1] == pytest.approx(run["peak_reserved_gib"], rel=PEAK_TOLERANCE)


def test_golden_data_the_notebook_runs():
    assert len(RUNS) >= 10 and all(run["source"].startswith("unslothai/notebooks@") for run in RUNS.values())
    for run in RUNS.values():
        # the three printed figures agree: the peak less what was reserved before training
        assert run["peak_reserved_gib"] - run["start_gib"] == pytest.approx(run["training_gib"], abs=0.002)
        assert f"Peak reserved memory = {run['peak_reserved_gib']} GB." in run["quote"]
        assert run["assumed"]["padded_length"] == run["engine"]["seq"] <= run["stated"]["max_seq_length"]
    # the runs that miss the peak are the ones of Unsloth before Cut Cross Entropy (2024.11)
    def version(run: dict) -> tuple[int, ...]:
        return tuple(int(part) for part in run["unsloth"].split(".")[:2])
    assert all(version(RUNS[name]) < (2024, 11) for name in PEAK_OFF)
