"""Measure the peak bytes of TRL's KTO training step, phase by phase, for the golden tests.

A developer tool, not run by CI, built on tools/measure_preference.py (its tracker, tokenizer and the corrections
for TRL's fused LM head on the CPU) and tools/measure_reference.py (the small random-weight models). It runs TRL's
own `KTOTrainer.training_step` (trl 1.16, loss_type "kto") on the CPU: an unpaired data set of random words (a
prompt and a completion of one length each, half of them desirable), `DataCollatorForUnpairedPreference` adding each
batch's KL sequences (the completions cycled by one within the batch, so nothing is padded), then AdamW (foreach)
`step()` and `zero_grad(set_to_none=True)`. Two steps; the phases of the second:

    kl         the policy's forward over the KL sequences (no_grad), before its own
    forward    the policy's forward (backbone and chunked log-prob head)
    reference  the reference's forwards (no_grad) over the KL and the completion sequences, beside the policy's
               saved activations
    backward   `loss.backward()` to the moment the final norm's output has its gradient (the head's backward)
    layers     the rest of the backward
    optimizer  `step()`

The reference is `copy` (a second model in the policy's dtype, passed as `ref_model`), `adapters-off`
(`peft_config` given to the trainer and no `ref_model`: TRL disables the adapters; peft's fp32 adapters) or
`precomputed` (`precompute_ref_log_probs=True`: TRL runs the reference over the data set when the trainer is made;
the policy's KL forward stays in the step).

Usage: python tools/measure_kto.py [--out tests/golden/measured_kto.json]
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
import measure_preference as D  # its corrections of TRL's fused head on the CPU apply here too

import trl
from datasets import Dataset
# isort: on

warnings.filterwarnings("ignore")
PROMPT = 1  # prompt tokens of each example: the head scores the rest, as the engine counts (preference.py)


def _dataset(batch, seq, steps=2):
    """Examples of random single-token words (ids 3 … vocab−1), completions of seq − PROMPT tokens with the EOS TRL
    adds, desirable and undesirable in turn."""
    generator = torch.Generator().manual_seed(0)
    tokenizer = D._tokenizer()
    single = torch.tensor([i for i in range(3, M.VOCAB) if len(tokenizer.tokenize(f"w{i}")) == 1])

    def words(n):
        picks = single[torch.randint(0, len(single), (n,), generator=generator)]
        return " ".join(f"w{i}" for i in picks.tolist())
    rows = [{"prompt": words(PROMPT), "completion": " " + words(seq - PROMPT - 1), "label": i % 2 == 0}
            for i in range(steps * batch)]
    return Dataset.from_list(rows)


def measure_kto(family, attention, recipe, batch, seq, checkpointing="none", reference="copy", lora=None):
    dtype = torch.float32 if recipe == "fp32" else torch.bfloat16
    model, config = M.build(family, attention, dtype)
    peft_config = None
    if lora is not None:  # TRL wraps the model itself (peft's default fp32 adapters)
        import measure_lora as L
        peft_config = L._lora_config(family, model, *lora, 0.0)[0]
    ref_model = M.build(family, attention, dtype)[0] if reference == "copy" else None
    out = tempfile.mkdtemp(prefix="kto-")
    args = trl.KTOConfig(output_dir=out, per_device_train_batch_size=batch, max_length=seq, use_cpu=True,
                         bf16=False, fp16=False, report_to=[], gradient_checkpointing=checkpointing == "layer",
                         gradient_checkpointing_kwargs={"use_reentrant": True}, pad_to_multiple_of=None,
                         precompute_ref_log_probs=reference == "precomputed", dataset_num_proc=None,
                         save_strategy="no", logging_strategy="no")
    trainer = trl.KTOTrainer(model=model, ref_model=ref_model, args=args, train_dataset=_dataset(batch, seq),
                             processing_class=D._tokenizer(), peft_config=peft_config)
    if checkpointing == "layer":  # as `Trainer.train()` does before the first step
        trainer.model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": True})
    trainer.current_gradient_accumulation_steps = 1  # set by `train()`, which is not run
    policy = trainer.model
    params = list({id(p): p for p in policy.parameters() if p.requires_grad}.values())
    opt = P._optimizer("adamw", "foreach", params)
    batch_in = next(iter(trainer.get_train_dataloader()))
    for key in ("input_ids", "KL_input_ids"):
        assert batch_in[key].shape == (batch, seq), (key, batch_in[key].shape)
    assert bool(batch_in["attention_mask"].all()) and bool(batch_in["KL_attention_mask"].all()), "padded"

    tracker = D.TRACKER = D.Tracker()
    models = [policy] + ([trainer.ref_model] if trainer.ref_model is not None else [])
    for m in models:
        tracker.track_all(m.parameters())
        tracker.track_all(m.buffers())
    tracker.track_all(v for v in batch_in.values() if isinstance(v, torch.Tensor))
    step = [0]
    state = {"forward": False}
    hooks = []
    for m in models:
        _, backbone, norm = D._final_norm(m)

        def before(module, args, kwargs):
            if torch.is_grad_enabled():
                state["forward"] = True
                tracker.switch(f"{step[0]}.forward")
            else:
                tracker.switch(f"{step[0]}.{'reference' if state['forward'] else 'kl'}")

        def after_norm(module, args, output):
            if torch.is_grad_enabled() and output.requires_grad:
                output.register_hook(lambda grad: tracker.switch(f"{step[0]}.layers"))
        hooks += [backbone.register_forward_pre_hook(before, with_kwargs=True),
                  norm.register_forward_hook(after_norm)]
    backward = trainer.accelerator.backward

    def tracked_backward(loss, **kwargs):
        tracker.switch(f"{step[0]}.backward")
        return backward(loss, **kwargs)
    trainer.accelerator.backward = tracked_backward
    with tracker:
        for step[0] in (1, 2):
            state["forward"] = False
            with tracker.in_phase(f"{step[0]}.start"):
                trainer.training_step(policy, dict(batch_in))
            with tracker.in_phase(f"{step[0]}.optimizer"):
                opt.step()
            with tracker.in_phase(f"{step[0]}.zero_grad"):
                opt.zero_grad(set_to_none=True)
    for hook in hooks:
        hook.remove()
    D.TRACKER = None
    return config, D.second_step(tracker, models, params)


def kto_plan():
    """(family, attention, recipe, batch, seq, checkpointing, reference, lora)."""
    cases = []
    for family in ("llama", "qwen3"):
        attention = M._any_attention(family)
        for checkpointing in ("none", "layer"):
            for reference in ("copy", "precomputed"):
                cases.append((family, attention, "bf16", 4, 128, checkpointing, reference, None))
            for reference in ("adapters-off", "copy", "precomputed"):
                cases.append((family, attention, "bf16", 4, 128, checkpointing, reference, (8, "all-linear")))
    cases.append(("llama", "flash", "fp32", 2, 256, "none", "copy", None))
    cases.append(("llama", "flash", "bf16", 8, 64, "none", "adapters-off", (64, "qv")))
    cases.append(("llama-1k", "flash", "bf16", 8, 1024, "none", "copy", None))
    cases.append(("llama-1k", "flash", "bf16", 8, 1024, "none", "precomputed", None))
    return cases


def _entry(family, attention, recipe, batch, seq, checkpointing, reference, lora):
    return {"family": family, "attention": attention, "recipe": recipe, "batch": batch, "seq": seq,
            "checkpointing": checkpointing, "reference": reference,
            "lora": {"rank": lora[0], "targets": lora[1]} if lora else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_kto.json")
    parser.add_argument("--families", nargs="+")
    args = parser.parse_args(argv)
    cases = [case for case in kto_plan() if not args.families or case[0] in args.families]
    D.run_plan("tools/measure_kto.py", "kto", cases, measure_kto, _entry, args.out)

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
