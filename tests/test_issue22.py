"""Issue 22's defects in the engine: each test fails on the code before its fix.

1. vLLM on several GPUs reports one pool everywhere, and its suggestions offer its own settings.
2. A checkpoint shipped quantised opens in its own format, which heads every ladder of formats.
3. gpt-oss on llama.cpp as its published GGUF files are (MXFP4 experts at every file type).
4. Training answers the format questions sensibly (the current format; no KV answer).
5. The overhead row says where its number comes from.
13. Default layouts pass the checks explicit ones do.
11. Hostile config.json, links and flags end in a clear message (test_hostile_input.py fuzzes them).
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.analysis.fit import fit_all
from vramcalc.cli import main
from vramcalc.inputs.options import DEFAULTS, parse_precision
from vramcalc.inputs.parse import parse_target
from vramcalc.memory.states import weights_bytes
from vramcalc.render.export import to_csv, to_json, to_markdown
from vramcalc.render.messages import ENGLISH
from vramcalc.render.view import present, present_target
from vramcalc.sources.presets import load_presets


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

    # the estimate path (--no-enable-extensible-kv-cache) at 0.9: a larger utilization is vLLM's remedy
    workload, target = _vllm({**VLLM_2, "precision": "bf16", "gpu_memory_utilization": "0.9",
                              "no_extensible_kv_cache": "1"})
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
    from vramcalc.core.choices import GGUF_RUNTIMES, Runtime
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
                        assert error.field == "gpus" and runtime in GGUF_RUNTIMES and gpus > model.layers
                        continue
                    check(layout, model, training=training, gpus=gpus)


def test_gpt2_on_64_gpus_gets_a_layout_it_accepts():
    code, out, err = run(["--model", "gpt2", "--gpus", "64"])
    assert code == 0 and "PP 16" not in out, out
    code, out, err = run(["--model", "gpt2", "--gpus", "64", "--runtime", "llamacpp", "--precision", "q4_k_m"])
    assert code == 2 and "gpus" in err


# ---------------------------------------------------------------- 2. checkpoints shipped quantised

NATIVE = [slug for slug, preset in load_presets().items() if preset.native_format]


def test_the_quantised_checkpoints_are_the_ones_we_expect():
    assert set(NATIVE) == {"gpt-oss-20b", "gpt-oss-120b", "deepseek-v3", "deepseek-r1", "kimi-k2-instruct",
                           "qwen3-235b-a22b-fp8", "deepseek-v3.2", "minimax-m2.7", "minimax-m2.5", "kimi-k2.5",
                           "mimo-v2-flash", "devstral-small-2-24b-instruct-2512", "devstral-2-123b-instruct-2512",
                           "deepseek-v4-flash", "deepseek-v4-pro"}


@pytest.mark.parametrize("slug", ["devstral-small-2-24b-instruct-2512", "devstral-2-123b-instruct-2512"])
def test_a_per_tensor_fp8_checkpoint_opens_at_the_fp8_formats_size(slug):
    # Mistral's FP8 releases scale each weight matrix once (weight_block_size null), as the fp8 format does; the
    # block checkpoints' 128 x 128 scales would be more bytes: the two must not be mixed up
    native = parse_workload({**DEFAULTS, "model": slug})
    assert native.precision.value == "native"
    size = weights_bytes(native).bytes
    assert size == weights_bytes(native.but(precision=parse_precision("fp8"))).bytes
    assert size < weights_bytes(native.but(precision=parse_precision("fp8-block"))).bytes
    assert any("one scale per weight matrix" in ENGLISH.say(note) for note in estimate(native).notes)


@pytest.mark.parametrize("slug", NATIVE)
def test_a_preset_shipped_quantised_opens_in_its_own_format_and_says_so(slug):
    workload = parse_workload({**DEFAULTS, "model": slug})
    assert workload.precision.value == "native"
    notes = [ENGLISH.say(note) for note in estimate(workload).notes]
    assert any(note.startswith("The weights are the checkpoint as published") for note in notes), notes
    # training trains 16-bit weights; a format named keeps its meaning
    assert parse_workload({**DEFAULTS, "model": slug, "mode": "training"}).precision.value == "bf16"
    assert parse_workload({**DEFAULTS, "model": slug, "precision": "bf16"}).precision.value == "bf16"


def test_a_model_published_in_16_bit_opens_in_bf16_on_every_engine():
    for runtime in ("transformers", "vllm", "llamacpp"):
        assert parse_workload({**DEFAULTS, "model": "llama-3.1-8b", "runtime": runtime}).precision.value == "bf16"


def test_gpt_oss_120b_opens_at_its_mxfp4_size_and_fits_one_h100():
    workload, _, solution, fits_now = _solve({"model": "gpt-oss-120b", "gpu": "h100-80gb"})
    assert 60 * 2**30 < weights_bytes(workload).bytes < 61 * 2**30  # 220 GiB in bf16
    assert fits_now and solution.best_format == "native"
    _, _, solution, fits_now = _solve({"model": "gpt-oss-120b", "gpu": "h100-80gb", "precision": "bf16"})
    assert not fits_now and solution.best_format == "native"  # never nf4 while the checkpoint itself fits


@pytest.mark.parametrize("slug", NATIVE)
def test_native_heads_every_ladder_and_nothing_wider_follows(slug):
    from vramcalc.analysis.solve import weight_ladder

    for runtime in ("transformers", "vllm", "llamacpp"):
        workload = parse_workload({**DEFAULTS, "model": slug, "runtime": runtime})
        ladder = weight_ladder(workload)
        if runtime == "llamacpp" and not slug.startswith("gpt-oss"):
            assert "native" not in ladder  # llama.cpp has no FP8 type
            continue
        assert ladder[0] == workload.precision.value
        sizes = [weights_bytes(workload.but(precision=parse_precision(name))).bytes for name in ladder]
        assert sizes == sorted(sizes, reverse=True) and (len(sizes) == 1 or sizes[0] > sizes[1])
        assert "bnb-int8" not in ladder and "bf16" not in ladder


# ---------------------------------------------------------------- 3. gpt-oss on llama.cpp as its GGUF files are

GIB = 2**30
GGUF_METADATA = 13_008_832  # header, key/values and tokenizer of unsloth's gpt-oss-20b-Q4_K_M.gguf (11,624,759,488 B
# on disk, a public download script) less its 11,611,750,656 B of tensor data


def _gguf(slug: str, precision: str) -> tuple[int, dict[str, int]]:
    from vramcalc.formats.weights import _gguf_plan
    from vramcalc.model.families.decoder.tensors import model_tensors
    from vramcalc.sources.presets import preset_spec

    spec = preset_spec(slug)
    plan = _gguf_plan(spec, model_tensors(spec), precision)
    counts: dict[str, int] = {}
    for _, ggml_type in plan:
        counts[ggml_type] = counts.get(ggml_type, 0) + 1
    workload = parse_workload({**DEFAULTS, "model": slug, "runtime": "llamacpp", "precision": precision})
    return weights_bytes(workload).bytes, counts


# llama.cpp's own load logs: "file size" (tensor data) and "type X: N tensors"
PUBLISHED_LOGS = [
    # ggml-org/gpt-oss-120b-GGUF, llama.cpp issue #15253: f32 433, q8_0 146, mxfp4 108, 59.02 GiB (4.34 BPW)
    ("gpt-oss-120b", "mxfp4_moe", 59.02, {"f32": 433, "q8_0": 146, "mxfp4": 108}),
    # ggml-org/gpt-oss-20b-GGUF, ikawrakow/ik_llama.cpp#822: f32 289, q8_0 98, mxfp4 72, 11.27 GiB
    ("gpt-oss-20b", "mxfp4_moe", 11.27, {"f32": 289, "q8_0": 98, "mxfp4": 72}),
    # unsloth gpt-oss-120b-F16.gguf, ikawrakow/ik_llama.cpp#895: f32 433, f16 146, mxfp4 108, 60.868 GiB
    ("gpt-oss-120b", "f16", 60.87, {"f32": 433, "f16": 146, "mxfp4": 108}),
    # unsloth gpt-oss-20b-Q4_K_M.gguf (ontouchstart/rabbit-holes llama-cpp/models/unsloth/gpt-oss-20b-GGUF/README.md
    # @ e02768814b6e, llama-server build 8198): f32 289, q5_0 61, q8_0 13, q4_K 24, mxfp4 72, 10.81 GiB (4.44 BPW)
    ("gpt-oss-20b", "q4_k_m", 10.81, {"f32": 289, "q5_0": 61, "q8_0": 13, "q4_k": 24, "mxfp4": 72}),
]


@pytest.mark.parametrize(("slug", "precision", "gib", "counts"), PUBLISHED_LOGS)
def test_gpt_oss_gguf_files_as_llama_cpp_logs_them(slug, precision, gib, counts):
    size, planned = _gguf(slug, precision)
    assert round(size / GIB, 2) == gib
    assert planned == counts


# unsloth/gpt-oss-120b-GGUF, every file type, GiB of the files (ailocalcheck.com's table of the repository)
UNSLOTH_120B = {"q2_k": 58.27, "q3_k_s": 58.27, "q4_0": 58.32, "q3_k_m": 58.33, "q4_1": 58.41, "q4_k_s": 58.45,
                "q4_k_m": 58.46, "q5_k_s": 58.56, "q5_k_m": 58.57, "q6_k": 58.94, "q8_0": 59.03, "f16": 60.88}


@pytest.mark.parametrize(("precision", "gib"), UNSLOTH_120B.items())
def test_every_unsloth_gpt_oss_120b_file_size(precision, gib):
    size, _ = _gguf("gpt-oss-120b", precision)
    assert abs((size + GGUF_METADATA) / GIB - gib) <= 0.006


def test_native_gpt_oss_on_llama_cpp_is_the_mxfp4_gguf_and_an_fp8_checkpoint_has_none():
    workload = parse_workload({**DEFAULTS, "model": "gpt-oss-120b", "runtime": "llamacpp", "precision": "native"})
    assert workload.precision.value == "mxfp4_moe"
    assert parse_workload({**DEFAULTS, "model": "gpt-oss-120b", "runtime": "llamacpp"}).precision.value == "mxfp4_moe"
    code, _, err = run(["--model", "deepseek-v3", "--runtime", "llamacpp", "--precision", "native"])
    assert code != 0 and "precision" in err and "Traceback" not in err
    code, _, _ = run(["--model", "gpt-oss-120b", "--runtime", "llamacpp", "--precision", "mxfp4"])
    assert code != 0  # mxfp4 is a GPU format; llama.cpp's file type is mxfp4_moe


# ---------------------------------------------------------------- 7. hidden fields

def test_a_layout_with_one_gpu_counts_as_the_default_and_a_link_says_so():
    from vramcalc.inputs.link import decode
    from vramcalc.inputs.options import shown_values

    values = {**DEFAULTS, "tp": "2", "pp": "2", "gpus": "1", "optimizer": "sgd"}
    shown = shown_values(values)
    assert shown["tp"] == shown["pp"] == "" and shown["optimizer"] == DEFAULTS["optimizer"]  # hidden: defaults
    assert shown_values({**values, "gpus": "4"})["tp"] == "2"
    decoded = decode("tp=2&pp=2&gpus=1")
    assert decoded.values == {} and "pp, tp" in ENGLISH.say(decoded.notices[0])
    decoded = decode("tp=2&pp=2&gpus=2")  # a layout the GPUs cannot run: dropped whole, the GPUs kept
    assert decoded.values == {"gpus": "2"} and ENGLISH.say(decoded.notices[0]).startswith("Ignored from the link: tp")
    assert decode("tp=2&pp=2&gpus=4").values == {"tp": "2", "pp": "2", "gpus": "4"}


def test_vllm_034_suggests_leaving_the_utilization_unset():
    """With the extensible KV cache (0.34's default) a utilization below 1 only withholds memory: vLLM's own
    warning says to leave it unset, the largest pool; and with it unset there is no utilization to suggest."""
    from vramcalc.analysis.solve import fits

    workload, target = _vllm({**VLLM_2, "precision": "bf16", "gpu_memory_utilization": "0.9"})
    verdict = present_target(workload, target).verdict
    assert verdict is not None and verdict.kind == "does not fit"
    assert any("left unset" in change for change in verdict.changes), verdict.changes
    assert not any(" at 0." in change for change in verdict.changes if "gpu_memory_utilization" in change)
    assert fits(workload.but(gpu_memory_utilization=None), target)
    unset, _ = _vllm({**VLLM_2, "precision": "bf16"})
    assert unset.gpu_memory_utilization is None and fits(unset, target)
