"""The command that runs a plan (--command): each engine's flags say what the answer assumed."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

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
