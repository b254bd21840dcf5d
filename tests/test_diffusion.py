"""Diffusion pipelines: each part's tensors against its diffusers or transformers class built on the meta device
(tests/golden/diffusion_params.json, written by tools/measure_diffusion.py), the presets' sources, and the memory
of a run against what tools/measure_diffusion.py measured on small configs of the same classes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.pipelines import load_pipelines, pipeline
from vramcalc.diffusion.run import Request, evaluate, fewest_blocks_to_swap
from vramcalc.diffusion.stages import decode_bytes, denoise_bytes, encode_bytes, image_tokens, unet_step_bytes
from vramcalc.diffusion.tensors import PARAMETER_KINDS, tensors
from vramcalc.diffusion.weights import gguf_type, part_bytes
from vramcalc.sources.gpus import gpu

GOLDEN = json.loads((Path(__file__).parent / "golden" / "diffusion_params.json").read_text(encoding="utf-8"))


def _counts(class_name: str, config: dict) -> dict:
    listed = [t for t in tensors(class_name, config) if t.kind in PARAMETER_KINDS]
    return {"params": sum(t.numel for t in listed), "tensors": len(listed),
            "vector_params": sum(t.numel for t in listed if len(t.shape) == 1)}


PRESET_PARTS = [(slug, role) for slug, parts in GOLDEN["presets"].items() for role in parts]


@pytest.mark.parametrize(("slug", "role"), PRESET_PARTS)
def test_each_preset_part_counts_as_its_class_on_the_meta_device(slug, role):
    part = next(p for p in pipeline(slug).parts if p.role == role)
    measured = GOLDEN["presets"][slug][role]
    assert part.class_name == measured["class"]
    assert _counts(part.class_name, part.config) == {key: measured[key] for key in ("params", "tensors",
                                                                                     "vector_params")}


@pytest.mark.parametrize("case", GOLDEN["perturbed"], ids=lambda case: case["class"])
def test_small_configs_of_other_shapes_count_as_their_class(case):
    assert _counts(case["class"], case["config"]) == {key: case[key] for key in ("params", "tensors",
                                                                                  "vector_params")}


def test_every_preset_was_measured_and_names_its_source():
    assert set(load_pipelines()) == set(GOLDEN["presets"])
    for slug, entry in load_pipelines().items():
        assert {part.role for part in entry.parts} == set(GOLDEN["presets"][slug])
        for part in entry.parts:
            assert len(part.source) > 30, (slug, part.role)
        assert set(entry.text_tokens) == {part.role for part in entry.parts if part.is_text_encoder}


def test_an_unknown_pipeline_or_class_is_refused():
    with pytest.raises(ValidationError, match="pipeline"):
        pipeline("flux.2-max")
    with pytest.raises(ValueError, match="not read yet"):
        tensors("CogVideoXTransformer3DModel", {})
    with pytest.raises(ValueError, match="image-to-video"):
        tensors("WanTransformer3DModel", {"image_dim": 1280})


@pytest.mark.parametrize("case", GOLDEN["perturbed"], ids=lambda case: case["class"])
@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp32", "fp8"])
def test_weights_are_the_bytes_from_pretrained_loads(case, precision):
    """Every parameter and buffer as from_pretrained(torch_dtype=...) holds it (diffusers' fp32 modules, T5's fp32
    `wo` under fp16, SD3's position table, Wan's rotary tables), and fp8 as layerwise casting stores it."""
    listed = tensors(case["class"], case["config"])
    assert part_bytes(listed, case["class"], precision) == case["bytes"][precision]


def test_gguf_keeps_what_city96s_tools_keep():
    flux = pipeline("flux.1-dev").denoiser
    types = {t.name: gguf_type(t, flux.class_name, "q4_0") for t in flux.tensors}
    assert types["x_embedder.weight"] == types["proj_out.weight"] == "bf16"  # img_in, final_layer: not quantised
    assert types["transformer_blocks.0.attn.to_q.weight"] == "q4_0"
    assert types["transformer_blocks.0.attn.to_q.bias"] == "f32"  # 1-D: F32 (convert.py)
    wan = pipeline("wan2.1-t2v-14b").denoiser
    types = {t.name: gguf_type(t, wan.class_name, "q5_0") for t in wan.tensors}
    assert types["blocks.0.ffn.net.2.weight"] == "q5_1" and types["blocks.0.ffn.net.0.proj.weight"] == "q5_0"
    assert types["patch_embedding.weight"] == "f32" and types["blocks.0.scale_shift_table"] == "f32"
    assert types["rope.freqs_cos"] == "none"
    # Q8_0 is 34 bytes per 32 values: the quantised matrices of Flux take 17/16 of a byte per parameter
    quantised = sum(t.numel for t in flux.tensors if gguf_type(t, flux.class_name, "q8_0") == "q8_0")
    assert part_bytes(flux.tensors, flux.class_name, "gguf-q8_0") - quantised * 34 // 32 == sum(
        t.numel * (4 if gguf_type(t, flux.class_name, "q8_0") == "f32" else 2)
        for t in flux.tensors if gguf_type(t, flux.class_name, "q8_0") != "q8_0")
    with pytest.raises(ValueError, match="GGUF"):
        part_bytes(pipeline("flux.1-dev").parts[1].tensors, "T5EncoderModel", "gguf-q4_0")
    # lcpp.patch's FFN-down rule reads the checkpoint's names: FLUX's "img_mlp.2" is not on its list
    assert gguf_type(next(t for t in flux.tensors if t.name.endswith("0.ff.net.2.weight")), flux.class_name,
                     "q4_0") == "q4_0"


GGUF_FILES = json.loads((Path(__file__).parent / "golden" / "diffusion_gguf.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GGUF_FILES["cases"], ids=lambda case: case["class"])
@pytest.mark.parametrize("ftype", ["q8_0", "q5_1", "q5_0", "q4_1", "q4_0"])
def test_gguf_bytes_are_those_of_files_written_as_city96s_tools_write_them(case, ftype):
    """tools/measure_diffusion_gguf.py: small FLUX.2 and HiDream transformers under their checkpoints' names, each
    tensor typed by convert.py's and lcpp.patch's rules read from those names, quantised and written by gguf-py."""
    listed = tensors(case["class"], case["config"])
    assert part_bytes(listed, case["class"], f"gguf-{ftype}") == case["bytes"][ftype]


def test_gguf_sizes_are_city96s_published_files_less_their_headers():
    """Bytes of city96's files (FLUX.2-dev-gguf, FLUX.1-dev-gguf) as a 2026 downloader lists them. The header is the
    file less its tensors in the BF16 / F16 file (no quantisation: every tensor's bytes known); the Q8_0 and Q4_0
    files are the engine's tensors plus that header exactly. FLUX.1's files (August 2024) predate convert.py's F32
    vectors: their 1-D tensors are F16."""
    dev = pipeline("flux.2-dev").denoiser
    header = 64_446_616_544 - sum(t.numel * (4 if len(t.shape) == 1 else 2) for t in dev.tensors)
    assert part_bytes(dev.tensors, dev.class_name, "gguf-q8_0") + header == 35_002_602_464
    one = pipeline("flux.1-dev").denoiser
    vectors = sum(t.numel for t in one.tensors if len(t.shape) == 1)
    header = 23_802_870_944 - 2 * sum(t.numel for t in one.tensors)
    for ftype, published in (("q8_0", 12_708_281_504), ("q4_0", 6_791_167_136)):
        assert part_bytes(one.tensors, one.class_name, f"gguf-{ftype}") - 2 * vectors + header == published


# ---------------------------------------------------------------- working memory and the run

STAGES = json.loads((Path(__file__).parent / "golden" / "diffusion_stages.json").read_text(encoding="utf-8"))
TOLERANCE = 0.10  # the bar; every case is within 1.5 % when measured (docs/accuracy.md)


@pytest.mark.parametrize("case", STAGES["steps"], ids=lambda c: (
    f"{c['class']}-b{c['batch']}-{c['latent']}{'-expanded' if c.get('expand_timesteps') else ''}"))
def test_a_denoising_step_holds_what_was_measured(case):
    """Wan 2.2 TI2V's cases (expand_timesteps) give the transformer a timestep per latent token, as WanPipeline does."""
    tokens = image_tokens(case["class"], case["config"], tuple(case["latent"]))
    got = denoise_bytes(case["class"], case["config"], case["batch"], tokens, case["text_tokens"],
                        expand_timesteps=case.get("expand_timesteps", False))
    assert got == pytest.approx(case["bytes"], rel=TOLERANCE)


@pytest.mark.parametrize("case", STAGES["decodes"],
                         ids=lambda c: f"{c['class']}-{c['width']}x{c['height']}x{c['frames']}-tile{c['tile']}")
def test_a_vae_decode_holds_what_was_measured(case):
    """Untiled, and tiled (enable_tiling()) with tiles smaller than the picture and one larger (not tiled)."""
    got = decode_bytes(case["class"], case["config"], case["batch"], case["width"], case["height"], case["frames"],
                       tile=case["tile"])
    assert got == pytest.approx(case["bytes"], rel=TOLERANCE)


def test_tiles_lower_the_decode_and_a_tile_as_large_as_the_picture_changes_nothing():
    flux = pipeline("flux.1-dev")
    decode = {tile: evaluate(flux, _request(vae_tiling=tile)).stages[-1].working_bytes for tile in (0, 256, 512, 1024)}
    assert decode[0] == decode[1024] > decode[512] > decode[256]
    wan = pipeline("wan2.1-t2v-14b")
    one, tiled = (evaluate(wan, _request(width=1280, height=720, frames=81, vae_tiling=t)).stages[-1].working_bytes
                  for t in (0, 256))
    assert tiled < one / 2


def _request(**changes) -> Request:
    values = {"width": 1024, "height": 1024, "frames": 1, "batch": 1, "cfg": False, "placement": "gpu",
              "precision": "bf16", "text_precision": "bf16", "vae_precision": "bf16", **changes}
    return Request(**values)


def test_offloading_holds_less_and_the_peak_is_the_largest_stage():
    flux = pipeline("flux.1-dev")
    peaks = [evaluate(flux, _request(placement=p)).peak.total_bytes for p in ("gpu", "model", "sequential")]
    assert peaks[0] > peaks[1] > peaks[2]
    run = evaluate(flux, _request(placement="model"))
    assert run.peak.name == "denoise"
    assert run.peak.weight_bytes == next(w.bytes for w in run.weights if w.part.role == "transformer")
    gpu = evaluate(flux, _request())
    assert all(stage.weight_bytes == sum(w.bytes for w in gpu.weights) for stage in gpu.stages)


def test_cfg_doubles_the_batch_where_the_pipeline_concatenates_it():
    sd3 = pipeline("sd3.5-medium")
    one, two = (evaluate(sd3, _request(cfg=cfg)).stages[-2].working_bytes for cfg in (False, True))
    assert two == 2 * one
    wan = pipeline("wan2.1-t2v-1.3b")  # WanPipeline runs cond and uncond as two passes
    one, two = (evaluate(wan, _request(width=832, height=480, frames=81, cfg=cfg)).stages[-2].working_bytes
                for cfg in (False, True))
    assert two == one


def test_more_pixels_and_frames_never_hold_less():
    wan = pipeline("wan2.1-t2v-14b")
    totals = [evaluate(wan, _request(width=832, height=480, frames=f)).peak.total_bytes for f in (17, 49, 81)]
    assert totals == sorted(totals) and len(set(totals)) == 3


@pytest.mark.parametrize("case", STAGES["unet_steps"], ids=lambda c: (
    f"unet{c['config']['block_out_channels']}-b{c['batch']}-{c['height']}x{c['width']}"))
def test_a_unet_step_holds_what_was_measured(case):
    got = unet_step_bytes(case["config"], case["batch"], case["height"], case["width"])
    assert got == pytest.approx(case["bytes"], rel=TOLERANCE)


@pytest.mark.parametrize("case", STAGES["encoders"],
                         ids=lambda c: f"{c['class']}-{c['tokens']}-{'hidden' if c['hidden_states'] else 'last'}")
def test_a_text_encoders_forward_holds_what_was_measured(case):
    got = encode_bytes(case["class"], case["config"], case["tokens"], case["hidden_states"])
    assert got == pytest.approx(case["bytes"], rel=TOLERANCE)


def test_every_stage_of_every_preset_is_modelled():
    for slug, chosen in load_pipelines().items():
        run = evaluate(chosen, _request(width=chosen.width, height=chosen.height, frames=chosen.frames))
        assert run.complete and all(stage.working_bytes > 0 for stage in run.stages), slug
    # AutoencoderKLHunyuanVideo decodes 5 latent frames a call by default; tiling in space lowers it further
    size = {"width": 1280, "height": 720, "frames": 129}
    framewise, tiled = (evaluate(pipeline("hunyuanvideo"), _request(**size, vae_tiling=t)).stages[-1].working_bytes
                        for t in (0, 256))
    assert tiled < framewise / 5
    sdxl = [evaluate(pipeline("sdxl"), _request(cfg=cfg)).stages[-2].working_bytes for cfg in (False, True)]
    assert sdxl[1] == 2 * sdxl[0]  # StableDiffusionXLPipeline concatenates cond and uncond


@pytest.mark.parametrize(("field", "changes"), [("width", {"width": 1000}), ("frames", {"frames": 80}),
                                                ("precision", {"precision": "gguf-q2_k"}),
                                                ("text_precision", {"text_precision": "gguf-q4_0"}),
                                                ("placement", {"placement": "disk"}),
                                                ("vae_tiling", {"vae_tiling": 100})])
def test_bad_requests_name_their_field(field, changes):
    with pytest.raises(ValidationError, match=field):
        evaluate(pipeline("wan2.1-t2v-1.3b"), _request(frames=81, **changes) if field != "frames" else
                 _request(**changes))


def test_the_command_line_prints_the_run(capsys):
    from vramcalc.cli import main

    assert main(["diffusion", "--pipeline", "wan2.1-t2v-1.3b", "--precision", "gguf-q8_0", "--placement", "model",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    run = evaluate(pipeline("wan2.1-t2v-1.3b"), _request(width=832, height=480, frames=81, cfg=True,
                                                         placement="model", precision="gguf-q8_0"))
    assert document["peak_bytes"] == run.peak.total_bytes and document["peak_stage"] == run.peak.name
    assert document["fewest_blocks_to_swap"] is None  # no --gpu
    assert [p["weight_bytes"] for p in document["parts"]] == [w.bytes for w in run.weights]
    assert main(["diffusion", "--pipeline", "sdxl", "--width", "1000"]) == 2
    assert "width" in capsys.readouterr().err
    assert main(["diffusion", "--pipeline", "sdxl", "--vae-tiling", "512", "--json"]) == 0
    tiled = json.loads(capsys.readouterr().out)
    assert tiled["vae_tiling"] == 512 and tiled["stages"][-1]["working_bytes"] == evaluate(
        pipeline("sdxl"), _request(vae_tiling=512)).stages[-1].working_bytes
    assert main(["diffusion", "--pipeline", "wan2.1-t2v-14b", "--placement", "model", "--gpu", "rtx-4090",
                 "--blocks-to-swap", "10", "--json"]) == 0
    swapped = json.loads(capsys.readouterr().out)
    fewest = fewest_blocks_to_swap(evaluate(pipeline("wan2.1-t2v-14b"), _request(
        width=1280, height=720, frames=81, cfg=True, placement="model")), gpu("rtx-4090").usable_bytes)
    assert swapped["blocks_to_swap"] == 10 and swapped["fewest_blocks_to_swap"] == fewest > 10
    assert main(["diffusion", "--pipeline", "sd1.5"]) == 0
    assert "not modelled yet" not in capsys.readouterr().out


# ---------------------------------------------------------------- block swap

BLOCKED = [(slug, role) for slug, role in PRESET_PARTS if "block_params" in GOLDEN["presets"][slug][role]]


@pytest.mark.parametrize(("slug", "role"), BLOCKED)
def test_each_transformer_block_holds_its_modules_parameters(slug, role):
    """A swapped block's bytes: in fp32 four per parameter, block by block in forward order, as the class on the meta
    device holds them (nn.ModuleList transformer_blocks, single_transformer_blocks or blocks); in bf16 less, more
    than two per parameter where diffusers keeps a module in fp32 (Wan's norms)."""
    assert role in [part.role for part in pipeline(slug).denoisers]  # Wan 2.2 A14B: both experts
    blocks = {precision: next(w.blocks for w in evaluate(pipeline(slug), _request(precision=precision)).weights
                              if w.part.role == role) for precision in ("fp32", "bf16")}
    params = GOLDEN["presets"][slug][role]["block_params"]
    assert list(blocks["fp32"]) == [4 * count for count in params]
    assert all(2 * count <= bf16 < 4 * count for count, bf16 in zip(params, blocks["bf16"], strict=True))


def test_swapped_blocks_leave_the_gpu_and_one_comes_back_for_its_turn():
    wan = pipeline("wan2.1-t2v-14b")
    size = {"width": 1280, "height": 720, "frames": 81, "cfg": True}
    whole, swapped = (evaluate(wan, _request(**size, blocks_to_swap=n)) for n in (0, 20))
    block = next(w.blocks for w in whole.weights if w.part.is_denoiser)[0]  # Wan's 40 blocks are all alike
    assert [a.weight_bytes - b.weight_bytes for a, b in zip(whole.stages, swapped.stages, strict=True)] == [
        20 * block, 19 * block, 20 * block]  # every part on the GPU: the denoising brings one block back
    model = [evaluate(wan, _request(**size, placement="model", blocks_to_swap=n)) for n in (0, 20)]
    stages = zip(*(run.stages for run in model), strict=True)
    assert [a.weight_bytes - b.weight_bytes for a, b in stages] == [0, 19 * block, 0]


@pytest.mark.parametrize(("slug", "gb"), [("wan2.1-t2v-14b", 24), ("flux.1-dev", 16), ("sd3.5-large", 12)])
def test_the_fewest_blocks_to_swap_fit_and_one_fewer_does_not(slug, gb):
    chosen = pipeline(slug)
    size = {"width": chosen.width, "height": chosen.height, "frames": chosen.frames, "placement": "model"}
    run = evaluate(chosen, _request(**size))
    usable = gb * 10**9
    fewest = fewest_blocks_to_swap(run, usable)
    assert fewest is not None and fewest > 0
    assert evaluate(chosen, _request(**size, blocks_to_swap=fewest)).peak.total_bytes <= usable
    assert evaluate(chosen, _request(**size, blocks_to_swap=fewest - 1)).peak.total_bytes > usable
    assert fewest_blocks_to_swap(run, 10**9) is None  # the text encoder alone does not fit


@pytest.mark.parametrize("changes", [{"blocks_to_swap": 41}, {"blocks_to_swap": 2, "placement": "sequential"}])
def test_a_swap_the_denoiser_cannot_make_is_refused(changes):
    with pytest.raises(ValidationError, match="blocks_to_swap"):
        evaluate(pipeline("wan2.1-t2v-14b"), _request(width=832, height=480, frames=81, **changes))
    with pytest.raises(ValidationError, match="blocks_to_swap"):
        evaluate(pipeline("sdxl"), _request(blocks_to_swap=1))  # a UNet has no transformer blocks to swap


# ---------------------------------------------------------------- published figures

def test_wan_readmes_1_3b_at_480p_with_offload_is_the_denoising_stage_as_its_code_holds_it():
    """Wan-Video/Wan2.1's README (commit 18368dfc): "The T2V-1.3B model requires only 8.19 GB VRAM", run on an RTX
    4090 as `generate.py --task t2v-1.3B --size 832*480 --offload_model True --t5_cpu` (81 frames, CFG in two passes,
    the defaults). Its wan/text2video.py keeps T5 on the CPU, loads the DiT with WanModel.from_pretrained (fp32) and
    the VAE (fp32) on the GPU, and runs under autocast(bf16): the denoising stage is the DiT and VAE in fp32, bf16
    working memory. The engine's comes to 7.80 GB, 4.8 % below the published figure, which a driver's counter takes
    with the CUDA context and the allocator's reserve (docs/accuracy.md); the test holds it below and within 10 %."""
    wan = pipeline("wan2.1-t2v-1.3b")
    size = {"width": 832, "height": 480, "frames": 81, "cfg": True, "placement": "model"}
    weights = evaluate(wan, _request(**size, precision="fp32", vae_precision="fp32")).weights
    fp32 = {w.part.role: w.bytes for w in weights}
    denoise = next(s for s in evaluate(wan, _request(**size)).stages if s.name == "denoise")
    ours = fp32["transformer"] + fp32["vae"] + denoise.working_bytes + denoise.carried_bytes
    assert 0.90 * 8.19e9 <= ours <= 8.19e9


# ---------------------------------------------------------------- HunyuanVideo's published figures

HUNYUAN_README = {(1280, 720): 60e9, (960, 544): 45e9}  # Tencent/HunyuanVideo README, Requirements, 129 frames


@pytest.mark.parametrize(("size", "published"), HUNYUAN_README.items())
def test_hunyuanvideo_with_every_part_on_the_gpu_is_near_the_readmes_figures(size, published):
    """The README's table (batch 1, 129 frames) names no flags; this is the run its sample_video.py makes without
    --use-cpu-offload, in diffusers' terms: every part on the GPU, the transformer in bf16, the Llama and CLIP text
    encoders and the VAE in fp16 (its defaults), no true CFG (cfg-scale 1, the guidance embedded), the decode tiled
    in space with 256-pixel tiles (--vae-tiling, on by default). The peak is the denoising. Measured gaps: -8.9 % at
    720p, +8.7 % at 544p (docs/accuracy.md): the README's figures grow with the tokens about 2.6 times as fast as
    diffusers' denoising step does."""
    width, height = size
    run = evaluate(pipeline("hunyuanvideo"), _request(width=width, height=height, frames=129, precision="bf16",
                                                      text_precision="fp16", vae_precision="fp16", vae_tiling=256))
    assert run.peak.name == "denoise"
    assert run.peak.total_bytes == pytest.approx(published, rel=0.12)


def test_hunyuanvideo_reads_its_prompt_as_the_pipeline_does():
    """HunyuanVideoPipeline: the Llama encodes 256 + the template's 95 tokens with every layer's output, the
    transformer sees 256; true CFG (a negative prompt, true_cfg_scale > 1) runs a second pass, not a doubled batch;
    no GGUF rules are read for its transformer."""
    from vramcalc.diffusion.run import sequence_text_tokens

    hunyuan = pipeline("hunyuanvideo")
    assert sequence_text_tokens(hunyuan) == 256 and hunyuan.text_tokens["text_encoder"] == 351
    size = {"width": 960, "height": 544, "frames": 129}
    one, two = (evaluate(hunyuan, _request(**size, cfg=cfg)) for cfg in (False, True))
    assert one.stages[-2].working_bytes == two.stages[-2].working_bytes
    llama = one.stages[0]
    assert llama.name == "encode:text_encoder" and llama.working_bytes == encode_bytes(
        "LlamaModel", hunyuan.parts[0].config, 351, True)
    with pytest.raises(ValidationError, match="precision"):
        evaluate(hunyuan, _request(**size, precision="gguf-q8_0"))


# ---------------------------------------------------------------- HunyuanVideo 1.5

def test_hunyuanvideo15_reads_its_prompts_and_latents_as_the_pipeline_does():
    """HunyuanVideo15Pipeline: the Qwen2.5-VL encodes the system prompt's 108 tokens and the prompt's 1,000 with every
    layer's output; ByT5 256; the transformer joins the 1,000, the 256 and 729 image tokens to the latent tokens of
    the 16x VAE (patch 1); the guider runs CFG as a second pass; no GGUF rules are read."""
    from vramcalc.diffusion.run import sequence_text_tokens
    from vramcalc.diffusion.stages import latent_shape

    hv15 = pipeline("hunyuanvideo1.5-480p")
    assert sequence_text_tokens(hv15) == 1000 + 256 + 729
    assert (hv15.width, hv15.height, hv15.frames, hv15.cfg) == (848, 480, 121, True)
    assert latent_shape(hv15.vae.class_name, hv15.vae.config, 848, 480, 121) == (32, 31, 30, 53)
    size = {"width": 848, "height": 480, "frames": 121}
    one, two = (evaluate(hv15, _request(**size, cfg=cfg)) for cfg in (False, True))
    assert one.stages[-2].working_bytes == two.stages[-2].working_bytes == denoise_bytes(
        hv15.denoiser.class_name, hv15.denoiser.config, 1, 31 * 30 * 53, 1985)
    qwen = one.stages[0]
    assert qwen.name == "encode:text_encoder" and qwen.working_bytes == encode_bytes(
        "Qwen2_5_VLTextModel", hv15.parts[0].config, 1108, True)
    with pytest.raises(ValidationError, match="precision"):
        evaluate(hv15, _request(**size, precision="gguf-q8_0"))


def test_hunyuanvideo15s_decode_is_one_call_unless_tiled():
    """AutoencoderKLHunyuanVideo15 decodes every frame in one call (no framewise decoding): at 480p x 121 frames the
    decode outgrows the denoising step many times over; enable_tiling()'s 256-pixel tiles bring it below."""
    hv15 = pipeline("hunyuanvideo1.5-480p")
    size = {"width": 848, "height": 480, "frames": 121, "cfg": True}
    whole, tiled = (evaluate(hv15, _request(**size, vae_tiling=t)) for t in (0, 256))
    assert whole.peak.name == "decode" and whole.stages[-1].working_bytes > 5 * whole.stages[-2].working_bytes
    assert tiled.stages[-1].working_bytes < whole.stages[-1].working_bytes / 5


# ---------------------------------------------------------------- text encoders on the CPU

@pytest.mark.parametrize("placement", ["gpu", "model", "sequential"])
def test_text_encoders_on_the_cpu_leave_the_gpu_and_send_it_their_embeddings(placement):
    flux = pipeline("flux.1-dev")
    on_gpu, on_cpu = (evaluate(flux, _request(placement=placement, text_encoders=device)) for device in ("gpu", "cpu"))
    text = sum(w.bytes for w in on_gpu.weights if w.part.is_text_encoder)
    assert [w.device for w in on_cpu.weights] == ["cpu", "cpu", "gpu", "gpu"]
    for encode in on_cpu.stages[:2]:
        assert encode.working_bytes == 0 and encode.carried_bytes == on_gpu.stages[0].carried_bytes > 0
        assert encode.weight_bytes == (on_gpu.stages[0].weight_bytes - text if placement == "gpu" else 0)
    gpu_denoise, cpu_denoise = on_gpu.stages[-2], on_cpu.stages[-2]
    assert gpu_denoise.weight_bytes - cpu_denoise.weight_bytes == (text if placement == "gpu" else 0)
    assert on_cpu.peak.total_bytes <= on_gpu.peak.total_bytes


def test_text_encoders_on_the_cpu_are_a_flag_a_link_key_and_a_json_field(capsys):
    from vramcalc.cli import main
    from vramcalc.inputs.parse import parse_diffusion

    assert main(["diffusion", "--pipeline", "wan2.1-t2v-14b", "--placement", "model", "--text-encoders", "cpu",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["text_encoders"] == "cpu"
    assert [p["device"] for p in document["parts"]] == ["cpu", "gpu", "gpu"]
    assert document["stages"][0]["weight_bytes"] == document["stages"][0]["working_bytes"] == 0
    _, request = parse_diffusion({"family": "diffusion", "pipeline": "flux.1-dev", "text_encoders": "cpu"})
    assert request.text_encoders == "cpu"
    with pytest.raises(ValidationError, match="text_encoders"):
        parse_diffusion({"family": "diffusion", "pipeline": "flux.1-dev", "text_encoders": "disk"})
    with pytest.raises(ValidationError, match="text_encoders"):
        evaluate(pipeline("flux.1-dev"), _request(text_encoders="tpu"))


# ---------------------------------------------------------------- Wan 2.2

def test_wan22_a14b_runs_its_two_experts_one_after_the_other():
    """WanPipeline with transformer_2 and boundary_ratio 0.875 (convert_wan_to_diffusers.py): the high-noise expert
    (`transformer`) runs while the timestep is at least 875, then the low-noise one (`transformer_2`), the same class
    and config: the same step. Model offload (model_cpu_offload_seq text_encoder->transformer->transformer_2->vae)
    holds one expert at a time; every part on the GPU holds both, and a block swap keeps each expert's first blocks
    in system RAM."""
    from vramcalc.render.diffusion import present_diffusion

    a14b = pipeline("wan2.2-t2v-a14b")
    assert [part.role for part in a14b.denoisers] == ["transformer", "transformer_2"]
    assert a14b.options == {"boundary_ratio": 0.875} and a14b.denoiser.role == "transformer"
    size = {"width": 1280, "height": 720, "frames": 81, "cfg": True}
    model = evaluate(a14b, _request(**size, placement="model"))
    expert = {w.part.role: w.bytes for w in model.weights}
    assert expert["transformer"] == expert["transformer_2"]
    high, low = model.stages[1:3]
    assert (high.name, low.name) == ("denoise", "denoise:transformer_2")
    assert high.weight_bytes == low.weight_bytes == expert["transformer"]
    assert high.working_bytes == low.working_bytes == next(
        s for s in evaluate(pipeline("wan2.1-t2v-14b"), _request(**size, placement="model")).stages
        if s.name == "denoise").working_bytes  # Wan 2.1 14B's transformer, the same tensors
    whole = evaluate(a14b, _request(**size))
    assert all(stage.weight_bytes == sum(expert.values()) for stage in whole.stages)
    block = next(w.blocks for w in whole.weights if w.part.is_denoiser)[0]
    swapped = evaluate(a14b, _request(**size, blocks_to_swap=10))
    assert [a.weight_bytes - b.weight_bytes for a, b in zip(whole.stages, swapped.stages, strict=True)] == [
        20 * block, 19 * block, 19 * block, 20 * block]
    rows = [label for label, _, _ in present_diffusion(model).rows]
    assert any("high-noise expert (transformer)" in label for label in rows)
    assert any("low-noise expert (transformer_2)" in label for label in rows)


def test_wan22_ti2v_5b_reads_its_16x_latents_and_a_timestep_per_token():
    """Wan 2.2's VAE (is_residual) compresses 16x16 in space (an 8x network over 2 x 2 patches) and 4x in time into
    48 channels; the transformer's patch 1x2x2 makes 31 x 22 x 40 tokens of 1280x704x121; WanPipeline's
    expand_timesteps gives it a timestep per token, so its time embedding and modulation are per token too. Its
    LoRA training is refused rather than guessed."""
    from vramcalc.diffusion.stages import latent_shape
    from vramcalc.diffusion.training import Training, train

    ti2v = pipeline("wan2.2-ti2v-5b")
    assert (ti2v.width, ti2v.height, ti2v.frames, ti2v.options) == (1280, 704, 121, {"expand_timesteps": True})
    latent = latent_shape(ti2v.vae.class_name, ti2v.vae.config, 1280, 704, 121)
    assert latent == (48, 31, 44, 80) and image_tokens(ti2v.denoiser.class_name, ti2v.denoiser.config, latent) == 27280
    run = evaluate(ti2v, _request(width=1280, height=704, frames=121, cfg=True))
    denoise = run.stages[-2]
    per_token, per_sample = (denoise_bytes(ti2v.denoiser.class_name, ti2v.denoiser.config, 1, 27280, 512,
                                           expand_timesteps=expand) for expand in (True, False))
    assert denoise.working_bytes == per_token > per_sample
    assert denoise.carried_bytes == 2 * 512 * 4096 * 2 + 48 * 31 * 44 * 80 * 2  # two prompts' UMT5 output, latents
    tiled = evaluate(ti2v, _request(width=1280, height=704, frames=121, vae_tiling=256)).stages[-1]
    assert tiled.working_bytes < run.stages[-1].working_bytes / 2
    with pytest.raises(ValidationError, match="pipeline"):
        train(ti2v, _request(width=1280, height=704, frames=121), Training(rank=16))


def test_wan22_ti2v_5b_as_its_readme_runs_it_fits_24_gb_and_not_16():
    """Wan-Video/Wan2.2's README: `generate.py --task ti2v-5B --size 1280*704 --offload_model True
    --convert_model_dtype --t5_cpu` "can run on a GPU with at least 24GB VRAM (e.g, RTX 4090 GPU)". Its code keeps
    T5 on the CPU, the DiT in bf16 (--convert_model_dtype) moved off the GPU before the decode, and Wan2_2_VAE in
    fp32 (its default dtype): model offload, text encoders on the CPU, the VAE in fp32. The engine's peak is the
    decode, 21.90 GiB (diffusers' classes, not Wan's own code): within the 4090's usable memory and above 16 GB, a
    card the README does not name (docs/accuracy.md). A bound, not a measured peak."""
    run = evaluate(pipeline("wan2.2-ti2v-5b"), _request(width=1280, height=704, frames=121, cfg=True,
                                                         placement="model", text_encoders="cpu",
                                                         vae_precision="fp32"))
    assert run.peak.name == "decode"
    assert 16e9 < run.peak.total_bytes <= gpu("rtx-4090").usable_bytes


# ---------------------------------------------------------------- Qwen-Image

def test_qwen_image_reads_its_prompt_and_latents_as_the_pipeline_does():
    """QwenImagePipeline: the whole Qwen2.5-VL (vision tower and LM head loaded) reads the template's 34 tokens and
    the prompt unpadded (512, the default max_sequence_length) with every layer's output, and computes the LM head's
    logits over every position, the encoder's peak at full size; the transformer reads the 512, and 2 x 2 packed
    latents of the 8x VAE; true CFG (a negative prompt, true_cfg_scale 4) is a second pass. No GGUF rules or LoRA
    training are read for it."""
    from vramcalc.diffusion.run import sequence_text_tokens
    from vramcalc.diffusion.stages import latent_shape
    from vramcalc.diffusion.training import Training, train

    qwen = pipeline("qwen-image")
    assert sequence_text_tokens(qwen) == 512 and qwen.text_tokens["text_encoder"] == 546
    latent = latent_shape(qwen.vae.class_name, qwen.vae.config, 1024, 1024, 1)
    assert latent == (16, 128, 128) and image_tokens(qwen.denoiser.class_name, qwen.denoiser.config, latent) == 4096
    one, two = (evaluate(qwen, _request(cfg=cfg)) for cfg in (False, True))
    assert one.stages[1].working_bytes == two.stages[1].working_bytes == denoise_bytes(
        qwen.denoiser.class_name, qwen.denoiser.config, 1, 4096, 512)
    assert two.stages[1].carried_bytes == 2 * 512 * 3584 * 2 + 16 * 128 * 128 * 2
    encode = one.stages[0]
    assert encode.working_bytes == encode_bytes("Qwen2_5_VLForConditionalGeneration", qwen.parts[0].config, 546, True)
    # at full size the logits moment is the larger: the logits, the 29 layers' outputs and the KV cache
    assert encode.working_bytes == 546 * (152064 + 29 * 3584 + 2 * 28 * 512) * 2
    model = evaluate(qwen, _request(cfg=True, placement="model"))
    assert model.peak.name == "denoise" and model.peak.weight_bytes == next(
        w.bytes for w in model.weights if w.part.role == "transformer")
    with pytest.raises(ValidationError, match="precision"):
        evaluate(qwen, _request(precision="gguf-q8_0"))
    with pytest.raises(ValidationError, match="pipeline"):
        train(qwen, _request(), Training(rank=16))


# ---------------------------------------------------------------- LTX-Video

def test_ltx_video_reads_its_prompt_and_latents_as_the_pipeline_does():
    """LTXPipeline with LTX-Video 0.9.7 13B (dev): T5-XXL over the prompt padded to 128 tokens (no mask passed to the
    encoder), latents of the 32x/8x VAE packed with patch 1 (704 x 512 x 161: 21 x 16 x 22 tokens), CFG in one batch
    of two (with the RoPE tables per sample), the whole video decoded in one call with the decode timestep. Its
    frames are 8k + 1 and its sizes multiples of 32; GGUF, a tiled decode and LoRA training are refused or said
    unmodelled in words."""
    from vramcalc.diffusion.stages import latent_shape
    from vramcalc.diffusion.training import Training, train

    ltx = pipeline("ltx-video-0.9.7-dev")
    assert (ltx.width, ltx.height, ltx.frames, ltx.steps, ltx.cfg) == (704, 512, 161, 50, True) and ltx.is_video
    latent = latent_shape(ltx.vae.class_name, ltx.vae.config, 704, 512, 161)
    assert latent == (128, 21, 16, 22) and image_tokens(ltx.denoiser.class_name, ltx.denoiser.config, latent) == 7392
    size = {"width": 704, "height": 512, "frames": 161}
    one, two = (evaluate(ltx, _request(cfg=cfg, **size)) for cfg in (False, True))
    assert two.stages[1].working_bytes == 2 * one.stages[1].working_bytes == denoise_bytes(
        ltx.denoiser.class_name, ltx.denoiser.config, 2, 7392, 128)
    # the rotation of q or k: 6 d-wide bf16 tensors, 3 fp32 temporaries and the fp32 cos and sin, per token
    assert one.stages[1].working_bytes == 7392 * 4096 * 32 + (128 + 13) * 4096 * 2
    assert two.stages[1].carried_bytes == 2 * 128 * 4096 * 2 + 128 * 21 * 16 * 22 * 2
    assert one.stages[0].working_bytes == encode_bytes("T5EncoderModel", ltx.parts[0].config, 128, False)
    # the last up block's resnet at its fp32 norm: 128 channels over 161 x 128 x 176, with 256 at half the grid
    decode = 161 * 128 * 176 * 128 * 12 + 81 * 64 * 88 * 256 * 2
    assert one.stages[2].working_bytes == two.stages[2].working_bytes == decode
    model = evaluate(ltx, _request(cfg=True, placement="model", **size))
    assert model.peak.name == "denoise" and model.peak.weight_bytes == next(
        w.bytes for w in model.weights if w.part.role == "transformer")
    assert evaluate(ltx, _request(vae_tiling=256, **size)).stages[2].working_bytes is None
    for field, changes in (("frames", {"frames": 81 - 4}), ("width", {"width": 720}), ("height", {"height": 496})):
        with pytest.raises(ValidationError, match=field):
            evaluate(ltx, _request(**{**size, **changes}))
    with pytest.raises(ValidationError, match="precision"):
        evaluate(ltx, _request(precision="gguf-q8_0", **size))
    with pytest.raises(ValidationError, match="pipeline"):
        train(ltx, _request(**size), Training(rank=16))


def test_ltx_video_decode_is_said_unmodelled_for_the_layouts_not_measured():
    """0.9.0's decoder (four up blocks, no upsample factor) and 0.9.1's (noise injection) were not measured."""
    older = {"decoder_block_out_channels": [128, 256, 512, 512]}
    noisy = {**pipeline("ltx-video-0.9.7-dev").vae.config, "decoder_inject_noise": [True, True, True, False]}
    assert decode_bytes("AutoencoderKLLTXVideo", older, 1, 704, 512, 161) is None
    assert decode_bytes("AutoencoderKLLTXVideo", noisy, 1, 704, 512, 161) is None


# ---------------------------------------------------------------- FLUX.2

def test_flux2_reads_its_prompt_and_latents_as_the_pipeline_does():
    """Flux2Pipeline: the whole Mistral 3 (vision tower and untied LM head loaded) reads the prompt padded to 512 with
    every layer's output and computes the logits over every position; the transformer reads 512 tokens of three of its
    layers' outputs side by side (15,360 wide) and the 8x VAE's 32-channel latents 2 x 2-patched (4,096 tokens at
    1024 x 1024); the guidance is embedded, no CFG pass. Flux2KleinPipeline: Qwen3's three layers (7,680 wide for
    4B), the distilled model's 4 steps; CFG (the base models') is a second pass. No LoRA training."""
    from vramcalc.diffusion.run import sequence_text_tokens
    from vramcalc.diffusion.stages import latent_shape
    from vramcalc.diffusion.training import Training, train

    dev = pipeline("flux.2-dev")
    assert (sequence_text_tokens(dev), dev.cfg, dev.steps) == (512, False, 50)
    latent = latent_shape(dev.vae.class_name, dev.vae.config, 1024, 1024, 1)
    assert latent == (32, 128, 128) and image_tokens(dev.denoiser.class_name, dev.denoiser.config, latent) == 4096
    run = evaluate(dev, _request())
    encode, denoise = run.stages[:2]
    assert denoise.carried_bytes == 512 * 15360 * 2 + 32 * 128 * 128 * 2
    assert denoise.working_bytes == denoise_bytes(dev.denoiser.class_name, dev.denoiser.config, 1, 4096, 512)
    # at full size the logits moment is the larger: 512 x 131,072 logits beside the 41 layers' outputs
    assert encode.working_bytes == encode_bytes("Mistral3ForConditionalGeneration", dev.parts[0].config, 512, True)
    assert encode.working_bytes == 512 * (131072 + 41 * 5120) * 2
    klein = pipeline("flux.2-klein-4b")
    assert (klein.steps, klein.cfg) == (4, False)
    one, two = (evaluate(klein, _request(cfg=cfg)) for cfg in (False, True))
    assert one.stages[1].working_bytes == two.stages[1].working_bytes
    assert two.stages[1].carried_bytes == 2 * 512 * 7680 * 2 + 32 * 128 * 128 * 2
    with pytest.raises(ValidationError, match="width"):
        evaluate(dev, _request(width=1000))
    # city96's GGUF: the embedders, the shared modulations and the final layer stay BF16 (lcpp.patch's flux2 lines)
    types = {t.name: gguf_type(t, dev.denoiser.class_name, "q4_0") for t in dev.denoiser.tensors}
    assert types["double_stream_modulation_img.linear.weight"] == types["context_embedder.weight"] == "bf16"
    assert types["single_transformer_blocks.0.attn.to_qkv_mlp_proj.weight"] == "q4_0"
    assert types["transformer_blocks.0.attn.norm_q.weight"] == "f32"
    run = evaluate(dev, _request(precision="gguf-q8_0"))
    assert next(w.bytes for w in run.weights if w.part.is_denoiser) == 35_002_580_992
    # LoRA training as ai-toolkit runs it (qfloat8 transformer: the fp8 base; adapters on the blocks only)
    trained = train(klein, _request(precision="fp8"), Training(rank=16))
    assert trained.weight_bytes == part_bytes(klein.denoiser.tensors, klein.denoiser.class_name, "fp8")


def test_flux2_dev_fits_an_h100_only_a_part_at_a_time_as_its_guide_says():
    """black-forest-labs/flux2 docs/flux2_dev_hf.md (diffusers, bf16, 1024 x 1024): "Even an H100 can't hold the
    text-encoder, transormer and VAE at the same time. However, as they each fit individually, it is a matter of
    activating the `pipe.enable_model_cpu_offload()`. For H200, B200 or larger carts, everything fits." """
    dev = pipeline("flux.2-dev")
    whole, offloaded = (evaluate(dev, _request(placement=p)) for p in ("gpu", "model"))
    assert gpu("h100-80gb").usable_bytes < whole.peak.total_bytes <= gpu("h200").usable_bytes
    assert offloaded.peak.total_bytes <= gpu("h100-80gb").usable_bytes


@pytest.mark.parametrize(("changes", "published"), [
    ({"text_encoders": "cpu"}, 18e9),  # "4-bit transformer and remote text-encoder (~18G of VRAM)", pipe.to(device)
    ({"text_precision": "nf4", "placement": "model"}, 20e9),  # "4-bit transformer and 4-bit text-encoder (~20G)"
])
def test_flux2_dev_in_4_bit_is_near_its_guides_figures(changes, published):
    """docs/flux2_dev_hf.md runs diffusers/FLUX.2-dev-bnb-4bit (bitsandbytes 4-bit, the VAE in bf16) at 1024 x 1024;
    its figures are approximate ("~") and its quantisation config is not in the stored sources (NF4 assumed). The
    engine gives 19.9 GB (+10.6 %) and 19.3 GB (-3.3 %): within 12 % (docs/accuracy.md)."""
    run = evaluate(pipeline("flux.2-dev"), _request(precision="nf4", **changes))
    assert run.peak.total_bytes == pytest.approx(published, rel=0.12)


# ---------------------------------------------------------------- HiDream-I1

def test_hidream_reads_its_prompts_and_latents_as_the_pipeline_does():
    """HiDreamImagePipeline: its four encoders read the prompt padded to 128 tokens; the pooled CLIP outputs, T5's and
    every Llama layer's output (32 x 128 tokens) are kept, the negative prompt's too (their variables outlive the join);
    each block attends to T5's, the last Llama layer's and its own Llama layer's tokens (384); CFG doubles the batch;
    any size is scaled to 1024 x 1024's area, a non-square latent padded to max_resolution's 4,096 tokens."""
    from vramcalc.diffusion.run import hidream_size, sequence_text_tokens
    from vramcalc.diffusion.stages import latent_shape

    full = pipeline("hidream-i1-full")
    assert sequence_text_tokens(full) == 384 and set(full.text_tokens.values()) == {128}
    assert (full.cfg, full.steps) == (True, 50)
    transformer = full.denoiser
    square = latent_shape(full.vae.class_name, full.vae.config, 1024, 1024, 1)
    wide = latent_shape(full.vae.class_name, full.vae.config, 1344, 768, 1)
    assert square == (16, 128, 128) and image_tokens(transformer.class_name, transformer.config, square) == 4096
    assert image_tokens(transformer.class_name, transformer.config, wide) == 4096  # 84 x 48 real, padded
    assert hidream_size(2048, 2048) == (1024, 1024) and hidream_size(1360, 768) == (1360, 768)
    assert evaluate(full, _request(width=1536, height=1536)).request.width == 1024
    one, two = (evaluate(full, _request(cfg=cfg)) for cfg in (False, True))
    assert two.stages[4].working_bytes == 2 * one.stages[4].working_bytes == denoise_bytes(
        transformer.class_name, transformer.config, 2, 4096, 384)
    prompt = (768 + 1280 + 128 * 4096 + 32 * 128 * 4096) * 2
    assert one.stages[4].carried_bytes == prompt + 16 * 128 * 128 * 2
    assert two.stages[4].carried_bytes == 3 * prompt + 16 * 128 * 128 * 2
    llama = one.stages[3]
    assert llama.name == "encode:text_encoder_4" and llama.working_bytes == encode_bytes(
        "LlamaForCausalLM", full.parts[3].config, 128, True)
    # city96's GGUF: the experts' down projections one type up, the MoE gates F32, the caption projections BF16
    types = {t.name: gguf_type(t, transformer.class_name, "q4_0") for t in transformer.tensors}
    block = "double_stream_blocks.0.block."
    assert types[block + "ff_i.experts.0.w2.weight"] == types[block + "ff_i.shared_experts.w2.weight"] == "q4_1"
    assert types[block + "ff_t.w2.weight"] == types[block + "ff_i.experts.0.w1.weight"] == "q4_0"
    assert types[block + "ff_i.gate.weight"] == "f32" and types["caption_projection.0.linear.weight"] == "bf16"


def test_hidream_dev_and_fast_are_the_full_models_tensors_with_their_defaults():
    """HiDream-I1 Dev and Fast: the same classes and configs as Full, guidance-distilled (guidance_scale 0: no CFG),
    28 and 16 steps; 48 transformer blocks to swap."""
    full, dev, fast = (pipeline(f"hidream-i1-{name}") for name in ("full", "dev", "fast"))
    assert [(p.class_name, p.config) for p in dev.parts] == [(p.class_name, p.config) for p in full.parts]
    assert [(p.class_name, p.config) for p in fast.parts] == [(p.class_name, p.config) for p in full.parts]
    assert (dev.cfg, dev.steps, fast.cfg, fast.steps) == (False, 28, False, 16)
    blocks = next(w.blocks for w in evaluate(full, _request()).weights if w.part.is_denoiser)
    assert len(blocks) == 48 and blocks[0] > blocks[-1]  # a double-stream block holds more than a single-stream one


# ---------------------------------------------------------------- what makes a run fit (issue 27's reverse answers)

@pytest.mark.parametrize("slug", ["flux.1-dev", "wan2.2-ti2v-5b", "wan2.1-t2v-14b", "sd3.5-large"])
def test_each_fix_offered_fits_and_the_next_size_or_frames_up_does_not(slug):
    """`single_fixes`: each setting (or settings together) offered makes the run fit the card; a size or a frame
    count offered is the largest that fits (one step more does not), and a format the most faithful one that fits."""
    import dataclasses

    from vramcalc.diffusion.run import DENOISER_LADDER, single_fixes

    chosen = pipeline(slug)
    request = _request(width=chosen.width, height=chosen.height, frames=chosen.frames, cfg=chosen.cfg)
    usable = gpu("rtx-4090").usable_bytes
    run = evaluate(chosen, request)
    assert run.peak.total_bytes > usable
    fixes = single_fixes(run, usable)
    assert fixes

    def fits(**settings) -> bool:
        return evaluate(chosen, dataclasses.replace(request, **settings)).peak.total_bytes <= usable

    for fix in fixes:
        assert fits(**fix), fix
        if set(fix) == {"frames"}:
            assert not fits(frames=fix["frames"] + 4)
        elif set(fix) == {"width", "height"}:
            width, height = fix["width"], fix["height"]
            assert not fits(width=width + 16, height=round(height * (width + 16) / width / 16) * 16)
        elif set(fix) == {"precision"}:
            assert not any(fits(precision=p) for p in DENOISER_LADDER[:DENOISER_LADDER.index(fix["precision"])])
        elif len(fix) > 1:  # several together: each setting of it is needed
            assert all(not fits(**{k: v for k, v in fix.items() if k != drop}) for drop in fix)


def test_the_command_line_says_what_makes_it_fit(capsys):
    from vramcalc.cli import main

    assert main(["diffusion", "--pipeline", "flux.1-dev", "--gpu", "rtx-4090", "--json"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["fits_with"] == [{"placement": "model"}, {"precision": "gguf-q8_0"}]
    main(["diffusion", "--pipeline", "sd1.5", "--gpu", "rtx-4090", "--json"])
    assert json.loads(capsys.readouterr().out)["fits_with"] == []  # it fits: nothing to change
