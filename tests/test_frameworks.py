"""Fine-tuning frameworks as a setting (training/frameworks.py): their defaults fill the settings left at the
form's, explicit settings win, and torchtune's recipes land on its published memory table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Checkpointing, Framework
from vramcalc.core.dtypes import Precision
from vramcalc.core.units import GIB
from vramcalc.render.messages import ENGLISH

TRAINING = {"mode": "training", "model": "llama-3.2-1b", "batch": "2", "seq": "2048"}


@pytest.mark.parametrize("extra", [{}, {"lora_rank": "16"}, {"checkpointing": "layer", "fused_ce": "1"}])
def test_the_trainer_is_todays_model_exactly(extra):
    plain = parse_workload({**TRAINING, **extra})
    assert parse_workload({**TRAINING, **extra, "framework": "trainer"}) == plain
    assert parse_workload({**TRAINING, **extra, "framework": "axolotl"}).but(framework=Framework.TRAINER) == plain


def test_a_frameworks_defaults_fill_what_is_left_and_what_is_set_wins():
    unsloth = parse_workload({**TRAINING, "framework": "unsloth", "lora_rank": "16"})
    assert unsloth.checkpointing is Checkpointing.LAYER and unsloth.fused_ce and unsloth.precision.value == "nf4"
    assert unsloth.framework_set == ("precision", "checkpointing", "fused_ce")
    # Unsloth upcasts the adapters to float32 whatever the model's dtype (unsloth_zoo prepare_model_for_training)
    assert unsloth.lora_dtype is Precision.FP32
    mine = parse_workload({**TRAINING, "framework": "unsloth", "lora_rank": "16", "checkpointing": "sqrt",
                           "precision": "bf16"})
    assert mine.checkpointing is Checkpointing.SQRT and mine.precision.value == "bf16"
    full = parse_workload({**TRAINING, "framework": "unsloth"})
    assert full.precision.value != "nf4"  # 4-bit loading is QLoRA: only under LoRA


def test_the_notes_say_what_the_framework_set():
    notes = [ENGLISH.say(n) for n in estimate(parse_workload({**TRAINING, "framework": "torchtune"})).notes]
    assert any("torchtune's defaults set" in n and "optimizer_in_backward" in n for n in notes)
    assert any("torch.compile" in n for n in notes)


def test_unsloth_offloads_its_checkpointed_inputs_from_512_tokens():
    short = estimate(parse_workload({**TRAINING, "framework": "unsloth", "seq": "256"}))
    long = estimate(parse_workload({**TRAINING, "framework": "unsloth"}))
    assert short.host_bytes == 0 and long.host_bytes > 0


# torchtune's README "Optimization flags" table (tests/data/speed/torchtune_readme_memory_speed.json, README at
# bd2a0fc): Llama 3.2 3B, full_finetune_single_device, batch 2, packed to 4096, bf16, one A100, peak *active* memory
# (no CUDA context: overhead 0); each technique on top of the previous one, so torch.compile from its row on. LoRA
# and QLoRA rows: the rank and targets of the same commit's recipes/configs/llama3_2/3B_lora_single_device.yaml
# (rank 64; q, v, output_proj and the MLP), on top of the rows before.
ROWS = {row["technique"]: row for row in json.loads(
    (Path(__file__).parent / "data" / "speed" / "torchtune_readme_memory_speed.json").read_text(encoding="utf-8")
)["rows"] if "technique" in row}
BASE = {"mode": "training", "model": "llama-3.2-3b", "batch": "2", "seq": "4096", "overhead_gib": "0",
        "optimizer_impl": "fused"}
PLAIN = {**BASE, "precision": "bf16", "recipe": "bf16"}
COMPILED = {**PLAIN, "compile": "1"}
TORCHTUNE = {**BASE, "framework": "torchtune", "compile": "1"}
LORA = {**TORCHTUNE, "activation_offload": "1", "lora_rank": "64", "lora_targets": "q,v,o,gate,up,down"}
SETUPS = {
    "+ Packed Dataset": (PLAIN, ""),
    "+ Compile": (COMPILED, ""),
    "+ Chunked Cross Entropy": ({**COMPILED, "ce_output_chunks": "8"}, ""),
    "+ Activation Checkpointing": ({**COMPILED, "ce_output_chunks": "8", "checkpointing": "layer"}, ""),
    "+ Fuse optimizer step into backward": (TORCHTUNE, ""),
    "+ Activation Offloading": ({**TORCHTUNE, "activation_offload": "1"}, ""),
    "+ 8-bit AdamW": ({**TORCHTUNE, "activation_offload": "1", "optimizer": "adamw-8bit", "optimizer_impl": ""},
                      ("the table names no class ('AdamW8bit'). bitsandbytes' AdamW8bit: state exact "
                       "(measured_bnb_state.json), update allocates nothing: 14.45 GiB, 18 % under. Its PagedAdamW8bit "
                       "(the 3B config's default) pages 5.98 GiB the active-bytes counter does not see: 52 % "
                       "under. torchao's AdamW8bit keeps two fp32 copies of the tied embedding in its update (CPU): "
                       "about 15.9, 10 % under (docs/accuracy.md)")),
    "LoRA": (LORA, ""),
    # torchtune's QLoRA quantises with torchao's NF4Tensor: 4-bit codes, an int8 scaler per 64 and an fp32 factor per
    # 256 scalers, the layout of bitsandbytes' nf4-dq
    "QLoRA": ({**LORA, "precision": "nf4-dq"}, ""),
}


def _rows():
    for technique, (values, gap) in SETUPS.items():
        yield pytest.param(technique, values, id=technique,
                           marks=pytest.mark.xfail(strict=True, reason=gap) if gap else ())


@pytest.mark.parametrize(("technique", "values"), _rows())
def test_torchtunes_published_table(technique, values):
    published = ROWS[technique]["peak_memory_active_gib"] * GIB
    assert estimate(parse_workload(values)).total_bytes == pytest.approx(published, rel=0.10)


@pytest.mark.parametrize("objective", ["dpo", "kto", "orpo", "grpo"])
def test_preference_and_rl_runs_take_only_the_defaults_trls_trainers_accept(objective):
    """Unsloth runs TRL's DPO and GRPO trainers: its loading, checkpointing and adapter dtype apply, not the
    supervised-only chunked loss, which made a run no one set fail on fused_ce. torchtune's and litgpt's own DPO
    and GRPO recipes are not modelled: refused naming the framework."""
    from vramcalc.core.errors import ValidationError

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": objective, "seq": "1024",
              "batch": "8", "gpu": "rtx-4090", "framework": "unsloth"}
    run = parse_workload(values)
    assert run.precision.value == "nf4" and run.checkpointing is Checkpointing.LAYER and not run.fused_ce
    for framework in ("torchtune", "litgpt"):
        with pytest.raises(ValidationError) as error:
            parse_workload({**values, "framework": framework})
        assert error.value.field == "framework"


def _cli_json(*args: str) -> dict:
    import contextlib
    import io

    from vramcalc.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--json"]) == 0
    return json.loads(out.getvalue())


CLI = ("--model", "qwen3-0.6b", "--mode", "training", "--batch", "2", "--seq", "1024", "--gpu", "h100-80gb")


@pytest.mark.parametrize(("mine", "as_written"), [
    (("--framework", "unsloth", "--checkpointing", "none"), ("--fused-ce", "--checkpointing", "none")),
    (("--framework", "litgpt", "--lora-rank", "8", "--lora-dropout", "0"),
     ("--recipe", "bf16", "--precision", "bf16", "--fused-ce", "--lora-rank", "8", "--lora-targets", "q,v",
      "--lora-dtype", "bf16")),
    (("--framework", "litgpt", "--lora-rank", "8", "--lora-targets", "all-linear"),
     ("--recipe", "bf16", "--precision", "bf16", "--fused-ce", "--lora-rank", "8", "--lora-dropout", "0.05",
      "--lora-dtype", "bf16")),
    (("--framework", "torchtune", "--lora-rank", "8", "--ce-output-chunks", "0"),
     ("--recipe", "bf16", "--precision", "bf16", "--checkpointing", "layer", "--lora-rank", "8",
      "--lora-dtype", "bf16")),
], ids=["unsloth-no-checkpointing", "litgpt-no-dropout", "litgpt-all-linear", "torchtune-whole-logits"])
def test_a_flag_given_the_forms_default_wins_over_the_frameworks(mine, as_written):
    """Before: a flag set to the form's own default (--checkpointing none) read as not set, and the framework's
    default replaced it, though the note said "a setting you change wins"."""
    chosen, written = _cli_json(*CLI, *mine), _cli_json(*CLI, *as_written)
    assert chosen["total_bytes"] == written["total_bytes"]
    assert chosen["components"] == written["components"]


def test_unsloths_offloading_note_goes_with_its_checkpointing():
    from vramcalc.analysis.evaluate import framework_notes

    for checkpointing, said in (("layer", True), ("none", False), ("sqrt", False)):
        workload = parse_workload({**TRAINING, "framework": "unsloth", "checkpointing": checkpointing},
                                  given={"checkpointing"})
        keys = [note.key for note in framework_notes(workload)]
        assert ("note.framework.unsloth" in keys) is said, checkpointing


@pytest.mark.parametrize("extra", [("--gpus", "2"), ("--grad-accum", "4"), ("--recipe", "mixed")])
def test_torchtunes_step_in_the_backward_is_its_single_device_default_only(extra):
    """torchtune's optimizer_in_bwd is its single-device full recipe's (3B_full_single_device.yaml); its distributed
    recipe's configs leave it off, and it refuses gradient accumulation. Before: --framework torchtune --gpus 2 (or
    --grad-accum 4, or --recipe mixed: an fp32 master copy it is not modelled with) was refused for an
    optimizer_in_backward the user never set and no flag turns off."""
    data = _cli_json(*CLI, "--framework", "torchtune", *extra)
    assert data["total_bytes"] > 0


def test_torchtunes_fewest_gpus_are_its_distributed_recipes():
    """Before: `fit` answered "none fits" for torchtune's full fine-tuning, every several-GPU layout refused
    under the single-device default; the fewest GPUs are now those of its distributed recipe, which this fits."""
    fit = _cli_json("fit", "--model", "llama-3.1-8b", "--mode", "training", "--framework", "torchtune",
                    "--gpu", "rtx-4090")
    fewest = fit["min_gpus"]
    assert isinstance(fewest, int) and fewest > 1
    several = _cli_json("--model", "llama-3.1-8b", "--mode", "training", "--framework", "torchtune", "--gpu",
                        "rtx-4090", "--gpus", str(fewest))
    assert {row["name"]: row["count"] for row in several["gpus"]}["RTX 4090"] == fewest


def test_the_frameworks_note_says_the_values_it_set():
    """Before: torchtune's note said 'ce_output_chunks = 1' for the 8 chunks it set (every key the note did not
    list was shown as 1, a flag's on)."""
    from vramcalc.analysis.evaluate import framework_notes

    workload = parse_workload({**TRAINING, "framework": "torchtune"})
    assert workload.ce_output_chunks == 8
    said = ENGLISH.say(framework_notes(workload)[0])
    assert "ce_output_chunks = 8" in said and "optimizer_in_backward = 1" in said, said


@pytest.mark.parametrize(("lora", "named"), [("0", "checkpointing layer"),
                                             ("16", "checkpointing layer, precision nf4")])
def test_ppo_refuses_unsloths_defaults_naming_the_framework(lora, named):
    """TRL's PPOTrainer never checkpoints and its value model is loaded as the policy (16- or 32-bit): Unsloth's
    defaults (checkpointing, QLoRA's nf4) were refused naming checkpointing, then precision, fields the user never
    set; the refusal names the framework and what to set, and the settings given win."""
    from vramcalc.core.errors import ValidationError

    values = {"model": "qwen3-0.6b", "mode": "training", "objective": "ppo", "framework": "unsloth", "batch": "8",
              "seq": "1024", "lora_rank": lora}
    with pytest.raises(ValidationError) as error:
        parse_workload(values)
    assert error.value.field == "framework" and f"its defaults ({named})" in str(error.value)
    mine = parse_workload({**values, "checkpointing": "none", "precision": "bf16"},
                          given={"checkpointing", "precision"})
    assert mine.checkpointing is Checkpointing.NONE and mine.precision.value == "bf16"
    with pytest.raises(ValidationError) as error:  # set by the user: named as before
        parse_workload({**values, "framework": "trainer", "checkpointing": "layer"})
    assert error.value.field == "checkpointing"


def test_a_framework_setting_set_at_the_forms_default_wins_in_a_link_and_the_page():
    """Unsloth's defaults turn on per-layer checkpointing; a user who sets it back to none (the form's default)
    wins, as a command-line flag does: the page passes the fields it saw edited (`given`), and the link carries
    such a setting at the form's default so that it opens the same (before, it opened with Unsloth's)."""
    from vramcalc.inputs.link import decode, encode
    from vramcalc.inputs.options import DEFAULTS
    from vramcalc.inputs.parse import parse_link

    form = {**DEFAULTS, "mode": "training", "framework": "unsloth", "lora_rank": "16", "checkpointing": "none"}
    assert parse_workload(form).checkpointing is Checkpointing.LAYER  # nothing given: the framework's default
    assert parse_workload(form, given={"checkpointing"}).checkpointing is Checkpointing.NONE
    link = encode(form, {"checkpointing"})
    assert "checkpointing=none" in link and "checkpointing" not in encode(form)
    assert "checkpointing" not in encode({**form, "framework": "trainer"}, {"checkpointing"})  # no default to beat
    opened = decode(link)
    assert opened.values["checkpointing"] == "none" and opened.given == {"checkpointing"}
    workload, *_, problems = parse_link(opened.values, given=opened.given)
    assert workload.checkpointing is Checkpointing.NONE and not problems
    # PPO under Unsloth needs checkpointing off and 16-bit weights: a link saying so keeps the framework
    ppo = decode("mode=training&framework=unsloth&lora_rank=16&objective=ppo&checkpointing=none&precision=bf16")
    assert ppo.values["framework"] == "unsloth" and not ppo.notices
