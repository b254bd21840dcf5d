"""Context parallelism's sequence rule: Megatron-LM splits each training sequence into 2 × cp chunks
(megatron/training/arguments.py asserts seq_length % (2 × context_parallel_size) == 0), and sequence parallelism
scatters each CP rank's seq / cp tokens over the tp ranks. A --seq the layout cannot split is refused by name, and
the reverse answers only ever give lengths it can."""

from __future__ import annotations

import pytest

from test_input import run_cli
from vramcalc import estimate
from vramcalc.analysis.fit import fewest_gpus
from vramcalc.analysis.solve import fits, largest_image, max_images, max_seq, solve
from vramcalc.analysis.suggest import changes
from vramcalc.core.errors import ValidationError
from vramcalc.engines.layouts import seq_step
from vramcalc.inputs.parse import parse_target, parse_workload
from vramcalc.parallel.layout import Layout, check_seq, seq_multiple
from vramcalc.render import charts
from vramcalc.workload import Target

TRAINING = {"model": "llama-3.1-8b", "mode": "training", "gpus": "8", "zero": "3"}


def refusal(values: dict[str, str]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        parse_workload(values)
    return caught.value


def test_a_sequence_not_a_multiple_of_2_cp_is_refused_naming_seq_and_the_nearest():
    problem = refusal({**TRAINING, "cp": "2", "seq": "8191"})
    assert problem.field == "seq" and problem.value == 8191
    assert "2 × cp = 4 chunks" in problem.allowed and "Megatron-LM" in problem.allowed
    assert "multiple of 4" in problem.allowed and "the nearest are 8,188 and 8,192" in problem.allowed
    for nearest in ("8188", "8192"):  # what it offers is taken
        assert parse_workload({**TRAINING, "cp": "2", "seq": nearest}).seq == int(nearest)
    assert "multiple of 8" in refusal({**TRAINING, "cp": "4", "seq": "8196"}).allowed  # 4 divides it, 8 does not


def test_the_rule_is_context_parallel_training_only():
    parse_workload({**TRAINING, "seq": "8191"})  # data parallel: any length
    parse_workload({**TRAINING, "cp": "1", "seq": "8191"})
    parse_workload({**TRAINING, "tp": "2", "seq": "8191"})  # tensor parallel without sequence parallelism
    parse_workload({"model": "llama-3.1-8b", "gpus": "2", "tp": "2", "sp": "1", "seq": "8191"})  # inference


def test_sequence_parallel_splits_each_cp_rank_s_tokens_over_tp():
    assert seq_multiple(Layout(cp=2, tp=2, sp=True)) == 4  # seq / 2 over 2 ranks: the 2 × cp rule already
    assert seq_multiple(Layout(cp=2, tp=4, sp=True)) == 8
    assert seq_multiple(Layout(cp=3, tp=2, sp=True)) == 6
    assert seq_multiple(Layout(tp=4, sp=True)) == 4 and seq_multiple(Layout(tp=4)) == 1
    problem = refusal({**TRAINING, "cp": "2", "tp": "4", "sp": "1", "seq": "8196"})
    assert problem.field == "seq" and "sequence parallelism" in problem.allowed and "multiple of 8" in problem.allowed
    problem = refusal({**TRAINING, "tp": "4", "sp": "1", "seq": "8190"})
    assert problem.field == "seq" and "tp = 4 ranks" in problem.allowed and "8,188 and 8,192" in problem.allowed


def test_the_nearest_stay_within_what_the_workload_takes():
    """GRPO's sequence holds its completion and a prompt token: a shorter length is not offered."""
    with pytest.raises(ValidationError, match=r"the nearest is 8\b") as caught:
        check_seq(Layout(cp=2), 6, shortest=5)
    assert "and" not in caught.value.allowed.split("nearest")[1]
    problem = refusal({**TRAINING, "cp": "2", "objective": "grpo", "batch": "8", "completion_tokens": "512",
                       "seq": "514"})
    assert problem.field == "seq" and "the nearest is 516" in problem.allowed


def test_images_count_in_the_sequence_the_layout_splits():
    values = {"model": "qwen2.5-vl-7b-instruct", "mode": "training", "gpus": "8", "zero": "3", "cp": "4",
              "images": "1", "image_width": "1000"}
    problem = refusal({**values, "seq": "8192"})
    tokens = parse_workload({**values, "cp": "", "gpus": "8", "seq": "8192"}).image_tokens
    assert problem.field == "seq" and problem.value == 8192 and f"images' {tokens:,} tokens" in problem.allowed
    below, above = [int(n.replace(",", "")) for n in problem.allowed.split("nearest are ")[1].split(" and ")]
    for field in (below, above):  # the seq field's values, the images' tokens added to them
        assert (parse_workload({**values, "seq": str(field)}).seq) % 8 == 0
    workload = parse_workload({**values, "seq": str(below)})
    target = parse_target({"gpu": "h100-80gb", "gpus": "8"})
    longest = max_seq(workload, target)
    assert longest is not None and (longest + tokens) % 8 == 0
    assert parse_workload({**values, "seq": str(longest)}).seq == longest + tokens


@pytest.mark.parametrize("model, cp, gpu", [("qwen3-0.6b", "2", "rtx-4090"), ("llama-3.1-8b", "4", "a100-80gb"),
                                            ("qwen3-0.6b", "8", "l4")])
def test_the_longest_sequence_is_a_multiple_of_2_cp_and_the_next_one_does_not_fit(model, cp, gpu):
    values = {**TRAINING, "model": model, "cp": cp, "seq": "4096", "gpu": gpu}
    workload = parse_workload(values)
    target = parse_target({"gpu": gpu, "gpus": "8"})
    step = 2 * int(cp)
    assert seq_step(workload) == step
    longest = max_seq(workload, target)
    assert longest is not None and longest % step == 0
    fed_back = parse_workload({**values, "seq": str(longest)})  # the answer is accepted
    assert fits(fed_back, target)
    assert not fits(parse_workload({**values, "seq": str(longest + step)}), target)


def test_the_page_s_answers_and_searches_run_with_cp():
    """Every reverse answer, the suggestions, the fewest GPUs and the sequence chart: no refusal, no traceback,
    and the chart's sequences are lengths the layout splits."""
    values = {**TRAINING, "gpus": "4", "cp": "2", "seq": "32768", "checkpointing": "layer"}
    workload = parse_workload(values)
    target = parse_target({"gpu": "a100-80gb", "gpus": "4"})
    solution = solve(workload, target)
    assert solution.max_seq is not None and solution.max_seq % 4 == 0 and solution.max_seq < 32768
    assert any(change.key == "change.seq" for change in changes(workload, target, solution))
    seen: list[int] = []
    real = charts.most_loaded

    def spy(moved, count):
        seen.append(moved.seq)
        return real(moved, count)

    charts.most_loaded = spy  # type: ignore[assignment]
    try:
        charts.sweep(workload, target, "seq", solution.max_seq)
    finally:
        charts.most_loaded = real  # type: ignore[assignment]
    assert seen and all(seq % 4 == 0 for seq in seen)
    two = parse_workload({**values, "gpus": "2", "seq": "24576"})  # the fewest GPUs grow dp, cp stays 2
    target = parse_target({"gpu": "a100-80gb", "gpus": "2"})
    solution = solve(two, target)
    assert solution.min_gpus is not None and solution.min_gpus > 2 and solution.min_gpus % 2 == 0
    assert fewest_gpus(estimate(two), target.gpu.usable_bytes) == solution.min_gpus
    assert any(change.key == "change.gpus" for change in changes(two, target, solution))


@pytest.mark.parametrize("images, cp, side, gpu", [("3", "4", "1000", "rtx-4090"), ("5", "4", "1000", "a100-80gb"),
                                                   ("3", "2", "1024", "a100-80gb")])
def test_the_most_images_under_cp_is_a_count_the_layout_splits(images, cp, side, gpu):
    """The most images that fit (2, 32, 21 here), or the largest, would make a sequence the layout cannot split: the
    answer is the most of fewer, or the largest of smaller, that it can."""
    values = {"model": "qwen2.5-vl-7b-instruct", "mode": "training", "gpus": cp, "cp": cp, "images": images,
              "lora_rank": "16", "image_width": side, "image_height": "700" if side == "1000" else side,
              "checkpointing": "layer"}
    seq = next(s for s in range(1000, 1010) if _accepted({**values, "seq": str(s)}))
    workload = parse_workload({**values, "seq": str(seq)})
    target = Target(gpu=parse_target({"gpu": gpu}).gpu, count=int(cp))
    most = max_images(workload, target)
    assert most is not None
    fed_back = parse_workload({**values, "seq": str(seq), "images": str(most)})  # accepted: a multiple of 2 × cp
    assert fits(fed_back, target)
    width, height = largest_image(workload, target) or (0, 0)  # so with the largest image of the aspect
    fed_back = parse_workload({**values, "seq": str(seq), "image_width": str(width), "image_height": str(height)})
    assert fits(fed_back, target)


def _accepted(values: dict[str, str]) -> bool:
    try:
        parse_workload(values)
    except ValidationError:
        return False
    return True


def test_the_command_line_says_it_without_a_traceback():
    result = run_cli("fit", "--model", "llama-3.1-8b", "--mode", "training", "--gpus", "4", "--cp", "2",
                     "--seq", "8191")
    assert result.returncode != 0 and "seq: got 8191" in result.stderr and "multiple of 4" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_the_largest_image_under_cp_steps_down_by_token_counts_not_pixels(monkeypatch):
    """Past the processor's most pixels every larger image has the same tokens, so the largest image that fits is
    the search's bound (100,000 px); when that count makes a sequence cp 4 cannot split, the answer is the largest
    smaller size with fewer tokens the layout splits. Stepping down a pixel at a time took about 96,000 sizes (0.8 s
    here, more in the browser); from one count of tokens to the next takes a few dozen."""
    from vramcalc.analysis import solve as solver

    values = {"model": "qwen2.5-vl-7b-instruct", "mode": "training", "gpus": "4", "cp": "4", "images": "1",
              "image_width": "280", "image_height": "280", "lora_rank": "16", "checkpointing": "layer"}
    seq = next(s for s in range(1000, 1010) if _accepted({**values, "seq": str(s)}))
    workload = parse_workload({**values, "seq": str(seq)})
    target = Target(gpu=parse_target({"gpu": "h100-80gb"}).gpu, count=4)
    calls = 0
    real = solver.with_images

    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "with_images", counted)
    width, height = largest_image(workload, target) or (0, 0)
    assert calls < 500
    assert width == height and 1000 < width < 100_000
    fed_back = parse_workload({**values, "seq": str(seq), "image_width": str(width), "image_height": str(height)})
    assert fits(fed_back, target)
    larger = {**values, "seq": str(seq), "image_width": str(width + 1), "image_height": str(width + 1)}
    assert not _accepted(larger)  # one pixel more: more tokens, which the layout cannot split (all sizes fit)
