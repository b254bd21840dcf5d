"""Measure torchtune's chunked output loss (CEWithChunkedOutputLoss) on the CPU, for the golden tests.

A developer tool, not run by CI. The loss is torchtune 0.6.1's own file (modules/loss/ce_chunked_output_loss.py, loaded
by path from an unpacked wheel: `--torchtune DIR`, as tools/measure_compile.py); the head is its decoder's
`chunked_output` (`[output(chunk) for chunk in h.chunk(N, dim=1)]`, bf16) and the step is its recipe's `_loss_step`:
the loss over the list of chunks, then `del logits`, then the backward. h (the final norm's output) and the head's
weight are leaves made before counting; the head is frozen (as under LoRA), so that the backward's worst is the loss's
and not the accumulation of the head weight's gradient over the chunks, which the engine counts apart.

Eager: measure_peak's tracker counts every storage an ATen op makes, by phase (forward: the head and the loss;
backward). Reported per case, with the storages that are not the loss's taken out (the head weight and h, which
the tracker sees through their views): `forward_peak`, `forward_end` and `backward_peak`. Compiled
(compute_cross_entropy under torch.compile, as torchtune's compile_loss does): inductor's kernels do not pass
through the tracker, so only what the compiled loss keeps for the backward is measured (`compiled_saved`, a
saved_tensors_hooks pack hook; the frozen weight left out).

    /work/mvenv/bin/python tools/measure_chunked_loss.py --torchtune DIR > tests/golden/measured_chunked_loss.json
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import platform
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import PeakTracker

CASES = [(2, 256, 256, 4096, 8), (1, 512, 128, 8192, 8), (2, 200, 256, 4096, 8), (4, 128, 256, 2048, 4)]


def _loss_class(directory: str) -> type:
    path = os.path.join(directory, "torchtune", "modules", "loss", "ce_chunked_output_loss.py")
    spec = importlib.util.spec_from_file_location("ce_chunked_output_loss", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CEWithChunkedOutputLoss


def _leaves(batch: int, seq: int, hidden: int, vocab: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    h = torch.randn(batch, seq, hidden, dtype=torch.bfloat16, requires_grad=True)
    weight = torch.randn(vocab, hidden, dtype=torch.bfloat16) / hidden**0.5  # frozen: see the docstring
    return h, weight, torch.randint(0, vocab, (batch, seq))


def measure(loss_class: type, batch: int, seq: int, hidden: int, vocab: int, chunks: int) -> dict:
    not_loss = vocab * hidden * 2 + batch * seq * hidden * 2  # the weight's and h's storages, seen through views
    h, weight, labels = _leaves(batch, seq, hidden, vocab)
    loss_fn = loss_class(num_output_chunks=chunks)
    tracker = PeakTracker()
    with tracker:
        with tracker.in_phase("forward"):
            logits = [F.linear(chunk, weight) for chunk in h.chunk(chunks, dim=1)]
            loss = loss_fn(logits, labels)
            del logits
        with tracker.in_phase("backward"):
            loss.backward()
    forward, backward = tracker.phases["forward"], tracker.phases["backward"]

    h, weight, labels = _leaves(batch, seq, hidden, vocab)
    loss_fn = loss_class(num_output_chunks=chunks)
    loss_fn.compute_cross_entropy = torch.compile(loss_fn.compute_cross_entropy)
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    skip = {weight.untyped_storage().data_ptr()}
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        logits = [F.linear(chunk, weight) for chunk in h.chunk(chunks, dim=1)]
        loss_fn(logits, labels)
    del logits
    compiled = sum(n for ptr, n in seen.items() if ptr not in skip)
    return {"batch": batch, "seq": seq, "hidden": hidden, "vocab": vocab, "chunks": chunks,
            "forward_peak": forward["peak"] - not_loss, "forward_end": forward["end"] - not_loss,
            "backward_peak": backward["peak"] - not_loss, "compiled_saved": compiled}


def main() -> None:
    loss_class = _loss_class(sys.argv[sys.argv.index("--torchtune") + 1])
    with contextlib.redirect_stderr(open(os.devnull, "w")):
        cases = [measure(loss_class, *case) for case in CASES]
    json.dump({"tool": "tools/measure_chunked_loss.py", "torch": torch.__version__, "torchtune": "0.6.1",
               "python": platform.python_version(), "machine": platform.machine(), "cases": cases},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
