"""Measure a training step whose optimizer runs inside the backward, as torchtune's `optimizer_in_bwd`
does, for the golden tests (tests/golden/measured_in_backward.json).

A developer tool, not run by CI, built on tools/measure_peak.py (the same models, tracker and phases).
torchtune (recipes/full_finetune_single_device.py, training/memory.py `register_optim_in_bwd_hooks`)
makes one optimizer per parameter and registers a post-accumulate-grad hook on each parameter that
calls that optimizer's `step()` and then `zero_grad()` (set_to_none): every gradient is freed as soon
as it is complete, so the whole gradient never exists and there is no optimizer phase after the
backward. Gradient accumulation is refused by torchtune with it.

About 2 minutes on two CPU cores.

Usage: python tools/measure_in_backward.py [--out tests/golden/measured_in_backward.json]
Needs: pip install torch==2.13.0 transformers
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_peak as P
import measure_reference as M
# isort: on


class InBackward:
    """One optimizer per parameter, stepped and zeroed by the parameter's post-accumulate-grad hook."""

    def __init__(self, params, make_optimizer):
        self.optimizers = {p: make_optimizer([p]) for p in params}
        for p in params:
            p.register_post_accumulate_grad_hook(self._step)

    def _step(self, p):
        self.optimizers[p].step()
        self.optimizers[p].zero_grad(set_to_none=True)

    def step(self):  # done in the backward
        pass

    def zero_grad(self, set_to_none=True):
        pass


def measure(family, attention, recipe, batch, seq, checkpointing, optimizer, impl):
    """measure_peak.measure_training with its optimizer made per parameter and run in the backward."""
    plain = P._optimizer
    P._optimizer = lambda name, impl_, params: InBackward(params, lambda ps: plain(name, impl_, ps))
    try:
        return P.measure_training(family, attention, recipe, batch, seq, checkpointing, optimizer, impl)
    finally:
        P._optimizer = plain


def plan():
    """(family, attention, recipe, batch, seq, checkpointing, optimizer, impl)."""
    cases = [("llama", "flash", "bf16", 2, 128, "none", "adamw", impl) for impl in ("foreach", "for-loop", "fused")]
    cases += [
        ("llama", "flash", "bf16", 2, 256, "layer", "adamw", "fused"),
        ("llama", "flash", "fp32", 2, 128, "none", "adamw", "foreach"),
        ("llama", "flash", "bf16", 2, 128, "none", "sgd-momentum", "foreach"),
        ("gpt2", M._any_attention("gpt2"), "bf16", 2, 128, "none", "adamw", "foreach"),  # tied head
        ("qwen3", M._any_attention("qwen3"), "bf16", 2, 256, "layer", "adamw", "fused"),
        ("qwen3_moe", M._any_attention("qwen3_moe"), "bf16", 2, 128, "none", "adamw", "foreach"),
    ]
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_in_backward.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    result = {**M.provenance("tools/measure_in_backward.py"), "toy": P.check_tracker(), "training": []}
    for case in plan():
        started = time.monotonic()
        config, measured = measure(*case)
        result["training"].append({**P._training_entry(*case, None), "optimizer_in_backward": True,
                                   "config": config, **measured})
        print(case, f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    M.write_json(args.out, result)


if __name__ == "__main__":
    main()
