"""The page's family switch (issue 27): `family=diffusion` computes an image or video pipeline with the diffusion
engine (diffusion/), from link keys spelled as `vramcalc diffusion`'s flags; a link without it is a language model."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.command import as_json, diffusion_main
from vramcalc.diffusion.pipelines import load_pipelines
from vramcalc.diffusion.run import evaluate
from vramcalc.inputs.link import decode, encode
from vramcalc.inputs.options import DEFAULTS, DIFFUSION_PARSERS, OPTION
from vramcalc.inputs.parse import parse_diffusion
from vramcalc.render.diffusion import present_diffusion
from vramcalc.render.i18n.en import EN
from vramcalc.render.i18n.pt import PT
from vramcalc.render.messages import ENGLISH, Words
from vramcalc.sources.gpus import table_gpus

WAN = {"family": "diffusion", "pipeline": "wan2.1-t2v-14b", "denoiser_precision": "gguf-q8_0", "text_precision": "fp8",
       "vae_precision": "fp32", "placement": "model", "width": "1280", "height": "720", "frames": "49",
       "per_prompt": "2", "cfg": "off"}


def test_a_link_without_family_is_a_language_model():
    assert DEFAULTS["family"] == "language"
    assert decode("model=mistral-7b").values == {"model": "mistral-7b"}
    # the pipeline's keys count with family=diffusion only, as a hidden field's value does
    assert decode("model=mistral-7b&pipeline=sdxl&width=768").values == {"model": "mistral-7b"}
    assert encode({**DEFAULTS, "pipeline": "sdxl"}) == ""


def test_a_diffusion_link_round_trips():
    query = encode({**DEFAULTS, **WAN})
    assert "family=diffusion" in query and "denoiser_precision=gguf-q8_0" in query
    decoded = decode(query)
    assert decoded.notices == ()
    assert decoded.values == WAN


def test_the_defaults_are_the_command_lines():
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert diffusion_main(["--json"]) == 0
    assert json.loads(printed.getvalue()) == as_json(evaluate(*parse_diffusion(DEFAULTS)))
    assert OPTION["pipeline"].choices == tuple(load_pipelines())


def test_empty_sizes_are_the_pipelines_own():
    chosen, request = parse_diffusion({**DEFAULTS, "pipeline": "wan2.1-t2v-1.3b"})
    assert (request.width, request.height, request.frames, request.cfg) == (
        chosen.width, chosen.height, chosen.frames, chosen.cfg)
    _, request = parse_diffusion({**DEFAULTS, "pipeline": "sdxl", "width": "768", "cfg": "off"})
    assert (request.width, request.height, request.cfg) == (768, 1024, False)


@pytest.mark.parametrize(("query", "refused"), [
    ("pipeline=sdxl&width=1000", {"width"}),  # not a multiple of 16
    ("pipeline=sdxl&frames=5", {"frames"}),  # an image pipeline makes one frame
    ("pipeline=wan2.1-t2v-1.3b&frames=50&height=20", {"frames", "height"}),
    ("pipeline=nonsense&per_prompt=0&cfg=maybe", {"pipeline", "per_prompt", "cfg"}),
    ("denoiser_precision=q4_k_m&text_precision=gguf-q4_0&placement=disk", {"denoiser_precision", "text_precision",
                                                                           "placement"}),
])
def test_a_bad_value_is_named_and_dropped(query, refused):
    decoded = decode("family=diffusion&" + query)
    named = {notice.values[0][1].field for notice in decoded.notices}
    assert named == refused
    assert not refused & set(decoded.values)
    parse_diffusion({**DEFAULTS, **decoded.values})  # what is left is valid
    with pytest.raises(ValidationError) as raised:
        parse_diffusion({**DEFAULTS, **dict(pair.split("=") for pair in query.split("&"))})
    assert raised.value.field in refused  # strict: the first bad key, by its name


def test_the_view_is_the_runs_peak_parts_and_stages():
    run = evaluate(*parse_diffusion({**DEFAULTS, **WAN}))
    for words in (ENGLISH, Words("pt")):
        view = present_diffusion(run, words=words)
        assert view.total_bytes == run.peak.total_bytes == max(stage.total_bytes for stage in run.stages)
        assert len(view.rows) == len(run.weights) + len(run.stages)
        assert [words.binary(w.bytes) for w in run.weights] == [row[1] for row in view.rows[:len(run.weights)]]
        assert [w.part.class_name in row[0] for w, row in zip(run.weights, view.rows, strict=False)] == [True] * 3
        assert sum(words.message("diffusion.peak", stage="")[-5:] in row[0] for row in view.rows) == 1
        assert [gpu.slug for gpu in view.gpus] == list(table_gpus())
        for gpu, spec in zip(view.gpus, table_gpus().values(), strict=True):
            assert (gpu.count == "1") == (run.peak.total_bytes <= spec.usable_bytes)


def test_a_unet_pipeline_is_no_longer_a_lower_bound():
    run = evaluate(*parse_diffusion({**DEFAULTS, "family": "diffusion", "pipeline": "sdxl"}))
    assert run.complete and run.stages[-2].working_bytes
    assert "not modelled" not in " ".join(present_diffusion(run).notes)


def test_every_key_has_its_words_and_its_field_in_both_pages(site_dir):
    for key in ("family", *DIFFUSION_PARSERS):
        for table in (EN, PT):
            assert table[f"field.{key}.label"] and table[f"field.{key}.help"], key
    for page in ("index.html", "pt/index.html"):
        html = (site_dir / page).read_text(encoding="utf-8")
        assert [key for key in DEFAULTS if f'id="{key}"' not in html] == [], page
        for slug, pipeline in load_pipelines().items():
            assert f'<option value="{slug}"' in html and pipeline.display_name in html
        assert 'id="diffusion-fields" hidden' in html and 'id="diffusion-results" hidden' in html


def test_a_pipeline_gets_the_answer_first_on_the_forms_card():
    from vramcalc.analysis.fit import TIGHT_RATIO
    from vramcalc.diffusion.run import evaluate, fewest_blocks_to_swap, single_fixes
    from vramcalc.inputs.parse import parse_diffusion, parse_target
    from vramcalc.render.diffusion import fix_text, pipeline_verdict, present_diffusion
    from vramcalc.render.messages import ENGLISH, Words

    run = evaluate(*parse_diffusion({**DEFAULTS, "family": "diffusion", "pipeline": "flux.1-dev"}))
    peak = run.peak.total_bytes
    for gpu in ("rtx-3060", "rtx-4090", "h100-sxm"):
        card = parse_target({"gpu": gpu}).gpu
        used = peak / card.usable_bytes
        verdict = pipeline_verdict(run, card)
        kind = "does not fit" if used > 1 else "fits" if used <= TIGHT_RATIO else "tight"
        assert verdict.kind == kind and card.display_name in verdict.text
        swap = fewest_blocks_to_swap(run, card.usable_bytes)  # after the single settings: FLUX.1's 19 + 38 blocks
        fixes = tuple(fix_text(fix) for fix in single_fixes(run, card.usable_bytes))
        assert verdict.changes == (() if used <= 1 else fixes + (
            () if swap is None else (ENGLISH.message("diffusion.change.swap", blocks=swap, total=57),)))
        assert present_diffusion(run, gpu=card).verdict == verdict
        assert card.display_name in pipeline_verdict(run, card, words=Words("pt")).text
    assert present_diffusion(run).verdict is None
    sdxl = evaluate(*parse_diffusion({**DEFAULTS, "family": "diffusion", "pipeline": "sdxl"}))
    assert not pipeline_verdict(sdxl, parse_target({"gpu": "h100-sxm"}).gpu).text.endswith(
        ENGLISH.message("verdict.at_least"))  # every stage of it is modelled now
