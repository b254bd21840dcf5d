"""Measure the peak bytes of TRL's DPO training step, phase by phase, for the golden tests.

A developer tool, not run by CI, built on tools/measure_peak.py (its `PeakTracker`: every storage an
ATen op makes, counted until it is freed) and tools/measure_reference.py (the small random-weight
models). It runs TRL's own `DPOTrainer.training_step` (trl 1.16) on the CPU: a word-level tokenizer
over the model's vocabulary, a preference data set of random words whose chosen and rejected
answers have the same length (so the collator pads nothing), `DataCollatorForPreference`
concatenating them into one batch of 2 × pairs sequences, the policy forward with TRL's fused LM
head, the reference forward, `loss.backward()`, then AdamW (foreach) `step()` and
`zero_grad(set_to_none=True)`. Two steps; the phases of the second:

    forward    the policy's forward (backbone and chunked log-prob head)
    reference  the reference model's forward (no_grad) beside the policy's saved activations
    backward   `loss.backward()` to the moment the final norm's output has its gradient (the head's backward)
    layers     the rest of the backward
    optimizer  `step()`

The reference is `copy` (a second model in the policy's dtype, passed as `ref_model`), `adapters-off`
(`peft_config` given to the trainer and no `ref_model`: TRL disables the adapters; peft's fp32 adapters) or
`precomputed` (`precompute_ref_log_probs=True`: TRL runs the reference over the data set when the trainer is made).

Two CPU-versus-GPU differences are corrected, as the dropout mask is in measure_reference.py: TRL's
fused head (trl/kernels/chunked_logprob.py) folds each logits tile in a Triton kernel on a GPU and in
torch ops on the CPU (`_forward_tile`, `_backward_tile`, fp32 copies of the tile), and accumulates its
gradients with `addmm(out_dtype=float32)` on CUDA where the CPU makes fp32 copies of both inputs
(`_addmm_fp32`); the storages those three functions make and free are not counted (the Triton
kernels keep them in registers). And TRL scores only the completion tokens where Triton runs (`compact`
in trl/trainer/utils.py `add_fused_lm_head`): the tool makes it do so on the CPU as well.

Usage: python tools/measure_preference.py [--out tests/golden/measured_preference.json]
Needs: pip install torch==2.13.0 transformers peft trl==1.16.0 datasets
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_reference as M
import measure_peak as P

import trl
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from trl.kernels import chunked_logprob
from trl.trainer import utils as trl_utils
# isort: on

warnings.filterwarnings("ignore")
# Wider, on 16,384 tokens, so that the reference's layers outweigh its head's 32,768-wide tile (the small models'
# do not): hidden 1,024 and MLP 2,816, Llama's proportions
M.FAMILIES["llama-1k"] = {**M.FAMILIES["llama"], "hidden_size": 1024, "intermediate_size": 2816}
PROMPT = 1  # prompt tokens of each pair: the head scores the rest, as the engine counts (preference.py)


class Tracker(P.PeakTracker):
    """The peak tracker, which can be told to leave out what a function makes and frees (`untracked`)."""

    paused = False

    def track(self, tensor):
        if not self.paused:
            super().track(tensor)


TRACKER: Tracker | None = None


def _untracked(function):
    def run(*args, **kwargs):
        if TRACKER is None or TRACKER.paused:
            return function(*args, **kwargs)
        TRACKER.paused = True
        try:
            return function(*args, **kwargs)
        finally:
            TRACKER.paused = False
    return run


# The Triton kernels' work, in registers on a GPU: the tiles are written in place into counted buffers.
chunked_logprob._forward_tile = _untracked(chunked_logprob._forward_tile)
chunked_logprob._backward_tile = _untracked(chunked_logprob._backward_tile)
chunked_logprob._addmm_fp32 = _untracked(chunked_logprob._addmm_fp32)
trl_utils._use_triton = lambda device: True  # score only the completion tokens, as on a GPU


def _tokenizer():
    vocab = {f"w{i}": i for i in range(M.VOCAB)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="w1"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="w2", pad_token="w0", unk_token="w1")


def _dataset(pairs, seq):
    """Pairs of random words (ids 3 … vocab−1), answers of seq − PROMPT tokens with the EOS TRL adds."""
    generator = torch.Generator().manual_seed(0)

    def words(n):
        return " ".join(f"w{i}" for i in torch.randint(3, M.VOCAB, (n,), generator=generator).tolist())
    rows = [{"prompt": words(PROMPT), "chosen": " " + words(seq - PROMPT - 1),
             "rejected": " " + words(seq - PROMPT - 1)}
            for _ in range(2 * pairs)]
    return Dataset.from_list(rows)


def _final_norm(model):
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    backbone = base.base_model
    return base, backbone, getattr(backbone, "norm", None) or backbone.ln_f


def measure_dpo(family, attention, recipe, pairs, seq, checkpointing="none", reference="copy", lora=None):
    global TRACKER
    dtype = torch.float32 if recipe == "fp32" else torch.bfloat16
    model, config = M.build(family, attention, dtype)
    peft_config = None
    if lora is not None:  # TRL wraps the model itself (peft's default fp32 adapters); a wrapped one gets a "ref" copy
        import measure_lora as L
        peft_config = L._lora_config(family, model, *lora, 0.0)[0]
    ref_model = M.build(family, attention, dtype)[0] if reference == "copy" else None
    out = tempfile.mkdtemp(prefix="dpo-")
    args = trl.DPOConfig(output_dir=out, per_device_train_batch_size=pairs, max_length=seq, use_cpu=True,
                         bf16=False, fp16=False, report_to=[], gradient_checkpointing=checkpointing == "layer",
                         gradient_checkpointing_kwargs={"use_reentrant": True}, pad_to_multiple_of=None,
                         precompute_ref_log_probs=reference == "precomputed", dataset_num_proc=None,
                         save_strategy="no", logging_strategy="no")
    trainer = trl.DPOTrainer(model=model, ref_model=ref_model, args=args, train_dataset=_dataset(pairs, seq),
                             processing_class=_tokenizer(), peft_config=peft_config)
    if checkpointing == "layer":  # as `Trainer.train()` does before the first step
        trainer.model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": True})
    trainer.current_gradient_accumulation_steps = 1  # set by `train()`, which is not run
    policy = trainer.model
    params = list({id(p): p for p in policy.parameters() if p.requires_grad}.values())
    opt = P._optimizer("adamw", "foreach", params)
    batch = next(iter(trainer.get_train_dataloader()))
    assert batch["input_ids"].shape == (2 * pairs, seq), batch["input_ids"].shape
    assert bool(batch["attention_mask"].all()), "padded"

    tracker = TRACKER = Tracker()
    models = [policy] + ([trainer.ref_model] if trainer.ref_model is not None else [])
    for m in models:
        tracker.track_all(m.parameters())
        tracker.track_all(m.buffers())
    tracker.track_all(v for v in batch.values() if isinstance(v, torch.Tensor))
    step = [0]
    hooks = []
    for m in models:
        _, backbone, norm = _final_norm(m)

        def before(module, args, kwargs):
            tracker.switch(f"{step[0]}.{'forward' if torch.is_grad_enabled() else 'reference'}")

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
            with tracker.in_phase(f"{step[0]}.start"):
                trainer.training_step(policy, dict(batch))
            with tracker.in_phase(f"{step[0]}.optimizer"):
                opt.step()
            with tracker.in_phase(f"{step[0]}.zero_grad"):
                opt.zero_grad(set_to_none=True)
    for hook in hooks:
        hook.remove()
    TRACKER = None
    return config, second_step(tracker, models, params)


def dpo_plan():
    """(family, attention, recipe, pairs, seq, checkpointing, reference, lora)."""
    cases = []
    for family in ("llama", "qwen3", "qwen3_moe", "gpt2"):
        attention = M._any_attention(family)
        for reference in ("copy", "precomputed"):
            cases.append((family, attention, "bf16", 2, 128, "none", reference, None))
        for reference in ("adapters-off", "precomputed"):
            cases.append((family, attention, "bf16", 2, 128, "none", reference, (8, "all-linear")))
    cases.append(("llama", "eager", "bf16", 2, 128, "none", "copy", None))
    cases.append(("llama", "flash", "bf16", 2, 256, "layer", "copy", None))
    cases.append(("llama", "flash", "bf16", 2, 256, "layer", "adapters-off", (8, "all-linear")))
    cases.append(("llama", "flash", "fp32", 1, 256, "none", "copy", None))
    cases.append(("llama", "flash", "bf16", 4, 64, "none", "adapters-off", (64, "qv")))
    cases.append(("llama-1k", "flash", "bf16", 8, 1024, "none", "copy", None))
    cases.append(("llama-1k", "flash", "bf16", 8, 1024, "layer", "adapters-off", (8, "all-linear")))
    return cases


def _entry(family, attention, recipe, pairs, seq, checkpointing, reference, lora):
    return {"family": family, "attention": attention, "recipe": recipe, "pairs": pairs, "seq": seq,
            "checkpointing": checkpointing, "reference": reference,
            "lora": {"rank": lora[0], "targets": lora[1]} if lora else None}


def second_step(tracker, models, params):
    """What a golden file keeps of a two-step run: the second step's phases (the first warms the optimizer state and
    the caches), the models' weight bytes (a shared tensor once), the trainable bytes, the peak and its phase."""
    phases = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("2.")}
    weights = sum(p.numel() * p.element_size() for m in models for p in {id(p): p for p in m.parameters()}.values())
    return {"weight_bytes": weights, "trainable_bytes": sum(p.numel() * p.element_size() for p in params),
            "phases": phases, "peak_bytes": max(v["peak"] for v in phases.values()),
            "peak_phase": max(phases, key=lambda k: phases[k]["peak"])}


def run_plan(tool, key, cases, measure, entry, out):
    """Measure each case with TRL's trainer, record a failing one with its reason (as measure_peak.py does), and write
    the golden file: {provenance, trl, key: [entry + config + measured], skipped}."""
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    result = {**M.provenance(tool), "trl": trl.__version__, key: [], "skipped": []}
    for case in cases:
        started = time.monotonic()
        try:
            config, measured = measure(*case)
        except Exception as error:
            result["skipped"].append({"case": list(case), "reason": f"{type(error).__name__}: {error}"})
            print("SKIPPED", case, repr(error), file=sys.stderr)
            continue
        result[key].append({**entry(*case), "config": config, **measured})
        print(case, measured["peak_phase"], {k: v["peak"] for k, v in measured["phases"].items()},
              f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    M.write_json(out, result)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_preference.json")
    parser.add_argument("--families", nargs="+")
    args = parser.parse_args(argv)
    cases = [case for case in dpo_plan() if not args.families or case[0] in args.families]
    run_plan("tools/measure_preference.py", "dpo", cases, measure_dpo, _entry, args.out)

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
