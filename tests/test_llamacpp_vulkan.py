"""The llama.cpp engine against a real llama.cpp with a GPU backend: 235 loads of four GGUF files on its Vulkan
backend (Mesa lavapipe), each device buffer in bytes (tests/data/llamacpp_vulkan.json says how they were made).
Weights and cache are exact; the compute buffer, a model of ggml's graph allocator, is held to the errors
docs/accuracy.md reports, and its two mechanisms measured here to the bytes they add."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.inputs.parse import CONFIG, parse_workload

DATA = json.loads((Path(__file__).parent / "data" / "llamacpp_vulkan.json").read_text())
RUNS = {name: (model, settings, measured) for name, model, settings, measured in DATA["runs"]}
SERVER = "nout4_"  # reserved as llama-server does


def predicted(model: str, settings: dict[str, str]) -> list[int]:
    values = {"model": CONFIG, "runtime": "llamacpp", "precision": "q8_0", "gpu": "24gb", **settings}
    result = estimate(parse_workload(values, config=DATA["configs"][model]))
    return [result.bytes_of(key) for key in ("weights", "kv_cache", "activations")]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_weights_and_cache_on_the_gpu_are_llama_cpps_to_the_byte(name):
    model, settings, measured = RUNS[name]
    assert predicted(model, settings)[:2] == measured[:2]


def compute_errors(prefixes: tuple[str, ...]) -> list[float]:
    errors = []
    for name, (model, settings, measured) in RUNS.items():
        if name.startswith(prefixes) and measured[2]:
            errors.append(predicted(model, settings)[2] / measured[2] - 1)
    return errors


def test_the_compute_buffer_of_the_larger_files_is_within_the_documented_error():
    completion = compute_errors(("mdense", "mmoe"))
    server = compute_errors((SERVER + "mdense", SERVER + "mmoe"))
    assert len(completion) == 82 and len(server) == 54
    assert statistics.median(map(abs, completion)) < 0.04 and max(map(abs, completion)) < 0.18
    assert statistics.median(map(abs, server)) < 0.09 and max(map(abs, server)) < 0.24


def test_llama_server_reserves_logits_for_its_slots_not_the_micro_batch():
    _, settings, completion = RUNS["mdense_ngl99_faon_c2048_ub512"]
    _, _, server = RUNS[SERVER + "mdense_ngl99_faon_c2048_ub512"]
    assert completion[2] - server[2] > 28_000_000  # measured: the logits of 508 rows of a 32,000 vocabulary
    as_completion = predicted("mdense", settings)[2]
    as_server = predicted("mdense", {k: v for k, v in settings.items() if k != "llamacpp_program"})[2]
    assert as_completion == 4 * (512 * 32000 + 512 * 2048) == completion[2] - 4_194_304
    assert as_server < as_completion - 28_000_000


@pytest.mark.parametrize("placement", ["cpumoe", "ncmoe4", "ot01exps", "ot1down"])
def test_experts_in_ram_add_one_expert_tensor_to_the_gpus_compute_buffer(placement):
    """Op offload copies a weight in RAM to the GPU to multiply a micro-batch of 32 rows or more; the copies
    reuse one buffer, so however many experts are in RAM, the buffer grows by one expert tensor."""
    expert = 1024 * 512 * 34 // 32  # one of the medium MoE's Q8_0 expert tensors (32 experts x 512 x 1024)
    for ub in ("32", "128", "512"):
        _, settings, alone = RUNS[f"{SERVER}mmoe_ngl99_faon_c2048_ub{ub}"]
        _, moved, with_copy = RUNS[f"{SERVER}mmoe_ngl99_{placement}_faon_c2048_ub{ub}"]
        assert with_copy[2] - alone[2] == pytest.approx(expert * 32, abs=16)  # 17,825,792 B
        assert predicted("mmoe", moved)[2] - predicted("mmoe", settings)[2] == expert * 32


def test_below_32_tokens_nothing_is_copied_and_ngl_0_reserves_no_gpu_buffer():
    small = [name for name, (_, settings, _) in RUNS.items()
             if settings["gpu_layers"] == "0" and int(settings["ubatch"]) < 32]
    assert small == ["mdense_ngl0_faon_c2048_ub16x", "mdense_ngl0_faon_c2048_ub31x"]
    for name in small:
        model, settings, measured = RUNS[name]
        assert measured == [0, 0, 0] and predicted(model, settings) == [0, 0, 0], name
    _, settings, measured = RUNS["mdense_ngl0_faon_c2048_ub32x"]
    assert measured[2] > 0 and predicted("mdense", settings)[2] > 0
