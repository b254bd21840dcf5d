"""The command that runs a plan (--command): each engine's flags say what the answer assumed."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vramcalc.cli import main


def run(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


def test_llama_server_gets_the_context_of_every_slot_and_the_experts_in_ram():
    plan = ("--model", "qwen3-30b-a3b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--n-cpu-moe", "20",
            "--kv-precision", "q8_0", "--parallel", "2", "--seq", "30000")
    code, line = run(*plan, "--command")
    assert code == 0
    runtime = json.loads(run(*plan, "--json")[1])["runtime"]
    flags = line.split()
    assert flags[:3] == ["llama-server", "-m", "qwen3-30b-a3b-Q4_K_M.gguf"]
    assert flags[flags.index("-c") + 1] == str(runtime["n_ctx"] * runtime["n_seq"])  # 2 × 30,208 (padded to 256)
    assert "--n-cpu-moe 20" in line and "-ctk q8_0 -ctv q8_0" in line and "-np 2" in line and "-fa on" in line


def test_ollama_gets_its_environment_and_the_context_it_would_choose():
    code, text = run("--model", "qwen3-8b", "--runtime", "ollama", "--precision", "q4_k_m", "--gpu", "rtx-4090",
                     "--kv-precision", "q8_0", "--command")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve"
    assert "PARAMETER num_ctx 32768" in lines  # a 24 GB card: Ollama's 32,768 tier, under Qwen3's 40,960


@pytest.mark.parametrize(("args", "wanted"), [
    (("--gpus", "4", "--seq", "32768"), ["--max-model-len 32768", "--tensor-parallel-size 4"]),
    (("--precision", "fp8", "--kv-precision", "fp8"), ["--quantization fp8", "--kv-cache-dtype fp8"]),
    (("--max-num-seqs", "64", "--enforce-eager"), ["--max-num-seqs 64", "--enforce-eager"]),
])
def test_vllm_serve_gets_the_settings_its_pool_was_sized_with(args, wanted):
    code, line = run("--model", "llama-3.1-70b", "--runtime", "vllm", "--gpu", "h100-sxm-80gb", *args, "--command")
    assert code == 0 and line.startswith("vllm serve meta-llama/Llama-3.1-70B ")
    assert all(flag in line for flag in wanted), line


def test_transformers_names_its_dtype_and_attention_and_training_has_no_one_command():
    code, line = run("--model", "qwen3-8b", "--attention", "eager", "--command")
    assert code == 0 and 'from_pretrained("Qwen/Qwen3-8B", dtype="bfloat16", attn_implementation="eager"' in line
    assert run("--model", "qwen3-8b", "--mode", "training", "--command")[0] == 1


@pytest.mark.parametrize("gpus", ["1", "4"])
def test_vllm_command_ends_with_the_pool_lines_its_log_should_show(gpus):
    """vLLM logs "Available KV cache memory: %.2f GiB" (gpu_worker.py), "GPU KV cache size: %s tokens" and
    "Maximum concurrency for %s tokens per request: %.2fx" (kv_cache_utils.py): the same figures as the
    answer's pool, on several GPUs the most loaded GPU's (the JSON's runtime object on that layout)."""
    plan = ("--model", "llama-3.1-8b" if gpus == "1" else "llama-3.1-70b", "--runtime", "vllm",
            "--gpu", "h100-sxm-80gb", "--gpus", gpus, "--seq", "32768", "--no-extensible-kv-cache")
    text = run(*plan, "--command")[1]
    runtime = json.loads(run(*plan, "--json")[1])["runtime"]
    assert text.splitlines()[1:5] == [
        "# vLLM should then log about these lines:",
        f"#   Available KV cache memory: {runtime['kv_pool_bytes'] / 2**30:.2f} GiB",
        f"#   GPU KV cache size: {runtime['kv_tokens']:,} tokens",
        f"#   Maximum concurrency for 32,768 tokens per request: {runtime['max_concurrency']:.2f}x"]
    assert runtime["kv_pool_gpus"] == int(gpus)


def test_engines_that_log_their_memory_otherwise_get_no_expected_lines():
    text = run("--model", "qwen3-8b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--command")[1]
    assert len(text.splitlines()) == 1 and "#" not in text


@pytest.mark.parametrize(("args", "error"), [
    (("--model", "llama-3.1-70b"), "ValueError: No available memory for the cache blocks."),
    (("--model", "llama-3.1-8b", "--seq", "131072"),
     "ValueError: To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache"),
])
def test_vllm_that_cannot_start_is_shown_with_the_error_it_raises(args, error):
    """No pool, or a pool smaller than one request of --max-model-len (Llama 3.1 8B caches 128 KiB per
    token in bf16: 16 GiB for 131,072 tokens): vLLM stops with a ValueError."""
    text = run("--runtime", "vllm", "--gpu", "rtx-4090", *args, "--command")[1]
    log = [line for line in text.splitlines() if line.startswith("#   ")]
    assert log[-1].startswith("#   " + error), text


def test_sglang_gets_the_same_plan_in_its_own_flags():
    code, text = run("--model", "llama-3.1-70b", "--runtime", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "4",
                     "--precision", "fp8", "--kv-precision", "fp8", "--max-num-seqs", "64", "--enforce-eager",
                     "--command")
    sglang = text.splitlines()[-1]
    assert code == 0 and sglang.startswith("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B ")
    for flag in ("--context-length 8192", "--tp-size 4", "--quantization fp8", "--kv-cache-dtype fp8_e5m2",
                 "--max-running-requests 64", "--disable-cuda-graph"):
        assert flag in sglang
    assert "--mem-fraction-static" not in sglang  # its own split, not vLLM's share translated


def test_vllm_serves_a_vision_model_text_only_with_language_model_only():
    """text_only leaves the tower out of the weights and the dummy images out of the profiling run: vLLM does both
    with --language-model-only; without it the command loads the tower and profiles it."""
    code, line = run("--model", "qwen2.5-vl-7b-instruct", "--runtime", "vllm", "--gpu", "h100-sxm-80gb",
                     "--text-only", "--command")
    assert code == 0 and "--language-model-only" in line
    code, line = run("--model", "qwen2.5-vl-7b-instruct", "--runtime", "vllm", "--gpu", "h100-sxm-80gb", "--command")
    assert code == 0 and "--language-model-only" not in line


def test_vllms_logged_cache_size_is_its_whole_blocks_concurrency_times_the_length():
    """vLLM 0.34 logs int(num_blocks / blocks per request × max_model_len) (kv_cache_utils.get_kv_cache_capacity),
    which for a hybrid model is not the attention blocks' tokens: Qwen3.5-27B at 32,768 tokens on an H100 printed
    178,880 where its concurrency, 5.02, gives about 164,500."""
    plan = ("--model", "qwen3.5-27b", "--runtime", "vllm", "--gpu", "h100-sxm-80gb", "--seq", "32768")
    runtime = json.loads(run(*plan, "--json")[1])["runtime"]
    logged = int(next(line for line in run(*plan, "--command")[1].splitlines() if "GPU KV cache size" in line)
                 .split(": ")[1].split()[0].replace(",", ""))
    assert logged < runtime["kv_tokens"]
    assert abs(logged / 32_768 - runtime["max_concurrency"]) < 0.03  # within one block's share of the pool


@pytest.mark.parametrize(("precision", "wanted"), [
    ("nf4", ('quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", '
            'bnb_4bit_compute_dtype="float16"))')),
    ("bnb-int8", "quantization_config=BitsAndBytesConfig(load_in_8bit=True))"),
    ("fp8-block", "quantization_config=FineGrainedFP8Config())"),
    ("awq-int4", 'device_map="auto")  # a checkpoint published in awq-int4'),
    ("bf16", 'dtype="bfloat16", attn_implementation="sdpa", device_map="auto")'),
])
def test_transformers_call_quantises_as_the_answer_counts(precision, wanted):
    """The from_pretrained line named no quantization_config, so nf4's line loaded the model in 16 bits (each
    config built with transformers 5.23 when written)."""
    line = run("--model", "qwen3-8b", "--precision", precision, "--gpu", "b200", "--command")[1].splitlines()[0]
    assert line.endswith(wanted), line


@pytest.mark.parametrize("gpus", ["1", "2"])
def test_vllm_034_logs_its_reservation_then_the_measured_pool(gpus):
    """With the extensible KV cache vLLM 0.34 logs "Available KV cache memory" for the reservation sized before
    warm-up (the estimate without CUDA graphs, gpu_worker.py:795-798), then "Memory after warmup: ... %d KV cache
    blocks (%s GiB) fit within the requested %s GiB" (extensible_kv_cache.py:693-712), then the pool's lines."""
    plan = ("--model", "llama-3.1-8b" if gpus == "1" else "qwen3-32b", "--runtime", "vllm",
            "--gpu", "h100-sxm-80gb" if gpus == "1" else "a100-80gb", "--gpus", gpus, "--seq", "32768")
    text = run(*plan, "--command")[1]
    runtime = json.loads(run(*plan, "--json")[1])["runtime"]
    assert "--gpu-memory-utilization" not in text.splitlines()[0]
    log = text.splitlines()[2:7]
    pool, blocks = runtime["kv_pool_bytes"], runtime["kv_tokens"] // runtime["block_tokens"]
    reservation = float(log[0].split(": ")[1].split()[0])
    assert log[0].startswith("#   Available KV cache memory: ") and reservation > pool / 2**30
    assert log[1].startswith("#   Memory after warmup: ") and f"; {blocks:,} KV cache blocks (" in log[1]
    assert f"fit within the requested {runtime['claimed_bytes'] / 2**30:.2f} GiB" in log[1]
    assert log[2] == f"#   GPU KV cache size: {runtime['kv_tokens']:,} tokens"
    assert runtime["extensible_kv_cache"] and runtime["gpu_memory_utilization"] == 1.0


def test_vllm_command_passes_the_utilization_only_when_given():
    plan = ("--model", "llama-3.1-8b", "--runtime", "vllm", "--gpu", "rtx-4090", "--command")
    assert "--gpu-memory-utilization" not in run(*plan)[1].splitlines()[0]
    given = run(*plan, "--gpu-memory-utilization", "0.9")[1].splitlines()[0]
    assert "--gpu-memory-utilization 0.9" in given and "extensible" not in given
    estimate = run(*plan, "--no-extensible-kv-cache")[1].splitlines()[0]
    assert estimate.endswith("--no-enable-extensible-kv-cache") and "--gpu-memory-utilization" not in estimate


@pytest.mark.parametrize(("runtime", "safe"), [
    ("vllm", "vllm serve 'evil; touch /tmp/pwned #' "),
    ("transformers", 'from_pretrained("evil\\"; import os #; touch /tmp/pwned #"'),
])
def test_a_model_name_from_a_file_cannot_inject_into_the_printed_command(runtime, safe, tmp_path):
    """A config.json's _name_or_path (or a weight file's name) is untrusted: before, `vllm serve evil; touch
    /tmp/pwned #` ran a second command when pasted, and a quote closed transformers' Python string."""
    name = "evil; touch /tmp/pwned #" if runtime == "vllm" else 'evil"; import os #; touch /tmp/pwned #'
    config = json.loads((Path(__file__).parent / "data" / "weights" / "tiny-qwen3-sharded" / "config.json")
                         .read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "_name_or_path": name}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--config", str(tmp_path / "config.json"), "--runtime", runtime, "--command"]) == 0
    assert safe in out.getvalue(), out.getvalue()


def test_a_weight_file_name_is_quoted_for_the_shell(tmp_path):
    path = tmp_path / "a b;$(id)'x.gguf"
    path.write_bytes((Path(__file__).parent / "data" / "weights" / "tiny-llama-q4_k_m.gguf").read_bytes())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--weights", str(path), "--command"]) == 0
    assert out.getvalue().startswith("llama-server -m 'a b;$(id)'\"'\"'x.gguf' -c "), out.getvalue()


@given(st.text(max_size=30))
def test_the_shell_quoting_is_shlexs(text):
    """render/command.shell_quoted keeps shlex out of the page's standard library; it quotes as shlex.quote does."""
    import shlex

    from vramcalc.render.command import shell_quoted

    assert shell_quoted(text) == shlex.quote(text)


@pytest.mark.parametrize(("precision", "vllm", "transformers"), [
    ("fp32", "--dtype float32", 'dtype="float32"'),
    ("fp16", "--dtype float16", 'dtype="float16"'),
    ("bf16", None, 'dtype="bfloat16"'),  # the checkpoint's own dtype: no flag
])
def test_the_command_loads_the_float_format_the_answer_counts(precision, vllm, transformers):
    """--precision fp32 counted 32-bit weights (Qwen3 8B: 32.7 GiB, its draft's too) while the transformers line loaded
    dtype="float16" and `vllm serve` its checkpoint's bf16 (auto): each now names the dtype counted."""
    plan = ("--model", "qwen3-8b", "--precision", precision, "--gpu", "h100-sxm-80gb", "--draft-model", "qwen3-0.6b",
            "--command")
    served = run(*plan, "--runtime", "vllm")[1].splitlines()
    for line in (served[0], served[-1]):  # vLLM's, then SGLang's
        assert (vllm in line) if vllm else "--dtype" not in line, line
    lines = run(*plan, "--runtime", "transformers")[1].splitlines()
    assert all(transformers in line for line in lines[:2]), lines  # the model, then its assistant


@pytest.mark.parametrize(("precision", "published"), [("mxfp4", True), ("nvfp4", True), ("fp8-block", True),
                                                      ("awq-int4", True), ("fp8", False), ("bf16", False)])
def test_vllm_says_which_formats_need_a_checkpoint_quantised_so(precision, published):
    """Qwen3 8B at --precision mxfp4 was counted at 4.25 bits (4.4 GiB of linear layers) while `vllm serve
    Qwen/Qwen3-8B` with no flag loads the bf16 repository (16 GB): vLLM reads MXFP4, NVFP4, block FP8, AWQ and GPTQ
    from a checkpoint quantised so (fp8 alone it quantises as a 16-bit one loads), as transformers' line says."""
    lines = run("--model", "qwen3-8b", "--runtime", "vllm", "--precision", precision, "--gpu", "b200",
                "--command")[1].splitlines()
    for line in (lines[0], lines[-1]):  # vLLM's, then SGLang's
        assert line.endswith(f"  # a checkpoint published in {precision}") is published, line
