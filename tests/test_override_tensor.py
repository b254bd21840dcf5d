"""llama.cpp's --override-tensor (-ot): tensors placed by a pattern over their GGUF names, the first
match winning (llama-model-loader.cpp), beside --n-cpu-moe's own patterns (common/arg.cpp)."""

from __future__ import annotations

import re
import shlex

import pytest

from vramcalc import ValidationError
from vramcalc.analysis.evaluate import estimate
from vramcalc.formats.gguf import tensor_bytes
from vramcalc.formats.weights import _gguf_plan
from vramcalc.inputs.parse import parse_workload
from vramcalc.model.families.decoder.tensors import model_tensors
from vramcalc.speed import speed_of
from vramcalc.workload import Machine

LLAMA = {"model": "llama-3.1-8b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4090"}


def planned_bytes(spec, ftype: str, pattern: str) -> int:
    """The bytes of the GGUF plan's tensors whose name `pattern` finds: chosen by name, as llama.cpp does,
    over llama-quantize's plan, not by the engine's roles or layers."""
    found = re.compile(pattern)
    return sum(tensor_bytes(t, ggml_type) for t, ggml_type in _gguf_plan(spec, model_tensors(spec), ftype)
               if found.search(t.name))


def n_cpu_moe_patterns(n: int) -> str:
    """What --n-cpu-moe N adds to the overrides: llm_add_n_cpu_ffn_overrides with LLM_FFN_EXPS_REGEX."""
    return ",".join(rf"blk\.{i}\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU" for i in range(n))


def decode(values):
    workload = parse_workload(values)
    return speed_of(estimate(workload), workload.gpu, 1, Machine()).decode_tokens_per_s


@pytest.mark.parametrize(("model", "n"), [("qwen3-30b-a3b", 20), ("gpt-oss-20b", 24), ("mixtral-8x7b", 5)])
def test_n_cpu_moe_written_as_patterns_is_n_cpu_moe(model, n):
    values = {"model": model, "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4090"}
    flag = estimate(parse_workload({**values, "n_cpu_moe": str(n)}))
    patterns = estimate(parse_workload({**values, "override_tensor": n_cpu_moe_patterns(n)}))
    assert patterns.bytes_of("weights") == flag.bytes_of("weights")
    assert patterns.host_bytes == flag.host_bytes
    assert decode({**values, "override_tensor": n_cpu_moe_patterns(n)}) == pytest.approx(
        decode({**values, "n_cpu_moe": str(n)}), rel=1e-9)


def test_dense_ffn_tensors_in_ram_are_exactly_those_the_pattern_names():
    base = estimate(parse_workload(LLAMA))
    pattern = r"blk\.\d+\.ffn_(up|down|gate)\."  # LLM_FFN_DENSE_REGEX for every layer (--n-cpu-ffn)
    moved = estimate(parse_workload({**LLAMA, "override_tensor": pattern + "=CPU"}))
    expected = planned_bytes(base.workload.model, "q4_k_m", pattern)
    assert expected > 3e9  # the MLPs are most of an 8B model
    assert base.bytes_of("weights") - moved.bytes_of("weights") == pytest.approx(expected, abs=2)
    assert moved.host_bytes - base.host_bytes == pytest.approx(expected, abs=2)
    assert decode({**LLAMA, "override_tensor": pattern + "=CPU"}) < decode(LLAMA) / 2


def test_a_layer_in_ram_is_brought_to_the_gpu_by_a_pattern():
    partial = {**LLAMA, "gpu_layers": "20"}  # the output layer and the last 19 of 32 layers
    base = estimate(parse_workload(partial))
    brought = estimate(parse_workload({**partial, "override_tensor": r"blk\.0\.=CUDA0"}))
    expected = planned_bytes(base.workload.model, "q4_k_m", r"blk\.0\.")
    assert brought.bytes_of("weights") - base.bytes_of("weights") == pytest.approx(expected, abs=2)
    assert base.host_bytes - brought.host_bytes == pytest.approx(expected, abs=2)


def test_the_first_matching_pattern_wins():
    spec = estimate(parse_workload(LLAMA)).workload.model
    kept = estimate(parse_workload({**LLAMA, "override_tensor": r"blk\.1\.=CUDA0,blk\.\d+\.=CPU"}))
    everything = planned_bytes(spec, "q4_k_m", r"blk\.\d+\.")
    layer_1 = planned_bytes(spec, "q4_k_m", r"blk\.1\.")
    outside_on_gpu = planned_bytes(spec, "q4_k_m", r"^output")
    assert kept.bytes_of("weights") == pytest.approx(layer_1 + outside_on_gpu, abs=2)
    assert kept.host_bytes - estimate(parse_workload(LLAMA)).host_bytes == pytest.approx(everything - layer_1, abs=2)


def test_the_embeddings_and_the_head_follow_their_patterns():
    spec = estimate(parse_workload(LLAMA)).workload.model
    base = estimate(parse_workload(LLAMA))
    embd = estimate(parse_workload({**LLAMA, "override_tensor": "token_embd=CUDA0"}))
    assert embd.bytes_of("weights") - base.bytes_of("weights") == planned_bytes(spec, "q4_k_m", "token_embd")
    head = {**LLAMA, "override_tensor": r"^output\.weight=CPU"}
    assert base.bytes_of("weights") - estimate(parse_workload(head)).bytes_of("weights") == planned_bytes(
        spec, "q4_k_m", r"^output\.weight")
    assert decode(head) < decode(LLAMA)


def test_a_tied_head_follows_the_embeddings_pattern():
    values = {**LLAMA, "model": "qwen3-4b"}  # tied: llama.cpp's output layer is token_embd, duplicated
    base = estimate(parse_workload(values))
    table = planned_bytes(base.workload.model, "q4_k_m", "token_embd")
    on_gpu = estimate(parse_workload({**values, "override_tensor": "token_embd=CUDA0"}))
    assert on_gpu.bytes_of("weights") == base.bytes_of("weights")  # the copy was there already
    assert base.host_bytes - on_gpu.host_bytes == table
    in_ram = estimate(parse_workload({**values, "override_tensor": "token_embd=CPU"}))
    assert base.bytes_of("weights") - in_ram.bytes_of("weights") == table


@pytest.mark.parametrize(("text", "bad"), [
    ("blk", "blk"), ("blk=GPU", "GPU"), ("blk=CUDA1", "CUDA1"), ("blk=cpu", "cpu"), ("(blk=CPU", "(blk"),
    ("=CPU", "=CPU"), (r"(blk\d+)+=CPU", r"(blk\d+)+"), ("a=CPU," * 65, None),
    (r"(.|.)*Z=CPU", r"(.|.)*Z"), (r".*.*.*.*x=CPU", r".*.*.*.*x"), ("x=cuda0", "cuda0"),
    (r"blk\.[[:digit:]]+\.x=CPU", r"blk\.[[:digit:]]+\.x"), (r"\Ablk=CPU", r"\Ablk"), ("(?i)blk=CPU", "(?i)blk"),
    ("a{=CPU", "a{"),
])
def test_bad_overrides_name_the_field(text, bad):
    with pytest.raises(ValidationError) as error:
        parse_workload({**LLAMA, "override_tensor": text})
    assert error.value.field == "override_tensor"
    if bad is not None:
        assert error.value.value == bad


def test_the_command_carries_the_patterns_as_one_shell_word():
    from vramcalc.engines.llamacpp import llama_server_command

    text = r"blk\.(1[0-9])\.ffn_.*_exps=CPU,token_embd=CUDA0"
    workload = parse_workload({**LLAMA, "override_tensor": text, "n_cpu_moe": "4"})
    words = shlex.split(llama_server_command(workload, "model.gguf"))
    assert words[words.index("-ot") + 1] == text
    assert words.index("-ot") < words.index("--n-cpu-moe")  # the user's patterns come first, as the plan reads them


def test_ollama_refuses_what_it_cannot_do():
    with pytest.raises(ValidationError) as error:
        parse_workload({**LLAMA, "runtime": "ollama", "override_tensor": "token_embd=CUDA0"})
    assert error.value.field == "override_tensor"


@pytest.mark.parametrize("pattern", [r"blk\.1\.*", r"blk\.1\.?\d\.ffn_down", r"blk\.1\.[(]|ffn_down",
                                     r"blk\.12\.ffn_up", r"blk\.1\.(attn|ffn)_.*", r"token_embd|blk\.3\."])
def test_patterns_tried_layer_by_layer_place_as_a_search_over_every_name(pattern):
    """layer_devices tries on a layer only the patterns that can find it; the result must be that of
    std::regex_search's walk: every pattern on every name, the first match winning."""
    from vramcalc.engines.llamacpp_overrides import device_of, layer_devices
    from vramcalc.model.families.decoder.tensors import layer_tensors

    spec = estimate(parse_workload(LLAMA)).workload.model
    overrides = ((pattern, "CPU"), (r"blk\.2\.", "CUDA0"))
    walked = tuple(tuple(device_of(f"blk.{i}.{t.name.split('.', 2)[2]}", overrides) for t in layer_tensors(spec, i))
                   for i in range(spec.layers))
    assert layer_devices(spec, overrides) == walked


def test_what_the_patterns_moved_is_said_against_the_plan_without_them():
    from vramcalc.core.units import format_binary
    from vramcalc.render.messages import ENGLISH

    spec = estimate(parse_workload(LLAMA)).workload.model
    table = planned_bytes(spec, "q4_k_m", "token_embd")
    result = estimate(parse_workload({**LLAMA, "override_tensor": "token_embd=CUDA0"}))
    said = ENGLISH.say(next(c for c in result.components if c.key == "weights").explain())
    assert f"moves {format_binary(table)} (net) of the weights to the GPU" in said
    moe = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "n_cpu_moe": "10"}
    both = estimate(parse_workload({**moe, "override_tensor": "token_embd=CUDA0"}))
    table = planned_bytes(both.workload.model, "q4_k_m", "token_embd")
    said = ENGLISH.say(next(c for c in both.components if c.key == "weights").explain())
    assert f"moves {format_binary(table)} (net) of the weights to the GPU" in said  # not --n-cpu-moe's experts


def test_tensors_on_the_gpu_with_no_layer_there_bring_its_buffers():
    placed = estimate(parse_workload({**LLAMA, "gpu_layers": "0", "override_tensor": r"blk\.\d+\.=CUDA0"}))
    assert placed.bytes_of("weights") > 4e9
    assert placed.bytes_of("activations") > 0 and placed.bytes_of("overhead") > 0
    nothing = estimate(parse_workload({**LLAMA, "gpu_layers": "0", "ubatch": "16"}))  # no op offload below 32
    assert nothing.bytes_of("weights") == 0 and nothing.bytes_of("overhead") == 0
