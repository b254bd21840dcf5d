"""The caching allocator's reserve on the Trainer/peft training step (issue 28): what torch.cuda.max_memory_reserved
shows beyond max_memory_allocated.

A developer tool, not run by CI. It records the order in which tools/measure_peak.py's step (the one behind
tests/golden/measured_peak.json: two AdamW steps, `zero_grad(set_to_none=True)`, the outputs dropped before the
optimizer step) allocates and frees every storage, from the weights on, on a model with a real model's proportions
at a quarter of its width (hidden, MLP, heads and vocabulary ÷ 4, head size 128; LoRA's rank ÷ 4), at two short
lengths, so each allocation's size is a + b·tokens. Every size of the real model is then that of the quarter-width
one with the fixed part a × 16 (weights and their states: width²) and the per-token part at 4 × the tokens (width ×
tokens), so the replay at a real length allocates the real model's sizes (left out of that scaling: per-token
tensors without a width, RMSNorm's inverse norms and the rotary tables, a few bytes a token in the small pool).
A third length checks the line. tools/simulate_caching_allocator.py replays the events through the large and small
pools of CUDACachingAllocator.cpp (torch 2.5's defaults) on an unlimited card: the peak allocated (what
max_memory_allocated shows) and the peak reserved (max_memory_reserved), each over the weights' load and two steps;
with --varying, steps of lengths drawn from a range, as when a batch is padded to its longest row.

Usage: /work/mvenv/bin/python tools/record_trainer_allocations.py [--out tests/golden/simulated_allocator_trainer.json]
Cases: Llama 3.1 8B's and Qwen2.5 7B's proportions, full fine-tuning (bf16, AdamW foreach) and LoRA (all linear
layers, rank 16, fp32 adapters), with and without per-layer checkpointing, 2, 4 and 8 layers; lengths 512 to
32,768 tokens, batch 1.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch

import measure_peak as P
import measure_reference as M
import simulate_caching_allocator as S

WIDTH = 4  # the recorded model is the real one ÷ 4 in width
SHAPES = {  # the real model: hidden, MLP, heads, key heads, vocabulary (head size 128)
    "llama-3.1-8b": (4096, 14336, 32, 8, 128256),
    "qwen2.5-7b": (3584, 18944, 28, 4, 152064),
    "mistral-7b": (4096, 14336, 32, 8, 32000),
}
TARGETS = {"lora": "all-linear", "qlora": "all-linear", "lora-qkvo": "q,k,v,o"}
BASE = (96, 192)  # recorded lengths (quarter-width tokens); a third checks the line
CHECK = 288
LENGTHS = (512, 2048, 8192, 32768)
RANK = 16


def family(model: str, layers: int) -> str:
    h, inter, heads, kv, vocab = SHAPES[model]
    name = f"{model}/{WIDTH}x{layers}"
    M.FAMILIES[name] = {"model_type": "llama", "hidden_size": h // WIDTH, "intermediate_size": inter // WIDTH,
                        "num_hidden_layers": layers, "num_attention_heads": heads // WIDTH,
                        "num_key_value_heads": max(1, kv // WIDTH), "head_dim": 128, "vocab_size": vocab // WIDTH,
                        "tie_word_embeddings": False}
    return name


class Dequantised(torch.autograd.Function):
    """A 4-bit linear layer as bitsandbytes runs it (MatMul4Bit since 0.43.2): the weight dequantised into a new
    16-bit tensor for the matmul and freed after it, again in the backward for the input's gradient; nothing
    saved but the packed weight. The values are not the point: a constant weight."""

    @staticmethod
    def forward(ctx, x, packed):
        ctx.save_for_backward(packed)
        weight = torch.full((packed.shape[0], packed.shape[1] * 2), 1e-3, dtype=x.dtype)
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad):
        (packed,) = ctx.saved_tensors
        weight = torch.full((packed.shape[0], packed.shape[1] * 2), 1e-3, dtype=grad.dtype)
        return grad @ weight, None


def quantise(model) -> None:
    """Every adapted linear layer's frozen weight as a packed 4-bit buffer (out × in / 2 bytes; NF4's absmax
    blocks, 1/64 of that and less with double quantisation, left out), run through `Dequantised`."""
    from peft.tuners.lora import Linear

    for module in model.modules():
        if isinstance(module, Linear):
            base = module.base_layer
            out_features, in_features = base.weight.shape
            base.register_buffer("packed", torch.zeros(out_features, in_features // 2, dtype=torch.uint8))
            base.weight = torch.nn.Parameter(torch.empty(0, dtype=base.weight.dtype), requires_grad=False)
            base.forward = lambda x, base=base: Dequantised.apply(x, base.packed)


def record(name: str, seq: int, kind: str, checkpointing: str) -> list[tuple[str, int, int, str]]:
    """(kind "a"/"f", id, bytes, phase) of every storage from the weights on, over measure_peak's two steps;
    `kind` full, lora, qlora (LoRA on `quantise`d layers) or lora-qkvo (on attention's projections alone)."""
    events: list[tuple[str, int, int, str]] = []

    class Recorder(P.PeakTracker):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.ids: dict[int, int] = {}
            self.seen = "load"  # between two phases (the outputs dropped before the optimizer step): the last one

        def where(self) -> str:
            self.seen = self.phase or self.seen
            return self.seen

        def track(self, tensor):
            key = id(tensor.untyped_storage()) if hasattr(tensor, "untyped_storage") else None
            new = key is not None and key not in self.sizes
            super().track(tensor)
            if new and key in self.sizes:
                self.ids[key] = len(events)
                events.append(("a", len(events), self.sizes[key], self.where()))

        def _free(self, key):
            if key in self.ids:
                events.append(("f", self.ids.pop(key), 0, self.where()))
            super()._free(key)

    import peft

    original, get_peft_model = P.PeakTracker, peft.get_peft_model
    setattr(P, "PeakTracker", Recorder)  # noqa: B010  (measure_training makes its tracker by this name)

    def quantised(*args, **kwargs):
        model = get_peft_model(*args, **kwargs)
        quantise(model)
        return model

    if kind == "qlora":
        peft.get_peft_model = quantised
    try:
        P.measure_training(name, "flash", "bf16", 1, seq, checkpointing,
                           lora=None if kind == "full" else (RANK // WIDTH, TARGETS[kind], {"adapters": "fp32"}))
    finally:
        setattr(P, "PeakTracker", original)  # noqa: B010
        peft.get_peft_model = get_peft_model
    return events


def line(short, long, seqs=BASE):
    """[(kind, id, a, b, phase)]: each allocation a + b·tokens (exact: the recorded sizes are whole-token sums)."""
    assert [(k, i, p) for k, i, _, p in short] == [(k, i, p) for k, i, _, p in long], "the step changed with length"
    out = []
    for (kind, ident, x, phase), (_, _, y, _) in zip(short, long, strict=True):
        b = (y - x) / (seqs[1] - seqs[0])
        out.append((kind, ident, x - b * seqs[0], b, phase))
    return out


def sized(lines, tokens: int, step_tokens=None):
    """The real model's events at `tokens` (quarter-width at WIDTH × tokens, the fixed part × WIDTH²); with
    `step_tokens`, the second step's events repeated once per length given (ids made unique)."""
    def size(a, b, t):
        return max(0, round(a * WIDTH * WIDTH + b * WIDTH * t))

    first = [(k, i, size(a, b, tokens) if k == "a" else 0) for k, i, a, b, p in lines if not p.startswith("2.")]
    if step_tokens is None:
        second = [(k, i, size(a, b, tokens) if k == "a" else 0) for k, i, a, b, p in lines if p.startswith("2.")]
        return first + second
    step = [(k, i, a, b) for k, i, a, b, p in lines if p.startswith("2.")]
    out = first
    for n, t in enumerate(step_tokens):
        out += [(k, (n + 1) * 10_000_000 + i, size(a, b, t) if k == "a" else 0) for k, i, a, b in step]
    return out


def case(model: str, layers: int, kind: str, checkpointing: str, varying: int = 0) -> dict:
    name = family(model, layers)
    short, long, check = (record(name, seq, kind, checkpointing) for seq in (*BASE, CHECK))
    lines = line(short, long)
    predicted = [(k, round(a + b * CHECK)) for k, _, a, b, _ in lines]
    assert predicted == [(k, n) for k, _, n, _ in check], "a size is not a + b·tokens"
    step_ids = {i for k, i, _, _, p in lines if p.startswith("2.") and k == "a"}
    freed = {i for k, i, _, _, p in lines if p.startswith("2.") and k == "f"}
    kept = step_ids - freed  # the second step's storages still live when it ends (the loss's last scalar)
    rows = []
    for tokens in LENGTHS:
        events = sized(lines, tokens)
        run, small = S.replay(events, 1 << 62), S.replay(events, 1 << 62, small=True)
        assert run is not None and small is not None
        rows.append({"tokens": tokens, "peak_allocated": run.peak_allocated, "peak_reserved": run.peak_reserved,
                     "peak_allocated_small": small.peak_allocated, "peak_reserved_small": small.peak_reserved,
                     "ratio": round(small.peak_reserved / small.peak_allocated, 4)})
    fixed = S.replay(sized(lines, 0), 1 << 62, small=True)  # the weights, their gradients and states alone
    assert fixed is not None
    result = {"model": model, "layers": layers, "kind": kind, "lora_rank": None if kind == "full" else RANK,
              "checkpointing": checkpointing,
              "fixed_peak_allocated": fixed.peak_allocated, "fixed_peak_reserved": fixed.peak_reserved,
              "kept_after_step_bytes_at_512": sum(n for k, i, n in sized(lines, 512) if i in kept), "rows": rows}
    if varying:
        rng = random.Random(0)
        lengths = [rng.randint(128, 2048) for _ in range(varying)]
        run = S.replay(sized(lines, max(lengths), lengths), 1 << 62, small=True)
        assert run is not None
        longest = S.replay(sized(lines, max(lengths)), 1 << 62, small=True)
        assert longest is not None
        result["varying"] = {"steps": varying, "tokens": "128-2048 uniform, seed 0", "longest": max(lengths),
                             "peak_allocated": run.peak_allocated, "peak_reserved": run.peak_reserved,
                             "ratio": round(run.peak_reserved / run.peak_allocated, 4),
                             "fixed_at_longest_ratio": round(longest.peak_reserved / longest.peak_allocated, 4)}
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--models", nargs="+", default=list(SHAPES))
    parser.add_argument("--layers", nargs="+", type=int, default=[2, 4, 8])
    parser.add_argument("--kinds", nargs="+", default=["full", "lora", "qlora"])
    parser.add_argument("--checkpointing", nargs="+", default=["none", "layer"])
    parser.add_argument("--varying", type=int, default=0, help="also this many steps of lengths 128 to 2,048")
    args = parser.parse_args(argv)
    import json

    torch.set_num_threads(2)
    runs = []
    for model in args.models:
        for layers in args.layers:
            for kind in args.kinds:
                for checkpointing in args.checkpointing:
                    result = case(model, layers, kind, checkpointing, args.varying)
                    print(json.dumps(result), flush=True)
                    runs.append(result)
    if args.out:
        write(args.out, runs)


def write(path: str, runs: list[dict]) -> None:
    """The runs added to (or replacing theirs in) a golden file."""
    import contextlib
    import json

    kept = []
    with contextlib.suppress(FileNotFoundError), open(path, encoding="utf-8") as f:
        kept = json.load(f)["runs"]
    setup = ("model", "layers", "kind", "checkpointing")
    kept = [r for r in kept if all(any(r[k] != new[k] for k in setup) for new in runs)] + runs
    P.write_golden(path, "record_trainer_allocations.py", {"runs": kept},
                   note="; CUDACachingAllocator.cpp's large and small pools replayed on measure_peak.py's step")


if __name__ == "__main__":
    main()
