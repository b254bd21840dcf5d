"""Fine-tuning frameworks as a setting: each one's defaults, applied to the settings left at theirs.

A small table, read from each framework's source; an explicit setting (one that differs from the form's default, or
one the command line was given) wins. The mechanics a default turns on are the engine's own knobs (activation_offload,
optimizer_in_backward, fused_ce, checkpointing); Unsloth's checkpointing is its offloaded one (training/offload.py).

trainer     Hugging Face Trainer/TRL with peft: the form's defaults, the engine's model as measured.
unsloth     unslothai/unsloth at 015bdef: FastLanguageModel.from_pretrained(load_in_4bit=True) loads the base in NF4
            (under LoRA: QLoRA); get_peft_model(use_gradient_checkpointing="unsloth") checkpoints every layer with
            its inputs offloaded (unsloth_zoo gradient_checkpointing.py); the adapters in float32, the form's
            default (unsloth_zoo training_utils.py `prepare_model_for_training` upcasts lora_A and lora_B
            whatever the model's dtype, as unsloth/models/_utils.py did in 2024: "Also must be in float32!");
            its causal-LM forward computes the loss chunked without whole logits (unsloth_zoo loss_utils
            `unsloth_fused_ce_loss`).
torchtune   torchtune 0.6.1 (its last release, 2025-04, what pip installs), recipes/configs/llama3_2/
            3B_full_single_device.yaml and 3B_lora_single_device.yaml: dtype bf16 (weights, gradients and state in
            bf16), activation checkpointing on, `CEWithChunkedOutputLoss` (the head's logits in 8 chunks, the loss
            upcasting one at a time: ce_output_chunks), and for full fine-tuning on one GPU without gradient
            accumulation optimizer_in_bwd (its distributed recipe's configs, 3B_full.yaml, leave it off, and the
            recipes refuse it with gradient_accumulation_steps above 1); activation
            offloading and compile off (`compile`, its own setting). Its main branch (bd2a0fc, unreleased) has the
            same defaults with `LinearCrossEntropyLoss`, a fused head: fused_ce.
litgpt      Lightning-AI/litgpt finetune/lora.py and full.py: precision bf16-true (pure bf16), `chunked_cross_entropy`
            (the loss over chunks of 128 positions), LoRA on query and value with dropout 0.05 in the model's
            dtype (lora_head False, finetune/lora.py's default; its config hub turns it on for Gemma, Phi and
            TinyLlama: `lora_targets` all-linear,head); no activation checkpointing.
axolotl     runs the Trainer (with peft): its YAML options are the form's, so its defaults are the trainer's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..core.choices import Framework

# (key, value, when): when is "any", "lora" (lora_rank > 0), "full" (lora_rank 0) or "single" (full, one GPU, no
# gradient accumulation: torchtune's single-device full recipe)
DEFAULTS: dict[Framework, tuple[tuple[str, str, str], ...]] = {
    Framework.TRAINER: (),
    Framework.UNSLOTH: (("precision", "nf4", "lora"), ("checkpointing", "layer", "any"), ("fused_ce", "1", "any")),
    Framework.TORCHTUNE: (("recipe", "bf16", "any"), ("precision", "bf16", "any"), ("checkpointing", "layer", "any"),
                          ("ce_output_chunks", "8", "any"), ("optimizer_in_backward", "1", "single"),
                          ("lora_dtype", "bf16", "lora")),
    Framework.LITGPT: (("recipe", "bf16", "any"), ("precision", "bf16", "any"), ("fused_ce", "1", "any"),
                       ("lora_targets", "q,v", "lora"), ("lora_dropout", "0.05", "lora"),
                       ("lora_dtype", "bf16", "lora")),
    Framework.AXOLOTL: (),
}


# TRL's DPO and GRPO trainers score with their own chunked head and step after the backward: these defaults are
# for supervised steps only (Unsloth's DPO and GRPO run TRL's trainers, patched)
SUPERVISED_ONLY = frozenset({"fused_ce", "ce_output_chunks", "optimizer_in_backward", "activation_offload"})
# one loss at a time: a default is left out when you set the other (torchtune's main branch: fused_ce)
EXCLUDES = {"ce_output_chunks": "fused_ce", "fused_ce": "ce_output_chunks"}
# the settings some framework's defaults set: a link carries one at the form's default when the user set it there
FRAMEWORK_KEYS = frozenset(key for settings in DEFAULTS.values() for key, _, _ in settings)


def with_framework(values: Mapping[str, str], defaults: Mapping[str, str],
                   given: Collection[str] = ()) -> tuple[dict[str, str], tuple[str, ...]]:
    """The values with the framework's defaults for the settings left at the form's, and the keys it set; `given`:
    the keys set on purpose even where they equal the form's default (the command line's flags)."""
    try:
        framework = Framework(values.get("framework", defaults["framework"]))
    except ValueError:
        return dict(values), ()  # the framework's own parser reports it
    if values.get("mode", defaults["mode"]) != "training":
        return dict(values), ()
    lora = values.get("lora_rank", defaults["lora_rank"]).strip() not in ("", "0")
    supervised = values.get("objective", defaults["objective"]) in ("", "sft")
    # mixed precision keeps an fp32 master copy the optimizer in the backward is not modelled with (parse.py):
    # asked for, it leaves torchtune's single-device default off, as several GPUs or accumulation do
    mixed = values.get("recipe", defaults["recipe"]).strip().lower() == "mixed" or values.get(
        "mixed_precision", defaults["mixed_precision"]) in ("1", "true", "on")
    single = not lora and not mixed and all(
        values.get(key, defaults[key]).strip() in ("", "1") for key in ("gpus", "grad_accum"))
    out, changed = dict(values), []
    for key, value, when in DEFAULTS[framework]:
        if ((when == "lora" and not lora) or (when == "full" and lora) or (when == "single" and not single)
                or (key in SUPERVISED_ONLY and not supervised)):
            continue
        other = EXCLUDES.get(key)
        if other is not None and (values.get(other, defaults[other]) != defaults[other] or other in given):
            continue
        if key not in given and values.get(key, defaults[key]) == defaults[key] and value != defaults[key]:
            out[key] = value
            changed.append(key)
    return out, tuple(changed)
