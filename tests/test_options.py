"""The Option table (inputs/options.py) against its faces: every row has a parser, a command-line
flag and a link key that round-trip, and DEFAULTS, the command line and the link accept exactly
the table's keys."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from vramcalc.cli import COMMAND_LINE_ONLY, OUTPUT_FLAGS, _values, build_capacity_parser, build_parser
from vramcalc.core.option import Kind, Not
from vramcalc.diffusion.command import as_json, build_diffusion_parser, diffusion_main, training_document
from vramcalc.diffusion.run import evaluate
from vramcalc.diffusion.training import train
from vramcalc.engines.registry import ENGINE_OPTIONS
from vramcalc.inputs.link import PAGE_KEYS, decode, encode
from vramcalc.inputs.options import CHECKBOXES, DEFAULTS, FIELD_PARSERS, OPTION, OPTIONS
from vramcalc.inputs.parse import (
    parse_capacity_query,
    parse_diffusion,
    parse_diffusion_training,
    parse_target,
    parse_workload,
)
from vramcalc.render.messages import ENGLISH

CUSTOM = {"model": "custom", "params": "7", "hidden": "4096", "layers": "32"}
TRAINING = {"mode": "training"}
DIFFUSION = {"family": "diffusion"}
# A value other than the default for each key, with the other keys it needs to be valid.
SAMPLES: dict[str, tuple[str, dict[str, str]]] = {
    "model": ("mistral-7b", {}),
    "params": ("8", CUSTOM),
    "hidden": ("2048", CUSTOM),
    "layers": ("16", CUSTOM),
    "heads": ("32", CUSTOM),
    "kv_heads": ("8", CUSTOM),
    "vocab": ("128256", CUSTOM),
    "ffn": ("14336", CUSTOM),
    "mode": ("training", {}),
    "precision": ("fp16", {}),
    "group_size": ("64", {"precision": "gptq-int4"}),
    "kv_precision": ("fp16", {}),
    "batch": ("4", {}),
    "seq": ("2048", {}),
    "optimizer": ("sgd-momentum", TRAINING),
    "optimizer_impl": ("fused", TRAINING),
    "mixed_precision": ("1", TRAINING),
    "recipe": ("bf16", TRAINING),
    "lora_rank": ("16", TRAINING),
    "lora_targets": ("q,v", {**TRAINING, "lora_rank": "16"}),
    "lora_dropout": ("0.1", {**TRAINING, "lora_rank": "16"}),
    "lora_dtype": ("bf16", {**TRAINING, "lora_rank": "16"}),
    "lora_embeddings": ("1", {**TRAINING, "lora_rank": "16"}),
    "grad_accum": ("4", TRAINING),
    "fused_ce": ("1", TRAINING),
    "objective": ("dpo", TRAINING),
    "reference": ("precomputed", {**TRAINING, "objective": "dpo"}),
    "num_generations": ("4", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8"}),
    "completion_tokens": ("256", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8"}),
    "rollout": ("vllm-server", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8"}),
    "num_iterations": ("2", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8"}),
    "steps_per_generation": ("2", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8"}),
    "local_rollout_forward_batch_size": ("2", {**TRAINING, "objective": "ppo", "seq": "1024", "batch": "4",
                                               "completion_tokens": "256"}),
    "num_ppo_epochs": ("2", {**TRAINING, "objective": "ppo", "seq": "1024", "batch": "4", "completion_tokens": "256"}),
    "vllm_gpu_memory_utilization": ("0.4", {**TRAINING, "objective": "grpo", "seq": "1024", "batch": "8",
                                            "rollout": "vllm-colocate", "gpu": "a100-80gb"}),
    "checkpointing": ("layer", TRAINING),
    "attention": ("eager", TRAINING),
    "overhead_gib": ("1.5", {}),
    "runtime": ("vllm", {}),
    "gpu": ("a100-80gb", {}),
    "wired_limit_mb": ("100000", {"gpu": "apple-m4-max-128gb"}),
    "macos": ("26", {"gpu": "apple-m4-max-128gb"}),
    "gpus": ("2", {}),
    "tp": ("2", {"gpus": "2"}),
    "pp": ("2", {"gpus": "2"}),
    "dp": ("2", {"gpus": "2"}),
    "ep": ("1", {"gpus": "2"}),
    "cp": ("1", {"gpus": "2"}),
    "vpp": ("2", {"gpus": "2", "pp": "2", "seq": "4096"}),
    "zero": ("2", {**TRAINING, "gpus": "2"}),
    "sp": ("1", {"gpus": "2", "tp": "2"}),
    "fsdp": ("full-shard", {**TRAINING, "gpus": "2"}),
    "offload": ("optimizer", {**TRAINING, "gpus": "2", "zero": "3"}),
    "vram": ("40", {}),
    "headroom": ("10", {}),
    "gpu_memory_utilization": ("0.8", {"runtime": "vllm"}),
    "max_num_batched_tokens": ("4096", {"runtime": "vllm"}),
    "max_num_seqs": ("64", {"runtime": "vllm"}),
    "enforce_eager": ("1", {"runtime": "vllm"}),
    "no_extensible_kv_cache": ("1", {"runtime": "vllm"}),
    "gpu_layers": ("10", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "ubatch": ("256", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "parallel": ("2", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "kv_precision_k": ("q8_0", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "kv_precision_v": ("q8_0", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "prompt_tokens": ("1000", {"seq": "2048"}),
    "output_tokens": ("300", {}),
    "gpu_bandwidth": ("936", {}),
    "gpu_tflops": ("142", {}),
    "ram_bandwidth": ("90", {}),
    "gpu_hour_price": ("2.5", {}),
    "train_tokens": ("1000000", TRAINING),
    "min_tokens_per_s": ("20", {}),
    "n_cpu_moe": ("4", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "draft_model": ("qwen3-0.6b", {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m"}),
    "draft_precision": ("q4_k_m", {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m",
                                   "draft_model": "qwen3-1.7b"}),
    "draft_kv_precision": ("q8_0", {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m",
                                    "draft_model": "qwen3-0.6b"}),
    "mtp": ("2", {"model": "glm-4.5-air", "runtime": "vllm", "gpus": "4"}),
    "spec_acceptance": ("0.6", {"model": "glm-4.5-air", "runtime": "vllm", "gpus": "4", "mtp": "2"}),
    "draft_gpu_layers": ("10", {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m",
                                "draft_model": "qwen3-0.6b"}),
    "override_tensor": (r"blk\.(1[0-9])\.ffn_.*=CPU,token_embd=CUDA0", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "cpu_moe": ("1", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "tensor_split": ("3,1", {"runtime": "llamacpp", "precision": "q4_k_m", "gpus": "2"}),
    "max_batch_tokens": ("8192", {"runtime": "tei", "mode": "embedding", "model": "bge-m3"}),
    "max_batch_requests": ("16", {"runtime": "tei", "mode": "embedding", "model": "bge-m3"}),
    "num_ctx": ("16384", {"runtime": "ollama", "precision": "q4_k_m"}),
    "reserve_gb": ("1.5", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "ollama_version": ("0.9.6", {"runtime": "ollama", "precision": "q4_k_m"}),
    "llamacpp_program": ("llama-completion", {"runtime": "llamacpp", "precision": "q4_k_m"}),
    "max_run_hours": ("12", TRAINING),
    "optimizer_in_backward": ("1", TRAINING),
    "activation_offload": ("1", TRAINING),
    "compile": ("1", TRAINING),
    "quantise": ("mlp", {"precision": "fp8"}),
    "ce_output_chunks": ("8", TRAINING),
    "bnb_version": ("0.41.1", {**TRAINING, "lora_rank": "8", "precision": "nf4"}),
    "framework": ("unsloth", TRAINING),
    "text_only": ("1", {"model": "gemma-3-27b-it"}),
    "images": ("2", {"model": "gemma-3-27b-it"}),
    "image_width": ("640", {"model": "gemma-3-27b-it", "images": "1"}),
    "image_height": ("480", {"model": "gemma-3-27b-it", "images": "1"}),
    "videos": ("1", {"model": "qwen2.5-vl-7b-instruct"}),
    "video_seconds": ("30", {"model": "qwen2.5-vl-7b-instruct", "videos": "1"}),
    "video_fps": ("1", {"model": "qwen2.5-vl-7b-instruct", "videos": "1"}),
    "beams": ("2", {"model": "whisper-small", "mode": "speech"}),
    "audio_seconds": ("600", {"model": "whisper-small", "mode": "speech"}),
    "window_tokens": ("120", {"model": "whisper-small", "mode": "speech", "runtime": "faster-whisper",
                              "audio_seconds": "600"}),
    "no_fallback": ("1", {"model": "whisper-small", "mode": "speech", "runtime": "faster-whisper",
                          "audio_seconds": "600"}),
    "no_mmproj_offload": ("1", {"runtime": "llamacpp", "precision": "q4_k_m", "model": "gemma-3-27b-it"}),
    "family": ("diffusion", {}),
    "pipeline": ("sdxl", DIFFUSION),
    "denoiser_precision": ("gguf-q4_0", DIFFUSION),
    "text_precision": ("fp8", DIFFUSION),
    "vae_precision": ("fp32", DIFFUSION),
    "placement": ("model", DIFFUSION),
    "width": ("768", DIFFUSION),
    "height": ("512", DIFFUSION),
    "frames": ("49", {**DIFFUSION, "pipeline": "wan2.1-t2v-1.3b"}),
    "per_prompt": ("2", DIFFUSION),
    "cfg": ("off", DIFFUSION),
    "text_encoders": ("cpu", DIFFUSION),
    "vae_tiling": ("512", DIFFUSION),
    "blocks_to_swap": ("20", {**DIFFUSION, "pipeline": "wan2.1-t2v-14b"}),
    "train_lora": ("16", DIFFUSION),
    "train_lora_targets": ("no-modulation", {**DIFFUSION, "train_lora": "16"}),
    "adapter_precision": ("fp32", {**DIFFUSION, "train_lora": "16"}),
    "train_optimizer": ("adamw8bit", {**DIFFUSION, "train_lora": "32", "pipeline": "wan2.1-t2v-14b"}),
    "train_checkpointing": ("off", {**DIFFUSION, "train_lora": "16", "denoiser_precision": "fp8"}),
    "cache_latents": ("off", {**DIFFUSION, "train_lora": "16"}),
}


def _cli_dests(parser) -> set[str]:
    return {action.dest for action in parser._actions if action.option_strings and action.dest != "help"}


# ---------------------------------------------------------------- the table itself


def test_keys_are_unique_and_defaults_are_the_table():
    keys = [option.key for option in OPTIONS]
    assert len(keys) == len(set(keys))
    assert {option.key: option.default for option in OPTIONS} == DEFAULTS
    assert list(DEFAULTS) == keys


def test_every_engine_key_is_in_the_table():
    for options in ENGINE_OPTIONS.values():
        for option in options:
            assert OPTION[option.key] is option
            assert option.group == "engine"


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_every_option_parses_its_default_and_has_a_flag(option):
    option.parse(option.default)  # raises if the default is not a value of its own parser
    assert option.cli_flags == ("--" + option.key.replace("_", "-"),)
    if option.kind is Kind.CHOICE:
        assert option.default in option.choices or option.default == ""
    for choice in option.choices:
        option.parse(choice)


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_a_bad_value_names_its_field(option):
    from vramcalc import ValidationError

    with pytest.raises(ValidationError) as raised:
        option.parse("nonsense")
    assert raised.value.field == option.key


def test_checkboxes_are_the_flags():
    assert set(CHECKBOXES) == {option.key for option in OPTIONS if option.kind is Kind.FLAG}
    assert all(DEFAULTS[key] == "0" for key in CHECKBOXES)


def test_shown_when_names_keys_and_values_the_table_has():
    for option in OPTIONS:
        for when in option.shown_when:
            for key, allowed in when.items():
                assert key in OPTION and key != option.key, (option.key, key)
                for value in allowed.values if isinstance(allowed, Not) else allowed:
                    if value.strip():
                        OPTION[key].parse(value)


def test_shown_when_follows_the_form():
    shown = {option.key for option in OPTIONS if option.shown(DEFAULTS)}
    assert {"model", "mode", "batch", "seq", "runtime", "overhead_gib", "gpu", "gpus"} <= shown
    assert not shown & {"optimizer", "lora_targets", "tp", "gpu_memory_utilization", "gpu_layers", "params",
                        "group_size", "wired_limit_mb"}
    llamacpp = {**DEFAULTS, "runtime": "llamacpp"}
    assert OPTION["gpu_layers"].shown(llamacpp) and not OPTION["batch"].shown(llamacpp)
    assert OPTION["batch"].shown({**llamacpp, "mode": "training"})
    training = {**DEFAULTS, "mode": "training", "gpus": " 4 ", "lora_rank": "8"}
    assert all(OPTION[key].shown(training) for key in ("zero", "fsdp", "lora_dtype", "mixed_precision", "tp"))
    assert not OPTION["runtime"].shown(training) and not OPTION["mixed_precision"].shown({**training, "recipe": "amp"})
    assert OPTION["macos"].shown({**DEFAULTS, "gpu": "apple-m4-max-128gb"})


# ---------------------------------------------------------------- the faces accept exactly the table's keys


def test_the_command_line_takes_exactly_the_table_keys():
    table = set(OPTION)
    capacity = {key for key, option in OPTION.items() if option.group == "capacity"}
    diffusion = {key for key, option in OPTION.items() if option.group == "diffusion"}
    not_keys = {*OUTPUT_FLAGS, *COMMAND_LINE_ONLY}
    assert _cli_dests(build_parser()) - not_keys == table - capacity - diffusion
    assert _cli_dests(build_parser(target=True)) - not_keys == table - capacity - diffusion
    assert _cli_dests(build_capacity_parser()) - not_keys == capacity
    # `vramcalc diffusion` takes each pipeline key by its link name (family is the page's switch)
    flags = {flag for action in build_diffusion_parser()._actions for flag in action.option_strings}
    assert {OPTION[key].cli_flags[0] for key in diffusion - {"family"}} <= flags


def test_the_link_takes_exactly_the_table_keys():
    decoded = decode(urlencode({key: SAMPLES[key][0] for key in ("batch", "seq", "gpu")} | {"zzz": "1"}))
    assert decoded.values == {"batch": "4", "seq": "2048", "gpu": "a100-80gb"}
    assert any("zzz" in ENGLISH.say(notice) for notice in decoded.notices)
    for key in OPTION:
        assert not decode(urlencode({key: DEFAULTS[key]})).notices, key
    assert not set(PAGE_KEYS) & set(OPTION)


def test_the_workload_fields_are_the_table_rows():
    assert set(FIELD_PARSERS) == {o.key for o in OPTIONS
                                  if o.group not in ("model", "target", "capacity", "speed", "diffusion")}


# ---------------------------------------------------------------- round trips


def test_every_key_has_a_sample():
    assert set(SAMPLES) == set(OPTION)
    assert all(value != DEFAULTS[key] for key, (value, _) in SAMPLES.items())


def _argv(values: dict[str, str]) -> list[str]:
    argv: list[str] = []
    for key, value in values.items():
        option = OPTION[key]
        if key == "model" and value == "custom":
            continue  # the command line says custom by giving --params
        if option.kind is Kind.FLAG:
            argv += [option.cli_flags[0]] if value == "1" else []
        else:
            argv += [option.cli_flags[0], value]
    return argv


@pytest.mark.parametrize("key", list(SAMPLES))
def test_a_key_round_trips_through_the_link_and_the_command_line(key):
    value, context = SAMPLES[key]
    values = {**context, key: value}
    option = OPTION[key]
    # the link
    query = encode({**DEFAULTS, **values})
    decoded = decode(query)
    assert not decoded.notices, decoded.notices
    assert decoded.values == values
    # the command line
    if option.group == "diffusion":
        _diffusion_round_trip(values)
        return
    if option.group == "capacity":
        args = build_capacity_parser().parse_args(_argv(values))
        assert getattr(args, key) == value
        assert parse_capacity_query(vars(args)) == parse_capacity_query(values)
        return
    args = build_parser().parse_args(_argv(values))
    cli_values, config, _ = _values(args)
    assert config is None
    assert {k: v for k, v in cli_values.items() if k in values} == values
    assert parse_workload(cli_values) == parse_workload(values)
    assert parse_target({**cli_values, "gpus": args.gpus}) == parse_target(values)
    fit = build_parser(target=True).parse_args(_argv(values))
    assert _values(fit)[0] == cli_values


def _diffusion_round_trip(values: dict[str, str]) -> None:
    import contextlib
    import io
    import json

    argv = [*_argv({key: value for key, value in values.items() if key != "family"}), "--json"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert diffusion_main(argv) == 0
    chosen, request = parse_diffusion(values)
    training = parse_diffusion_training(values)
    expected = as_json(evaluate(chosen, request)) if training is None else training_document(
        chosen, request, training, train(chosen, request, training))
    assert json.loads(printed.getvalue()) == expected


def test_every_checkbox_and_choice_has_its_element_in_the_page():
    """The page's Python reads each checkbox's `checked` at boot: an option without its element stops the page
    (a vision and a DPO option once did)."""
    import re

    html = (Path(__file__).resolve().parent.parent / "index.html").read_text()
    macros = re.findall(r'(?:choice|values|listed)\("([a-z_0-9]+)"', html)
    present = set(re.findall(r'id="([a-z_0-9]+)"', html)) | set(macros)
    wanted = [o.key for o in OPTIONS if o.checkbox or (o.choices and o.group not in ("model", "capacity"))]
    assert [key for key in wanted if key not in present] == []


def test_a_link_is_not_said_to_have_dropped_a_default_it_never_set():
    """mode=training&objective=grpo: TRL's 8 generations over the default batch of 1 do not divide, but the link
    set neither; the page once said "Ignored from the link: num_generations" and dropped nothing. The form says it."""
    decoded = decode("mode=training&objective=grpo")
    assert decoded.values == {"mode": "training", "objective": "grpo"}
    assert not decoded.notices, [ENGLISH.say(notice) for notice in decoded.notices]
    decoded = decode("mode=training&objective=grpo&num_generations=3&batch=8")  # one the link set: said and dropped
    assert decoded.values == {"mode": "training", "objective": "grpo", "batch": "8"}
    assert any("num_generations" in ENGLISH.say(notice) for notice in decoded.notices)
