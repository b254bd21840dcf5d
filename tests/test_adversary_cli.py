"""Defects an adversary found through the command line and the link (branch adv4), each kept fixed here:
the input, what the calculator did, and what it must do."""

from __future__ import annotations

import contextlib
import io
import json
import random
import struct
import sys
import time
from pathlib import Path

import pytest

from vramcalc import estimate
from vramcalc.analysis.solve import need, scaled_depth
from vramcalc.cli import main, read_weights
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.link import decode, encode
from vramcalc.inputs.options import DEFAULTS, OPTION
from vramcalc.inputs.parse import parse_workload
from vramcalc.parallel.layout import Layout, default_layout
from vramcalc.render.view import _answer_label
from vramcalc.sources.gpus import gpu
from vramcalc.sources.presets import load_presets
from vramcalc.workload import Target

WEIGHTS_DATA = Path(__file__).parent / "data" / "weights"


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


# ---------------------------------------------------------------- the command line, the link and the page agree

def cli_bytes(values: dict[str, str]) -> tuple[int, str]:
    argv = ["--json"]
    for key, value in values.items():
        flag = OPTION[key].cli_flags[0]
        argv += ([flag] if value == "1" else []) if OPTION[key].checkbox else [flag, value]
    code, out, err = run(argv)
    assert code == 0, err
    return json.loads(out)["total_bytes"], err


def link_bytes(values: dict[str, str]) -> int:
    """What the page answers for a link of these values: decoded (hidden keys dropped), then estimated."""
    return estimate(parse_workload({**DEFAULTS, **decode(encode(values)).values})).total_bytes


SETUPS = [
    # flags the page hides in this mode or engine: the command line said "ignored" and used them anyway
    ({"model": "qwen3-30b-a3b", "mode": "embedding", "runtime": "llamacpp", "precision": "q4_k_m", "cpu_moe": "1"},
     "--cpu-moe"),  # 20.0 GB said as 2.4 GB
    ({"model": "qwen3-30b-a3b", "mode": "embedding", "runtime": "llamacpp", "precision": "q4_k_m",
      "draft_model": "qwen3-0.6b"}, "--draft-model"),  # a draft model's bytes counted for embeddings
    ({"model": "gemma-3-4b-it", "runtime": "ollama", "precision": "q4_k_m", "images": "1", "no_mmproj_offload": "1"},
     "--no-mmproj-offload"),  # an option of llama-server's, not Ollama's
    ({"model": "llama-3.1-8b", "runtime": "vllm", "kv_precision_k": "q8_0"}, "--kv-precision-k"),
    # keys the engine reads in embedding mode too (llama-server --embedding -np -ub -ngl, Ollama's num_ctx): shown
    ({"model": "qwen3-embedding-0.6b", "mode": "embedding", "runtime": "llamacpp", "precision": "q8_0",
      "parallel": "4", "ubatch": "2048", "gpu_layers": "10"}, None),
    ({"model": "qwen3-30b-a3b", "mode": "embedding", "runtime": "ollama", "precision": "q4_k_m", "num_ctx": "4096",
      "parallel": "2"}, None),
]


@pytest.mark.parametrize(("values", "ignored"), SETUPS)
def test_the_command_line_answers_what_the_link_answers(values, ignored):
    """Before: a flag the page hides was said on stderr to be ignored, yet it changed the command line's answer,
    which then differed from the same setup's link (which drops the hidden key) and from the page."""
    total, err = cli_bytes(values)
    assert total == link_bytes(values)
    assert (ignored is not None and ignored in err) == ("ignored" in err), err


def test_a_flag_the_engine_reads_in_embedding_mode_changes_the_answer():
    base = {"model": "qwen3-embedding-0.6b", "mode": "embedding", "runtime": "llamacpp", "precision": "q8_0"}
    assert cli_bytes({**base, "parallel": "4"})[0] > cli_bytes(base)[0]
    assert decode(encode({**base, "parallel": "4"})).values["parallel"] == "4"


def test_a_gguf_file_in_training_is_refused_naming_the_weights():
    """Before: the command line chose llama.cpp for the file, then said that --runtime llamacpp (never typed) was
    ignored, and refused precision 'file' (never typed either)."""
    code, _, err = run(["--weights", str(WEIGHTS_DATA / "tiny-llama-q4_k_m.gguf"), "--mode", "training"])
    assert code == 2 and "ignored" not in err and err.startswith("vramcalc: error: weights:"), err


@pytest.mark.parametrize("runtime", ["llamacpp", "ollama"])
def test_the_largest_batch_on_a_gguf_engine_is_named_by_its_field(runtime):
    """llama.cpp's and Ollama's sequences are --parallel slots, which "the largest batch" varies there; under
    Ollama the answer was labelled "Largest batch", a field the page hides for it."""
    workload = parse_workload({"model": "qwen3-8b", "runtime": runtime, "precision": "q4_k_m"})
    assert _answer_label("max_batch", workload) == "answer.max_parallel"
    code, out, _ = run(["fit", "--model", "qwen3-8b", "--runtime", runtime, "--precision", "q4_k_m", "--gpu",
                        "rtx-3060"])
    assert code == 0 and "most --parallel" in out and "largest batch" not in out


# ---------------------------------------------------------------- reverse answers fed back


def fit(*args: str) -> dict:
    code, out, err = run(["fit", "--json", *args])
    assert code == 0, err
    return json.loads(out)


def test_ollamas_longest_sequence_is_its_num_ctx():
    """Ollama allocates num_ctx whatever the sequence: its longest sequence was "at least 100,000,000 tokens (the
    input limit)" for Qwen3 8B on a 12 GB card. Now the largest num_ctx, which fits and one more does not."""
    plan = ("--model", "qwen3-8b", "--runtime", "ollama", "--precision", "q4_k_m", "--gpu", "rtx-3060")
    whole = ("--gpu-layers", "37")  # the answers take the model whole on the card (ollama.searched)
    answer = fit(*plan)["max_seq"]
    assert 4_096 < answer < 100_000_000
    assert fit(*plan, *whole, "--num-ctx", str(answer))["fits"]
    assert not fit(*plan, *whole, "--num-ctx", str(answer + 1))["fits"]
    workload = parse_workload({"model": "qwen3-8b", "runtime": "ollama", "precision": "q4_k_m"})
    assert _answer_label("max_seq", workload) == "answer.max_num_ctx"
    assert "largest --num-ctx" in run(["fit", *plan])[1]


def test_an_ollama_encoders_longest_sequence_is_still_the_sequence():
    """An encoder's embeddings run llama.cpp's --embedding at the sequence, under Ollama too."""
    answer = fit("--model", "bge-m3", "--mode", "embedding", "--runtime", "ollama", "--precision", "f16",
                 "--gpu", "rtx-3060", "--seq", "512")["max_seq"]
    workload = parse_workload({"model": "bge-m3", "mode": "embedding", "runtime": "ollama", "precision": "f16"})
    assert _answer_label("max_seq", workload) == "answer.max_seq" and answer is not None


def test_fit_answers_whisper_on_whisper_cpp_in_a_quantized_type():
    """The best format compared the weights' bytes through llama-quantize's plan, which refuses Whisper's
    convolutions (whisper.cpp's files come from whisper-quantize): `fit --model whisper-small --mode speech
    --runtime llamacpp --precision q8_0` was a traceback."""
    result = fit("--model", "whisper-small", "--mode", "speech", "--runtime", "llamacpp", "--precision", "q8_0",
                 "--gpu", "rtx-4060-ti-8gb")
    assert result["fits"] and result["best_format"] == "f16"


@pytest.mark.parametrize("plan", [
    ("--model", "gemma-3-27b-it", "--images", "1", "--seq", "1", "--gpu", "h100-80gb"),
    ("--model", "qwen2.5-vl-7b-instruct", "--images", "4", "--gpu", "rtx-4090", "--runtime", "vllm"),
    ("--model", "gemma-3-4b-it", "--mode", "training", "--images", "1", "--lora-rank", "16", "--precision", "nf4",
     "--gpu", "rx-7900-xtx", "--seq", "131072"),
])
def test_the_longest_sequence_with_images_is_the_seq_fields(plan):
    """The images' tokens join the typed sequence; the longest sequence was the sum, so fed back as --seq it did not
    fit (Gemma 3 27B with one image on an H100: 40,271, of which 256 the image's)."""
    answer = fit(*plan)["max_seq"]
    assert fit(*plan, "--seq", str(answer))["fits"]
    assert not fit(*plan, "--seq", str(answer + 1))["fits"]


def test_images_that_alone_do_not_fit_leave_no_longest_sequence():
    """Before: "4 tokens", a sequence shorter than its four images' 1,024."""
    assert fit("--model", "gemma-3-27b-it", "--mode", "training", "--gpu", "mi300x", "--lora-rank", "16", "--images",
               "4", "--batch", "1000", "--seq", "512")["max_seq"] is None


# ---------------------------------------------------------------- weight files


def _safetensors(path: Path, header: bytes) -> Path:
    path.write_bytes(struct.pack("<Q", len(header)) + header)
    return path


@pytest.mark.parametrize("make", ["deep-header", "deep-index", "index-metadata-list", "no-tensors"])
def test_odd_weight_files_are_refused_in_words(make, tmp_path):
    """Before: a RecursionError for a header or an index nested 100,000 deep (on the page the interpreter's
    stack), an AttributeError for an index whose metadata is a list, and a file of metadata alone answered
    with no weights at all (approximate)."""
    if make == "deep-header":
        path = _safetensors(tmp_path / "model.safetensors", b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    elif make == "no-tensors":
        path = _safetensors(tmp_path / "model.safetensors", b'{"__metadata__":{"format":"pt"}}')
    else:
        path = tmp_path
        index = ('{"weight_map":' + "[" * 100_000 + "]" * 100_000 + "}" if make == "deep-index"
                 else '{"metadata":[1],"weight_map":{"a":"model.safetensors"}}')
        (path / "model.safetensors.index.json").write_text(index)
    code, _, err = run(["--model", "qwen3-0.6b", "--weights", str(path)])
    assert code == 2 and err.startswith("vramcalc: error: weights:"), err


# ---------------------------------------------------------------- config.json's nested parts


@pytest.mark.parametrize(("slug", "vision", "runtime"), [
    ("llava-1.5-7b-hf", {"patch_size": 1_000_000}, "vllm"),  # vLLM's dummy image: tokens 0, a ZeroDivisionError
    ("llava-v1.6-mistral-7b-hf", {"image_size": 1}, "llamacpp"),  # LLaVA-NeXT's grid of 0 patches a side
    ("gemma-3-4b-it", {"patch_size": 1000}, "transformers"),
])
def test_a_patch_larger_than_the_image_is_refused_naming_it(slug, vision, runtime):
    config = json.loads(json.dumps(load_presets()[slug].config))
    config["vision_config"] = {**config.get("vision_config", {}), **vision}
    with pytest.raises(ValidationError) as refused:
        estimate(parse_workload({**DEFAULTS, "model": "config", "runtime": runtime, "images": "1"}, config=config))
    assert refused.value.field == "vision_config.patch_size"


# ---------------------------------------------------------------- engines at the edges


def test_every_layer_in_ram_on_mixed_cards_has_a_speed():
    """-ngl 0 over two cards: no layer on either, and the cards' mean rate divided by no share (ZeroDivisionError:
    `--model llama-3.1-8b --runtime llamacpp --gpu-layers 0 --gpu rtx-3090,rtx-4090`, Ollama's too)."""
    for runtime in ("llamacpp", "ollama"):
        code, out, err = run(["--json", "--model", "llama-3.1-8b", "--runtime", runtime, "--precision", "q4_k_m",
                              "--gpu-layers", "0", "--gpu", "rtx-3090,rtx-4090"])
        assert code == 0, err
        assert json.loads(out)["speed"]["decode_tokens_per_s"] > 0


@pytest.mark.parametrize("args", [
    ("--model", "llama-3.1-8b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpus", "64"),
    ("--json", "--model", "deepseek-v4-flash", "--runtime", "llamacpp", "--tensor-split", "1,1,1", "--gpus", "1024"),
])
def test_fit_refuses_more_gpus_than_llamacpp_has_layers_in_words(args):
    """The breakdown refused them naming gpus; fit ended in a traceback (the same ValidationError, uncaught)."""
    code, _, err = run(["fit", *args])
    assert code == 2 and err.startswith("vramcalc: error: gpus:"), err


def test_whisper_on_a_large_card_is_answered_within_the_bound():
    """The deepest Whisper that fits a 1,024 GB card has 10,000 layers: whisper.cpp's weights were summed tensor by
    tensor over every layer at each step of the search (0.9 s of CPU, 3 s on a busy machine); one layer of a kind
    now, as the other counts do."""
    start = time.process_time()
    assert fit("--model", "whisper-large-v3", "--runtime", "llamacpp", "--mode", "speech", "--gpu",
               "1024gb")["max_layers"] == 10_000
    assert time.process_time() - start < 0.3


# ---------------------------------------------------------------- the link


def test_a_link_of_two_cards_alike_keeps_both():
    """A card list was matched as one name: gpu=rtx-3090,rtx-3090 (the command line's two cards, TP 2) opened as
    one RTX 3090. Each card is matched on its own ("rtx 3090, 4090" opens as rtx-3090,rtx-4090)."""
    assert decode("gpu=rtx-3090,rtx-3090").values["gpu"] == "rtx-3090,rtx-3090"
    values = decode("gpu=rtx-3090,rtx-3090").values
    assert parse_workload({**DEFAULTS, **values}).devices == 2
    assert decode("gpu=rtx 3090, 4090&runtime=llamacpp&precision=q4_k_m").values["gpu"] == "rtx-3090,rtx-4090"
    assert decode("gpu=rtx4090").values["gpu"] == "rtx-4090"


# ---------------------------------------------------------------- the reverse answers, fed back at random


def test_random_reverse_answers_hold_when_fed_back():
    """tools/fit_roundtrip.py on 30 random setups (seed 7, about 3 s): each answer set through the command line
    fits, and one more token, sequence or one GPU fewer does not. It found the images' tokens counted twice, Ollama's
    sequence that costs nothing and the KeyError of a shallow GGUF variant (100 setups: `python tools/...`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import fit_roundtrip

    rng, checked = random.Random(7), 0
    while checked < 30:
        flags = fit_roundtrip.sample(rng)
        result = fit_roundtrip.fit_json(flags)
        if result is None:
            continue
        checked += 1
        assert fit_roundtrip.check(flags, result) == [], flags


def test_the_default_layout_of_many_gpus_is_found_among_the_heads_divisors():
    """tp was sought among every divisor of the GPU count (100,000: 100,000 trials, each time the speed answers
    asked, 0.9 s for `--runtime vllm --gpus 100000` on a busy machine); it divides the heads, so among theirs."""
    model = parse_workload({"model": "llama-3.1-8b"}).model
    for gpus in (*range(1, 200), 1024, 4096, 99_999, 100_000):
        tp = max(d for d in range(1, gpus + 1) if gpus % d == 0 and model.heads % d == 0)  # the former search
        pp = max(d for d in range(1, min(gpus // tp, model.layers) + 1) if gpus // tp % d == 0)
        assert default_layout(model, gpus, training=False) == (Layout() if gpus == 1 else
                                                                Layout(tp=tp, pp=pp, dp=gpus // tp // pp))
    start = time.process_time()
    for _ in range(100):
        default_layout(model, 100_000, training=False)
    assert time.process_time() - start < 0.05


def test_attention_is_read_in_inference_by_the_page_the_link_and_the_cli_alike():
    """Eager attention in inference (transformers' eager, llama.cpp without -fa) changes the answer (Llama 3.1 8B at
    32,768 tokens: 25 GB with flash, 369 GB eager); the page showed the field among the training settings only, so a
    link dropped what the command line read. It is now an engine setting, hidden only on vLLM (its own backends)."""
    from vramcalc import estimate, parse_workload
    from vramcalc.inputs.options import shown_values

    values = {"model": "llama-3.1-8b", "seq": "32768", "attention": "eager"}
    assert shown_values(values)["attention"] == "eager"
    assert shown_values({**values, "runtime": "vllm"})["attention"] == "flash"
    eager, flash = (estimate(parse_workload({**values, "attention": a})).total_bytes for a in ("eager", "flash"))
    assert eager > 10 * flash


def test_eager_attention_that_does_not_fit_suggests_flash_first():
    """The s × s probabilities of eager attention are most of the activations at long contexts: switching to
    FlashAttention is the first single change offered, and only where it fits."""
    from vramcalc import parse_workload
    from vramcalc.analysis.solve import solve
    from vramcalc.analysis.suggest import changes
    from vramcalc.inputs.parse import parse_target

    values = {"model": "llama-3.1-8b", "seq": "32768", "attention": "eager", "gpu": "tesla-t4", "precision": "nf4"}
    workload, target = parse_workload(values), parse_target(values)
    found = changes(workload, target, solve(workload, target))
    assert found[0].key == "change.attention"
    flash = parse_workload({**values, "attention": "flash"})
    assert not any(c.key == "change.attention" for c in changes(flash, target, solve(flash, target)))


# branch adv7: the latest features (unified memory, T4, attention, mllama, encoders)


def test_a_mixture_of_experts_on_a_card_of_unknown_speed_has_no_moe_chart_not_a_traceback():
    """`fit --model qwen3-30b-a3b --gpu 24gb --runtime llamacpp` ended in a ZeroDivisionError: the --n-cpu-moe
    chart scaled its tokens/s by the fastest, 0 on a card whose bandwidth is not known."""
    for argv in (["fit", "--model", "qwen3-30b-a3b", "--gpu", "24gb", "--runtime", "llamacpp"],
                 ["--model", "qwen3-30b-a3b", "--gpu", "24gb", "--runtime", "llamacpp"]):
        code, out, _ = run(argv)
        assert code == 0 and "bandwidth is not known" in out
    code, out, _ = run(["--model", "qwen3-30b-a3b", "--gpu", "24gb", "--runtime", "llamacpp", "--gpu-bandwidth", "900"])
    assert code == 0 and "Generation" in out


def test_fit_says_why_a_gpu_part_within_the_card_does_not_fit_a_shared_memory():
    """`fit --gpu strix-halo --runtime llamacpp --n-cpu-moe 48` printed "now: 3.90 GiB in total: does not fit" on a
    96 GiB GPU and nothing more: the experts in system RAM (54.58 GiB) exceed the 32 GiB the carve-out leaves, which
    the page's verdict says. The command line now says it too."""
    base = ["fit", "--model", "qwen3-30b-a3b", "--runtime", "llamacpp", "--n-cpu-moe", "48"]
    code, out, _ = run([*base, "--gpu", "strix-halo"])
    assert code == 0 and "does not fit" in out and "54.58 GiB in system RAM" in out and "carve-out" in out
    code, out, _ = run([*base, "--gpu", "apple-m4-24gb"])
    assert code == 0 and "54.58 GiB in system RAM" in out and "unified memory" in out
    code, out, _ = run([*base, "--gpu", "rtx-4090"])  # a card with memory of its own: nothing more to say
    assert code == 0 and "system RAM" not in out.split("speed:")[0]


def test_fit_ignores_a_macs_setting_on_another_machine_as_the_breakdown_does():
    """`fit --gpu strix-halo --wired-limit-mb 1000` said the flag was ignored, then refused it (exit 2), while the
    breakdown ignored it and answered."""
    for argv in (["fit", "--gpu", "strix-halo", "--wired-limit-mb", "1000"], ["--gpu", "strix-halo", "--wired-limit-mb",
                                                                              "1000"]):
        code, out, err = run(argv)
        assert code == 0 and "ignored" in err and "--wired-limit-mb 1000" in err and "error" not in err
    code, out, _ = run(["fit", "--gpu", "apple-m4-max-128gb", "--wired-limit-mb", "120000"])
    assert code == 0 and "117.19 GiB each" in out  # on a Mac it applies


def test_vllm_on_a_mac_is_refused_by_name():
    """vLLM on macOS runs on the CPU (VLLM_TARGET_DEVICE is set to cpu, its only device there: docs'
    cpu.apple.inc.md), yet `--runtime vllm --gpu apple-m4-24gb` was answered against Metal's working set with
    vLLM's utilization share of it. It is refused naming runtime, as faster-whisper is off NVIDIA."""
    for argv in (["--model", "llama-3.1-8b", "--runtime", "vllm", "--gpu", "apple-m4-24gb"],
                 ["fit", "--model", "bge-m3", "--mode", "embedding", "--runtime", "vllm", "--gpu",
                  "apple-m4-max-128gb"]):
        code, _, err = run(argv)
        assert code == 2 and "runtime" in err and "CPU" in err
    code, _, _ = run(["--model", "llama-3.1-8b", "--runtime", "vllm", "--gpu", "dgx-spark"])
    assert code == 0


def test_llamacpps_best_kv_cache_starts_from_its_own_default_f16_not_the_weights_format():
    """llama.cpp caches K and V in f16 unless told (-ctk/-ctv), whatever the weights: with fp32 weights the answer
    took the weights' fp32 as the cache it ran and said "best KV cache fp32", which fed back (--kv-precision fp32)
    did not fit: LLaVA-OneVision in fp32 over two 24 GB Macs at 32,768 tokens, 30.20 GiB with f16, 31.95 with fp32."""
    base = ["fit", "--json", "--model", "llava-onevision-qwen2-7b-ov-hf", "--gpu", "apple-m4-24gb", "--runtime",
            "llamacpp", "--precision", "fp32", "--gpus", "2", "--seq", "32768"]
    code, out, _ = run(base)
    best = json.loads(out)["best_kv_format"]
    assert code == 0 and best == "fp16"
    code, out, _ = run([*base, "--kv-precision", best])
    assert json.loads(out)["fits"]
    code, out, _ = run(["fit", "--json", "--model", "llama-3.1-8b", "--runtime", "vllm", "--precision", "fp32"])
    assert json.loads(out)["best_kv_format"] == "fp32"  # vLLM's cache follows the weights' dtype


@pytest.mark.parametrize("objective", ["sft", "dpo", "orpo", "kto"])
def test_a_kv_cache_format_in_a_training_without_generation_is_said_ignored(objective):
    """A supervised or preference step keeps no KV cache: before, --kv-precision int8 was taken without a word and
    changed nothing. GRPO, RLOO and PPO generate, and keep it."""
    err = io.StringIO()
    args = ["--model", "qwen3-0.6b", "--mode", "training", "--objective", objective, "--batch", "2", "--seq", "512",
            "--kv-precision", "int8", "--json"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(args) == 0
    assert "ignored" in err.getvalue() and "--kv-precision int8" in err.getvalue(), err.getvalue()


def test_fits_text_says_at_least_where_a_search_stopped_at_its_limit():
    """The page says "at least" where an answer is the search's limit, not the card's; `fit` printed the limit bare
    (a 2-layer GGUF on an RTX 4090: "largest model 616M parameters (10,000 layers)")."""
    weights = str(WEIGHTS_DATA / "tiny-llama-q4_k_m.gguf")
    code, out, _ = run(["fit", "--weights", weights, "--runtime", "llamacpp", "--gpu", "rtx-4090"])
    assert code == 0 and "largest model     at least " in out and "(10,000 layers)" in out, out
    code, out, _ = run(["fit", "--model", "qwen3-0.6b", "--gpu", "b200"])
    assert code == 0 and "at least" not in out.split("largest model")[1].splitlines()[0], out


def test_the_best_weights_beside_a_weight_file_are_said_to_be_another_file():
    """With --weights the format is the file's, and --precision cannot be given beside it: "best weights f16" read
    as a setting to feed back; it is another file of this model (the JSON keeps the format's name)."""
    from vramcalc.render.messages import Words
    from vramcalc.render.view import best_format_text

    weights = str(WEIGHTS_DATA / "tiny-llama-q4_k_m.gguf")
    code, out, _ = run(["fit", "--weights", weights, "--runtime", "llamacpp", "--gpu", "rtx-4090"])
    assert code == 0 and "best weights      f16 (another file of this model)" in out, out
    code, out, _ = run(["fit", "--weights", weights, "--runtime", "llamacpp", "--gpu", "rtx-4090", "--json"])
    assert json.loads(out)["best_format"] == "f16"
    workload = parse_workload({"runtime": "llamacpp"}, weights=read_weights(weights))
    assert best_format_text(workload, "file", Words("pt")) == "os deste arquivo"
    assert best_format_text(parse_workload({"model": "qwen3-8b"}), "bf16", Words("en")) == "bf16"
