"""A Gemma 4 drafter (Gemma4AssistantForCausalLM, google/gemma-4-E2B-it-assistant) as the draft model of its Gemma 4
target (issue 23): llama-server loads it with -md and --spec-type draft-mtp, and its context shares the target's
memory (common/speculative.cpp is_mem_shared; llama-context ctx_other for gemma4-assistant), so only its weights and
compute buffer are added; the engines that cannot run it, and the wrong targets, are refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.presets import preset_spec
from vramcalc.speed import speed_of
from vramcalc.workload import Machine

DRAFTER = "gemma-4-e2b-it-assistant"
BASE = {"model": "gemma-4-e2b-it", "runtime": "llamacpp", "precision": "q8_0", "seq": "8192"}
GOLDEN = json.loads((Path(__file__).parent / "golden" / "params.json").read_text(encoding="utf-8"))["models"]


def _run(values):
    result = estimate(parse_workload(values))
    return {c.key: c.bytes for c in result.components}, result


def test_target_and_drafter_hold_their_meta_device_counts():
    """Both classes built on the meta device (tools/measure_params.py; the drafter with kv_sharing_modes patched):
    the target's text model and the drafter's every parameter, the centroids and both projections included."""
    target, drafter = preset_spec("gemma-4-e2b-it"), preset_spec(DRAFTER)
    assert param_count(drafter) == GOLDEN[DRAFTER]["params"] == 77_731_328
    assert param_count(target) + param_count(drafter) == (GOLDEN["gemma-4-e2b-it"]["text_params"]
                                                           + GOLDEN[DRAFTER]["params"])
    assert drafter.drafter_backbone == target.hidden == 1536 and drafter.vocab == target.vocab


def test_the_drafter_adds_its_weights_and_compute_buffer_and_no_cache():
    without, plain = _run(BASE)
    with_drafter, result = _run({**BASE, "draft_model": DRAFTER})
    alone, alone_result = _run({**BASE, "model": DRAFTER})  # the drafter by itself, in the draft's q8_0
    assert with_drafter["kv_cache"] == without["kv_cache"]  # it reads the target's cells
    assert with_drafter["weights"] - without["weights"] == alone["weights"]  # its GPU share, -ngld 999
    assert result.host_bytes - plain.host_bytes == alone_result.host_bytes  # its token table, as llama.cpp's input
    layout = alone_result.runtime
    assert result.runtime["draft_device_bytes"] == alone["weights"] + alone["activations"] == (
        layout["device_bytes"] - alone["overhead"])
    assert with_drafter["activations"] > without["activations"] + alone["activations"] - 1  # and drafted rows
    said = ENGLISH.say(next(c for c in result.components if c.key == "kv_cache").formula)
    assert "keeps no cache" in said


def test_a_plain_draft_model_still_gets_its_own_cache():
    """The rule is the drafter's, not every draft's: Gemma 3 1B beside Gemma 3 27B keeps cells of its own."""
    base = {**BASE, "model": "gemma-3-27b-it"}
    assert _run({**base, "draft_model": "gemma-3-1b-it"})[0]["kv_cache"] > _run(base)[0]["kv_cache"]


def test_the_command_loads_the_drafter_as_an_mtp_draft():
    from vramcalc.engines.llamacpp_engine import ENGINE
    from vramcalc.parallel.layout import Layout

    line = ENGINE.command(parse_workload({**BASE, "draft_model": DRAFTER}), Layout(), "gemma-4-e2b-it.gguf")[0]
    assert f"-md {DRAFTER}-Q8_0.gguf --spec-type draft-mtp -ngld 999" in line


def test_the_drafter_speeds_the_decode_up():
    """Three drafts a step at the assumed acceptance: more tokens a second than the target alone."""
    def decode(values):
        workload = parse_workload({**DEFAULTS, **values, "gpu": "rtx-4090"})
        rate = speed_of(estimate(workload), workload.gpu, workload.devices, Machine()).decode_tokens_per_s
        assert rate is not None
        return rate
    assert decode({**BASE, "draft_model": DRAFTER}) > 1.5 * decode(BASE)


@pytest.mark.parametrize(("values", "field", "says"), [
    ({"model": "gemma-4-31b-it"}, "draft_model", "1,536 wide"),  # 5,376 wide: its hidden state does not fit
    ({"model": "llama-3.2-1b"}, "draft_model", "Gemma 4 model"),  # before the vocabulary rule
    ({"model": DRAFTER}, "model", "choose its Gemma 4 target"),
    ({"runtime": "transformers", "precision": "bf16"}, "draft_model", "kv_sharing_modes"),
    ({"runtime": "ollama"}, "draft_model", "llama-server"),
])
def test_where_the_drafter_cannot_draft_the_field_is_named(values, field, says):
    with pytest.raises(ValidationError) as raised:
        parse_workload({**BASE, "draft_model": DRAFTER, **values})
    assert raised.value.field == field and says in str(raised.value)


def test_the_drafter_alone_says_how_to_count_it_beside_its_target():
    result = estimate(parse_workload({**BASE, "model": DRAFTER}))
    said = [ENGLISH.say(a) for a in result.assumptions]
    assert any("runs only beside its target" in s and "as the draft model" in s for s in said)


@pytest.mark.parametrize(("ngld", "on_gpu"), [
    (None, {"nextn.pre_projection.weight", "nextn.post_projection.weight", "output_norm.weight"}),
    ("3", {"nextn.post_projection.weight", "output_norm.weight"}),  # layer 0 in RAM: its pre_projection with it
])
def test_the_drafters_projections_sit_where_llama_cpp_puts_them(ngld, on_gpu):
    """LLM_TENSOR_INFOS: nextn.post_projection is an output-layer tensor, nextn.pre_projection layer 0's (created
    as blk 0's in models/gemma4-assistant.cpp), the centroids and token_embd input-layer ones, in RAM; the tied
    head is token_embd duplicated on the GPU."""
    from vramcalc.engines.llamacpp import draft_workload, llamacpp_layout, place_weights, uses_flash
    from vramcalc.formats import weights

    workload = parse_workload({**BASE, "draft_model": DRAFTER, "draft_gpu_layers": ngld or ""})
    drafted = draft_workload(workload, workload.draft_model)
    stack = weights.stack(drafted.model, drafted.precision, group_size=drafted.group_size,
                          nominal_bits=weights.nominal_bits(drafted.precision))
    layout = llamacpp_layout(drafted.model, seq=drafted.seq, n_seq=drafted.parallel, ubatch=drafted.ubatch,
                             flash=uses_flash(drafted.attention), type_k=drafted.kv_precision,
                             type_v=drafted.kv_precision, gpu_layers=drafted.gpu_layers)
    placed = place_weights(drafted.model, stack, layout, cpu_moe=0, overrides=())
    outside = {tensor.name: size for tensor, size in stack.outside}
    head = outside["token_embd.weight"]  # the duplicated output, on the GPU with the output layer
    gpu_layers = layout.layers_on_gpu
    layers = stack.layers_bytes(drafted.model.layers - gpu_layers, drafted.model.layers)
    assert placed.device == layers + head + sum(outside[name] for name in on_gpu)
    assert placed.host == stack.layers_bytes(0, drafted.model.layers - gpu_layers) + sum(
        size for name, size in outside.items() if name not in on_gpu)
