"""Measure the peak bytes of TRL's ORPO training step, phase by phase, for the golden tests.

A developer tool, not run by CI, built on tools/measure_preference.py (its tracker, tokenizer and `second_step`) and
tools/measure_reference.py (the small random-weight models). It runs TRL's own `ORPOTrainer.training_step` (trl 1.16,
trl/experimental/orpo/orpo_trainer.py) on the CPU: pairs of random single-token words whose chosen and rejected
answers have one length (so `DPODataCollatorWithPadding` pads nothing), `concatenated_forward` scoring the 2 × pairs
sequences in one forward of the whole model (its logits made whole, in the model's dtype), the chosen half's
cross-entropy over a contiguous copy of its logits, `get_batch_logps` over all of them, the odds-ratio term, then
AdamW (foreach) `step()` and `zero_grad(set_to_none=True)`. No reference model. Two steps; the phases of the second:

    forward    the policy's forward, to its logits
    loss       the chosen half's cross-entropy and the log-probabilities of every sequence
    backward   `loss.backward()` to the moment the final norm's output has its gradient (the losses' and the head's)
    layers     the rest of the backward
    optimizer  `step()`

The CPU-versus-GPU difference corrected: `get_batch_logps` calls trl/trainer/utils.py `selective_log_softmax`, which on
a GPU with Triton runs `selective_log_softmax_and_entropy` (trl/kernels/logprob_entropy.py `_LogProbEntropyFunction`:
fp32 log-probabilities, entropy, log_z and expected logit per row, the logits and those two statistics saved for the
backward, whose kernel writes the logits' gradient into one `empty_like(logits)` in their dtype) and on the CPU a loop
of bf16 log_softmax per sequence, which saves a whole log-softmax output. `LogProbEntropy` below is that autograd
function with the kernel's buffers allocated as it does (counted) and the kernels' work done in torch ops whose
temporaries are not counted (registers on a GPU), as measure_preference.py does for the fused head's tiles.

Usage: python tools/measure_orpo.py [--out tests/golden/measured_orpo.json]
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
import measure_kto as K

from datasets import Dataset

from trl.experimental.orpo import ORPOConfig, ORPOTrainer
from trl.trainer import utils as trl_utils
# isort: on

warnings.filterwarnings("ignore")
ROWS = 16  # rows of the logits the stand-in's untracked work takes at a time


@D._untracked
def _forward_rows(logits, index, temperature, logprobs, entropy, log_z, expected_logit):
    """The forward kernel's work (in registers on a GPU), written into the counted outputs."""
    flat, idx = logits.reshape(-1, logits.shape[-1]), index.reshape(-1)
    for start in range(0, flat.shape[0], ROWS):
        rows = flat[start:start + ROWS].float() / temperature
        z = torch.logsumexp(rows, dim=-1)
        p = torch.softmax(rows, dim=-1)
        expected = (p * rows).sum(-1)
        target = rows.gather(-1, idx[start:start + ROWS, None]).squeeze(-1)
        log_z.view(-1)[start:start + ROWS].copy_(z)
        expected_logit.view(-1)[start:start + ROWS].copy_(expected)
        logprobs.view(-1)[start:start + ROWS].copy_(target - z)
        entropy.view(-1)[start:start + ROWS].copy_(z - expected)


@D._untracked
def _backward_rows(grad_logits, logits, index, log_z, expected_logit, grad_logprobs, grad_entropy, temperature):
    """The backward kernel's work: (one-hot − p) · g_logprob − p · (logit − E[logit]) · g_entropy, over T."""
    flat, out, idx = logits.reshape(-1, logits.shape[-1]), grad_logits.view(-1, logits.shape[-1]), index.reshape(-1)
    for start in range(0, flat.shape[0], ROWS):
        stop = start + ROWS
        rows = flat[start:stop].float() / temperature
        p = torch.exp(rows - log_z.reshape(-1)[start:stop, None])
        grad = torch.zeros_like(rows)
        if grad_logprobs is not None:
            g = grad_logprobs.reshape(-1)[start:stop, None].float()
            grad += g * (torch.nn.functional.one_hot(idx[start:stop], rows.shape[-1]).float() - p)
        if grad_entropy is not None:
            g = grad_entropy.reshape(-1)[start:stop, None].float()
            grad -= g * p * (rows - expected_logit.reshape(-1)[start:stop, None])
        out[start:stop].copy_(grad / temperature)


class LogProbEntropy(torch.autograd.Function):
    """trl/kernels/logprob_entropy.py `_LogProbEntropyFunction` with its buffers as the Triton kernels have them."""

    @staticmethod
    def forward(ctx, logits, index, temperature=1.0, row_mask=None):
        logprobs = torch.empty(logits.shape[:-1], device=logits.device, dtype=torch.float32)
        entropy, log_z, expected_logit = (torch.empty_like(logprobs) for _ in range(3))
        _forward_rows(logits, index, temperature, logprobs, entropy, log_z, expected_logit)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(logits, index, log_z, expected_logit, row_mask)
        ctx.temperature = temperature
        return logprobs, entropy

    @staticmethod
    def backward(ctx, grad_logprobs, grad_entropy):
        logits, index, log_z, expected_logit, _ = ctx.saved_tensors
        grad_logits = torch.empty_like(logits, memory_format=torch.contiguous_format)
        _backward_rows(grad_logits, logits, index, log_z, expected_logit, grad_logprobs, grad_entropy,
                       ctx.temperature)
        return grad_logits, None, None, None


def _kernel_applies(logits, index=None, row_mask=None):
    """trl/trainer/utils.py `_supports_trl_loss_kernel` with the CPU standing for the GPU."""
    supported = (logits.dtype in (torch.float16, torch.bfloat16, torch.float32) and 1 <= logits.ndim <= 3
                 and logits.stride(-1) == 1 and logits.shape[-1] > 0)
    return supported and (index is None or (index.shape == logits.shape[:-1] and index.dtype in (torch.int32,
                                                                                                   torch.int64)))


trl_utils.is_triton_available = lambda: True
trl_utils._supports_trl_loss_kernel = _kernel_applies
trl_utils._fused_logprob_entropy = lambda logits, index, temperature=1.0, row_mask=None: LogProbEntropy.apply(
    logits, index, temperature, row_mask)


def _dataset(pairs, seq, steps=2):
    """Pairs of random single-token words (measure_kto.py's): a prompt of K.PROMPT tokens, answers of
    seq − PROMPT − 1 words and the EOS TRL adds."""
    rows = K._dataset(2 * pairs, seq, steps)
    return Dataset.from_list([{"prompt": rows[2 * i]["prompt"], "chosen": rows[2 * i]["completion"],
                               "rejected": rows[2 * i + 1]["completion"]} for i in range(steps * pairs)])


def measure_orpo(family, attention, recipe, pairs, seq, checkpointing="none", lora=None):
    dtype = torch.float32 if recipe == "fp32" else torch.bfloat16
    model, config = M.build(family, attention, dtype)
    peft_config = None
    if lora is not None:  # TRL wraps the model itself (peft's default fp32 adapters)
        import measure_lora as L
        peft_config = L._lora_config(family, model, *lora, 0.0)[0]
    out = tempfile.mkdtemp(prefix="orpo-")
    args = ORPOConfig(output_dir=out, per_device_train_batch_size=pairs, max_length=seq, use_cpu=True, bf16=False,
                      fp16=False, report_to=[], gradient_checkpointing=checkpointing == "layer",
                      gradient_checkpointing_kwargs={"use_reentrant": True}, dataset_num_proc=None,
                      save_strategy="no", logging_strategy="no")
    trainer = ORPOTrainer(model=model, args=args, train_dataset=_dataset(pairs, seq), processing_class=D._tokenizer(),
                          peft_config=peft_config)
    if checkpointing == "layer":  # as `Trainer.train()` does before the first step
        trainer.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    trainer.current_gradient_accumulation_steps = 1  # set by `train()`, which is not run
    policy = trainer.model
    params = list({id(p): p for p in policy.parameters() if p.requires_grad}.values())
    opt = P._optimizer("adamw", "foreach", params)
    batch = next(iter(trainer.get_train_dataloader()))
    for key in ("chosen_input_ids", "rejected_input_ids"):
        assert batch[key].shape == (pairs, seq), (key, batch[key].shape)
        assert bool(batch[key.replace("input_ids", "attention_mask")].all()), "padded"

    tracker = D.TRACKER = D.Tracker()
    tracker.track_all(policy.parameters())
    tracker.track_all(policy.buffers())
    tracker.track_all(v for v in batch.values() if isinstance(v, torch.Tensor))
    step = [0]
    base, backbone, norm = D._final_norm(policy)

    def after_norm(module, args, output):
        if torch.is_grad_enabled() and output.requires_grad:
            output.register_hook(lambda grad: tracker.switch(f"{step[0]}.layers"))
    hooks = [backbone.register_forward_pre_hook(lambda *_, **__: tracker.switch(f"{step[0]}.forward"),
                                                with_kwargs=True),
             base.register_forward_hook(lambda *_: tracker.switch(f"{step[0]}.loss")),
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
    D.TRACKER = None
    return config, D.second_step(tracker, [policy], params)


def orpo_plan():
    """(family, attention, recipe, pairs, seq, checkpointing, lora)."""
    cases = []
    for family in ("llama", "qwen3"):
        attention = M._any_attention(family)
        for checkpointing in ("none", "layer"):
            cases.append((family, attention, "bf16", 2, 128, checkpointing, None))
            cases.append((family, attention, "bf16", 2, 128, checkpointing, (8, "all-linear")))
    cases.append(("llama", "eager", "bf16", 2, 128, "none", None))
    cases.append(("llama", "flash", "fp32", 1, 256, "none", None))
    cases.append(("llama", "flash", "bf16", 4, 64, "none", (64, "qv")))
    cases.append(("llama-1k", "flash", "bf16", 4, 512, "none", None))
    cases.append(("llama-1k", "flash", "bf16", 4, 512, "layer", (8, "all-linear")))
    return cases


def _entry(family, attention, recipe, pairs, seq, checkpointing, lora):
    return {"family": family, "attention": attention, "recipe": recipe, "pairs": pairs, "seq": seq,
            "checkpointing": checkpointing, "lora": {"rank": lora[0], "targets": lora[1]} if lora else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_orpo.json")
    parser.add_argument("--families", nargs="+")
    parser.add_argument("--first", type=int, help="only the first N cases of the plan")
    args = parser.parse_args(argv)
    cases = [case for case in orpo_plan() if not args.families or case[0] in args.families][:args.first]
    D.run_plan("tools/measure_orpo.py", "orpo", cases, measure_orpo, _entry, args.out)

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
