"""Measure the peak bytes a real training step and a real prefill reach, for the golden tests.

A developer tool, not run by CI, built on tools/measure_reference.py (the same small
random-weight models, the same bool-mask dropout that stores what CUDA stores).

The tracker (`PeakTracker`) is a TorchDispatchMode that sees every ATen op: each storage an
op creates is counted once when it first appears and uncounted when the storage is freed
(a weakref finaliser on the storage; PyTorch keeps one Python object per storage). Views
share their storage and in-place ops create none, so what it adds up is the live tensor
bytes the caching allocator would have to hold, without its rounding and fragmentation,
and without kernels' private workspaces. Parameters and buffers that exist before it starts
are counted at the start. `check_tracker()` runs a toy step worked out by hand.

Training (`measure_training`): two full steps (forward with the loss, backward, optimizer
step, `zero_grad(set_to_none=True)`), the second one the steady state. For each phase of
the second step: the live bytes when it starts and ends, and its peak. The phases:
`forward` (model and loss), `backward` (`loss.backward()` from the loss gradient over the
vocabulary to the head's backward), `layers` (the rest of the backward, from the moment the
head's input has its gradient), `optimizer` (`step()`), as the engine models them. The
caller keeps the model output (and so the logits) until the backward ends, as a plain training
loop does, and drops it before the optimizer step (as the Trainer, whose loss function returns
only the loss). Recipes: `fp32`, `bf16` (pure bf16; PyTorch's Adam keeps bf16 state), `amp`
(fp32 weights, forward and loss under CPU `torch.autocast(bfloat16)`, backward outside it,
as the Trainer does), `mixed` (bf16 weights, fp32 master copy and fp32 gradient
accumulation emulated with post-accumulate-grad hooks that add each bf16 gradient into an
fp32 `main_grad` and free it, as Megatron's fp32 gradient buffer does). Optimizers:
AdamW `foreach` / `for-loop` / `fused`, SGD with and without momentum, transformers'
Adafactor. LoRA as tools/measure_lora.py builds it (peft, bf16 adapters unless said).

Inference (`measure_prefill`): `generate(max_new_tokens=1, do_sample=False)`, which runs
the prefill with the cache on and logits of the last position only; the peak above the
weights, and the cache bytes at the end. The prompt has no padding: no token id equals the pad id
(until 2026-12-03 the ids could, and 20 cases measured a padded prompt; see docs/accuracy.md).
`--explain-prefill FAMILY ATTENTION DTYPE BATCH SEQ` measures one case and prints the largest storages
live at its peak, with the op, shape, dtype and transformers frame that made each;
`--explain-training FAMILY ATTENTION RECIPE BATCH SEQ CHECKPOINTING` does the same for a training step.

About 15 minutes on two CPU cores.

Usage: python tools/measure_peak.py [--out tests/golden/measured_peak.json] [--only training|prefill|toy|head|lora|ckpt]
       python tools/measure_peak.py --explain-prefill qwen3_moe flash bf16 1 2048
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# measure_reference first: importing it patches dropout to the bool-mask version.
# isort: off
import measure_reference as M

import transformers
# isort: on

warnings.filterwarnings("ignore")  # for every tool that imports this one too
transformers.logging.set_verbosity_error()
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}  # the forwards' two precisions


class PeakTracker(TorchDispatchMode):
    """Live and peak bytes of every tensor storage, by phase."""

    def __init__(self, explain=False):
        super().__init__()
        self.explain = explain  # keep what made each storage, and the live storages at the peak
        self.made = {}  # id(storage) -> (op, shape, dtype, frame), when explaining
        self.at_peak = []
        self.sizes = {}  # id(storage) -> bytes, while alive
        self.refs = {}
        self.live = 0
        self.peak = 0
        self.phase = None
        self.phases = {}  # name -> {"start", "peak", "end", "peak_op"}
        self.last_op = ""

    def track(self, tensor):
        if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
            return
        storage = tensor.untyped_storage()
        key = id(storage)
        if key in self.sizes:
            return
        size = storage.nbytes()
        self.sizes[key] = size
        self.refs[key] = weakref.ref(storage, lambda _, key=key: self._free(key))
        self.live += size
        if self.explain:
            self.made[key] = (self.last_op, tuple(tensor.shape), str(tensor.dtype).replace("torch.", ""), _frame())
        if self.live > self.peak:
            self.peak = self.live
            if self.explain and self.phase is not None:
                self.at_peak = [(self.sizes[k], *self.made.get(k, ("(before)", (), "", ""))) for k in self.sizes]
        if self.phase is not None:
            entry = self.phases[self.phase]
            if self.live > entry["peak"]:
                entry["peak"], entry["peak_op"] = self.live, self.last_op

    def _free(self, key):
        self.live -= self.sizes.pop(key)
        self.refs.pop(key, None)
        self.made.pop(key, None)

    def track_all(self, tensors):
        for t in tensors:
            self.track(t)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.last_op = str(func.overloadpacket.__name__)
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            self.track(t)
        return out

    def switch(self, name):
        """A new phase inside the current one: the current one ends here, `in_phase` closes the new one."""
        if self.phase is None or self.phase == name:
            return
        self.phases[self.phase]["end"] = self.live
        self.phases[name] = {"start": self.live, "peak": self.live, "peak_op": "", "end": None}
        self.phase = name

    @contextlib.contextmanager
    def in_phase(self, name):
        self.phase = name
        self.phases[name] = {"start": self.live, "peak": self.live, "peak_op": "", "end": None}
        try:
            yield
        finally:
            self.phases[self.phase]["end"] = self.live
            self.phase = None


def _frame():
    """The innermost transformers (or peft) frame on the stack: file:function:line."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/transformers/" in name or "/peft/" in name:
            return f"{name.split('/transformers/')[-1]}:{frame.f_code.co_name}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def explain_peak(tracker, top=25, file=sys.stderr):
    """Print the largest storages live at the peak, with the op, shape, dtype and frame that made them."""
    rows = sorted((row for row in tracker.at_peak if row[1]), key=lambda row: -row[0])  # op "": there at the start
    start = sum(row[0] for row in tracker.at_peak if not row[1])
    print(f"peak {tracker.peak:,} B ({start:,} B there at the start), {len(rows)} storages made since live;"
          f" the largest {top}:", file=file)
    for size, op, shape, dtype, frame in rows[:top]:
        print(f"  {size:>12,}  {op:<40} {shape!s:<24} {dtype:<9} {frame}", file=file)


def write_golden(path: str | os.PathLike, tool: str, sections: dict, note: str = "") -> None:
    """A golden file: `sections` under an `_about` line naming the tool, the date and the versions it ran with."""
    import datetime
    import json
    import platform
    from pathlib import Path

    about = (f"tools/{tool}, {datetime.date.today()}, transformers {transformers.__version__}, torch "
             f"{torch.__version__}, Python {platform.python_version()}, {platform.machine()}{note}")
    Path(path).write_text(json.dumps({"_about": about, **sections}, indent=1) + "\n", encoding="utf-8")


def forward_peak(model, ids, mask, explain: bool = False) -> int:
    """The bytes one no-grad forward of `model` on `ids` adds above what lives before it (its weights, buffers
    and inputs): the embedders' measurement (tools/measure_encoders.py, measure_lm_reranker.py,
    measure_remote_encoders.py)."""
    tracker = PeakTracker(explain=explain)
    tracker.track_all(model.parameters())
    tracker.track_all(model.buffers())
    tracker.track_all([ids, mask])
    start = tracker.live
    with torch.no_grad(), tracker, tracker.in_phase("forward"):
        out = model(input_ids=ids, attention_mask=mask)
    del out
    if explain:
        explain_peak(tracker)
    return tracker.phases["forward"]["peak"] - start


def check_tracker():
    """A toy step worked out by hand: Linear(256 -> 512, no bias) in fp32, x of 64 × 256, loss =
    (y ** 2).sum(), SGD without momentum.

    Start: W = 512·256·4 = 524,288 B; x = 64·256·4 = 65,536 B (made before tracking).
    Forward: y = x Wᵀ (64·512·4 = 131,072), y² (131,072), sum (4 B): peak 851,972 B with y and
    y² live; y² is freed once summed (autograd saves y for pow's backward, not y²), so the
    forward ends at 720,900 B.
    Backward: the sum's gradient (a 4-byte one, expanded as a view), pow's backward 2·y·g (the
    gradient of y, 131,072 B; y is released with its node), then the weight gradient gᵀx
    (524,288 B) while the gradient of y is still live: peak W + x + loss + 1 + grad_y + grad_W
    = 1,245,192 B; the step ends with W, x, the loss and grad_W: 1,114,116 B.
    """
    torch.manual_seed(0)
    layer = torch.nn.Linear(256, 512, bias=False)
    x = torch.randn(64, 256)
    tracker = PeakTracker()
    tracker.track_all([layer.weight, x])
    with tracker:
        with tracker.in_phase("forward"):
            loss = (layer(x) ** 2).sum()
        with tracker.in_phase("backward"):
            loss.backward()
    w, xb, y = 512 * 256 * 4, 64 * 256 * 4, 64 * 512 * 4
    got = tracker.phases
    print("toy:", got, file=sys.stderr)
    assert got["forward"]["start"] == w + xb, got
    assert got["forward"]["peak"] == w + xb + y + y + 4, got  # y, y² and the sum
    assert got["forward"]["end"] == w + xb + y + 4, got  # y saved for pow's backward, and the loss
    assert got["backward"]["peak"] == w + xb + 4 + 4 + y + w, got
    assert got["backward"]["end"] == w + xb + 4 + w, got
    return {k: {kk: vv for kk, vv in v.items()} for k, v in got.items()}


# ---------------------------------------------------------------- training


def _optimizer(name, impl, params):
    if name == "adamw":
        flags = {"foreach": {"foreach": True}, "for-loop": {"foreach": False}, "fused": {"fused": True}}[impl]
        return torch.optim.AdamW(params, lr=1e-4, **flags)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3, foreach=impl == "foreach")
    if name == "sgd-momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9, foreach=impl == "foreach")
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-3, relative_step=False, scale_parameter=False, warmup_init=False)
    raise ValueError(name)


class _MasterCopy:
    """Megatron-style mixed precision on bf16 weights: fp32 master copies owned by the optimizer,
    fp32 gradients accumulated into `main_grad` as each bf16 gradient is produced."""

    def __init__(self, params, make_optimizer):
        self.params = params
        self.master = [p.detach().float().requires_grad_() for p in params]
        self.optimizer = make_optimizer(self.master)
        for p, m in zip(params, self.master, strict=True):
            p.register_post_accumulate_grad_hook(self._hook(m))

    @staticmethod
    def _hook(master):
        def accumulate(p):
            if master.grad is None:
                master.grad = p.grad.float()
            else:
                master.grad.add_(p.grad)
            p.grad = None
        return accumulate

    def step(self):
        self.optimizer.step()
        with torch.no_grad():
            for p, m in zip(self.params, self.master, strict=True):
                p.copy_(m)

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)


def measure_training(family, attention, recipe, batch, seq, checkpointing="none", optimizer="adamw",
                     impl="foreach", lora=None, explain=False):
    """Two steps; the phases of the second. `lora` = (rank, targets[, options]): adapters in the base's dtype and no
    dropout, unless options say {"adapters": "fp32", "dropout": p}."""
    dtype = torch.float32 if recipe in ("fp32", "amp") else torch.bfloat16
    model, config = M.build(family, attention, dtype)
    model.train()
    if checkpointing == "layer":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    top = model
    if lora is not None:
        from peft import get_peft_model

        import measure_lora as L
        rank, targets, *more = lora
        options = more[0] if more else {}  # {"dropout": p, "adapters": "fp32"}: peft's defaults are fp32 adapters
        lora_config, _, _ = L._lora_config(family, model, rank, _peft_targets(targets), options.get("dropout", 0.0))
        top = get_peft_model(model, lora_config, autocast_adapter_dtype=options.get("adapters") == "fp32")
        if checkpointing == "layer":
            model.enable_input_require_grads()
    params = list({id(p): p for p in top.parameters() if p.requires_grad}.values())
    if recipe == "mixed":
        opt = _MasterCopy(params, lambda ps: _optimizer(optimizer, impl, ps))
    else:
        opt = _optimizer(optimizer, impl, params)
    ids = torch.randint(0, M.VOCAB, (batch, seq))
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if recipe == "amp" else contextlib.nullcontext
    tracker = PeakTracker(explain=explain)
    tracker.track_all(p for p in top.parameters())
    tracker.track_all(b for b in top.buffers())
    tracker.track_all([ids])
    if recipe == "mixed":
        tracker.track_all(opt.master)
    head = top.get_output_embeddings()

    def after_head(module, args):  # when the head's input gets its gradient, the layers' backward starts
        if torch.is_grad_enabled() and args[0].requires_grad:
            args[0].register_hook(lambda grad: tracker.switch(tracker.phase.replace("backward", "layers")))
    hook = head.register_forward_pre_hook(after_head)
    with tracker:
        for step in (1, 2):
            with tracker.in_phase(f"{step}.forward"):
                with autocast():
                    out = top(input_ids=ids, labels=ids, use_cache=False)
                loss = out.loss
            with tracker.in_phase(f"{step}.backward"):
                loss.backward()
            del out, loss  # a Trainer step drops the outputs before the optimizer step
            with tracker.in_phase(f"{step}.optimizer"):
                opt.step()
            with tracker.in_phase(f"{step}.zero_grad"):
                opt.zero_grad(set_to_none=True)
    hook.remove()
    if explain:
        explain_peak(tracker)
    phases = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("2.")}
    first = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("1.")}
    weights = sum(p.numel() * p.element_size() for p in {id(p): p for p in top.parameters()}.values())
    trainable = sum(p.numel() * p.element_size() for p in params)
    peak = max(v["peak"] for v in tracker.phases.values())
    return config, {
        "weight_bytes": weights, "trainable_bytes": trainable,
        "phases": phases, "first_step": first, "peak_bytes": peak,
        "peak_phase": max(phases, key=lambda k: phases[k]["peak"]),
    }


def training_plan():
    """(family, attention, recipe, batch, seq, checkpointing, optimizer, impl, lora)."""
    cases = []
    for family in M.FAMILIES:
        attention = M._any_attention(family)
        cases.append((family, attention, "bf16", 2, 128, "none", "adamw", "foreach", None))
        if "flash" in M._attentions(family):
            cases.append((family, "eager", "bf16", 2, 128, "none", "adamw", "foreach", None))
        cases.append((family, attention, "bf16", 2, 256, "layer", "adamw", "foreach", None))
    for recipe in ("fp32", "amp", "mixed"):
        for family in ("llama", "gpt2", "qwen3_moe"):
            cases.append((family, M._any_attention(family), recipe, 2, 128, "none", "adamw", "foreach", None))
    for impl in ("for-loop", "fused"):
        for recipe in ("bf16", "fp32"):
            cases.append(("llama", "flash", recipe, 2, 128, "none", "adamw", impl, None))
    for optimizer, impl in (("sgd", "foreach"), ("sgd-momentum", "foreach"), ("adafactor", "for-loop")):
        cases.append(("llama", "flash", "bf16", 2, 128, "none", optimizer, impl, None))
        cases.append(("llama", "flash", "fp32", 2, 128, "none", optimizer, impl, None))
    for batch, seq in ((1, 512), (4, 256), (1, 32)):
        cases.append(("llama", "flash", "bf16", batch, seq, "none", "adamw", "foreach", None))
    for family in ("llama", "qwen3", "gemma3_text", "qwen3_moe", "mixtral"):
        for rank in (8, 64):
            for targets in ("qv", "all-linear"):
                cases.append((family, M._any_attention(family), "bf16", 2, 128, "none", "adamw", "foreach",
                              (rank, targets)))
    cases.append(("llama", "flash", "bf16", 2, 256, "layer", "adamw", "foreach", (8, "all-linear")))
    cases.append(("llama", "eager", "bf16", 2, 128, "none", "adamw", "foreach", (8, "all-linear")))
    return cases


def head_training_plan():
    """LoRA on the output head (`--only head`, added to the golden file): llama and qwen3, q,v and all-linear with the
    head at rank 8 with and without checkpointing, q,v with the head at rank 64."""
    cases = []
    for family in ("llama", "qwen3"):
        attention = M._any_attention(family)
        for targets in ("qv+head", "all-linear+head"):
            cases.append((family, attention, "bf16", 2, 128, "none", "adamw", "foreach", (8, targets)))
            cases.append((family, attention, "bf16", 2, 256, "layer", "adamw", "foreach", (8, targets)))
        cases.append((family, attention, "bf16", 2, 128, "none", "adamw", "foreach", (64, "qv+head")))
    return cases


def lora_backward_plan():
    """LoRA's layers' backward over other shapes (`--only lora`, added to the golden file): targets that leave the MLP
    frozen or adapt it alone, ranks, sequence lengths, fp32 (where a layer's backward outgrows the final norm's),
    eager attention at 512 tokens (softmax's backward), per-layer checkpointing, mistral beside llama and qwen3, and
    peft's default fp32 adapters and dropout on a bf16 base."""
    return [
        ("llama", "flash", "bf16", 1, 512, "none", "adamw", "foreach", (8, "qv")),
        ("llama", "flash", "bf16", 4, 64, "none", "adamw", "foreach", (16, "all-linear")),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "o")),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "gate,up,down")),
        ("llama", "flash", "fp32", 2, 128, "none", "adamw", "foreach", (8, "qv")),
        ("llama", "flash", "fp32", 2, 128, "none", "adamw", "foreach", (8, "all-linear")),
        ("llama", "eager", "bf16", 1, 512, "none", "adamw", "foreach", (8, "qv")),
        ("llama", "flash", "bf16", 2, 128, "layer", "adamw", "foreach", (8, "qv")),
        ("llama", "flash", "fp32", 2, 128, "layer", "adamw", "foreach", (8, "qv")),
        ("qwen3", "flash", "bf16", 2, 256, "none", "adamw", "foreach", (8, "down")),
        ("qwen3", "flash", "fp32", 2, 128, "none", "adamw", "foreach", (64, "k")),
        ("qwen3", "flash", "bf16", 2, 128, "layer", "adamw", "foreach", (64, "all-linear")),
        ("mistral", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "qv")),
        ("mistral", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "all-linear+head")),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "qv", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "all-linear", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 2, 256, "layer", "adamw", "foreach", (8, "all-linear", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "qv", {"dropout": 0.05})),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "all-linear", {"dropout": 0.05})),
        ("qwen3", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (16, "all-linear+head",
                                                                         {"adapters": "fp32", "dropout": 0.05})),
        # peft's fp32 adapters under checkpointing and with dropout over other ranks, targets and shapes (2026-12-07)
        ("llama", "flash", "bf16", 2, 256, "layer", "adamw", "foreach", (64, "gate,up,down", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 2, 128, "layer", "adamw", "foreach", (16, "qv", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 1, 512, "layer", "adamw", "foreach", (16, "down", {"adapters": "fp32"})),
        ("qwen3", "flash", "bf16", 2, 128, "layer", "adamw", "foreach", (8, "all-linear", {"adapters": "fp32"})),
        ("llama", "flash", "bf16", 2, 256, "layer", "adamw", "foreach", (8, "all-linear",
                                                                         {"adapters": "fp32", "dropout": 0.1})),
        ("llama", "flash", "bf16", 2, 256, "layer", "adamw", "foreach", (8, "all-linear", {"dropout": 0.1})),
        ("llama", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (8, "all-linear",
                                                                        {"adapters": "fp32", "dropout": 0.1})),
        ("qwen3", "flash", "bf16", 2, 128, "none", "adamw", "foreach", (64, "gate,up,down",
                                                                        {"adapters": "fp32", "dropout": 0.05})),
    ]


def checkpoint_plan():
    """Full fine-tuning with per-layer checkpointing over other shapes and precisions (`--only ckpt`, added to the
    golden file), and the same steps without it as a control: llama (1 × 512, 4 × 64, fp32, eager at 512 tokens,
    the mixed recipe), qwen3 (q/k norms) and mistral."""
    cases = []
    for family, attention, recipe, batch, seq in (
            ("llama", "flash", "bf16", 1, 512), ("llama", "flash", "bf16", 4, 64), ("llama", "flash", "fp32", 2, 128),
            ("llama", "eager", "bf16", 1, 512), ("llama", "flash", "mixed", 2, 128), ("qwen3", "flash", "bf16", 2, 128),
            ("qwen3", "flash", "fp32", 2, 256), ("mistral", "flash", "fp32", 1, 256)):
        for checkpointing in ("layer", "none"):
            cases.append((family, attention, recipe, batch, seq, checkpointing, "adamw", "foreach", None))
    return cases


PEFT_NAMES = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
              "down": "down_proj"}


def _peft_targets(targets):
    """tools/measure_lora.py's names (qv, all-linear, +head), or the engine's comma-separated ones (o, gate,up,down)
    as peft module names."""
    if targets in ("qv", "all-linear") or targets.endswith("+head"):
        return targets
    return [PEFT_NAMES[name] for name in targets.split(",")]


# ---------------------------------------------------------------- inference prefill


def measure_prefill(family, attention, dtype_name, batch, seq, explain=False):
    model, config = M.build(family, attention, M.DTYPES[dtype_name])
    model.eval()
    # An unpadded prompt: `generate(pad_token_id=0)` reads every id 0 as padding, and a padded prompt gets
    # an explicit batch × 1 × s × s mask (masking_utils `_ignore_causal_mask_sdpa`), so no id may be 0.
    ids = torch.randint(1, M.VOCAB, (batch, seq))
    tracker = PeakTracker(explain=explain)
    tracker.track_all(model.parameters())
    tracker.track_all(model.buffers())
    tracker.track_all([ids])
    start = tracker.live
    with torch.no_grad(), tracker, tracker.in_phase("generate"):
        out = model.generate(ids, max_new_tokens=1, min_new_tokens=1, do_sample=False, use_cache=True,
                             return_dict_in_generate=True, pad_token_id=0)
    cache = out.past_key_values
    storages = {}
    for layer in cache.layers:
        for _, t in M._cache_tensors(layer):
            storages[id(t.untyped_storage())] = t.untyped_storage().nbytes()
    cache_bytes = sum(storages.values())
    if explain:
        explain_peak(tracker)
    return config, {"peak_above_start_bytes": tracker.phases["generate"]["peak"] - start,
                    "peak_op": tracker.phases["generate"]["peak_op"], "cache_bytes_after": cache_bytes}


def prefill_plan():
    cases = []
    for family in M.FAMILIES:
        for attention in M._attentions(family):
            cases.append((family, attention, "bf16", 2, 256))
    for dtype in ("bf16", "fp32"):
        for attention in ("eager", "flash"):
            for batch, seq in ((1, 128), (4, 512), (1, 2048)):
                cases.append(("llama", attention, dtype, batch, seq))
    for family in ("gpt2", "qwen3_moe", "gemma3_text", "mixtral", "deepseek_v3"):
        cases.append((family, M._any_attention(family), "fp32", 4, 512))
        cases.append((family, M._any_attention(family), "bf16", 1, 2048))
    return list(dict.fromkeys(cases))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_peak.json")
    parser.add_argument("--only", choices=("training", "prefill", "toy", "head", "lora", "ckpt"),
                        help="head: only the LoRA-on-the-head cases, added to (or replaced in) --out; lora: only "
                             "lora_backward_plan's, likewise; ckpt: only checkpoint_plan's, likewise")
    parser.add_argument("--families", nargs="+")
    parser.add_argument("--explain-prefill", nargs=5, metavar=("FAMILY", "ATTENTION", "DTYPE", "BATCH", "SEQ"),
                        help="measure one prefill and print the largest storages live at its peak (writes nothing)")
    parser.add_argument("--explain-training", nargs=6,
                        metavar=("FAMILY", "ATTENTION", "RECIPE", "BATCH", "SEQ", "CHECKPOINTING"),
                        help="measure one AdamW (foreach) training case and print the storages live at its peak")
    args = parser.parse_args(argv)
    if args.explain_training:
        family, attention, recipe, batch, seq, checkpointing = args.explain_training
        torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
        _, measured = measure_training(family, attention, recipe, int(batch), int(seq), checkpointing, explain=True)
        print({"peak_bytes": measured["peak_bytes"], "peak_phase": measured["peak_phase"]}, file=sys.stderr)
        return
    if args.explain_prefill:
        family, attention, dtype, batch, seq = args.explain_prefill
        torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
        _, measured = measure_prefill(family, attention, dtype, int(batch), int(seq), explain=True)
        print({k: v for k, v in measured.items()}, file=sys.stderr)
        return
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.only in ("head", "lora", "ckpt"):  # the other cases as they were measured, these replaced
        plan = {"head": head_training_plan, "lora": lora_backward_plan, "ckpt": checkpoint_plan}[args.only]()
        with open(args.out, encoding="utf-8") as f:
            result = json.load(f)
        replaced = {json.dumps(_training_entry(*case)) for case in plan}
        result["training"] = [c for c in result["training"] if json.dumps(
            {k: c[k] for k in _training_entry(*plan[0])}) not in replaced]
        _run(plan, measure_training, _training_entry, result["training"], result["skipped"], args.families)
        M.write_json(args.out, result)
        return
    result = {**M.provenance("tools/measure_peak.py"), "toy": check_tracker(), "training": [], "prefill": [],
              "skipped": []}
    if args.only in (None, "training"):
        _run(training_plan(), measure_training, _training_entry, result["training"], result["skipped"], args.families)
    if args.only in (None, "prefill"):
        _run(prefill_plan(), measure_prefill, _prefill_entry, result["prefill"], result["skipped"], args.families)
    M.write_json(args.out, result)


def _run(plan, measure, entry, out, skipped, families):
    """Measure every case of a plan (only `families` when given); a case that raises is recorded as skipped."""
    for case in plan:
        if families and case[0] not in families:
            continue
        started = time.monotonic()
        try:
            config, measured = measure(*case)
        except Exception as error:
            skipped.append({"case": list(case), "reason": f"{type(error).__name__}: {error}"})
            print("SKIPPED", case, error, file=sys.stderr)
            continue
        out.append({**entry(*case), "config": config, **measured})
        print(case, f"{time.monotonic() - started:.1f}s", file=sys.stderr)


def _training_entry(family, attention, recipe, batch, seq, checkpointing, optimizer, impl, lora):
    return {"family": family, "attention": attention, "recipe": recipe, "batch": batch, "seq": seq,
            "checkpointing": checkpointing, "optimizer": optimizer, "optimizer_impl": impl,
            "lora": {"rank": lora[0], "targets": lora[1], **(lora[2] if len(lora) > 2 else {})} if lora else None}


def _prefill_entry(family, attention, dtype, batch, seq):
    return {"family": family, "attention": attention, "precision": dtype, "batch": batch, "seq": seq}

if __name__ == "__main__":
    main()
