"""Multimodal models: the vision tower and projector counted exactly against transformers 5.23 on the meta device
(tests/golden/vision.json, tools/measure_vision.py), full-size and perturbed, beside the language model."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.vision import FAMILIES

GOLDEN = json.loads((Path(__file__).parent / "golden" / "vision.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_vision_part_counts_as_transformers_builds_it(case):
    spec = from_hf_config(case["config"])
    assert not spec.assumptions, [ENGLISH.say(a) for a in spec.assumptions]
    assert spec.vision is not None and spec.vision.params == case["vision_params"]
    assert param_count(spec) == case["text_params"]


def test_every_family_has_a_full_size_and_a_perturbed_case():
    names = {case["name"] for case in CASES}
    assert {f"{family}/{label}" for family in FAMILIES for label in ("full", "perturbed")} <= names


def _weights(**values):
    from vramcalc import estimate, parse_workload

    result = estimate(parse_workload({"model": "gemma-3-27b-it", **values}))
    return result, result.bytes_of("weights")


def test_the_vision_part_joins_the_weights_in_16_bits_unless_text_only():
    vision = 423_060_336  # gemma-3-27b-it's tower and projector (golden gemma3/full)
    result, with_it = _weights(precision="int4")
    _, without = _weights(precision="int4", text_only="1")
    assert with_it - without == 2 * vision
    said = ENGLISH.say(next(c for c in result.components if c.key == "weights").formula[-1])
    assert "vision tower" in said and "423M parameters" in said


def test_llama_cpp_keeps_the_mmproj_on_the_gpu_unless_told_not_to():
    llamacpp = {"runtime": "llamacpp", "precision": "q4_k_m"}
    on, gpu = _weights(**llamacpp)
    off, ram = _weights(**llamacpp, no_mmproj_offload="1")
    assert gpu - ram == 2 * 423_060_336 == off.host_bytes - on.host_bytes
    _, text = _weights(**llamacpp, text_only="1")
    assert text == ram


# the processor settings each golden column was made with, and a model of that family (Qwen3.5 shares Qwen3-VL's)
TOKEN_MODELS = {"qwen2_5_vl": "qwen2.5-vl-7b-instruct", "qwen3_vl": "qwen3.5-27b", "gemma4": "gemma-4-31b-it",
                "llama4": "llama-4-scout-17b-16e-instruct", "mistral3": "mistral3/full", "gemma3": "gemma-3-27b-it",
                "internvl": "internvl/full", "glm4v": "glm4v_moe/full", "llava": "llava/full",
                "llava_next": "llava_next/full", "llava_onevision": "llava_onevision/full"}


def _vision(name):
    from vramcalc.sources.presets import load_presets

    if "/" in name:
        return from_hf_config(next(c["config"] for c in CASES if c["name"] == name)).vision
    return load_presets()[name].spec().vision


@pytest.mark.parametrize("size", GOLDEN["image_tokens"], ids=lambda row: f"{row['width']}x{row['height']}")
def test_an_image_becomes_the_tokens_its_processor_makes(size):
    from vramcalc.model.families.vision import image_tokens

    expected = {**{k: v for k, v in size.items() if k not in ("width", "height")}, "gemma3": 256}
    got = {family: image_tokens(_vision(TOKEN_MODELS[family]), size["width"], size["height"]) for family in expected}
    assert got == expected


@pytest.mark.parametrize("runtime", ["transformers", "vllm", "llamacpp"])
def test_image_tokens_join_each_sequence_in_every_engine(runtime):
    from vramcalc import ValidationError, estimate, parse_workload

    base = {"model": "qwen2.5-vl-7b-instruct", "seq": "4096", "runtime": runtime, "batch": "2",
            **({"precision": "q4_k_m", "parallel": "2"} if runtime == "llamacpp" else {})}
    images = {**base, "images": "2", "image_width": "1280", "image_height": "720"}
    workload = parse_workload(images)
    assert workload.image_tokens == 2 * 1196 and workload.seq == 4096 + 2 * 1196  # golden: 1280 × 720 is 1,196
    plain, more = estimate(parse_workload({**base, "seq": str(workload.seq)})), estimate(workload)
    assert more.bytes_of("kv_cache") == plain.bytes_of("kv_cache") > estimate(parse_workload(base)).bytes_of(
        "kv_cache")
    assert any("2,392 tokens" in ENGLISH.say(note) for note in more.notes)
    with pytest.raises(ValidationError):
        parse_workload({**images, "text_only": "1"})
    with pytest.raises(ValidationError):
        parse_workload({**images, "model": "llama-3.1-8b"})


PEAK = json.loads((Path(__file__).parent / "golden" / "vision_peak.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", PEAK["cases"], ids=lambda c: "{family}/{shape}/{attention}/{images}x{width}x{height}"
                         .format(**c) + (f"x{c['video_frames']}f" if "video_frames" in c else ""))
def test_the_vision_towers_peak_is_the_measured_one(case):
    """encoder_peak against the live tensor bytes of transformers' own get_image_features or get_video_features
    (bf16, CPU, the processor's fp32 pixels included): within 0.01 %, what is left being a few index tensors of
    hundreds of bytes. A video's frame pairs are its images (each attends within itself)."""
    from vramcalc.model.families.vision import encoder_peak, image_patches, video_grid

    vision = from_hf_config(PEAK["configs"][f"{case['family']}/{case['shape']}"]).vision
    width, height = case["width"] or 1, case["height"] or 1  # Gemma 3 resizes every image to its own side
    eager, patches = case["attention"] == "eager", case["patches_per_image"]
    if "video_frames" in case:  # frames sampled at 2 a second: the processors' own counts
        groups, tokens, _ = video_grid(vision, case["video_frames"] / 2, 2, width, height)
        assert (groups * case["images"], tokens * vision.merge ** 2) == (case["pairs"], patches)
        got = encoder_peak(vision, case["pairs"], 0, 0, 2, eager, patches)
    else:
        assert image_patches(vision, width, height) == patches
        got = encoder_peak(vision, case["images"], width, height, 2, eager)
    assert got == pytest.approx(case["peak_bytes"], rel=1e-4)


def test_every_measured_family_has_small_and_full_width_cases_in_both_attentions():
    from vramcalc.model.families.vision import MEASURED, VIDEO

    seen = {(c["family"], c["shape"], c["attention"]) for c in PEAK["cases"] if "video_frames" not in c}
    assert seen == {(f, s, a) for f in MEASURED for s in ("small", "full") for a in ("eager", "sdpa")}
    videos = {(c["family"], c["attention"]) for c in PEAK["cases"] if "video_frames" in c}
    assert {family for family, _ in videos} == {"qwen2_5_vl", "qwen3_vl", "glm4v"} <= set(VIDEO)
    assert len(videos) == 6


def _prefill(**values):
    from vramcalc import estimate, parse_workload

    return estimate(parse_workload({"model": "qwen2.5-vl-7b-instruct", "seq": "1024", "images": "1", **values}))


def test_a_large_image_under_eager_attention_makes_the_encoder_the_peak():
    """One 2592 × 1944 photo (Qwen2.5-VL: 6,417 tokens, 25,668 patches): eager attention holds 16 heads × 25,668²
    scores in bf16 and twice in fp32 on its full-attention layers, about 105 GB; sdpa keeps it linear."""
    from vramcalc.model.families.vision import encoder_peak

    photo = {"image_width": "2592", "image_height": "1944"}
    eager, sdpa = _prefill(attention="eager", **photo), _prefill(attention="flash", **photo)
    vision = eager.workload.model.vision
    scores = 16 * 25_668 ** 2 * (2 + 4 + 4)
    peak = encoder_peak(vision, 1, 2592, 1944, 2, True)
    assert peak > scores > 50 * encoder_peak(vision, 1, 2592, 1944, 2, False)
    moment = sum(eager.bytes_of(key) for key in ("kv_cache", "activations", "logits", "temporaries"))
    assert moment == peak + (1024 + 6417) * 3584 * 2  # the encoder's moment, with the prompt's embeddings
    assert sdpa.bytes_of("activations") < moment / 20
    said = ENGLISH.say(next(c for c in eager.components if c.key == "activations").formula[-1])
    assert "vision tower" in said and "25,668 patches" in said


def test_the_encoder_counts_only_beyond_the_prefills_own_moment():
    """A small image under sdpa: the encoder's moment stays below the long prefill's cache and activations."""
    small, text = _prefill(seq="32768", attention="flash", image_width="448", image_height="448"), None
    from vramcalc import estimate, parse_workload

    text = estimate(parse_workload({"model": "qwen2.5-vl-7b-instruct", "seq": str(small.workload.seq),
                                    "attention": "flash"}))
    assert small.bytes_of("activations") == text.bytes_of("activations")


def test_llama_cpp_caps_qwen_images_at_4096_tokens_and_counts_the_mmproj_compute_buffer():
    """clip.cpp: Qwen-VL's images within 8 and 4,096 tokens, its graph reserved for a 46 × 46-token warmup image
    and grown for a larger one, on the mmproj's device (system RAM with --no-mmproj-offload)."""
    from vramcalc import estimate, parse_workload
    from vramcalc.engines.llamacpp import clip_compute_bytes
    from vramcalc.model.families.vision import image_tokens

    base = {"model": "qwen2.5-vl-7b-instruct", "runtime": "llamacpp", "precision": "q4_k_m", "seq": "4096",
            "images": "1", "image_width": "2592", "image_height": "1944"}
    photo = parse_workload(base)
    assert 4000 < photo.image_tokens <= 4096 < image_tokens(photo.model.vision, 2592, 1944)
    clip, patches = clip_compute_bytes(photo)
    assert patches == 4 * photo.image_tokens and clip > 0
    on, off = estimate(photo), estimate(parse_workload({**base, "no_mmproj_offload": "1"}))
    assert on.bytes_of("activations") - off.bytes_of("activations") == clip
    assert off.host_bytes - on.host_bytes == clip + 2 * photo.model.vision.params
    small = parse_workload({**base, "image_width": "448", "image_height": "448"})
    assert clip_compute_bytes(small)[1] == 4 * 46 * 46 < clip_compute_bytes(photo)[1]  # the warmup's size
    flash_off = parse_workload({**base, "attention": "eager"})
    assert clip_compute_bytes(flash_off)[0] > 10 * clip  # without flash attention, heads × patches² scores


def test_vllm_profiles_the_encoder_on_dummy_images_of_the_most_tokens():
    """Gemma 3's 256-token images: an 8,192-token encoder budget holds 32 of them in the profiling run."""
    from vramcalc import estimate, parse_workload
    from vramcalc.engines.vllm import vllm_encoder_dummy

    base = {"model": "gemma-3-27b-it", "runtime": "vllm", "gpu": "h100-sxm-80gb", "seq": "4096"}
    bare = estimate(parse_workload({**base, "text_only": "1"}))  # --language-model-only: no tower, no dummies
    text, images = estimate(parse_workload(base)), estimate(parse_workload({**base, "images": "1"}))
    workload = images.workload
    items, tokens, encoder, pairs = vllm_encoder_dummy(workload, 8192, 1024)
    assert (items, tokens, pairs) == (32, 256, 0) and encoder > 0
    assert images.bytes_of("activations") == max(bare.bytes_of("activations") + 32 * 256 * 5376 * 2, encoder)
    # text requests too: profile_run encodes the dummies whatever is asked, and the answer says so
    assert text.bytes_of("activations") == images.bytes_of("activations")
    assert "note.vllm_mm_profile" in [n.key for n in text.notes]
    assert vllm_encoder_dummy(bare.workload, 8192, 1024) == (0, 0, 0, 0)


def test_the_most_images_and_the_largest_image_that_fit():
    """The reverse answers: each fits and one more (image, or pixel on the longer side) does not."""
    from vramcalc import parse_workload
    from vramcalc.analysis.solve import fits, largest_image, max_images, solve, with_images
    from vramcalc.analysis.suggest import changes
    from vramcalc.inputs.parse import parse_target

    values = {"model": "qwen2.5-vl-7b-instruct", "gpu": "rtx-4090", "seq": "1024", "images": "4",
              "image_width": "2592", "image_height": "1944", "attention": "eager"}
    workload, target = parse_workload(values), parse_target(values)
    width, height = largest_image(workload, target)
    assert width / height == pytest.approx(2592 / 1944, rel=0.01) and width < 2592
    assert fits(with_images(workload, 4, width, height), target)
    assert not fits(with_images(workload, 4, width + 1, round((width + 1) * 1944 / 2592)), target)
    said = [ENGLISH.say(c) for c in changes(workload, target, solve(workload, target))]
    assert f"images of at most {width:,} × {height:,} pixels" in said
    small = parse_workload({**values, "images": "400", "image_width": "448", "image_height": "448",
                            "attention": "flash"})
    most = max_images(small, target)
    assert fits(with_images(small, most, 448, 448), target) and not fits(with_images(small, most + 1, 448, 448), target)
    assert with_images(small, most, 448, 448).seq == 1024 + most * 256  # 448 × 448: 256 tokens each


def test_glm_4_5v_counts_the_tensors_of_its_release():
    """The report the glm-4.5v preset's config comes from lists 107,710,933,120 values in the checkpoint; 5,760 of
    them are the 45 MoE layers' fp32 e_score_correction_bias, a buffer in transformers, not a parameter."""
    from vramcalc.sources.presets import load_presets

    spec = load_presets()["glm-4.5v"].spec()
    assert spec.vision is not None and param_count(spec) + spec.vision.params == 107_710_933_120 - 45 * 128


def test_vllm_profiles_internvl_on_an_image_of_the_most_tiles():
    """vLLM's InternVL dummy is the target ratio of the most tiles (12 and a thumbnail: 3,330 tokens), not a
    square (which gets 3 × 3 and a thumbnail)."""
    from vramcalc import parse_workload
    from vramcalc.engines.vllm import vllm_encoder_dummy
    from vramcalc.model.families.vision import image_tokens

    config = next(c["config"] for c in CASES if c["name"] == "internvl/full")
    workload = parse_workload({"model": "qwen2.5-vl-7b-instruct", "runtime": "vllm", "seq": "8192", "images": "1"})
    workload = dataclasses.replace(workload, model=from_hf_config(config))
    assert vllm_encoder_dummy(workload, 8192, 1)[:2] == (2, 3330)  # an 8,192-token budget holds two
    assert image_tokens(workload.model.vision, 10_000, 10_000) == 2 + 10 * 256


def _vllm(model, seq, **values):
    from vramcalc import estimate, parse_workload

    return estimate(parse_workload({"model": model, "runtime": "vllm", "gpu": "h100-sxm-80gb", "seq": str(seq),
                                    **values}))


def test_vllm_profiles_qwen2_5_vl_on_a_dummy_video_of_the_most_tokens():
    """Derived by hand from vLLM 0.34.0's source. Qwen2.5-VL's image dummy: the 12,845,056 pixels of its
    preprocessor_config as 12,845,056 // 28² = 16,384 = 128 × 128 tokens, 3584 × 3584 pixels (qwen2_vl.py:1079-1128).
    Its video dummy: frames of that size while ceil(n / 2) × 16,384 ≤ max_model_len (qwen2_vl.py:1141-1162), at most
    _MAX_FRAMES_PER_VIDEO = 14 (qwen2_vl.py:120, 1164-1177): 4 frames, 2 pairs, 32,768 tokens at 32,768; 14 frames,
    7 pairs, 114,688 tokens at 128,000. The budget counts one item of each modality (encoder_budget.py:93) and
    profiles the one of the most tokens, a tie to "video" (encoder_budget.py:184-188): the video. Its encoder budget
    max(max_num_batched_tokens 8,192, 32,768) (encoder_cache_manager.py:369-371) holds 32,768 // 32,768 = 1 of them
    (encoder_budget.py:142-180). Before, one 16,384-token image was profiled (max(8,192, 16,384) // 16,384)."""
    from vramcalc.engines.vllm import vllm_encoder_dummy
    from vramcalc.model.families.vision import encoder_peak

    # max_model_len 32,768 and the image's 1,369 tokens (34,137) or the video's 13,690 (46,458): 2 pairs either way
    text, images, videos = (_vllm("qwen2.5-vl-7b-instruct", 32768, **v)
                            for v in ({"text_only": "1"}, {"images": "1"}, {"videos": "1"}))
    vision, hidden = images.workload.model.vision, images.workload.model.hidden
    peak = encoder_peak(vision, 2, 0, 0, 2, False, 4 * 16384)  # two frame pairs of 128 × 128 merged patches
    assert vllm_encoder_dummy(images.workload, 8192, 1024) == (1, 32768, peak, 2)
    assert peak > 1.9 * encoder_peak(vision, 1, 3584, 3584, 2, False)  # twice the former image dummy's
    for served in (images, videos):  # the videos asked for or not, the same profiling run
        assert served.bytes_of("activations") == max(text.bytes_of("activations") + 32768 * hidden * 2, peak)
    assert served.bytes_of("activations") > text.bytes_of("activations") + 16384 * hidden * 2
    long = _vllm("qwen2.5-vl-7b-instruct", 128000, images="1").workload
    assert vllm_encoder_dummy(long, 8192, 1024)[:2] + vllm_encoder_dummy(long, 8192, 1024)[3:] == (1, 114688, 7)
    short = _vllm("qwen2.5-vl-7b-instruct", 16384, images="1").workload  # 1 frame: a pair as many tokens as an
    assert vllm_encoder_dummy(short, 65536, 1024)[:2] == (4, 16384)  # image, the tie to video; 65,536 // 16,384
    said = ENGLISH.say(next(c for c in images.components if c.key == "activations").explain())
    assert "encodes 1 dummy video of 2 frame pairs, 32,768 tokens" in said


def test_vllm_profiles_glm_4_5v_on_a_dummy_video_of_the_most_tokens():
    """Derived by hand from vLLM 0.34.0's glm4_1v.py. The image dummy: smart_resize of a 9,999,999-pixel square as
    2 frames within 9,633,792 pixels (1250-1263): 78 × 28 = 2184 pixels a side, 78² = 6,084 tokens. The video dummy
    (1286-1309): of 1 to 600 frames (140) of 2184 × 2184, the count of the most tokens within the room, each n frames
    resized within 47,040,000 pixels (Glm4vVideoProcessor's size) in ceil(n / 2) pairs (1170-1207): 11 frames
    (t_bar 12 > 47,040,000 / 2184², beta √(11 × 2184² / 47,040,000) = 1.0561, 73 × 28 = 2044 a side) give 6 pairs of
    73² = 5,329, 31,974 tokens, the most of all (9 frames 30,420, 13 frames 31,423). Glm4vProcessor's budget counts
    the placeholders of a dummy of one image and one video (1118-1126, encoder_budget.py:30-40), whose frames have
    the room less the image (1311-1318): at 65,536 (the config's max_position_embeddings) still 11 frames; at 32,768,
    26,684 of room, 271 frames (136 pairs of 14² = 196, 26,656 tokens), while the dummy profiled has only the video
    (encoder_budget.py:208): 11 frames. Videos are limited to 1 a prompt (1092): a 60,000-token budget holds
    60,000 // 26,656 = 2 of them, each 31,974 tokens (not 60,000 // 31,974 = 1)."""
    from vramcalc.engines.vllm import vllm_encoder_dummy, vllm_video_dummy
    from vramcalc.model.families.vision import encoder_peak, image_tokens

    full = _vllm("glm-4.5v", 65536, images="1").workload
    vision = full.model.vision
    assert image_tokens(vision, 10**7, 10**7) == 6084
    assert vllm_video_dummy(vision, 65536, 6084) == (31974, 6, 5329)
    assert vllm_video_dummy(vision, 32768, 6084) == (26656, 6, 5329)
    peak = encoder_peak(vision, 6, 0, 0, 2, False, 4 * 5329)
    assert vllm_encoder_dummy(full, 8192, 1024) == (1, 31974, peak, 6)
    half = dataclasses.replace(_vllm("glm-4.5v", 32768, videos="1").workload, seq=32768)  # max_model_len 32,768
    assert vllm_encoder_dummy(half, 60000, 1024) == (2, 31974, encoder_peak(vision, 12, 0, 0, 2, False, 4 * 5329), 6)
    assert vllm_encoder_dummy(half, 60000, 1)[0] == 1  # max_num_seqs × 1 video a prompt
    small = _vllm("glm-4.5v", 8192, images="1").workload  # no room for 2 pairs: 1 pair, as many tokens as an image
    assert vllm_encoder_dummy(small, 8192, 1024)[:2] + vllm_encoder_dummy(small, 8192, 1024)[3:] == (1, 6084, 1)


def test_vllm_profiles_qwen3_vl_on_images_whose_dummy_outranks_its_video():
    """Qwen3-VL's video dummy is one pair within half its 25,165,824 pixels, 12,582,912 // 32² = 12,288 tokens
    (qwen3_vl.py get_max_video_tokens, 1041-1071), fewer than its image dummy's 16,384: images profiled."""
    from vramcalc.engines.vllm import vllm_encoder_dummy, vllm_video_dummy

    workload = _vllm("qwen3-vl-8b-instruct", 32768, videos="1").workload
    assert vllm_video_dummy(workload.model.vision, 32768, 16384) == (0, 0, 0)
    assert vllm_encoder_dummy(workload, 8192, 1024)[:2] + vllm_encoder_dummy(workload, 8192, 1024)[3:] == (1, 16384, 0)


@pytest.mark.parametrize("video", GOLDEN["video_tokens"], ids=lambda v: "{width}x{height}x{seconds}s/{fps}".format(**v))
def test_a_video_becomes_the_tokens_its_processor_makes(video):
    """Frame pairs (and Qwen3-VL's and GLM's timestamps) as each video processor and processor make them."""
    from vramcalc.model.families.vision import video_tokens

    got = {family: video_tokens(_vision(TOKEN_MODELS[family]), video["seconds"], video["fps"], video["width"],
                                video["height"]) for family in ("qwen2_5_vl", "qwen3_vl", "glm4v")}
    assert got == {family: video[family] for family in got}


def test_video_tokens_join_each_sequence_and_the_encoder_runs_on_their_frame_pairs():
    from vramcalc import ValidationError, estimate, parse_workload

    base = {"model": "qwen2.5-vl-7b-instruct", "seq": "4096", "batch": "2", "image_width": "640",
            "image_height": "480", "attention": "eager"}
    videos = {**base, "videos": "2", "video_seconds": "10", "video_fps": "2", "prompt_tokens": "1000"}
    workload = parse_workload(videos)
    assert workload.video_tokens == 2 * 3910 and workload.seq == 4096 + 2 * 3910  # golden: 640 × 480, 10 s
    assert workload.prompt_tokens == 1000 + 2 * 3910
    both = parse_workload({**videos, "images": "1"})
    assert both.seq == workload.seq + 391 and both.image_tokens == 391
    result = estimate(workload)
    said = ENGLISH.say(next(c for c in result.components if c.key == "activations").formula[-1])
    assert "4 videos, 40 frame pairs of 1,564 patches" in said
    assert any("3,910 tokens" in ENGLISH.say(n) or "7,820 tokens" in ENGLISH.say(n) for n in result.notes)
    for refused in ({"model": "gemma-3-27b-it"}, {"text_only": "1"}, {"runtime": "llamacpp", "precision": "q4_k_m"},
                    {"video_fps": "0"}, {"video_seconds": "x"}):
        with pytest.raises(ValidationError):
            parse_workload({**videos, **refused})


def test_a_llava_config_without_its_tower_gets_its_classs_and_one_given_takes_the_towers_defaults():
    """LlavaConfig's CLIP-L/336 and LlavaOnevisionConfig's SigLIP so400m when vision_config is absent (golden full
    cases); a vision_config given takes CLIPVisionConfig's defaults for what it omits (hidden 768, patch 32)."""
    full = next(c["config"] for c in CASES if c["name"] == "llava/full")
    bare = from_hf_config({k: v for k, v in full.items() if k != "vision_config"}).vision
    assert bare is not None and bare.params == 324_487_168 and bare.tokens == 576
    partial = from_hf_config({**full, "vision_config": {"num_hidden_layers": 2}}).vision
    assert partial is not None and partial.hidden == 768 and partial.patch == 32 and partial.tokens == 49
    from vramcalc import ValidationError

    with pytest.raises(ValidationError, match="image_grid_pinpoints"):
        from_hf_config({**full, "model_type": "llava_next", "image_grid_pinpoints": [[100, 50]]})


@pytest.mark.parametrize(("slug", "tensors"), [("qwen3-vl-8b-instruct", 8_767_123_696),
                                               ("qwen3-vl-30b-a3b-instruct", 31_070_754_032)])
def test_qwen3_vl_counts_the_tensors_of_its_release(slug, tensors):
    """The reports the presets' configs come from list these many values in the checkpoints, the tower's
    (deepstack mergers included) and the language model's; they hold no buffers."""
    from vramcalc.sources.presets import load_presets

    spec = load_presets()[slug].spec()
    assert spec.vision is not None and param_count(spec) + spec.vision.params == tensors


def test_the_towers_weights_say_llama_cpps_mmproj_only_on_llama_cpp():
    """vLLM's answer said the tower was "llama.cpp's mmproj file"; a 16-bit model's tower is not "kept unquantized"."""
    from vramcalc import estimate, parse_workload

    def said(**values: str) -> str:
        result = estimate(parse_workload({"model": "qwen3-vl-8b-instruct", **values}))
        return ENGLISH.say(next(c for c in result.components if c.key == "weights").formula)

    assert "mmproj" not in said(runtime="vllm") and "unquantized" not in said(runtime="vllm")
    assert "llama.cpp's mmproj file" in said(runtime="llamacpp", precision="q4_k_m")
    assert "kept unquantized" in said(runtime="vllm", precision="awq-int4")


@pytest.mark.parametrize("slug", ["llava-1.5-7b-hf", "llava-v1.6-mistral-7b-hf", "llava-onevision-qwen2-7b-ov-hf"])
def test_llava_presets_count_their_tower_as_transformers_builds_it(slug):
    """transformers 5.23 builds the presets' configs (AutoModelForImageTextToText, meta device) with 324,487,168
    (1.5) and 324,491,264 (NeXT: image_newline) values in the CLIP tower and projector, and 414,732,320 in
    OneVision's SigLIP tower, projector (to Qwen2-7B's 3,584) and image_newline; tests/golden/params.json holds
    the language models."""
    from vramcalc.sources.presets import load_presets

    golden = json.loads((Path(__file__).parent / "golden" / "params.json").read_text(encoding="utf-8"))["models"][slug]
    spec = load_presets()[slug].spec()
    assert spec.vision is not None and spec.vision.params == golden["vision_params"]
    assert param_count(spec) + spec.vision.params == golden["params"]


def test_a_wrappers_text_config_without_its_sizes_takes_the_text_classs_defaults():
    """LLaVA's hub config.json gives its text_config only the context, the norm's epsilon and the vocabulary:
    transformers makes LlamaConfig's defaults (Vicuna 7B's sizes) of the rest. Pasted, it was refused for a missing
    hidden_size; now it is the preset's model, with a note naming the sizes so taken."""
    from vramcalc.sources.presets import load_presets

    preset = load_presets()["llava-1.5-7b-hf"]
    hub = {**preset.config, "text_config": {key: preset.config["text_config"][key] for key in
                                            ("max_position_embeddings", "model_type", "rms_norm_eps", "vocab_size")}}
    pasted, kept = from_hf_config(hub), preset.spec()
    assert param_count(pasted) == param_count(kept) == 6_738_939_904
    assert pasted.vision is not None and kept.vision is not None and pasted.vision.params == kept.vision.params
    said = " ".join(ENGLISH.say(note) for note in pasted.notes)
    assert "hidden_size 4,096" in said and "num_hidden_layers 32" in said


def test_the_image_and_video_notes_agree_with_their_counts():
    """One image became 1 token (Llama 3.2 Vision's <|image|>), not '1 tokens'; Portuguese agrees its verb and
    participles with the count: '1 vídeo de 1 s amostrado', '1 imagem ... virou 1 token ..., contado'."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.analysis.evaluate import breakdown_notes
    from vramcalc.render.messages import Words

    def said(values, lang):
        workload = parse_workload({**DEFAULTS, **values})
        return " ".join(Words(lang).say(p) for p in breakdown_notes(workload)
                        if getattr(p, "key", "") in ("note.images", "note.videos"))

    mllama = {"model_type": "mllama", "text_config": {"hidden_size": 256, "intermediate_size": 512,
                                                      "num_hidden_layers": 2, "num_attention_heads": 8,
                                                      "cross_attention_layers": [1], "vocab_size": 1000,
                                                      "pad_token_id": 0},
              "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
                                "num_global_layers": 1, "attention_heads": 4, "image_size": 56, "patch_size": 14,
                                "vision_output_dim": 128}}
    one = parse_workload({**DEFAULTS, "model": "config", "images": "1"}, config=mllama)
    assert "became 1 token of each" in " ".join(ENGLISH.say(p) for p in breakdown_notes(one))
    pt = " ".join(Words("pt").say(p) for p in breakdown_notes(one))
    assert "virou 1 token de cada sequência, contado no" in pt
    video = {"model": "qwen3-vl-8b-instruct", "videos": "1", "video_seconds": "1", "video_fps": "1",
             "image_width": "64", "image_height": "64"}
    assert "1 vídeo de 1 s, quadros" in said(video, "pt") and " virou " in said(video, "pt")
    assert "2 vídeos de 1 s, quadros" in said({**video, "videos": "2"}, "pt") and " viraram " in said(
        {**video, "videos": "2"}, "pt")
    assert "taken at 1 per second" in said(video, "en")


def test_mllama_training_counts_images_under_full_fine_tuning_and_lora():
    """Llama 3.2 Vision trained on images (tools/measure_mllama.py, tools/measure_mllama_lora.py): a full
    fine-tune counts the tower and the cross-attention layers' vision tokens, and says so; LoRA too, its tower frozen
    but for the adapters peft's target names put there (q, v: its q_proj, v_proj; gate, up, down: none); QLoRA on
    bitsandbytes before 0.43.2 stays refused, naming images; text-only assumes nothing."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.analysis.evaluate import estimate
    from vramcalc.core.errors import ValidationError

    mllama = {"model_type": "mllama", "text_config": {"hidden_size": 256, "intermediate_size": 512,
                                                      "num_hidden_layers": 2, "num_attention_heads": 8,
                                                      "cross_attention_layers": [1], "vocab_size": 1000,
                                                      "pad_token_id": 0},
              "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
                                "num_global_layers": 1, "attention_heads": 4, "image_size": 56, "patch_size": 14,
                                "vision_output_dim": 128}}
    training = {**DEFAULTS, "model": "config", "mode": "training"}
    with pytest.raises(ValidationError) as error:
        parse_workload({**training, "images": "1", "lora_rank": "8", "precision": "nf4", "bnb_version": "0.42.0"},
                       config=mllama)
    assert error.value.field == "images" and "vision tower" in str(error.value)
    lora = {**training, "lora_rank": "8", "lora_targets": "q,v"}
    adapted = estimate(parse_workload({**lora, "images": "1"}, config=mllama))
    frozen = estimate(parse_workload({**lora, "images": "1", "lora_targets": "gate,up,down"}, config=mllama))
    assert adapted.size_of("activations") > estimate(parse_workload(lora, config=mllama)).size_of("activations")
    lora_said = " ".join(ENGLISH.say(p) for c in adapted.components if c.key == "activations" for p in c.formula)
    frozen_said = " ".join(ENGLISH.say(p) for c in frozen.components if c.key == "activations" for p in c.formula)
    assert "what its LoRA adapters need" in lora_said and "without adapters, saves nothing" in frozen_said
    text = estimate(parse_workload(training, config=mllama))
    images = estimate(parse_workload({**training, "images": "1"}, config=mllama))
    assert images.size_of("activations") > text.size_of("activations")
    said = " ".join(ENGLISH.say(p) for c in images.components if c.key == "activations" for p in c.formula)
    assert "for 1 image: the vision tower, trained" in said and "the 1 cross-attention layers" in said
    assert not text.assumptions and not images.assumptions
