"""A diffusers pipeline imported from its model_index.json and its components' config.json (issue 27,
diffusion/imported.py; `vramcalc diffusion --folder`): every preset written back as a diffusers folder imports as
itself, byte for byte; what cannot be counted is refused in one line naming the field, never with a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vramcalc.cli import main
from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.imported import IMPORTED, import_pipeline
from vramcalc.diffusion.pipelines import Pipeline, load_pipelines
from vramcalc.diffusion.run import PLACEMENTS, Request, evaluate, fewest_blocks_to_swap
from vramcalc.diffusion.speed import speed_of
from vramcalc.diffusion.training import Training, train
from vramcalc.inputs.link import decode, encode
from vramcalc.inputs.parse import parse_diffusion
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.gpus import gpu

PRESETS = load_pipelines()
IMPORT_KEYS = ("pipeline", "imported_from", "defaults_of", "ignored")
# what a diffusers save_pretrained writes beside the counted components (StableDiffusionPipeline's, FluxPipeline's)
EXTRA = {"_diffusers_version": "0.42.1", "scheduler": ["diffusers", "FlowMatchEulerDiscreteScheduler"],
         "tokenizer": ["transformers", "CLIPTokenizer"], "feature_extractor": [None, None]}


def model_index(preset: Pipeline) -> dict[str, object]:
    libraries = {part.role: "diffusers" if part.is_denoiser or part.role == "vae" else "transformers"
                 for part in preset.parts}
    return {"_class_name": preset.pipeline_class, **EXTRA,
            **{part.role: [libraries[part.role], part.class_name] for part in preset.parts}, **preset.options}


def write(folder: Path, index: dict[str, object], configs: dict[str, object]) -> Path:
    folder.mkdir(parents=True)
    (folder / "model_index.json").write_text(json.dumps(index), encoding="utf-8")
    for role, config in configs.items():
        (folder / role).mkdir()
        (folder / role / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def write_preset(folder: Path, preset: Pipeline) -> Path:
    return write(folder, model_index(preset), {part.role: part.config for part in preset.parts})


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diffusion", *args])
    return code, out.getvalue() if code == 0 else err.getvalue()


def document(*args: str) -> dict[str, object]:
    code, text = run(*args, "--json")
    assert code == 0, text
    return dict(json.loads(text))


def without_origin(data: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in data.items() if key not in IMPORT_KEYS}


# ---------------------------------------------------------------- every preset imports as itself


@pytest.mark.parametrize("slug", list(PRESETS))
def test_every_preset_written_as_its_repository_imports_as_itself_byte_for_byte(slug, tmp_path):
    """The folder named as its repository (git clone's name): the preset's own defaults, the same bytes and seconds
    for each placement, and --train-lora where the preset trains."""
    preset = PRESETS[slug]
    folder = write_preset(tmp_path / preset.hf_id.rsplit("/", 1)[-1], preset)
    for extra in ([], ["--placement", "model", "--vae-tiling", "512"], ["--placement", "sequential"]):
        data = document("--folder", str(folder), "--gpu", "h100-80gb", *extra)
        assert data["pipeline"] == IMPORTED and data["defaults_of"] == slug
        assert data["imported_from"] == str(folder.resolve())
        assert [(i["role"], i["class"]) for i in data["ignored"]] == [("scheduler", "FlowMatchEulerDiscreteScheduler"),
                                                                      ("tokenizer", "CLIPTokenizer")]
        assert without_origin(data) == without_origin(document("--pipeline", slug, "--gpu", "h100-80gb", *extra))
    code, trained = run("--folder", str(folder), "--train-lora", "16", "--json")
    assert (code, without_origin(json.loads(trained)) if code == 0 else trained) == (
        code, without_origin(document("--pipeline", slug, "--train-lora", "16")) if code == 0 else trained)


def test_a_folder_of_any_name_takes_the_defaults_of_the_preset_sharing_most_config_values(tmp_path):
    """HiDream-I1 Full, Dev and Fast share every config: a folder that names none of them runs with the first's
    defaults (Full: CFG on, 50 steps), and says so; every other preset is told apart by its configs alone."""
    for slug, preset in PRESETS.items():
        folder = write_preset(tmp_path / slug.replace(".", "_") / "snapshot", preset)
        data = document("--folder", str(folder))
        expected = "hidream-i1-full" if slug.startswith("hidream-i1") else slug
        assert data["defaults_of"] == expected
        assert without_origin(data) == without_origin(document("--pipeline", expected))
    code, text = run("--folder", str(tmp_path / "hidream-i1-dev" / "snapshot"))
    assert code == 0 and "defaults of HiDream-I1 Full (hidream-i1-full): 1024 x 1024, 50 steps, CFG on" in text
    assert "not counted: scheduler (FlowMatchEulerDiscreteScheduler), tokenizer (CLIPTokenizer)" in text
    hub_cache = write_preset(tmp_path / "hub" / "models--HiDream-ai--HiDream-I1-Dev" / "snapshots" / "0123abc",
                             PRESETS["hidream-i1-dev"])
    assert document("--folder", str(hub_cache))["defaults_of"] == "hidream-i1-dev"


def test_the_flags_of_a_preset_run_an_imported_pipeline_alike(tmp_path):
    folder = write_preset(tmp_path / "FLUX.1-schnell", PRESETS["flux.1-schnell"])
    flags = ["--width", "768", "--height", "1344", "--batch", "2", "--cfg", "on", "--precision", "fp8",
             "--text-precision", "nf4", "--text-encoders", "cpu", "--blocks-to-swap", "10", "--steps", "8",
             "--gpu", "rtx-4090"]
    assert without_origin(document("--folder", str(folder), *flags)) == without_origin(
        document("--pipeline", "flux.1-schnell", *flags))


def test_the_page_imports_through_the_link_values_and_the_link_leaves_the_pipeline_out(tmp_path):
    preset = PRESETS["wan2.2-t2v-a14b"]
    imported = import_pipeline(json.dumps(model_index(preset)),
                               {part.role: json.dumps(part.config) for part in preset.parts},
                               "Wan-AI/Wan2.2-T2V-A14B-Diffusers")
    values = {"family": "diffusion", "pipeline": IMPORTED, "frames": "49"}
    chosen, request = parse_diffusion(values, None, imported)
    assert chosen is imported and request.frames == 49 and imported.options == {"boundary_ratio": 0.875}
    assert evaluate(chosen, request).peak.total_bytes == evaluate(preset, request).peak.total_bytes
    with pytest.raises(ValidationError, match=r"pipeline: got 'config'; no model_index\.json has been imported"):
        parse_diffusion(values)
    assert encode(values) == "family=diffusion&frames=49"
    opened = decode("family=diffusion&pipeline=config&width=768")  # the default pipeline's size then
    assert opened.values == {"family": "diffusion", "width": "768"}
    assert "Ignored from the link: pipeline 'config'" in ENGLISH.say(opened.notices[0])


# ---------------------------------------------------------------- refusals, one line naming the field


FLUX = PRESETS["flux.1-dev"]
SD = PRESETS["sd1.5"]


def _configs(preset: Pipeline, **changed: object) -> dict[str, object]:
    return {part.role: changed.get(part.role, part.config) for part in preset.parts}


def _refused(tmp_path: Path, index: dict[str, object], configs: dict[str, object], start: str) -> str:
    folder = write(tmp_path / "pipeline", index, configs)
    code, message = run("--folder", str(folder))
    assert code == 2 and message.startswith(f"vramcalc: error: {start}") and message.count("\n") == 1, message
    assert "Traceback" not in message
    return message


@pytest.mark.parametrize(("index", "start"), [
    ({**model_index(SD), "_class_name": "KandinskyPipeline"},
     "model_index.json _class_name: got 'KandinskyPipeline'; a pipeline class with a preset: Flux2KleinPipeline"),
    ({k: v for k, v in model_index(SD).items() if k != "_class_name"}, "model_index.json _class_name: got 'None'"),
    ({**model_index(SD), "unet": ["diffusers", "UNet3DConditionModel"]},
     "unet: got 'UNet3DConditionModel'; a class this calculator counts: FluxTransformer2DModel"),
    ({**model_index(SD), "text_encoder": ["transformers", "T5EncoderModel"]},
     "text_encoder: got 'T5EncoderModel'; StableDiffusionPipeline as its presets have it: CLIPTextModel"),
    ({k: v for k, v in model_index(SD).items() if k != "vae"},
     "vae: got 'absent'; StableDiffusionPipeline as its presets have it: text_encoder CLIPTextModel, unet"),
    ({**model_index(SD), "text_encoder_2": ["transformers", "CLIPTextModel"]},
     "text_encoder_2: got 'CLIPTextModel'; StableDiffusionPipeline as its presets have it"),
    ({**model_index(SD), "unet": ["diffusers"]}, "model_index.json unet: got ['diffusers']; a component's [library"),
    ({**model_index(SD), "unet": ["diffusers", 7]}, "model_index.json unet: got ['diffusers', 7]; [library, class]"),
    ({**model_index(SD), "boundary_ratio": float("inf")}, "model_index.json boundary_ratio: got inf; a finite numb"),
])
def test_a_model_index_this_calculator_cannot_count_is_refused_naming_the_field(tmp_path, index, start):
    _refused(tmp_path, index, {**_configs(SD), "text_encoder_2": SD.parts[0].config}, start)


@pytest.mark.parametrize(("change", "start"), [
    ({"num_layers": 10**6}, "transformer/config.json num_layers: got 1000000; an integer from -1 to 1,000"),
    ({"num_single_layers": -5}, "transformer/config.json num_single_layers: got -5; an integer from -1 to 1,000"),
    ({"attention_head_dim": 10**12}, ("transformer/config.json attention_head_dim: got 1000000000000; an integer from "
                                      "-1,000,000,000")),
    ({"axes_dims_rope": list(range(2000))}, "transformer/config.json axes_dims_rope: got '2,000 items'; at most"),
    ({"joint_attention_dim": float("nan")}, "transformer/config.json joint_attention_dim: got nan; a finite number"),
    ({"num_attention_heads": "24"}, ("transformer/config.json: got 'FluxTransformer2DModel'; a FluxTransformer2DModel"
                                     " config.json with the keys its class reads (TypeError")),
    ({"attention_head_dim": 0}, "transformer/config.json: got 'FluxTransformer2DModel'; a FluxTransformer2DModel"),
    ({"in_channels": -1}, "transformer/config.json: got 'FluxTransformer2DModel'"),
])
def test_hostile_sizes_in_a_config_are_refused_naming_the_component_and_key(tmp_path, change, start):
    _refused(tmp_path, model_index(FLUX), _configs(FLUX, transformer={**FLUX.denoiser.config, **change}), start)


@pytest.mark.parametrize(("text", "start"), [
    ("{not json", "model_index.json: got '{not json'; not valid JSON"),
    ("[1, 2]", "model_index.json: got 'list'; expected a JSON object"),
    ("[" * 5000 + "]" * 5000, "model_index.json: got 'nested more than 32 levels deep'"),
    (" " * 1_000_001, "model_index.json: got '1,000,001 characters'; JSON text of at most 1,000,000 characters"),
])
def test_a_broken_model_index_is_refused_in_words(tmp_path, text, start):
    folder = write(tmp_path / "pipeline", {}, _configs(SD))
    (folder / "model_index.json").write_text(text, encoding="utf-8")
    code, message = run("--folder", str(folder))
    assert code == 2 and message.startswith(f"vramcalc: error: {start}") and message.count("\n") == 1, message


def test_a_missing_or_unreadable_file_is_refused_naming_it(tmp_path):
    _refused(tmp_path, model_index(SD), {k: v for k, v in _configs(SD).items() if k != "vae"},
             "vae/config.json: got 'missing'; the vae folder's config.json, beside model_index.json")
    code, message = run("--folder", str(tmp_path / "nowhere"))
    assert code == 2 and message.startswith("vramcalc: error: folder: got "), message
    assert "a diffusers folder: model_index.json and a folder per component" in message
    (tmp_path / "pipeline" / "unet" / "config.json").write_bytes(b"\xff\xfe{")
    code, message = run("--folder", str(tmp_path / "pipeline"))
    assert code == 2 and message.startswith("vramcalc: error: unet/config.json: got "), message
    assert "UTF-8 text" in message
    code, message = run("--folder", str(tmp_path / "pipeline"), "--pipeline", "sdxl")
    assert code == 2 and message.startswith("vramcalc: error: folder: got "), message


# ---------------------------------------------------------------- any value of any key: words, never a traceback

BASES = ("flux.1-dev", "sdxl", "wan2.2-ti2v-5b", "hunyuanvideo", "qwen-image", "ltx-video-0.9.7-dev",
         "hidream-i1-dev", "flux.2-klein-4b", "sd3.5-medium", "hunyuanvideo1.5-480p")
KEYS = sorted({(slug, part.role, key) for slug in BASES for part in PRESETS[slug].parts for key in part.config})
scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.integers(-2, 3)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=3), max_leaves=8)
CARD = gpu("h100-80gb")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(where=st.sampled_from(KEYS), value=values)
def test_every_config_key_takes_hostile_values(where, value):
    """Imported, then run as the command and the page run it (each placement, the blocks to swap, the time on a
    card, a LoRA step): a ValidationError or numbers, never another exception, within a second."""
    slug, role, key = where
    preset = PRESETS[slug]
    configs = {part.role: json.dumps({**part.config, key: value} if part.role == role else part.config)
               for part in preset.parts}
    started = time.monotonic()
    try:
        imported = import_pipeline(json.dumps(model_index(preset)), configs, "hostile")
    except ValidationError:
        return
    for placement in PLACEMENTS:
        request = Request(width=imported.width, height=imported.height, frames=imported.frames, batch=1,
                          cfg=imported.cfg, placement=placement,
                          precision="gguf-q4_0" if placement == "gpu" else "bf16",
                          text_precision="fp8", vae_precision="fp32", vae_tiling=256 if placement == "model" else 0)
        with contextlib.suppress(ValidationError):  # GGUF files of this denoiser, say
            run_ = evaluate(imported, request)
            assert all(stage.total_bytes >= 0 for stage in run_.stages)
            fewest_blocks_to_swap(run_, CARD.usable_bytes)
            speed_of(run_, CARD, imported.steps)
    with contextlib.suppress(ValidationError):
        train(imported, request, Training(rank=16, targets="all", base="bf16", adapters="bf16", optimizer="adamw",
                                          checkpointing=True, cached=True))
    assert time.monotonic() - started < 5.0
