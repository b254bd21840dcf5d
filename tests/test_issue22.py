"""Issue 22's defects in the engine: each test fails on the code before its fix.

1. vLLM on several GPUs reports one pool everywhere, and its suggestions offer its own settings.
4. Training answers the format questions sensibly (the current format; no KV answer).
5. The overhead row says where its number comes from.
13. Default layouts pass the checks explicit ones do.
11. Hostile config.json, links and flags end in a clear message (test_hostile_input.py fuzzes them).
"""

from __future__ import annotations

import contextlib
import io
import json

from vramcalc import estimate, parse_workload
from vramcalc.analysis.fit import fit_all
from vramcalc.cli import main
from vramcalc.inputs.options import DEFAULTS
from vramcalc.inputs.parse import parse_target
from vramcalc.render.export import to_csv, to_json, to_markdown
from vramcalc.render.messages import ENGLISH
from vramcalc.render.view import present, present_target


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- 1. vLLM's pool on several GPUs

VLLM_2 = {"model": "llama-3.1-70b", "precision": "fp8", "runtime": "vllm", "gpus": "2", "gpu": "h100-80gb"}


def _vllm(values: dict[str, str]):
    merged = {**DEFAULTS, **values}
    return parse_workload(merged), parse_target(merged)


def test_vllm_on_two_gpus_reports_one_pool_everywhere():
    workload, target = _vllm(VLLM_2)
    breakdown = estimate(workload)
    document = to_json(breakdown, fit_all(breakdown), target.count)
    runtime, rank = document["runtime"], document["per_gpu"]["engine"]
    assert rank["kv_pool_bytes"] > 0 and rank["kv_tokens"] > 0
    for key in ("kv_pool_bytes", "kv_tokens", "max_concurrency"):
        assert runtime[key] == rank[key], key
    assert runtime["kv_pool_gpus"] == 2
    tokens, sequences = f"{rank['kv_tokens']:,}", f"{rank['max_concurrency']:.2f}"
    view = present(breakdown, target.count)
    kv_row = next(row for row in view.rows if row.key == "kv_cache")
    assert tokens in kv_row.formula and sequences in kv_row.formula
    assert any(tokens in line and sequences in line for line in view.runtime_lines)
    assert tokens in to_markdown(breakdown, target.count)
    assert tokens in to_csv(breakdown, target.count)
    side = present_target(workload, target)
    assert side.rank is not None and any(tokens in line for line in side.rank.lines)
    batch = next(answer for answer in side.answers if answer.key == "max_batch")
    assert batch.value == int(rank["max_concurrency"])
    code, out, _ = run(["--model", "llama-3.1-70b", "--precision", "fp8", "--runtime", "vllm", "--gpus", "2",
                        "--gpu", "h100-80gb"])
    assert code == 0 and f"kv_tokens {rank['kv_tokens']:,}" in out and tokens in out
    code, out, _ = run(["--model", "llama-3.1-70b", "--precision", "fp8", "--runtime", "vllm", "--gpus", "2",
                        "--gpu", "h100-80gb", "--json"])
    assert json.loads(out)["runtime"]["max_concurrency"] == rank["max_concurrency"]


def test_vllm_on_one_gpu_is_unchanged_by_the_gpu_count():
    workload, _ = _vllm({**VLLM_2, "gpus": "1", "precision": "awq-int4"})
    breakdown = estimate(workload)
    document = to_json(breakdown, fit_all(breakdown), 1)
    assert document["runtime"]["kv_pool_bytes"] == document["per_gpu"]["engine"]["kv_pool_bytes"] > 0
    assert document["runtime"]["kv_pool_gpus"] == 1
    assert present(breakdown, 1) == present(breakdown)


def test_vllm_suggests_its_own_settings_when_they_fit():
    from vramcalc.analysis.solve import fits

    workload, target = _vllm({**VLLM_2, "precision": "bf16"})
    verdict = present_target(workload, target).verdict
    assert verdict is not None and verdict.kind == "does not fit"
    utilization = [c for c in verdict.changes if "gpu_memory_utilization" in c]
    seqs = [c for c in verdict.changes if "max_num_seqs" in c]
    assert utilization and seqs, verdict.changes
    value = float(utilization[0].rsplit(" ", 1)[1])
    assert fits(workload.but(gpu_memory_utilization=value), target)
    assert not fits(workload.but(gpu_memory_utilization=round(value - 0.01, 2)), target)
    count = int(seqs[0].rsplit(" ", 1)[1].replace(",", ""))
    assert fits(workload.but(max_num_seqs=count), target)
    assert not fits(workload.but(max_num_seqs=count + 1), target)


# ---------------------------------------------------------------- 4. the format answers in training

QLORA = {"model": "llama-3.1-8b", "mode": "training", "lora_rank": "16", "precision": "nf4", "seq": "1024",
         "gpu": "rtx-4090"}


def _solve(values: dict[str, str]):
    from vramcalc.analysis.solve import fits, solve

    merged = {**DEFAULTS, **values}
    workload, target = parse_workload(merged), parse_target(merged)
    return workload, target, solve(workload, target), fits(workload, target)


def test_qlora_that_fits_answers_its_format_and_no_kv_question():
    workload, target, solution, fits_now = _solve(QLORA)
    assert fits_now
    assert solution.best_format == "nf4"  # bf16 under LoRA does not fit; bnb-int8 does not train
    assert solution.best_kv_format is None
    texts = {answer.key: answer.text for answer in present_target(workload, target).answers}
    assert texts["best_format"] == "nf4"
    assert texts["best_kv_format"] == ENGLISH.message("answer.kv_not_applicable")
    code, out, _ = run(["fit", "--model", "llama-3.1-8b", "--mode", "training", "--lora-rank", "16", "--precision",
                        "nf4", "--seq", "1024", "--gpu", "rtx-4090"])
    assert code == 0 and "none" not in out and "not applicable" in out


def test_training_never_answers_a_format_it_cannot_train_in():
    _, _, solution, fits_now = _solve({"model": "llama-3.2-1b", "mode": "training", "gpu": "h100-80gb"})
    assert fits_now and solution.best_format == "bf16"
    _, _, solution, _ = _solve({"model": "llama-3.1-8b", "mode": "training", "seq": "1024", "gpu": "rtx-4090"})
    assert solution.best_format is None  # full fine-tuning: nf4 and bnb-int8 need LoRA, bf16 does not fit


def test_a_current_format_more_precise_than_the_ladder_is_the_answer_when_it_fits():
    _, _, solution, fits_now = _solve({"model": "llama-3.2-1b", "precision": "fp32", "kv_precision": "fp32",
                                       "gpu": "h100-80gb"})
    assert fits_now and solution.best_format == "fp32" and solution.best_kv_format == "fp32"
    _, _, solution, fits_now = _solve({"model": "llama-3.1-8b", "runtime": "llamacpp", "precision": "q2_k",
                                       "gpu": "rtx-4060-ti-16gb"})
    assert fits_now and solution.best_format is not None


# ---------------------------------------------------------------- 5. where the overhead comes from

def _overhead_row(values: dict[str, str]) -> str:
    breakdown = estimate(parse_workload({**DEFAULTS, "model": "llama-3.1-8b", **values}))
    return next(ENGLISH.say(c.formula) for c in breakdown.components if c.key == "overhead")


def test_the_overhead_row_says_whether_it_is_the_engines_default_or_the_users():
    for runtime, extra in (("transformers", {}), ("vllm", {}), ("llamacpp", {"precision": "q4_k_m"}),
                           ("transformers", {"mode": "training", "seq": "512"})):
        default = _overhead_row({"runtime": runtime, **extra})
        given = _overhead_row({"runtime": runtime, **extra, "overhead_gib": "2"})
        assert "set by you" not in default, (runtime, default)
        assert "set by you" in given and "2" in given, (runtime, given)
    assert "transformers' default" in _overhead_row({})
    assert "vLLM's default: 0.54 GiB" in _overhead_row({"runtime": "vllm", "overhead_gib": "2"})
    assert "llama.cpp's default" in _overhead_row({"runtime": "llamacpp", "precision": "q4_k_m", "overhead_gib": "1"})


# ---------------------------------------------------------------- 13. default layouts pass the checks

def test_every_default_layout_passes_the_checks_an_explicit_one_must():
    from vramcalc.core.choices import Runtime
    from vramcalc.core.errors import ValidationError
    from vramcalc.engines import ENGINES
    from vramcalc.parallel.layout import check
    from vramcalc.sources.presets import load_presets, preset_spec

    for slug in load_presets():
        model = preset_spec(slug)
        for runtime, engine in ENGINES.items():
            for training in (False, True) if runtime is Runtime.TRANSFORMERS else (False,):
                for gpus in range(1, 129):
                    try:
                        layout = engine.default_layout(model, gpus, training=training)
                    except ValidationError as error:  # refused in words, naming the GPU count
                        assert error.field == "gpus" and runtime is Runtime.LLAMACPP and gpus > model.layers
                        continue
                    check(layout, model, training=training, gpus=gpus)


def test_gpt2_on_64_gpus_gets_a_layout_it_accepts():
    code, out, err = run(["--model", "gpt2", "--gpus", "64"])
    assert code == 0 and "PP 16" not in out, out
    code, out, err = run(["--model", "gpt2", "--gpus", "64", "--runtime", "llamacpp", "--precision", "q4_k_m"])
    assert code == 2 and "gpus" in err
