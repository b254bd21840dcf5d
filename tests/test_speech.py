"""Whisper: counted exactly against transformers 5.23 on the meta device (WhisperForConditionalGeneration, full-size
and perturbed configs), generate's peak held to the one measured on the CPU (tests/golden/speech.json,
tools/measure_speech.py), and whisper.cpp's buffers to its source and to published logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.model.families.speech import transformers_peaks, whisper_cpp_buffers, whisper_cpp_caches
from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config

GOLDEN = json.loads((Path(__file__).parent / "golden" / "speech.json").read_text(encoding="utf-8"))
PARAMS = GOLDEN["params"]
RUNS = GOLDEN["generate"]


@pytest.mark.parametrize("case", PARAMS, ids=[case["name"] for case in PARAMS])
def test_whisper_counts_as_transformers_builds_it(case):
    spec = from_hf_config(case["config"])
    assert not spec.assumptions, [ENGLISH.say(a) for a in spec.assumptions]
    assert spec.speech is not None
    assert param_count(spec) == case["params"]


def test_the_presets_and_perturbed_configs_are_all_held():
    names = {case["name"] for case in PARAMS}
    assert {"whisper-tiny", "whisper-base", "whisper-small", "whisper-medium", "whisper-large-v3",
            "whisper-large-v3-turbo"} <= names
    assert sum(name.startswith("perturbed") for name in names) >= 2


def _peaks(case):
    spec = from_hf_config(case["config"])
    assert spec.speech is not None
    return transformers_peaks(spec.speech, spec.hidden, spec.layers, spec.vocab, e=4 if case["dtype"] == "fp32" else 2,
                              eager=case["attention"] == "eager", batch=case["batch"], beams=case["beams"],
                              tokens=1 + case["new_tokens"], prompt=1)  # the runs' prompt: the start token alone


NAMES = [f"{c['config']['d_model']}-{c['config']['max_source_positions']}-{c['attention']}-{c['dtype']}-"
         f"{c['batch']}x{c['beams']}" for c in RUNS]


@pytest.mark.parametrize("case", RUNS, ids=NAMES)
def test_generate_peaks_are_the_measured_ones(case):
    """Each phase within 10 % of the measured one (most within 1 %): the encoder's moment, and the decoder's with its
    cross-attention and self-attention caches (their estimate leaves out a few small tensors of each step)."""
    encode, decode, _ = _peaks(case)
    assert encode == pytest.approx(case["encode_peak_bytes"], rel=0.001)
    assert decode == pytest.approx(case["decode_peak_bytes"], rel=0.1)


def test_the_runs_cover_both_ends_of_the_decoder_and_both_attentions():
    """The decoder's peak is at its first step (the last layer's cross K and V made contiguous) in some runs and at
    its last (the whole self-attention cache, beam search's reorder) in others; eager and sdpa; greedy and beams."""
    spec = from_hf_config(RUNS[0]["config"])
    assert spec.speech is not None
    firsts = {r["config"]["max_source_positions"] > 2 * r["config"]["decoder_layers"] * (1 + r["new_tokens"])
              for r in RUNS}
    assert firsts == {True, False}
    assert {r["attention"] for r in RUNS} == {"eager", "sdpa"} and {r["beams"] > 1 for r in RUNS} == {True, False}


def _run(**values):
    from vramcalc import estimate, parse_workload

    return estimate(parse_workload(values))


def test_a_transcription_grows_with_beams_and_windows_not_with_the_audio():
    one = _run(model="whisper-large-v3", mode="speech", beams="1")
    five = _run(model="whisper-large-v3", mode="speech", beams="5")
    assert five.bytes_of("kv_cache") == 5 * one.bytes_of("kv_cache")
    # large-v3: 32 layers × 1280 × (1500 cross + 448 self) × K and V × bf16, per row
    assert one.bytes_of("kv_cache") == 32 * 1280 * (1500 + 448) * 2 * 2
    hour = _run(model="whisper-large-v3", mode="speech", beams="5", audio_seconds="3600")
    # an hour is heard window after window: only its log-mel features (128 × 3,000 per window, bf16) grow
    assert hour.total_bytes - five.total_bytes == 119 * 128 * 3000 * 2


def test_whisper_cpp_buffers_are_its_sources_and_a_published_log():
    """ggml-large-v3-q5_0.bin on whisper.cpp (a published log, find_string/read_file id 42914656906): "model size =
    1080.47 MB"; kv cross 251.66 MB, kv pad 7.86 MB; kv self 83.89 MB at init, one decoder (id 56081727618)."""
    result = _run(model="whisper-large-v3", runtime="llamacpp", precision="q5_0", beams="5")
    assert round(result.bytes_of("weights") / 1e6, 2) == 1080.47
    spec = from_hf_config(PARAMS[4]["config"])
    assert spec.speech is not None and spec.hidden == 1280
    kv_self, kv_cross, kv_pad = whisper_cpp_caches(spec.speech, spec.hidden, spec.layers, 448, 1, best_of=1)
    assert [round(x / 1e6, 2) for x in (kv_self, kv_cross, kv_pad)] == [83.89, 251.66, 7.86]
    # beam search over 5 decoders reallocates kv_self for decoders + 2 ("fragmentation")
    assert result.bytes_of("kv_cache") == 7 * kv_self + kv_cross + kv_pad


WCPP = json.loads((Path(__file__).parent / "golden" / "whisper_cpp_buffers.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", WCPP["rows"], ids=[row["model"] for row in WCPP["rows"]])
@pytest.mark.parametrize("flash", [True, False])
def test_whisper_cpp_compute_buffers_are_the_measured_ones(row, flash):
    """whisper.cpp 233fe1fc9's four compute buffers on the CPU backend (measured, tests/golden), to the byte, and
    the engine's activations are their sum, flash attention on (its default) or off; beams change none of them."""
    spec = from_hf_config(next(case for case in PARAMS if case["name"] == row["model"])["config"])
    assert spec.speech is not None
    got = whisper_cpp_buffers(spec.speech, spec.hidden, 448, spec.vocab, flash=flash)
    assert got == tuple(row["encode" if flash else "encode_no_flash"] if g == "encode" else row[g]
                        for g in ("conv", "encode", "cross", "decode"))
    for beams in ("1", "5"):
        result = _run(model=row["model"], runtime="llamacpp", precision="f16", beams=beams,
                      attention="flash" if flash else "eager")
        assert result.bytes_of("activations") == sum(got)


def test_whisper_cpp_buffers_meet_a_published_metal_log():
    """large-v3 with flash attention on Metal (docs/accuracy.md): conv 37.69 and decode 100.04 MB are the device
    buffers plus the scheduler's meta and the graph inputs it keeps on the host (the mel; tokens, positions and
    the 512 × 448 mask); Metal reorders the encoder's and cross graphs for concurrency, which hold more there."""
    spec = from_hf_config(next(case for case in PARAMS if case["name"] == "whisper-large-v3")["config"])
    assert spec.speech is not None
    conv, encode, cross, decode = whisper_cpp_buffers(spec.speech, spec.hidden, 448, spec.vocab, flash=True)
    meta = 1_589_936
    assert round((conv + 4 * 3000 * 128 + meta) / 1e6, 2) == 37.69
    assert round((decode + 4 * (2 * 448 + 512 * 448) + meta) / 1e6, 2) == 100.04
    assert (encode + meta) / 1e6 < 67.31 and (cross + meta) / 1e6 < 132.15


def test_speech_refuses_what_it_does_not_count():
    from vramcalc.core.errors import ValidationError

    with pytest.raises(ValidationError, match="runtime"):
        _run(model="whisper-small", runtime="vllm")
    with pytest.raises(ValidationError, match="mode"):
        _run(model="whisper-small", mode="training")
    with pytest.raises(ValidationError, match="mode"):
        _run(model="qwen3-8b", mode="speech")


@pytest.mark.parametrize("runtime", ["transformers", "llamacpp"])
def test_the_command_line_answers_for_whisper(runtime, capsys):
    from vramcalc.cli import main

    precision = ["--precision", "q8_0"] if runtime == "llamacpp" else []
    assert main(["--model", "whisper-large-v3-turbo", "--mode", "speech", "--runtime", runtime, "--beams", "5",
                 "--audio-seconds", "600", *precision]) == 0
    assert main(["--model", "whisper-small", "--runtime", runtime, "--json", *precision]) == 0
    assert "beams" in capsys.readouterr().out


@pytest.mark.parametrize("runtime", ["transformers", "llamacpp"])
def test_a_speech_model_asked_to_embed_is_refused_naming_mode(runtime):
    """Before: answered as a transcription under the heading 'embedding, bf16, 5 beams, 30 s of audio'."""
    from vramcalc.core.errors import ValidationError

    with pytest.raises(ValidationError, match="speech") as refused:
        _run(model="whisper-tiny", mode="embedding", runtime=runtime)
    assert refused.value.field == "mode"
