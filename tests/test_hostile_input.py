"""Hostile input (issue 22, item 11): config.json fields, link keys and command-line flags fed strings,
numbers and nested JSON end in a ValidationError (the command line: exit 2 and a message naming the
field), never another exception, and each within a time bound."""

from __future__ import annotations

import contextlib
import io
import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vramcalc.cli import main
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.link import decode
from vramcalc.inputs.options import DEFAULTS, MAX_CONFIG_BYTES
from vramcalc.inputs.parse import parse_config_json, parse_workload
from vramcalc.sources import hf_config
from vramcalc.sources.presets import load_presets

BOUND = 1.0  # seconds for one case
BASES = {slug: load_presets()[slug].config for slug in ("llama-3.1-8b", "gemma-3-27b", "deepseek-v3", "gpt2",
                                                        "llama-4-scout", "qwen3-next-80b-a3b")
         if slug in load_presets()}
FIELDS = sorted(hf_config.MEMORY_KEYS | {"model_type", "_name_or_path", "text_config", "layer_types", "no_rope_layers",
                                         "n_embd", "n_head", "n_layer", "n_inner", "n_positions", "resid_pdrop",
                                         "qk_layernorm", "lm_head_bias", "attn_logit_softcapping",
                                         "final_logit_softcapping", "num_nextn_predict_layers",
                                         "use_sliding_window", "max_window_layers", "sliding_window_pattern"})

scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=30) | st.sampled_from(["x" * 900_000, "full_attention", "gemma3_text", "llama"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=4), max_leaves=12)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def timed(call):
    start = time.perf_counter()
    try:
        return call()
    finally:
        assert time.perf_counter() - start < BOUND, "took longer than the bound"


def read_config(text: str) -> None:
    """The page's and the command line's path: the text checked, then read as a model."""
    parse_workload({**DEFAULTS, "model": "config"}, config=parse_config_json(text))


def refused_or_read(text: str) -> None:
    try:
        timed(lambda: read_config(text))
    except ValidationError as error:
        assert str(error) and error.field


@FUZZ
@given(base=st.sampled_from(sorted(BASES)), field=st.sampled_from(FIELDS), value=values, inner=st.booleans())
def test_every_config_field_takes_hostile_values(base, field, value, inner):
    config = json.loads(json.dumps(BASES[base]))
    target = config["text_config"] if inner and isinstance(config.get("text_config"), dict) else config
    target[field] = value
    refused_or_read(json.dumps(config))


@pytest.mark.parametrize("text", [
    "[" * 5000 + "]" * 5000,
    '{"a":' * 5000 + "1" + "}" * 5000,
    json.dumps({"model_type": "llama", "_name_or_path": "x" * 900_000}),
    json.dumps({"model_type": "gemma3", "text_config": {"model_type": ["gemma3_text"]}}),
    json.dumps({"model_type": "gemma3", "text_config": {"model_type": {"a": 1}}}),
    json.dumps({**BASES["llama-3.1-8b"], "layer_types": [["full_attention"]] * 32}),
    json.dumps({**BASES["llama-3.1-8b"], "layer_types": [{"a": 1}] * 32}),
    " " * (MAX_CONFIG_BYTES + 1),
])
def test_named_hostile_configs_are_refused_in_words(text):
    with pytest.raises(ValidationError):
        timed(lambda: read_config(text))


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse: an unknown flag or a missing value
            code = exit_.code
    return code, err.getvalue()


@pytest.mark.parametrize("path", ["/dev/zero", "big", "nested", "binary"])
def test_the_command_line_refuses_hostile_config_files(path, tmp_path):
    if path == "big":
        path = tmp_path / "big.json"
        path.write_text(" " * 50_000_000)
    elif path == "nested":
        path = tmp_path / "nested.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif path == "binary":
        path = tmp_path / "binary.json"
        path.write_bytes(b"\xff\xfe" * 1000)
    code, err = timed(lambda: run(["--config", str(path)]))
    assert code == 2 and "config" in err


@FUZZ
@given(base=st.sampled_from(sorted(BASES)), field=st.sampled_from(FIELDS), value=values)
def test_the_command_line_reads_hostile_config_fields_with_a_message(base, field, value, tmp_path_factory):
    config = {**BASES[base], field: value}
    path = tmp_path_factory.mktemp("config") / "config.json"
    path.write_text(json.dumps(config))
    code, err = timed(lambda: run(["--config", str(path)]))
    assert code == 0 or (code == 2 and err.startswith("vramcalc: error:")), err


link_text = st.text(max_size=40) | st.sampled_from(["1e308", "-1", "nan", "inf", "0x10", "1" * 5000, "%0A", "x']"])


@FUZZ
@given(key=st.sampled_from(sorted(DEFAULTS)), value=link_text)
def test_every_link_key_takes_hostile_values(key, value):
    from urllib.parse import quote

    decoded = timed(lambda: decode(f"{quote(key)}={quote(value)}"))
    try:
        timed(lambda: parse_workload({**DEFAULTS, **decoded.values}))
    except ValidationError as error:
        assert error.field


@FUZZ
@given(key=st.sampled_from(sorted(k for k in DEFAULTS if k not in ("sp", "mixed_precision", "enforce_eager",
                                                                    "lora_embeddings", "fused_ce", "lang"))),
       value=link_text)
def test_every_cli_flag_takes_hostile_values(key, value):
    code, err = run([f"--{key.replace('_', '-')}", value])
    assert code in (0, 2), (code, err)
    assert code == 0 or err, "exit 2 without a message"


@pytest.mark.parametrize(("text", "says"), [
    ("qlora", "QLoRA adds --precision nf4"),  # torchtune's recipe names are not this field's
    ("x", "expected one of: fp32, bf16, amp, mixed or nothing (the default)"),  # no bare ", " for the empty default
])
def test_a_wrong_recipe_says_what_the_field_takes(text, says):
    with pytest.raises(ValidationError, match="recipe") as refused:
        parse_workload({"model": "qwen3-8b", "mode": "training", "recipe": text})
    assert says in str(refused.value)


def test_a_pipeline_named_as_a_model_says_where_it_is():
    with pytest.raises(ValidationError, match="model") as refused:
        parse_workload({"model": "flux.1-dev"})
    assert "vramcalc diffusion --pipeline flux.1-dev" in str(refused.value)


def test_the_diffusion_command_takes_model_as_the_other_commands_do(capsys):
    assert main(["diffusion", "--model", "sd1.5", "--json"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["pipeline"] == "sd1.5"


@pytest.mark.parametrize(("values", "field"), [
    ({"videos": "10000", "video_seconds": "86400"}, "videos"),  # 5,256,968,192 tokens: answered before, silently
    ({"images": "10000", "image_width": "100000", "image_height": "100000", "runtime": "vllm"}, "images"),
])
def test_images_or_videos_cannot_make_a_sequence_the_seq_field_refuses(values, field):
    with pytest.raises(ValidationError, match=field):
        parse_workload({"model": "qwen2.5-vl-7b-instruct", **values})


@pytest.mark.parametrize("quantization", [
    {"quant_method": "fp8", "weight_block_size": [128, 128]},
    {"quant_method": "gptq", "bits": 4, "group_size": 128},
    {"quant_method": "banana"},
])
def test_a_quantised_checkpoints_config_says_its_format_was_not_read(quantization):
    """config.json's quantization_config is not read: with precision auto the weights are counted in 16-bit, twice
    an FP8 checkpoint's and four times a GPTQ one's; before, with no word of it."""
    config = {**BASES["llama-3.1-8b"], "quantization_config": quantization}
    said = parse_workload({**DEFAULTS, "model": "config"}, config=config).model.assumptions
    from vramcalc.render.messages import Words

    assert any(f"quantization_config ({quantization['quant_method']}) is not read" in Words("en").say(a)
               for a in said), said
    asked = parse_workload({**DEFAULTS, "model": "config", "precision": "fp8"}, config=config).model.assumptions
    assert asked == parse_workload({**DEFAULTS, "model": "config"}, config=BASES["llama-3.1-8b"]).model.assumptions
    # precision native names the unread quantization_config, not "published in 16-bit" (an adversary's find)
    with pytest.raises(ValidationError, match=rf"quantization_config \({quantization['quant_method']}\) is not read"):
        parse_workload({**DEFAULTS, "model": "config", "precision": "native"}, config=config)


def test_the_tables_columns_stay_apart_for_the_largest_numbers():
    """A 1,000,000 B-parameter model: 1,862,643 GiB of weights and a 15,852,287 % share of a card. Before, the
    columns ran together ('1862643.291999998.00', '11.7515852287%')."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--params", "999999", "--hidden", "64", "--layers", "1"]) in (0, None)
    lines = out.getvalue().splitlines()
    rows = lines[lines.index(next(line for line in lines if line.startswith("component"))) + 1:]
    for line in rows[:rows.index("")]:
        if not line.startswith("="):
            gib, gb = line[24:].split()[:2]  # after the component's name
            assert float(gib) * 2**30 == pytest.approx(float(gb) * 1e9, rel=1e-2, abs=1e7), line
    cards = rows[rows.index("") + 2:]
    for line in cards[:5]:
        assert re.search(r"\s\d+\.\d\d\s+\d+%\s", line), line


@pytest.mark.parametrize(("args", "field"), [
    (["--blocks-to-swap", "-1"], "blocks_to_swap"),  # before: all blocks but the last swapped, said "-1 blocks swapped"
    (["--width", "0"], "width"),  # before: the pipeline's 1024, silently
    (["--height", "0"], "height"),
    (["--width", "100000", "--height", "100000"], "width"),  # before: answered; the page's field stops at 16,384
    (["--pipeline", "wan2.1-t2v-1.3b", "--frames", "1000000001"], "frames"),  # before: 17,713,321.89 GiB answered
    (["--pipeline", "wan2.1-t2v-1.3b", "--frames", "0"], "frames"),
    (["--train-lora", "16", "--width", "0"], "width"),
    (["--train-lora", "16", "--pipeline", "wan2.1-t2v-1.3b", "--frames", "1000000001"], "frames"),
])
def test_the_diffusion_command_refuses_what_the_pages_fields_refuse(args, field):
    code, err = timed(lambda: run(["diffusion", *args]))
    assert code == 2 and err.startswith(f"vramcalc: error: {field}:"), err


@pytest.mark.parametrize(("args", "ignored"), [
    (["--model", "llama-3.1-8b", "--lora-rank", "16", "--optimizer", "adafactor"], ["--lora-rank", "--optimizer"]),
    (["--model", "llama-3.1-8b", "--gpu-layers", "3", "--max-num-seqs", "3"], ["--gpu-layers", "--max-num-seqs"]),
    (["--model", "llama-3.1-8b", "--mode", "training", "--objective", "sft", "--num-generations", "4"],
     ["--num-generations"]),
    (["--model", "llama-3.1-8b", "--mode", "training", "--lora-rank", "16"], []),
    (["--model", "llama-3.1-8b", "--runtime", "llamacpp", "--gpu-layers", "3", "--json"], []),
])
def test_flags_that_do_not_apply_are_said_to_be_ignored(args, ignored):
    """Before: a training flag in inference, or another engine's setting, was dropped without a word (the answer is
    the one without it, as the page, which hides such fields, gives)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(args) in (0, None)
    notes = [line for line in err.getvalue().splitlines() if "ignored" in line]
    assert [flag for flag in ignored if any(flag in line for line in notes)] == ignored, err.getvalue()
    assert bool(notes) == bool(ignored), err.getvalue()
    if "--json" in args:
        json.loads(out.getvalue())


QWEN4_SMALL = {"model_type": "qwen4_exp_text", "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 4,
               "num_key_value_heads": 1, "head_dim": 16, "vocab_size": 100, "linear_num_key_heads": 2,
               "linear_num_value_heads": 2, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
               "layer_types": ["linear_attention"] * 8, "num_experts": 4, "num_experts_per_tok": 1,
               "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, "hc_count": 2, "hc_lowrank": 8}


@pytest.mark.parametrize("ple", [
    {"ple_layer_ids": list(range(1, 9)), "ngram_size": 64, "heads_per_ngram": 1000, "ple_embed_dim": 63_000,
     "ngram_vocab_size_base": 99_000_000},  # 504,000 primes near 10^8: trial division took minutes
    {"ple_layer_ids": [1], "heads_per_ngram": 100_000, "ple_embed_dim": 200_000}])
def test_qwen4_exp_n_gram_tables_of_hostile_sizes_are_refused_in_time(ple):
    with pytest.raises(ValidationError) as refused:
        timed(lambda: parse_workload({"model": "config"}, config={**QWEN4_SMALL, **ple}))
    assert refused.value.field == "heads_per_ngram"


def test_qwen4_exp_n_gram_tables_as_large_as_allowed_are_read_in_time():
    """4,096 n-gram heads (256 times the release's 16), their prime vocabularies near 10^8."""
    config = {**QWEN4_SMALL, "ple_layer_ids": [1, 2, 3, 4], "ngram_size": 3, "heads_per_ngram": 512,
              "ple_embed_dim": 1024, "ngram_vocab_size_base": 99_000_000}
    assert timed(lambda: parse_workload({"model": "config"}, config=config)).model.ple is not None


def test_the_n_gram_vocabularies_are_the_primes_trial_division_finds():
    from math import isqrt

    from vramcalc.sources.hf_config import _primes_from

    def prime(n: int) -> bool:
        return n > 1 and all(n % d for d in range(2, isqrt(n) + 1))

    assert _primes_from(20_000_000, 40) == tuple(n for n in range(20_000_000, 20_001_000) if prime(n))[:40]
    assert _primes_from(2, 10) == (2, 3, 5, 7, 11, 13, 17, 19, 23, 29)


def test_miller_rabin_rejects_the_strong_pseudoprimes_of_fewer_bases():
    """The smallest composites that pass Miller-Rabin to the first 1..6 prime bases (Jaeschke, 1993; OEIS A014233):
    each must fail with bases 2 to 17, or a base dropped from `_is_prime` would go unseen (near 20M, where the
    n-gram vocabularies are, base 2 alone finds the same primes)."""
    from vramcalc.sources.hf_config import _is_prime

    for composite in (2047, 1_373_653, 25_326_001, 3_215_031_751, 2_152_302_898_747, 3_474_749_660_383):
        assert not _is_prime(composite), composite
