"""Defects an adversary found through the command line and the link (branch adv4), each kept fixed here:
the input, what the calculator did, and what it must do."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from vramcalc.analysis.solve import need, scaled_depth
from vramcalc.cli import main
from vramcalc.inputs.parse import parse_workload
from vramcalc.sources.gpus import gpu
from vramcalc.workload import Target


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- a shallower variant of a model in a GGUF type


@pytest.mark.parametrize(("slug", "layers"), [("gemma-4-e2b-it", 2), ("glm-5.2", 2), ("nemotron-3-nano-30b-a3b", 7),
                                              ("jamba-1.5-mini", 5)])
def test_a_shallower_gguf_variant_splits_over_gpus(slug, layers):
    """"The largest model" scales the depth; in a GGUF type a variant's layers take the real model's average per
    group, which listed groups the variant lacks (Gemma 4 E2B at 2 layers has one of its four): split over two GPUs
    that was a KeyError, and `vramcalc fit --model gemma-4-e2b-it --runtime llamacpp --precision q4_k_m --gpus 2`
    a traceback."""
    workload = parse_workload({"model": slug, "runtime": "llamacpp", "precision": "q4_k_m", "gpus": "2"})
    assert need(workload.but(model=scaled_depth(workload.model, layers)), Target(gpu=gpu("24gb"), count=2)) > 0


def test_fit_answers_a_gemma_4_split_over_gpus_in_a_gguf_type():
    code, out, err = run(["fit", "--json", "--model", "gemma-4-e2b-it", "--runtime", "llamacpp", "--precision",
                          "q4_k_m", "--gpus", "8", "--gpu", "24gb"])
    assert code == 0, err
    assert json.loads(out)["max_layers"] >= 8
