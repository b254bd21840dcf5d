"""Measure the bytes LoRA fine-tuning (peft) holds on small models, for the golden tests.

A developer tool, not run by CI, built on tools/measure_reference.py: the same small
random-weight models (`build`, FAMILIES), the same bool-mask dropout (what CUDA keeps) and
the same way of counting activations (`SavedBytes`: every storage autograd saves for
backward, each once, parameters excluded, plus the logits storage; with per-layer
checkpointing, reentrant, the layer inputs the checkpoints keep plus the largest one-layer
recompute during backward).

Each case wraps a bf16 model with peft
`LoraConfig(r=R, lora_alpha=2R, target_modules=TARGETS, lora_dropout=D, bias="none")`,
runs one forward + backward + AdamW step and records:

- `trainable_params` (peft's count) and `adapter_bytes` (bytes of the trainable tensors);
- `gradient_bytes` after backward (only the adapters get gradients);
- `adamw_state_bytes` after one step over the trainable parameters (exp_avg + exp_avg_sq);
- `saved_bytes` / `forward_saved_bytes` / `recompute_bytes_per_layer` as in
  measure_reference.measure_training, and `attribution`: those bytes grouped by the module
  that was running when autograd packed the tensor (a stack kept by forward pre/post hooks
  on every module): the role inside an adapted linear (`base_layer`, `lora_dropout`,
  `lora_A`, `lora_B`, `wrapper` for the peft layer's own ops), or the module class
  elsewhere. A storage is credited to the first module that saves it, so an input shared
  by several projections counts once, under the first. A few cases (DETAIL) also list every
  saved tensor (`saved_tensors`: module, role, shape, dtype, storage bytes).

Adapters: peft's default `autocast_adapter_dtype=True` upcasts bf16/fp16 adapter weights to
fp32 (and then casts each adapted layer's input to fp32 before lora_A). The cases are
measured with `autocast_adapter_dtype=False`, so that adapters stay bf16, plus a few llama
cases with the default fp32 adapters (`adapter_dtype: "fp32"`).

Checkpointing follows Trainer + peft: `gradient_checkpointing_enable(use_reentrant=True)`
before wrapping, and `enable_input_require_grads()` (peft's PeftModel already calls it when
the model has checkpointing on), so that the reentrant checkpoints see an input that
requires grad although the embeddings are frozen. Without checkpointing nothing is forced:
the embedding output then does not require grad, as in a plain peft run.

MoE families on transformers 5 keep their experts as fused 3-D parameters, not nn.Linear:
peft's "all-linear" maps them (and the router weight) to `target_parameters`, adapted by
`ParamWrapper`, which adds W + s·B·A to the expert weight on every forward (a tensor the size
of the expert stack) and refuses lora_dropout > 0. For those cases with D > 0 the tool uses
the nn.Linear modules "all-linear" resolves to (`target_modules_used` says which); peft's
v4-to-v5 MoE remap also sends the names gate_proj/up_proj/down_proj to the experts, so the
dense MLP of the first layers and shared experts are left unadapted by "all-linear".
DeepSeek V3's MLA has no q_proj / v_proj: ["q_b_proj", "kv_b_proj"] (the up-projections to q
and to k_nope / v) stand for them. DeepSeek V3 runs with eager attention only (see MATH_SDPA
in measure_reference).

For comparison every case also carries `full_finetune`, measure_reference.measure_training
of the same base model, precision, attention, batch, seq and checkpointing.

About 12 minutes on two CPU cores (`--quick`: the minimum set of cases).

Usage: python tools/measure_lora.py [--out tests/golden/measured_lora.json] [--families NAME ...] [--quick]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# measure_reference first: importing it patches dropout to the bool-mask version.
# isort: off
import measure_reference as M

import peft
import transformers
from peft import LoraConfig, get_peft_model
from peft.tuners.lora import layer as lora_layer
from peft.utils import transformers_weight_conversion as twc
# isort: on

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

LORA_FAMILIES = ("llama", "qwen3", "gemma3_text", "qwen3_moe", "mixtral", "deepseek_v3")
MOE_FAMILIES = frozenset({"qwen3_moe", "mixtral", "deepseek_v3"})
QV = ("q_proj", "v_proj")
QV_SUBSTITUTE = {"deepseek_v3": ["q_b_proj", "kv_b_proj"]}
DTYPE = "bf16"


def _linear_targets(model):
    """The nn.Linear leaf names "all-linear" adapts as modules: every nn.Linear but the output head,
    less the names peft's v4-to-v5 MoE remap sends to the fused expert / router parameters."""
    head = model.get_output_embeddings()
    pattern = twc._MODEL_TO_CONVERSION_PATTERN.get(model.config.model_type)
    remapped = set(twc._MOE_TARGET_MODULE_MAPPING.get(pattern, {}))
    return sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                   if isinstance(module, torch.nn.Linear) and module is not head} - remapped)


def _lora_config(family, model, rank, targets, dropout):
    """LoraConfig for a case, and notes when the requested targets had to be changed. "+head" adds the output head
    (peft's `lm_head` module: litgpt's lora_head, torchtune's apply_lora_to_output); "all-linear+head" names the
    modules all-linear resolves to, as peft's all-linear leaves the head out."""
    notes = []
    if not isinstance(targets, str):  # a list of module names, as given
        used = list(targets)
    elif targets.endswith("+head"):
        base = targets.removesuffix("+head")
        used = (list(QV) if base == "qv" else _linear_targets(model)) + ["lm_head"]
    elif targets == "qv":
        used = QV_SUBSTITUTE.get(family, list(QV))
        if family in QV_SUBSTITUTE:
            notes.append(f"no q_proj/v_proj in this architecture: targets {used}")
    elif family in MOE_FAMILIES and dropout > 0:
        used = _linear_targets(model)
        notes.append("peft's all-linear adapts the fused experts/router with ParamWrapper, which refuses "
                     "lora_dropout > 0: measured with the nn.Linear targets of all-linear only")
    else:
        used = "all-linear"
    config = LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=used, lora_dropout=dropout, bias="none")
    return config, used, notes


class AttributedSaved(M.SavedBytes):
    """SavedBytes that also credits each new storage to the module running when it was packed."""

    def __init__(self, model, stack, already=None):
        super().__init__(model, already)
        self.stack = stack
        self.by_role = {}
        self.by_linear = {}
        self.tensors = []

    def pack(self, tensor):
        storage = tensor.untyped_storage()
        ptr = storage.data_ptr()
        if ptr not in self.param_ptrs and ptr not in self.seen:
            nbytes = storage.nbytes()
            role, linear, name = _role(self.stack)
            self.by_role[role] = self.by_role.get(role, 0) + nbytes
            if linear is not None:
                entry = self.by_linear.setdefault(linear, {})
                entry[role] = entry.get(role, 0) + nbytes
            self.tensors.append({"module": name, "role": role, "shape": list(tensor.shape),
                                 "dtype": str(tensor.dtype).removeprefix("torch."), "storage_bytes": nbytes})
        return super().pack(tensor)


def _role(stack):
    """(role, adapted linear / parameter name or None, module name) for the innermost running module."""
    if not stack:
        return "outside modules (logits)", None, ""
    name, module = stack[-1]
    for depth in range(len(stack) - 1, -1, -1):
        outer_name, outer = stack[depth]
        if not isinstance(outer, lora_layer.LoraLayer):
            continue
        if isinstance(outer, lora_layer.ParamWrapper):
            # wrappers of several parameters of one module nest: name the chain from its outermost
            while depth > 0 and isinstance(stack[depth - 1][1], lora_layer.ParamWrapper):
                depth -= 1
            outer_name, outer = stack[depth]
            parameters = []
            while isinstance(outer, lora_layer.ParamWrapper):
                parameters.append(outer.parameter_name)
                outer = outer.base_layer
            leaf = f"{outer_name.rsplit('.', 1)[-1]}:{'+'.join(parameters)}"
            if isinstance(module, lora_layer.ParamWrapper):
                return "wrapper", leaf, name
            return "base_layer (parametrized)", leaf, name
        leaf = outer_name.rsplit(".", 1)[-1]
        if depth == len(stack) - 1:
            return "wrapper", leaf, name
        part = stack[depth + 1][0][len(outer_name) + 1:].split(".", 1)[0]
        return part, leaf, name  # lora_A, lora_B, lora_dropout or base_layer
    if isinstance(module, torch.nn.Linear):
        return "Linear (not adapted)", None, name
    return type(module).__name__, None, name


def _module_stack(model):
    stack, handles = [], []
    for name, module in model.named_modules():
        def push(mod, args, name=name):
            stack.append((name, mod))

        def pop(mod, args, output):
            stack.pop()
        handles.append(module.register_forward_pre_hook(push))
        handles.append(module.register_forward_hook(pop, always_call=True))
    return stack, handles


def _unique(params):
    return list({id(p): p for p in params}.values())


def measure(family, attention, batch, seq, checkpointing, rank=None, targets=None, dropout=0.0,
            adapter_fp32=False, detail=False):
    """One training step; LoRA when `rank` is given, full fine-tuning otherwise."""
    model, config = M.build(family, attention, M.DTYPES[DTYPE])
    model.train()
    if checkpointing == "layer":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    case = {}
    top = model
    if rank is not None:
        lora_config, used, notes = _lora_config(family, model, rank, targets, dropout)
        top = get_peft_model(model, lora_config, autocast_adapter_dtype=adapter_fp32)
        peft_hooked = bool(getattr(model, "_require_grads_hooks", None))
        if checkpointing == "layer" and not peft_hooked:
            model.enable_input_require_grads()
        trainable, total = top.get_nb_trainable_parameters()
        resolved = top.peft_config["default"]
        adapted = sorted({n.rsplit(".", 1)[-1] for n, m in top.named_modules()
                          if isinstance(m, lora_layer.LoraLayer) and not isinstance(m, lora_layer.ParamWrapper)})
        wrapped = sorted({f"{n.rsplit('.', 1)[-1]}.{m.parameter_name}" for n, m in top.named_modules()
                          if isinstance(m, lora_layer.ParamWrapper)})
        case["lora"] = {
            "r": rank, "lora_alpha": 2 * rank,
            "target_modules": {"qv": list(QV), "all-linear": "all-linear", "qv+head": [*QV, "lm_head"],
                               "all-linear+head": ["all-linear", "lm_head"]}[targets]
            if isinstance(targets, str) else list(targets),
            "target_modules_used": used, "lora_dropout": dropout, "bias": "none",
            "adapter_dtype": "fp32" if adapter_fp32 else "bf16",
            "autocast_adapter_dtype": adapter_fp32,
            "resolved_target_modules": sorted(resolved.target_modules or []),
            "resolved_target_parameters": sorted(resolved.target_parameters or []),
            "adapted_linears": adapted, "adapted_parameters": wrapped,
            "input_require_grads": checkpointing == "layer",
            **({"notes": notes} if notes else {}),
        }
        case["trainable_params"] = trainable
        case["all_params"] = total
        trainable_tensors = _unique(p for p in top.parameters() if p.requires_grad)
        case["adapter_bytes"] = sum(p.numel() * p.element_size() for p in trainable_tensors)
        case["adapter_dtypes"] = sorted({str(p.dtype).removeprefix("torch.") for p in trainable_tensors})
    ids = torch.randint(0, M.VOCAB, (batch, seq))
    stack, stack_handles = _module_stack(top)
    saved = AttributedSaved(top, stack)
    handles = []
    if checkpointing == "layer":
        def keep_input(module, args, kwargs):
            hidden = args[0] if args else kwargs["hidden_states"]
            saved.add_tensor(hidden)
        for layer in M._decoder_layers(model):
            handles.append(layer.register_forward_pre_hook(keep_input, with_kwargs=True))
    with saved.hooks():
        out = top(input_ids=ids, labels=ids, use_cache=False)
    for handle in handles:
        handle.remove()
    saved.add_tensor(out.logits)  # held by the caller until backward; no module on the stack: "outside modules"
    forward_bytes = saved.bytes
    recomputes = []
    original_backward = torch.utils.checkpoint.CheckpointFunction.backward

    def counted_backward(ctx, *grads):
        recompute = AttributedSaved(top, stack, already=saved)
        with recompute.hooks():
            result = original_backward(ctx, *grads)
        recomputes.append(recompute)
        return result

    torch.utils.checkpoint.CheckpointFunction.backward = staticmethod(counted_backward)
    try:
        out.loss.backward()
    finally:
        torch.utils.checkpoint.CheckpointFunction.backward = staticmethod(original_backward)
        for handle in stack_handles:
            handle.remove()
    largest = max(recomputes, key=lambda r: r.bytes, default=None)
    one_layer_recompute = largest.bytes if largest else 0
    params = _unique(top.parameters())
    grads = sum(p.grad.numel() * p.grad.element_size() for p in params if p.grad is not None)
    optimizer = torch.optim.AdamW([p for p in params if p.requires_grad], lr=1e-4)
    optimizer.step()
    state = sum(t.numel() * t.element_size() for s in optimizer.state.values()
                for k, t in s.items() if k in ("exp_avg", "exp_avg_sq"))
    tokens = batch * seq
    attribution = {"forward_by_role": saved.by_role,
                   "forward_by_adapted_linear": saved.by_linear,
                   "forward_per_token_by_adapted_linear": {
                       k: {role: v / tokens for role, v in roles.items()} for k, roles in saved.by_linear.items()}}
    if largest:
        attribution["recompute_by_role"] = largest.by_role
        attribution["recompute_by_adapted_linear"] = largest.by_linear
    measured = {"saved_bytes": forward_bytes + one_layer_recompute, "forward_saved_bytes": forward_bytes,
                "recompute_bytes_per_layer": one_layer_recompute, "gradient_bytes": grads,
                "adamw_state_bytes": state}
    case.update(measured)
    case["attribution"] = attribution
    if detail:
        case["saved_tensors"] = saved.tensors
    return config, case


_FULL: dict[tuple[object, ...], dict[str, object]] = {}  # full fine-tuning measured once per case


def full_finetune(family, attention, batch, seq, checkpointing):
    key = (family, attention, batch, seq, checkpointing)
    if key not in _FULL:
        _, measured = M.measure_training(family, attention, DTYPE, batch, seq, checkpointing)
        _FULL[key] = measured
    return _FULL[key]


def plan(family, quick=False):
    """(attention, batch, seq, checkpointing, rank, targets, dropout, adapter_fp32) for a family."""
    attentions = M._attentions(family)
    sdpa = M._any_attention(family)
    cases = []
    if family == "llama" and not quick:
        for attention in attentions:
            for batch, seq in ((1, 128), (2, 256)):
                for checkpointing in ("none", "layer"):
                    for rank in (8, 64):
                        for targets in ("qv", "all-linear"):
                            for dropout in (0.0, 0.05):
                                cases.append((attention, batch, seq, checkpointing, rank, targets, dropout, False))
        for checkpointing in ("none", "layer"):  # peft's default: fp32 adapters on a bf16 model
            for targets in ("qv", "all-linear"):
                for dropout in (0.0, 0.05):
                    cases.append((sdpa, 1, 128, checkpointing, 8, targets, dropout, True))
        return cases
    for targets in ("qv", "all-linear"):
        for dropout in (0.0, 0.05):
            cases.append((sdpa, 1, 128, "none", 8, targets, dropout, False))
    if not quick:
        # beyond the minimum: rank 64; the larger batch without and with checkpointing; eager attention
        for targets in ("qv", "all-linear"):
            for dropout in (0.0, 0.05):
                cases.append((sdpa, 1, 128, "none", 64, targets, dropout, False))
                cases.append((sdpa, 2, 256, "none", 8, targets, dropout, False))
                cases.append((sdpa, 2, 256, "layer", 8, targets, dropout, False))
                if len(attentions) > 1:
                    cases.append(("eager", 1, 128, "none", 8, targets, dropout, False))
    return cases


def head_plan():
    """LoRA on the output head (`--head`): llama and qwen3 (untied heads in these small configs) and gemma3_text (tied),
    q,v and all-linear with the head, dropout 0 and 0.05, bf16 and fp32 adapters, with and without checkpointing."""
    cases = []
    for family in ("llama", "qwen3", "gemma3_text"):
        sdpa = M._any_attention(family)
        for targets in ("qv+head", "all-linear+head"):
            for dropout in (0.0, 0.05):
                cases.append((family, sdpa, 1, 128, "none", 8, targets, dropout, False))
        if family == "llama":
            cases.append((family, sdpa, 2, 256, "layer", 8, "qv+head", 0.05, False))
            cases.append((family, sdpa, 1, 128, "none", 64, "qv+head", 0.0, False))
            cases.append((family, sdpa, 1, 128, "none", 8, "qv+head", 0.0, True))
            cases.append((family, sdpa, 1, 128, "none", 8, "all-linear+head", 0.05, True))
    return cases


DETAIL = {("llama", "flash", 1, 128, "none", 8, "all-linear", 0.05, False),
          ("llama", "flash", 1, 128, "none", 8, "qv", 0.0, False),
          ("llama", "flash", 1, 128, "none", 8, "all-linear", 0.05, True),
          ("qwen3_moe", "flash", 1, 128, "none", 8, "all-linear", 0.0, False)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_lora.json")
    parser.add_argument("--families", nargs="+", choices=LORA_FAMILIES, metavar="FAMILY")
    parser.add_argument("--quick", action="store_true", help="only the minimum set of cases")
    parser.add_argument("--head", action="store_true",
                        help="only the cases with LoRA on the output head, added to (or replaced in) --out")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cases, skipped = [], []
    for family in args.families or LORA_FAMILIES:
        started = time.monotonic()
        planned = ([c[1:] for c in head_plan() if c[0] == family] if args.head else plan(family, args.quick))
        for attention, batch, seq, checkpointing, rank, targets, dropout, fp32 in planned:
            key = (family, attention, batch, seq, checkpointing, rank, targets, dropout, fp32)
            try:
                config, case = measure(family, attention, batch, seq, checkpointing, rank, targets, dropout, fp32,
                                       detail=key in DETAIL)
            except Exception as error:  # peft refusing a wrap: record why, go on
                skipped.append({"family": family, "attention": attention, "batch": batch, "seq": seq,
                                "checkpointing": checkpointing, "r": rank, "target_modules": targets,
                                "lora_dropout": dropout, "reason": f"{type(error).__name__}: {error}"})
                print(family, "SKIPPED", key, error, file=sys.stderr)
                continue
            full = full_finetune(family, attention, batch, seq, checkpointing)
            case["full_finetune"] = full
            case["saved_ratio_to_full_finetune"] = round(case["saved_bytes"] / full["saved_bytes"], 4)
            cases.append({"kind": "lora_training", "family": family, "config": config, "attention": attention,
                          "attn_implementation": M.ATTENTION[attention], "precision": DTYPE, "batch": batch,
                          "seq": seq, "checkpointing": checkpointing, **case})
            print(family, attention, batch, seq, checkpointing, rank, targets, dropout, "fp32" if fp32 else "bf16",
                  case["saved_bytes"], full["saved_bytes"], case["saved_ratio_to_full_finetune"], file=sys.stderr)
        print(family, f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    result = {
        **M.provenance("tools/measure_lora.py"),
        "peft": peft.__version__,
        "peft_default_adapter_dtype": "fp32: get_peft_model(autocast_adapter_dtype=True) upcasts bf16/fp16 "
                                      "adapter weights to fp32; cases with adapter_dtype bf16 pass False",
        "notes": [
            ("All six families wrap. For the MoE families (transformers 5 fused experts) peft's all-linear adapts the "
             "experts and the router through ParamWrapper (target_parameters), which refuses lora_dropout > 0: those "
             "cases use the nn.Linear targets of all-linear instead (see each case's lora.notes)."),
            "deepseek_v3 has no q_proj/v_proj (MLA): q_b_proj and kv_b_proj stand for them; eager attention only.",
            ("torch AdamW keeps exp_avg / exp_avg_sq in the parameter dtype: bf16 adapters 4 B per parameter, "
             "fp32 adapters 8 B."),
        ],
        "cases": cases,
        "skipped": skipped,
    }
    if args.head:  # the other cases as they were measured, the head's replaced
        import json
        with open(args.out, encoding="utf-8") as f:
            kept = json.load(f)

        def on_head(case):
            modules = case["lora"]["target_modules"]
            return isinstance(modules, list) and "lm_head" in modules
        kept["cases"] = [c for c in kept["cases"] if not on_head(c)] + cases
        kept["skipped"] = [s for s in kept["skipped"] if "head" not in str(s["target_modules"])] + skipped
        result = kept
    M.write_json(args.out, result)


if __name__ == "__main__":
    main()
