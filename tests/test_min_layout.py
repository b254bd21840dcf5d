""""The fewest GPUs" under the layout the user named (branch minlayout): one GPU drops a layout (the page hides its
fields), yet the answer is read as "the same flags with --gpus N", so the search keeps the named layout for N > 1
and judges one GPU without it. Before, the search used the mode's default layout: its answer could be more than
needed, or not fit (or be refused) when fed back."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from vramcalc.cli import main


def fit(args: list[str]) -> tuple[dict[str, object] | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["fit", "--json", *args])
        except SystemExit as exit_:
            code = exit_.code
    return (json.loads(out.getvalue()) if code == 0 else None), err.getvalue()


def answer(args: list[str]) -> int | None:
    result, err = fit(args)
    assert result is not None, err
    gpus = result["min_gpus"]
    assert gpus is None or isinstance(gpus, int)
    return gpus


def fits(args: list[str]) -> bool | None:
    """None: the command line refuses the setup (a count the layout cannot be made with)."""
    result, _ = fit(args)
    return None if result is None else bool(result["fits"])


GEMMA_MAC = ["--model", "gemma-3-4b-it", "--gpu", "apple-m4-24gb", "--mode", "training", "--zero", "2",
             "--offload", "optimizer", "--seq", "512"]
LLAMA_TP = ["--model", "llama-3.1-70b", "--gpu", "a100-80gb", "--tp", "4", "--seq", "8192"]


@pytest.mark.parametrize(("args", "expected"), [
    (GEMMA_MAC, 4),  # before: 6 (ZeRO-3's default), while --gpus 4 fits: more than needed
    (LLAMA_TP, 4),  # before: 2 (the default TP 2), which --tp 4 refuses
    (["--model", "llama-3.1-8b", "--gpu", "a100-80gb", "--mode", "training", "--zero", "2", "--offload", "optimizer",
      "--seq", "512", "--gpus", "4"], 2),  # before: 1, judged under ZeRO-Offload, which one GPU drops
])
def test_the_fewest_gpus_fit_when_fed_back_and_one_fewer_does_not(args, expected):
    gpus = answer(args)
    assert gpus == expected
    base = args[:args.index("--gpus")] + args[args.index("--gpus") + 2:] if "--gpus" in args else args
    assert fits([*base, "--gpus", str(gpus)]) is True
    assert fits([*base, "--gpus", str(gpus - 1)]) is not True


def test_a_layout_that_never_fits_answers_none_rather_than_the_defaults_count():
    """ZeRO-1 keeps every weight and gradient on each GPU: before, 14 (ZeRO-3's count), which with --zero 1
    does not fit."""
    args = ["--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--mode", "training", "--zero", "1", "--seq", "2048"]
    assert answer(args) is None
    assert fits([*args, "--gpus", "14"]) is False


def test_the_cards_table_counts_gpus_under_the_named_layout():
    """The "GPUs needed" column: multiples of the named TP 8 (before: 7 RTX 4090s, the default layout's)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["--json", "--model", "llama-3.1-70b", "--tp", "8", "--seq", "8192"]) in (0, None)
    counts = {row["name"]: row["count"] for row in json.loads(out.getvalue())["gpus"]}
    assert counts["RTX 4090"] == 8 and all(count is None or count == 1 or count % 8 == 0 for count in counts.values())
    assert "the fewest GPUs is searched under it" in err.getvalue() and "ignored" not in err.getvalue()


def test_a_named_layout_no_count_can_run_is_refused_naming_its_field():
    """Before: --tp 3 with one GPU was said to be ignored, and the fewest GPUs searched under the default."""
    result, err = fit(["--model", "llama-3.1-8b", "--tp", "3"])
    assert result is None and err.startswith("vramcalc: error: tp:"), err


def test_one_gpu_keeps_its_answer_without_the_layout():
    """The one-GPU answer is the one without the layout, as the page's (which hides its fields) is."""
    with_layout, _ = fit(GEMMA_MAC)
    without, _ = fit([arg for arg in GEMMA_MAC if arg not in ("--zero", "2", "--offload", "optimizer")])
    assert with_layout is not None and without is not None
    assert with_layout["total_bytes"] == without["total_bytes"] and without["min_gpus"] == 6


def test_a_sequence_the_named_layout_cannot_split_has_no_count_of_gpus():
    """CP 4 splits sequences in multiples of 8: with --gpus N the sequence 777 is refused, so no N answers, though
    one GPU (which drops the layout) takes it."""
    args = ["--model", "qwen3.5-35b-a3b", "--mode", "training", "--gpu", "a100-80gb", "--lora-rank", "64", "--cp", "4",
            "--seq", "777"]
    result, err = fit(args)
    assert result is not None and result["min_gpus"] is None, err
    assert "multiples of 8, not 777" in err
    assert fits([*args, "--gpus", "8"]) is None
    split = [*args[:-1], "776"]
    assert answer(split) == 4 and fits([*split, "--gpus", "4"]) is True
