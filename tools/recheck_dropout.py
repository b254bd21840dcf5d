"""Re-measure every golden case whose step runs a dropout, and say which numbers moved (issue 28).

A developer tool, not run by CI. tools/measure_reference.py's dropout changed on 2026-12-07 (776481a): the bool
mask drawn in place and the scale applied in place, where it had drawn the mask through an fp32 `torch.rand` of the
input's shape and made `x * mask * scale` in two multiplies (forward and backward), transients CUDA's kernels do not
make. Every measuring tool imports that one dropout; this tool re-runs, with the tools as they are, the golden cases
measured with a dropout > 0 and compares every number the golden file holds for them:

- peak: tests/golden/measured_peak.json, the steps of gpt2 (embedding and residual dropout 0.1, attention's with
  eager) and phi (residual 0.1), and LoRA with lora_dropout (tools/measure_peak.py);
- in_backward: measured_in_backward.json's gpt2 step (tools/measure_in_backward.py);
- reference: measured.json's gpt2 and phi training cases (tools/measure_reference.py, saved bytes);
- lora, first_layer, head_only: measured_lora.json, measured_lora_first_layer.json, measured_lora_head_only.json,
  the cases with lora_dropout > 0 (saved bytes);
- mllama_lora: measured_mllama_lora.json's cases with lora_dropout > 0 (saved bytes and tracked peaks).

Each line says how many dropouts with p > 0 the case ran (0 would mean the case runs none). `--old` puts the
dropout before 776481a back, for the before -> after comparison. `--spot` runs one case of each tool whose golden
file was suspected (TRL's DPO with gpt2, ORPO, KTO, GRPO, PPO with LoRA; Flux, Wan and FLUX.2 LoRA) under an ATen
dispatch mode and prints every dropout op it sees (none expected: the tools pass lora_dropout 0, TRL's DPO, KTO and
ORPO disable the model's dropout, the other families and the denoisers have none). PPO needs trl 1.9 (its
experimental.ppo, gone from 1.16): skipped where it cannot be imported.

Results (2026-12-07): docs/accuracy.md, "The golden files measured with the old dropout".

Usage: python tools/recheck_dropout.py [--old] [--only peak in_backward reference lora first_layer head_only
       mllama_lora] [--spot]
Needs: pip install torch==2.13.0 transformers peft trl diffusers
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_reference as M  # its dropout is the one every tool uses
import measure_peak as P
# isort: on

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
DROPOUT_FAMILIES = ("gpt2", "phi")
CALLS: list[float] = []


class _OldDropout(torch.autograd.Function):
    """measure_reference's dropout before 2026-12-07, for `--old` only."""

    @staticmethod
    def forward(ctx, x, p):
        mask = torch.rand(x.shape, device=x.device) >= p
        ctx.save_for_backward(mask)
        ctx.scale = 1.0 / (1.0 - p)
        return x * mask * ctx.scale

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None


_tools_dropout = torch.nn.functional.dropout


def _counted(input, p=0.5, training=True, inplace=False):
    if training and p > 0:
        CALLS.append(p)
    return _tools_dropout(input, p, training, inplace)


torch.nn.functional.dropout = _counted


def _diff(golden, now, path=""):
    if isinstance(golden, dict) and isinstance(now, dict):
        return [d for k in golden.keys() | now.keys() for d in _diff(golden.get(k), now.get(k), f"{path}/{k}")]
    return [] if golden == now else [(path, golden, now)]


def _load(name):
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def _peak_cases(name, measure):
    for i, g in enumerate(_load(name)["training"]):
        lora = g["lora"]
        if g["family"] not in DROPOUT_FAMILIES and not (lora or {}).get("dropout"):
            continue
        args = (g["family"], g["attention"], g["recipe"], g["batch"], g["seq"], g["checkpointing"], g["optimizer"],
                g["optimizer_impl"])
        if lora:
            options = {k: v for k, v in lora.items() if k not in ("rank", "targets")}
            args += ((lora["rank"], lora["targets"], options),)
        yield f"{name}[{i}] {args}", g, lambda args=args: measure(*args)[1]


def peak():
    return _peak_cases("measured_peak.json", P.measure_training)


def in_backward():
    import measure_in_backward as B
    return _peak_cases("measured_in_backward.json", lambda *a: B.measure(*a[:8]))


def reference():
    for i, g in enumerate(_load("measured.json")["cases"]):
        if g["kind"] == "training" and g["family"] in DROPOUT_FAMILIES:
            args = (g["family"], g["attention"], g["precision"], g["batch"], g["seq"], g["checkpointing"])
            yield f"measured.json[{i}] {args}", g["measured"], lambda args=args: M.measure_training(*args)[1]


def lora():
    import measure_lora as L
    names = {json.dumps(v): k for k, v in (("qv", list(L.QV)), ("all-linear", "all-linear"),
                                           ("qv+head", [*L.QV, "lm_head"]),
                                           ("all-linear+head", ["all-linear", "lm_head"]))}
    for i, g in enumerate(_load("measured_lora.json")["cases"]):
        lo = g["lora"]
        if lo["lora_dropout"] > 0:
            key = (g["family"], g["attention"], g["batch"], g["seq"], g["checkpointing"], lo["r"],
                   names[json.dumps(lo["target_modules"])], lo["lora_dropout"], lo["adapter_dtype"] == "fp32")
            yield f"measured_lora.json[{i}] {key}", g, lambda key=key: L.measure(*key, detail=key in L.DETAIL)[1]


def _first_layer_cases(name, drop_tensors):
    import measure_lora_first_layer as F

    def run(g):
        c = F.case(g["family"], g["layers"], g["checkpointing"], g["target_modules"], g["lora_dropout"],
                   g["adapter_dtype"] == "fp32" and g["precision"] != "fp32", batch=g["batch"], seq=g["seq"],
                   attention=g["attention"], precision=g["precision"])
        if drop_tensors:
            c.pop("layer_tensors")
        return c
    for i, g in enumerate(_load(name)["cases"]):
        if g["lora_dropout"] > 0:
            yield (f"{name}[{i}] {g['family']} {g['layers']} layers {g['checkpointing']} {g['target_modules']} "
                   f"{g['lora_dropout']} {g['adapter_dtype']}"), g, lambda g=g: run(g)


def first_layer():
    return _first_layer_cases("measured_lora_first_layer.json", False)


def head_only():
    return _first_layer_cases("measured_lora_head_only.json", True)


def mllama_lora():
    import measure_mllama_lora as T

    def run(case):
        attention, dtype, batch, seq, images, checkpointing, targets, adapter, dropout = case
        m = {}
        if checkpointing == "none":
            m.update(T.saved(attention, dtype, batch, seq, images, targets, adapter, dropout))
            text = T.saved(attention, dtype, batch, seq, 0, targets, adapter, dropout)
            m["text_only_saved_bytes"], m["text_only_by_region"] = text["saved_bytes"], text["by_region"]
        m.update(T.tracked(attention, dtype, batch, seq, images, checkpointing, targets, adapter, dropout))
        m["text_only"] = T.tracked(attention, dtype, batch, seq, 0, checkpointing, targets, adapter, dropout)
        return m
    golden = _load("measured_mllama_lora.json")["cases"]
    for i, case in enumerate(T.CASES):
        if len(case) > 8 and case[8] > 0:
            yield f"measured_mllama_lora.json[{i}] {case}", golden[i]["measured"], lambda case=case: run(case)


SECTIONS = {f.__name__: f for f in (peak, in_backward, reference, lora, first_layer, head_only, mllama_lora)}


class _DropoutOps(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.seen: collections.Counter[str] = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if "bernoulli" in name or "dropout" in name:
            self.seen[name] += 1
        return func(*args, **(kwargs or {}))


SPOT = [("measure_preference", "measure_dpo", ("gpt2", "flash", "bf16", 2, 128, "none", "copy", None)),
        ("measure_preference", "measure_dpo",
         ("gpt2", "flash", "bf16", 2, 128, "none", "adapters-off", (8, "all-linear"))),
        ("measure_orpo", "measure_orpo", ("llama", "flash", "bf16", 2, 128, "none", (8, "all-linear"))),
        ("measure_kto", "measure_kto", ("qwen3", "flash", "bf16", 4, 128, "none", "adapters-off", (8, "all-linear"))),
        ("measure_grpo", "measure_grpo", ("qwen3", "flash", 4, 4, 32, 96, 0.04, "none", (8, "all-linear"))),
        ("measure_ppo", "measure_ppo", ("llama", "flash", 4, 2, 64, 64, 128, (8, "all-linear"))),
        ("measure_diffusion_lora", "CASES", 0), ("measure_diffusion_lora", "CASES", 9),
        ("measure_diffusion_lora", "CASES", 18)]


def spot():
    for module, name, args in SPOT:
        try:
            tool = __import__(module)
        except ImportError as error:
            print(module, "SKIPPED:", error, flush=True)
            continue
        measure = getattr(tool, name)
        if name == "CASES":
            measure, args = tool.measure, measure[args]
        CALLS.clear()
        with _DropoutOps() as ops:
            measure(*args)
        print(module, args[:9], "F.dropout with p > 0:", len(CALLS), "ATen dropout ops:", dict(ops.seen), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", action="store_true", help="the dropout before 2026-12-07 (776481a)")
    parser.add_argument("--only", nargs="+", choices=sorted(SECTIONS))
    parser.add_argument("--spot", action="store_true", help="count the dropouts in one case of each other tool")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.old:
        M._BoolMaskDropout = _OldDropout
    if args.spot:
        spot()
        return
    moved = 0
    for section in args.only or SECTIONS:
        for label, golden, measure in SECTIONS[section]():
            CALLS.clear()
            started = time.monotonic()
            now = measure()
            differences = _diff({k: golden[k] for k in now if k in golden}, now)
            moved += bool(differences)
            print(label, f"dropouts {len(CALLS)}", f"{time.monotonic() - started:.0f} s",
                  differences[:8] if differences else "same", flush=True)
    print("cases that moved:", moved, "(dropout before 2026-12-07)" if args.old else "")


if __name__ == "__main__":
    main()
