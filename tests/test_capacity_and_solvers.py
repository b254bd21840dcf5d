"""The capacity table's arithmetic, the reverse solvers' exactness, and their command lines."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import workloads
from test_input import run_cli
from vramcalc import estimate
from vramcalc.analysis import capacity
from vramcalc.analysis.fit import MAX_SEARCH_GPUS
from vramcalc.analysis.ranks import most_loaded
from vramcalc.analysis.solve import batch_key, fits, last_within, max_layers, max_seq, scaled_depth, solve
from vramcalc.core.dtypes import Precision
from vramcalc.core.units import GB, GIB
from vramcalc.inputs.options import MAX_BATCH, MAX_SEQ
from vramcalc.inputs.parse import parse_target, parse_workload
from vramcalc.model.table import param_count
from vramcalc.render import charts
from vramcalc.render.charts import LEFT, RIGHT, WIDTH, nice_ceil, sweep
from vramcalc.render.view import format_range
from vramcalc.sources.fields import MAX_LAYERS
from vramcalc.sources.gpus import load_gpus
from vramcalc.workload import Target

# ---------------------------------------------------------------- capacity table


def test_16_gb_row_with_the_default_headroom():
    # upper = 16e9 B × 8 / bits; lower keeps 20 % free: 12.8e9 B × 8 / bits
    row = capacity.row(16 * GB, 0.20)
    assert [(c.low_params, c.high_params) for c in row.cells] == [
        (3_200_000_000, 4_000_000_000),
        (6_400_000_000, 8_000_000_000),
        (12_800_000_000, 16_000_000_000),
        (25_600_000_000, 32_000_000_000),
        (51_200_000_000, 64_000_000_000),
    ]
    assert [format_range(c) for c in row.cells] == ["3.2–4B", "6.4–8B", "12.8–16B", "25.6–32B", "51.2–64B"]


@pytest.mark.parametrize(
    ("gb", "headroom_gb", "original"),
    [
        # The seed table (003_...txt) keeps 4 GB free up to 24 GB and 8 GB above; with that
        # headroom our arithmetic gives its ranges exactly.
        (16, 4, ["3-4", "6-8", "12-16", "24-32", "48-64"]),
        (24, 4, ["5-6", "10-12", "20-24", "40-48", "80-96"]),
        (80, 8, ["18-20", "36-40", "72-80", "144-160", "288-320"]),
        (512, 8, ["126-128", "252-256", "504-512", "1008-1024", "2016-2048"]),
    ],
)
def test_the_original_tables_arithmetic(gb, headroom_gb, original):
    row = capacity.row(gb * GB, headroom_gb / gb)
    assert [f"{c.low_params / 1e9:.0f}-{c.high_params / 1e9:.0f}" for c in row.cells] == original


def test_no_headroom_means_both_bounds_are_equal():
    assert all(c.low_params == c.high_params for c in capacity.row(24 * GB, 0.0).cells)


def test_examples_carry_real_counts_and_the_most_precise_fitting_format():
    examples = {e.name: e for e in capacity.load_examples()}
    assert examples["Llama 3 8B"].params == 8_030_261_248  # from the preset's config
    assert examples["Llama 2 70B"].params == 68_976_648_192
    assert examples["DeepSeek-V3 671B"].params == 671_026_419_200
    # GPT-3: 350 GB at FP16 needs 437.5 GB with 20 % free, so 512 GB holds FP16 and 384 GB only INT8.
    gpt3 = examples["GPT-3 175B"]
    assert capacity.best_placement(gpt3, 512 * GB, 0.2).precision is Precision.FP16
    assert capacity.best_placement(gpt3, 384 * GB, 0.2).precision is Precision.INT8
    assert capacity.best_placement(gpt3, 512 * GB, 0.2).several_gpus
    assert capacity.best_placement(gpt3, 16 * GB, 0.2) is None
    small = capacity.best_placement(examples["BERT-Large"], 16 * GB, 0.2)
    assert small.precision is Precision.FP32 and not small.quantised and not small.several_gpus


def test_standard_rows_list_only_new_or_more_precise_examples():
    rows = capacity.table()
    seen: dict[str, int] = {}
    for row in rows:
        for placement in row.examples:
            rank = capacity.COLUMNS.index(placement.precision)
            assert rank < seen.get(placement.example.name, len(capacity.COLUMNS))
            seen[placement.example.name] = rank
    assert {e.name for e in capacity.load_examples()} <= set(seen)  # every example fits somewhere in 512 GB


def test_capacity_cli_json():
    result = run_cli("capacity", "--vram", "40", "--headroom", "25", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["headroom"] == 0.25 and data["columns"] == ["fp32", "fp16", "int8", "int4", "int2"]
    assert [r["memory_bytes"] for r in data["rows"]] == [gb * GB for gb in capacity.SIZES_GB] + [40 * GB]
    user = data["rows"][-1]
    assert user["user"] and user["cells"]["int4"] == {"low_params": 60_000_000_000, "high_params": 80_000_000_000}


def test_capacity_cli_rejects_bad_headroom():
    result = run_cli("capacity", "--headroom", "95")
    assert result.returncode == 2 and "headroom" in result.stderr and "Traceback" not in result.stderr


# ---------------------------------------------------------------- solvers


@given(st.integers(0, 300), st.integers(1, 300), st.integers(1, 400))
def test_last_within_finds_the_last_fit_of_a_step(last_true, high, start):
    # bytes that jump from 0 to infinity: no line to follow, so the search must bisect
    assert last_within(lambda n: 0 if n <= last_true else math.inf, 0, 1, high, start) == \
        (None if last_true < 1 else min(last_true, high))


@given(st.integers(0, 10**9), st.integers(0, 10**6), st.integers(0, 10**3), st.integers(1, 7),
       st.integers(0, 2 * 10**9), st.integers(1, 10**6), st.integers(1, 2 * 10**6))
def test_last_within_is_exact_on_lines_parabolas_and_stairs(fixed, linear, square, stair, limit, high, start):
    def size(n):
        return fixed + linear * (n // stair * stair) + square * n * n

    got = last_within(size, limit, 1, high, start)
    if size(1) > limit:
        assert got is None
        return
    assert size(got) <= limit and (got == high or size(got + 1) > limit)


def test_last_within_needs_few_estimates_on_a_line():
    calls = []

    def size(n):
        calls.append(n)
        return 10**9 + 123_457 * n

    assert last_within(size, 80 * 10**9, 1, 10**6, 4096) == (80 * 10**9 - 10**9) // 123_457
    assert len(calls) <= 5, calls


targets = st.builds(Target, gpu=st.sampled_from(list(load_gpus().values())), count=st.integers(1, 16))


@settings(max_examples=60, deadline=None)
@given(workloads(), targets)
def test_each_answer_fits_and_one_more_does_not(workload, target):
    solution = solve(workload, target)
    for attribute, answer, limit in (("seq", solution.max_seq, MAX_SEQ), ("batch", solution.max_batch, MAX_BATCH)):
        if answer is None:
            assert not fits(dataclasses.replace(workload, **{attribute: 1}), target)
            continue
        assert fits(dataclasses.replace(workload, **{attribute: answer}), target)
        if answer < limit:
            assert not fits(dataclasses.replace(workload, **{attribute: answer + 1}), target)
    n = solution.min_gpus
    if n is None:  # what every rank must hold (a data-parallel rank's micro-batch) exceeds one card at any count
        assert not fits(workload, dataclasses.replace(target, count=MAX_SEARCH_GPUS))
        return
    assert fits(workload, dataclasses.replace(target, count=n))
    if n > 1:
        assert not fits(workload, dataclasses.replace(target, count=n - 1))
    layers = max_layers(workload, target)
    if layers is not None:
        assert fits(dataclasses.replace(workload, model=scaled_depth(workload.model, layers)), target)
        deeper = dataclasses.replace(workload, model=scaled_depth(workload.model, layers + 1))
        assert layers == MAX_LAYERS or not fits(deeper, target)
        assert solution.max_params == param_count(scaled_depth(workload.model, layers))


def test_worked_example_llama3_8b_on_rtx_4090():
    # Per token: KV cache 128 KiB (131,072 B) + the prefill's peak inside a layer, 4·h·e + 2·d·e + 3·I·e
    # = 32,768 + 512 + 86,016 = 119,296 B; weights 16.06 GB, last-token logits 513,024 B, overhead on an Ada
    # card 426 MiB + 8,519,680 B = 455,213,056 B (data/gpu_overhead.json; it was 1 GiB for every card, 32,945);
    # RTX 4090: 25,383,256,719 B usable. (25,383,256,719 − 16,060,522,496 − 455,213,056 − 513,024) // 250,368 = 35,415.
    workload = parse_workload({"model": "llama-3-8b", "gpu": "rtx-4090"})
    target = parse_target({"gpu": "rtx-4090"})
    solution = solve(workload, target)
    assert workload.overhead_bytes == 426 * 2**20 + 8_519_680
    assert solution.max_seq == 35_415
    assert solution.min_gpus == 1
    usable = target.gpu.usable_bytes
    assert estimate(dataclasses.replace(workload, seq=35_415)).total_bytes <= usable
    assert estimate(dataclasses.replace(workload, seq=35_416)).total_bytes > usable


def test_fit_cli_json_matches_the_engine():
    result = run_cli("fit", "--gpu", "h100-80gb", "--gpus", "2", "--model", "llama-3-70b", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert {"max_seq", "max_batch", "min_gpus", "max_params"} <= set(data)
    solution = solve(parse_workload({"model": "llama-3-70b"}), parse_target({"gpu": "h100-80gb", "gpus": "2"}))
    assert (data["max_seq"], data["max_batch"], data["min_gpus"], data["max_params"]) == (
        solution.max_seq, solution.max_batch, solution.min_gpus, solution.max_params
    )


@pytest.mark.parametrize("args", [("fit", "--gpu", "nope"), ("fit", "--gpus", "0"), ("fit", "--gpus", "1e3")])
def test_fit_cli_bad_target_exits_2(args):
    result = run_cli(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert ("gpus" if "--gpus" in args else "gpu") in result.stderr


# ---------------------------------------------------------------- charts


@pytest.mark.parametrize("value", [0.3, 1, 7, 12, 26, 99, 101, 240, 251, 4999])
def test_nice_ceil_is_the_next_round_number(value):
    nice = nice_ceil(value)
    assert nice >= value
    assert any(math.isclose(nice, m * 10.0**k) for m in (1, 2, 2.5, 5) for k in range(-2, 6))
    assert nice < 2.5 * value  # the next step of the 1-2-2.5-5 ladder is never skipped


def test_chart_marks_where_it_stops_fitting():
    workload = parse_workload({"model": "llama-3-8b"})
    target = parse_target({"gpu": "rtx-4090"})
    chart = sweep(workload, target, "seq", 32_945)
    assert chart.x_ticks[-1].label == "50K"  # 1.25 × 32,945 rounded up
    assert 0 < chart.over_width < WIDTH
    assert "32,945" in chart.desc and chart.path.startswith("M")
    # the curve crosses the GPU line where the hatched region begins
    x_at_limit = LEFT + (WIDTH - LEFT - RIGHT) * 32_945 / 50_000
    assert chart.over_x == pytest.approx(x_at_limit, abs=0.01)
    assert 14 < chart.limit_y < 220


def test_chart_with_images_marks_the_longest_sequence_where_the_whole_sequence_stops_fitting():
    """The axis is the whole sequence (the memory depends on it), the answer the seq field's, without the images'
    tokens: the hatched region began that many tokens early, and "now" showed the sum, not the field."""
    values = {"model": "gemma-3-27b-it", "images": "4", "seq": "2048", "gpu": "h100-80gb"}
    workload, target = parse_workload(values), parse_target(values)
    media = workload.image_tokens
    assert media > 0 and workload.seq == 2048 + media
    answer = max_seq(workload, target)
    assert answer is not None
    chart = sweep(workload, target, "seq", answer)
    x_max = float(chart.x_ticks[-1].label.rstrip("K")) * 1000
    assert x_max >= 1.25 * (answer + media)
    x_at_limit = LEFT + (WIDTH - LEFT - RIGHT) * (answer + media) / x_max
    assert chart.over_x == pytest.approx(x_at_limit, abs=0.01)
    assert chart.now_label == "now 2,048"


def test_ollamas_sequence_chart_sweeps_the_context_it_allocates():
    """Ollama allocates num_ctx whatever the sequence, and its longest-sequence answer is the largest num_ctx: the
    chart swept the sequence, a flat line that "stops fitting after 49,920"."""
    values = {"model": "qwen3-8b", "runtime": "ollama", "gpu": "rtx-3060", "precision": "q4_k_m"}
    workload, target = parse_workload(values), parse_target(values)
    answer = max_seq(workload, target)
    chart = sweep(workload, target, "seq", answer)
    assert chart.x_label.startswith("context Ollama allocates") and chart.now_label == "now 4,096"
    assert chart.limit_y > 0
    heights = [float(point.split(",")[1]) for point in chart.path.split()]
    assert heights[0] > heights[-1] + 50  # the memory rises with num_ctx (y grows downwards)


def test_ollamas_largest_model_keeps_every_layer_on_the_gpu():
    """The answers ask Ollama for the model whole on the card (-ngl past the layers); the deeper models kept the
    first model's 37 on the GPU and the rest in RAM, so "at least 1.93T parameters (10,000 layers)" fit a 12 GB
    card."""
    values = {"model": "qwen3-8b", "runtime": "ollama", "gpu": "rtx-3060", "precision": "q4_k_m"}
    workload, target = parse_workload(values), parse_target(values)
    layers = solve(workload, target).max_layers
    assert layers is not None and 36 < layers < 100
    for depth, fitting in ((layers, True), (layers + 1, False)):
        deeper = workload.but(model=scaled_depth(workload.model, depth), gpu_layers=depth + 1)
        assert fits(deeper, target) is fitting


@pytest.mark.parametrize("runtime", ["ollama", "llamacpp"])
def test_llamacpps_batch_chart_sweeps_its_parallel_slots(runtime):
    """llama.cpp's and Ollama's largest batch is the most --parallel slots; the chart swept --batch, which they
    ignore: a flat line that "stops fitting after 12"."""
    values = {"model": "qwen3-8b", "runtime": runtime, "gpu": "rtx-3060", "precision": "q4_k_m"}
    workload, target = parse_workload(values), parse_target(values)
    answer = solve(workload, target).max_batch
    chart = sweep(workload, target, "batch", answer)
    assert chart.x_label == "parallel sequences (--parallel)" and f"after {answer}" in chart.desc
    heights = [float(point.split(",")[1]) for point in chart.path.split()]
    assert heights[0] > heights[-1] + 50


@pytest.mark.parametrize("values", [
    {"model": "llama-3-8b", "attention": "eager"},  # quadratic in the sequence
    {"model": "gemma-2-9b", "attention": "eager", "batch": "3"},  # sliding layers: a bend where the window ends
    {"model": "qwen3-next-80b-a3b-thinking", "precision": "q4_k_m", "runtime": "llamacpp"},
    {"model": "llama-3-70b", "runtime": "vllm", "gpus": "4"},
    {"model": "mistral-7b", "mode": "training", "seq": "4096", "gpus": "2"},
])
@pytest.mark.parametrize("key", ["seq", "batch"])
def test_chart_curve_is_drawn_within_half_a_pixel_of_every_grid_point(values, key):
    """The chart estimates only where the curve bends (charts._trace); drawn through those points it
    passes every one of the 25 grid points within half a pixel plus rounding."""
    workload, target = parse_workload(values), parse_target(values)
    chart = sweep(workload, target, key, None)
    points = [tuple(map(float, step[1:].split(","))) for step in chart.path.split()]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, charts.HEIGHT - charts.TOP - charts.BOTTOM
    key, limit = ("seq", MAX_SEQ) if key == "seq" else batch_key(workload)  # llama.cpp: --parallel
    x_max = charts.nice_ceil(min(limit, 2 * getattr(workload, key)))  # no answer: twice the value
    grid = sorted({max(1, round(x_max * i / charts.SAMPLES)) for i in range(charts.SAMPLES + 1)})
    y_max = float(chart.y_ticks[-1].label.replace(",", "").split()[0]) * GIB  # the axis top
    assert points[-1][0] == pytest.approx(LEFT + plot_w, abs=0.01) and len(points) <= len(grid)
    for x in grid:
        y = most_loaded(dataclasses.replace(workload, **{key: x}), target.count).total_bytes
        px, py = LEFT + plot_w * x / x_max, charts.TOP + plot_h * (1 - min(y, y_max) / y_max)
        segments = zip(points, points[1:] or points, strict=False)  # one point: a segment from it to itself
        (x0, y0), (x1, y1) = next((a, b) for a, b in segments if a[0] - 0.02 <= px <= b[0] + 0.02)
        drawn = y0 + (y1 - y0) * (px - x0) / (x1 - x0) if x1 > x0 else y0
        assert abs(drawn - py) <= 0.5 + 0.02, (x, drawn, py)


def test_sequence_parallel_alone_rides_on_the_default_tensor_parallel():
    """`--sp` without `--tp` names no layout: on 2 GPUs it splits the default tensor parallel's activations (it
    answered a replicated DP 2 × SP, twice the memory a GPU), and on one GPU the fewest GPUs are still counted."""
    from vramcalc.engines.layouts import resolve_layout

    values = {"model": "llama-3.1-70b", "gpu": "h100-80gb", "seq": "32768", "batch": "8"}
    alone = parse_workload({**values, "gpus": "2", "sp": "1"})
    named = parse_workload({**values, "gpus": "2", "sp": "1", "tp": "2"})
    assert not alone.layout_given and resolve_layout(alone, 2) == resolve_layout(named, 2)
    assert resolve_layout(alone, 2).tp == 2 and resolve_layout(alone, 2).sp
    assert most_loaded(alone, 2).components == most_loaded(named, 2).components
    one = parse_workload({**values, "model": "llama-3.1-8b", "sp": "1"})
    assert solve(one, parse_target({"gpu": "rtx-3060-12gb"})).min_gpus is not None
