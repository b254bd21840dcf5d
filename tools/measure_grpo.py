"""Measure the peak bytes of TRL's GRPO training step, phase by phase, for the golden tests.

A developer tool, not run by CI, built on tools/measure_preference.py (its tracker, tokenizer and the corrections
for TRL's fused LM head on the CPU) and tools/measure_reference.py (the small random-weight models). It runs TRL's
own `GRPOTrainer.training_step` (trl 1.16, `use_vllm=False`) on the CPU: prompts of random words of one length, a
reward of random numbers, `generation_kwargs={"min_new_tokens": C}` so that every completion is C tokens long (no
padding), then AdamW (foreach) `step()` and `zero_grad(set_to_none=True)`. Two steps; the phases of the second:

    generation  `_generate_single_turn`: transformers' `generate` with its cache over the generation batch
    score       the rewards and advantages, the generation batch's tensors
    reference   the reference's forward (no_grad, beta > 0), in chunks of per_device_train_batch_size
    forward     the policy's forward over prompt + completion, TRL's fused LM head on the completion tokens
    backward    `loss.backward()` to the moment the final norm's output has its gradient (the head's backward)
    layers      the rest of the backward
    optimizer   `step()`

beta > 0 without LoRA: TRL would load the reference from the Hub by the policy's name; the tool gives the trainer a
second model built the same way (in the policy's dtype, with TRL's fused head) instead. With LoRA (`peft_config`),
TRL disables the adapters for the reference forward.

num_iterations > 1, or steps_per_generation above gradient_accumulation_steps, reuse a generation batch over several
micro-steps: TRL then scores the old policy's log-probabilities in a no_grad forward after generating (measured as
`reference`, the phase of no_grad forwards), and the measured step is the next one that generates, the ones between
warming the optimizer. RLOO (`trl.RLOOTrainer`, trainer/rloo_trainer.py) runs that forward at every generation.

Usage: python tools/measure_grpo.py [--plan grpo|iterations] [--out FILE]
Needs: pip install torch==2.13.0 transformers peft trl==1.16.0 datasets
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_reference as M
import measure_peak as P
import measure_preference as D

import trl
from datasets import Dataset
from trl.trainer.utils import add_fused_lm_head
# isort: on

warnings.filterwarnings("ignore")
# Deep and with full-width K/V, LoRA and checkpointed, a generation batch of 8 micro-batches: the cache outweighs the
# fused head's tile, and generation is the step's peak (on the other small models the tile is)
M.FAMILIES["llama-deep"] = {**M.FAMILIES["llama-mha"], "num_hidden_layers": 16}


def _dataset(prompt, rows=64):
    """Prompts of `prompt` random words, each one token (the word-level tokenizer splits some, w10 … w29 among
    them, into two unknown tokens: those are left out, so that no prompt is padded)."""
    generator = torch.Generator().manual_seed(0)
    tokenizer = D._tokenizer()
    single = torch.tensor([i for i in range(3, M.VOCAB) if len(tokenizer.tokenize(f"w{i}")) == 1])

    def words(n):
        return " ".join(f"w{i}" for i in single[torch.randint(0, len(single), (n,), generator=generator)].tolist())
    return Dataset.from_list([{"prompt": words(prompt)} for _ in range(rows)])


def _reward(completions, **kwargs):
    return torch.rand(len(completions)).tolist()


def measure_grpo(family, attention, batch, generations, prompt, completion, beta, checkpointing="none", lora=None,
                 grad_accum=1, iterations=1, steps_per_generation=None, objective="grpo"):
    dtype = torch.bfloat16
    spg = steps_per_generation or grad_accum
    # TRL generates every spg × num_iterations micro-steps: the measured step is the first to generate again (its
    # optimizer state made by the steps before it, which reuse the generation batch)
    every, left = divmod(spg * iterations, grad_accum)
    assert not left, "the measured step would not start with a generation"
    measured = every + 1
    model, config = M.build(family, attention, dtype)
    peft_config = None
    if lora is not None:
        import measure_lora as L
        peft_config = L._lora_config(family, model, *lora, 0.0)[0]
    out = tempfile.mkdtemp(prefix="grpo-")
    Config, Trainer = (trl.GRPOConfig, trl.GRPOTrainer) if objective == "grpo" else (trl.RLOOConfig, trl.RLOOTrainer)
    args = Config(output_dir=out, num_iterations=iterations, steps_per_generation=steps_per_generation,
                  per_device_train_batch_size=batch, num_generations=generations, max_completion_length=completion,
                  beta=0.0 if lora is None else beta, use_cpu=True, bf16=False, fp16=False, report_to=[],
                  gradient_accumulation_steps=grad_accum, gradient_checkpointing=checkpointing == "layer",
                  gradient_checkpointing_kwargs={"use_reentrant": True},
                  generation_kwargs={"min_new_tokens": completion}, save_strategy="no", logging_strategy="no", seed=0)
    trainer = Trainer(model=model, reward_funcs=_reward, args=args, train_dataset=_dataset(prompt),
                      processing_class=D._tokenizer(), peft_config=peft_config)
    if beta and lora is None:  # the reference TRL would load by name, built here
        trainer.beta = beta
        trainer.ref_model = M.build(family, attention, dtype)[0].eval()
        add_fused_lm_head(trainer.ref_model, temperature=trainer.temperature)
    if checkpointing == "layer":
        trainer.model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": True})
    trainer.current_gradient_accumulation_steps = grad_accum
    policy = trainer.model
    params = list({id(p): p for p in policy.parameters() if p.requires_grad}.values())
    opt = P._optimizer("adamw", "foreach", params)
    loader = iter(trainer.get_train_dataloader())

    tracker = D.TRACKER = D.Tracker()
    models = [policy] + ([trainer.ref_model] if trainer.ref_model is not None else [])
    for m in models:
        tracker.track_all(m.parameters())
        tracker.track_all(m.buffers())
    step = ["0"]
    hooks = []
    for m in models:
        _, _, norm = D._final_norm(m)

        def after_norm(module, args, output):
            if torch.is_grad_enabled() and output.requires_grad:
                output.register_hook(lambda grad: tracker.switch(f"{step[0]}.layers"))
        hooks.append(norm.register_forward_hook(after_norm))
    generate, logps = trainer._generate_single_turn, trainer._get_per_token_logps_and_entropies

    def tracked_generate(*args, **kwargs):
        tracker.switch(f"{step[0]}.generation")
        try:
            return generate(*args, **kwargs)
        finally:
            tracker.switch(f"{step[0]}.score")

    def tracked_logps(*args, **kwargs):
        tracker.switch(f"{step[0]}.{'forward' if torch.is_grad_enabled() else 'reference'}")
        try:
            return logps(*args, **kwargs)
        finally:
            if not torch.is_grad_enabled():
                tracker.switch(f"{step[0]}.score")
    trainer._generate_single_turn, trainer._get_per_token_logps_and_entropies = tracked_generate, tracked_logps
    backward = trainer.accelerator.backward

    def tracked_backward(loss, **kwargs):
        tracker.switch(f"{step[0]}.backward")
        return backward(loss, **kwargs)
    trainer.accelerator.backward = tracked_backward
    sizes = []
    with tracker:
        for number in range(1, measured + 1):
            step[0] = "2" if number == measured else f"w{number}"  # second_step keeps the phases of "2."
            for micro in range(grad_accum):
                inputs = next(loader)
                with tracker.in_phase(f"{step[0]}.start" if micro == 0 else f"{step[0]}.micro{micro}"):
                    trainer.training_step(policy, inputs, None)
                generated = trainer._buffered_inputs[0]
                assert bool(generated["prompt_mask"].all()) and bool(generated["completion_mask"].all()), "padded"
                sizes.append((*generated["prompt_ids"].shape, generated["completion_ids"].shape[1]))
            with tracker.in_phase(f"{step[0]}.optimizer"):
                opt.step()
            with tracker.in_phase(f"{step[0]}.zero_grad"):
                opt.zero_grad(set_to_none=True)
    for hook in hooks:
        hook.remove()
    D.TRACKER = None
    assert all(size == (batch, prompt, completion) for size in sizes), sizes
    assert "2.generation" in tracker.phases
    return config, D.second_step(tracker, models, params)


def grpo_plan():
    """(family, attention, batch, generations, prompt, completion, beta, checkpointing, lora, grad_accum)."""
    cases = []
    for generations in (2, 4, 8):  # per_device_train_batch_size counts completions: the same bytes
        cases.append(("llama", "flash", 8, generations, 32, 96, 0.0, "none", None, 1))
    for family in ("llama", "qwen3"):
        cases.append((family, "flash", 4, 4, 32, 96, 0.04, "none", None, 1))
        cases.append((family, "flash", 4, 4, 32, 96, 0.0, "none", (8, "all-linear"), 1))
        cases.append((family, "flash", 4, 4, 32, 96, 0.04, "none", (8, "all-linear"), 1))
    cases.append(("llama", "flash", 4, 4, 32, 256, 0.0, "none", None, 1))
    cases.append(("llama", "flash", 4, 2, 64, 192, 0.04, "layer", None, 1))
    cases.append(("llama", "flash", 2, 4, 32, 96, 0.0, "none", None, 4))  # generation batch 8, steps of 2
    cases.append(("llama-1k", "flash", 8, 8, 128, 384, 0.04, "none", None, 1))
    cases.append(("llama-deep", "flash", 2, 4, 32, 96, 0.0, "layer", (8, "all-linear"), 8))
    return cases


def iterations_plan():
    """GRPO reusing its generations (num_iterations, steps_per_generation), and RLOO: (grpo_plan's fields,
    num_iterations, steps_per_generation, objective)."""
    return [
        ("llama", "flash", 4, 4, 32, 96, 0.0, "none", None, 1, 2, None, "grpo"),  # the old policy's forward alone
        ("llama", "flash", 4, 4, 32, 96, 0.04, "none", (8, "all-linear"), 2, 2, None, "grpo"),
        ("qwen3", "flash", 4, 4, 32, 96, 0.04, "none", None, 1, 2, None, "grpo"),
        ("llama", "flash", 2, 4, 32, 96, 0.0, "none", None, 1, 1, 4, "grpo"),  # a generation batch of 4 steps
        ("llama", "flash", 4, 2, 64, 192, 0.0, "layer", None, 1, 3, None, "grpo"),
        ("llama", "flash", 4, 4, 32, 96, 0.05, "none", None, 1, 1, None, "rloo"),  # TRL's beta: a reference copy
        ("llama", "flash", 4, 4, 32, 96, 0.05, "none", (8, "all-linear"), 1, 1, None, "rloo"),
        ("llama", "flash", 8, 2, 32, 96, 0.0, "none", None, 1, 1, None, "rloo"),
        ("qwen3", "flash", 4, 4, 32, 96, 0.05, "none", (8, "all-linear"), 2, 2, None, "rloo"),
    ]


def _entry(family, attention, batch, generations, prompt, completion, beta, checkpointing, lora, grad_accum,
           iterations=1, steps_per_generation=None, objective="grpo"):
    return {"objective": objective, "num_iterations": iterations, "steps_per_generation": steps_per_generation,
            **_first_entry(family, attention, batch, generations, prompt, completion, beta, checkpointing, lora,
                           grad_accum)}


def _first_entry(family, attention, batch, generations, prompt, completion, beta, checkpointing, lora, grad_accum):
    return {"family": family, "attention": attention, "recipe": "bf16", "batch": batch,
            "num_generations": generations, "prompt": prompt, "completion": completion, "beta": beta,
            "checkpointing": checkpointing, "grad_accum": grad_accum,
            "lora": {"rank": lora[0], "targets": lora[1]} if lora else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plan", choices=("grpo", "iterations"), default="grpo",
                        help="grpo: measured_grpo.json's cases; iterations: num_iterations, steps_per_generation, RLOO")
    parser.add_argument("--out", help="default: tests/golden/measured_grpo.json, or measured_grpo_iterations.json")
    parser.add_argument("--only", type=int, nargs="+", help="plan indices")
    args = parser.parse_args(argv)
    plan, entry = (grpo_plan(), _first_entry) if args.plan == "grpo" else (iterations_plan(), _entry)
    out = args.out or ("tests/golden/measured_grpo.json" if args.plan == "grpo"
                       else "tests/golden/measured_grpo_iterations.json")
    cases = [case for index, case in enumerate(plan) if not args.only or index in args.only]
    D.run_plan("tools/measure_grpo.py", "grpo", cases, measure_grpo, entry, out)

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
