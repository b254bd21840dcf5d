"""Measure what one rank holds under FSDP2, tensor parallelism and DDP, for the golden tests.

A developer tool, not run by CI, built on tools/measure_reference.py (the same small random-weight
models) and tools/measure_peak.py (the same storage-counting tracker). Every case runs in its own
group of processes (`torch.multiprocessing.spawn`, backend gloo, on the CPU), and every rank counts
its own bytes.

The tracker is measure_peak's `PeakTracker` with two changes that several processes need:

- a DTensor (FSDP2's sharded parameters, gradients and optimizer states; tensor parallel weights)
  is counted by its local tensor, the bytes that rank holds;
- sizes are read again after every op: FSDP2 allocates and frees the unsharded parameters by
  resizing their storages (`untyped_storage().resize_()`, outside the dispatcher), so a storage's
  size at first sight is not its size later. The live bytes are the sum of the current sizes of
  every storage alive, taken after each op.

What it does not see, as `max_memory_allocated` would not: gloo's own buffers inside a collective,
and the temporaries a DTensor op makes inside its own dispatch (its outputs are counted).

Cases (every rank's numbers are kept; ranks differ only by padding, none here):

- `fsdp`: FSDP2 `fully_shard` on every decoder layer and on the model, pure bf16, AdamW foreach,
  2 × 128 tokens per rank, two full steps (forward with the loss, backward, step,
  `zero_grad(set_to_none=True)`), the phases of the second. `full-shard` is FSDP2's default
  (layers reshard after forward; the root does not, FSDP2's default for the root), `shard-grad-op`
  passes `reshard_after_forward=False` everywhere. World 2 and 4.
- `tp`: `parallelize_module` with ColwiseParallel on q/k/v/gate/up and RowwiseParallel on o/down,
  norms replicated, inference `generate(max_new_tokens=1)` on the same prompt on every rank.
  Two plans for the embedding and the head: `replicated` (as many TP recipes do) and
  `vocab-parallel` (embedding RowwiseParallel, head ColwiseParallel gathering the logits,
  as Megatron's vocabulary-parallel layers, the engine's assumption). World 2 and 4.
- `ddp`: DistributedDataParallel, pure bf16, AdamW foreach, with and without
  `gradient_as_bucket_view`, world 2.
- `pp`: a 2-stage pipeline split by hand: stage 1 the embedding and the first half of the layers,
  stage 2 the rest, the final norm and the head; one micro-batch, activations sent with
  send/recv, training with AdamW foreach on each stage's own parameters. World 2.

About 12 minutes on two CPU cores (world 4 runs four processes on them).

Usage: python3 tools/measure_parallel.py [--out tests/golden/measured_parallel.json] [--only fsdp tp ddp pp]
Needs: pip install torch==2.13.0 transformers
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
import traceback
import warnings
import weakref

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_reference as M  # also patches dropout to the bool-mask version
from measure_peak import PeakTracker

warnings.filterwarnings("ignore")

BATCH, SEQ = 2, 128  # per rank (training), the prompt (prefill)


class RankTracker(PeakTracker):
    """PeakTracker counting DTensors by their local tensor and re-reading storage sizes after every op.
    `snapshot`, when given, is called at every new peak of the whole run; what it returns is kept
    as `at_peak` (what the rank held at its peak, e.g. FSDP's unsharded parameters)."""

    def __init__(self, snapshot=None):
        super().__init__()
        self.snapshot = snapshot
        self.at_peak = {}

    def track(self, tensor):
        from torch.distributed.tensor import DTensor
        if isinstance(tensor, DTensor):
            tensor = tensor._local_tensor
        if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
            return
        storage = tensor.untyped_storage()
        key = id(storage)
        if key in self.refs:
            return
        self.refs[key] = weakref.ref(storage, lambda _, key=key: self.refs.pop(key, None))
        self.refresh()

    def refresh(self):
        live = 0
        for ref in list(self.refs.values()):
            storage = ref()
            if storage is not None:
                live += storage.nbytes()
        self.live = live
        if live > self.peak:
            self.peak = live
            if self.snapshot is not None:
                self.at_peak = {"live": live, **self.snapshot()}
        if self.phase is not None:
            entry = self.phases[self.phase]
            if live > entry["peak"]:
                entry["peak"], entry["peak_op"] = live, self.last_op

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = super().__torch_dispatch__(func, types, args, kwargs)
        self.refresh()
        return out

    def switch(self, name):
        self.refresh()
        super().switch(name)

    def in_phase(self, name):
        self.refresh()
        return super().in_phase(name)


def local_bytes(tensors):
    """Bytes of the storages behind these tensors (DTensors by their local tensor), each storage once."""
    from torch.distributed.tensor import DTensor
    seen = {}
    for t in tensors:
        if t is None:
            continue
        if isinstance(t, DTensor):
            t = t._local_tensor
        storage = t.untyped_storage()
        seen[id(storage)] = storage.nbytes()
    return sum(seen.values())


def local_numel_bytes(tensors):
    """numel × element size of the local tensors (what the rank owns, without storage padding)."""
    from torch.distributed.tensor import DTensor
    total = 0
    for t in tensors:
        if t is None:
            continue
        if isinstance(t, DTensor):
            t = t._local_tensor
        total += t.numel() * t.element_size()
    return total


def _params(model):
    return list({id(p): p for p in model.parameters()}.values())


def _optimizer_state_bytes(optimizer):
    return local_bytes(t for s in optimizer.state.values() for k, t in s.items() if k in ("exp_avg", "exp_avg_sq"))


# ---------------------------------------------------------------- cases


def fsdp_case(rank, world, family, strategy):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    model, config = M.build(family, M._any_attention(family), torch.bfloat16)
    model.train()
    groups = []
    if strategy != "none":  # "none": one process, no sharding (the baseline)
        mesh = init_device_mesh("cpu", (world,))
        reshard = strategy == "full-shard"
        for layer in M._decoder_layers(model):
            fully_shard(layer, mesh=mesh, reshard_after_forward=reshard)
        fully_shard(model, mesh=mesh, reshard_after_forward=None if reshard else False)
        groups = [m for m in model.modules() if hasattr(m, "_get_fsdp_state")]
    params = _params(model)
    optimizer = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    torch.manual_seed(1 + rank)  # each rank its own batch
    ids = torch.randint(0, M.VOCAB, (BATCH, SEQ))

    def unsharded():
        """Bytes of the unsharded (gathered) parameters alive, and of the all-gather outputs not yet copied
        out (a prefetch in flight), by FSDP group."""
        params, buffers = {}, {}
        for module in groups:
            group = module._get_fsdp_state()._fsdp_param_group
            if group is None:
                continue
            name = "root" if module is model else f"layer {list(M._decoder_layers(model)).index(module)}"
            params[name] = sum(p._unsharded_param.untyped_storage().nbytes() for p in group.fsdp_params
                               if hasattr(p, "_unsharded_param"))
            pending = group._all_gather_result
            buffers[name] = pending.all_gather_output.untyped_storage().nbytes() if pending is not None else 0
        return {"unsharded_param_bytes": sum(params.values()), "unsharded_by_group": params,
                "all_gather_output_bytes": sum(buffers.values()), "all_gather_output_by_group": buffers}

    tracker = RankTracker(unsharded if groups else None)
    tracker.track_all(params)
    tracker.track_all(model.buffers())
    tracker.track_all([ids])
    grads = _two_steps(tracker, model, params, optimizer, ids)
    return config, {
        "weight_bytes": local_bytes(params), "weight_numel_bytes": local_numel_bytes(params),
        **grads, "optimizer_state_bytes": _optimizer_state_bytes(optimizer),
        **_peaks(tracker), "at_peak": tracker.at_peak,
    }


def _two_steps(tracker, model, params, optimizer, ids):
    """Two training steps under the tracker, each phase named; the second step's gradients, as they
    stand after its backward."""
    grads = {}
    with tracker:
        for step in (1, 2):
            with tracker.in_phase(f"{step}.forward"):
                out = model(input_ids=ids, labels=ids, use_cache=False)
                loss = out.loss
            with tracker.in_phase(f"{step}.backward"):
                loss.backward()
            del out, loss
            if step == 2:
                grads = {"gradient_bytes": local_bytes(p.grad for p in params),
                         "gradient_numel_bytes": local_numel_bytes(p.grad for p in params)}
            with tracker.in_phase(f"{step}.optimizer"):
                optimizer.step()
            with tracker.in_phase(f"{step}.zero_grad"):
                optimizer.zero_grad(set_to_none=True)
    return grads


def _peaks(tracker):
    phases = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("2.")}
    return {"phases": phases, "peak_bytes": max(v["peak"] for v in tracker.phases.values()),
            "peak_phase": max(phases, key=lambda k: phases[k]["peak"])}


def ddp_case(rank, world, family, bucket_view):
    from torch.nn.parallel import DistributedDataParallel
    model, config = M.build(family, M._any_attention(family), torch.bfloat16)
    model.train()
    ddp = DistributedDataParallel(model, gradient_as_bucket_view=bucket_view)
    params = _params(model)
    optimizer = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    torch.manual_seed(1 + rank)
    ids = torch.randint(0, M.VOCAB, (BATCH, SEQ))
    tracker = RankTracker()
    tracker.track_all(params)
    tracker.track_all(model.buffers())
    tracker.track_all([ids])
    grads = _two_steps(tracker, ddp, params, optimizer, ids)
    reducer_buckets = _ddp_bucket_bytes(ddp)
    return config, {"weight_bytes": local_bytes(params), **grads,
                    "optimizer_state_bytes": _optimizer_state_bytes(optimizer),
                    **reducer_buckets, **_peaks(tracker)}


def _ddp_bucket_bytes(ddp):
    """The reducer's flat gradient buckets, kept from construction on (its logging data lists their sizes)."""
    data = ddp._get_ddp_logging_data()
    sizes = data.get("bucket_sizes")
    return {"bucket_sizes": sizes, "bucket_cap_bytes": data.get("bucket_cap_bytes")}


TP_LAYER_PLAN = {
    "self_attn.q_proj": "colwise", "self_attn.k_proj": "colwise", "self_attn.v_proj": "colwise",
    "self_attn.o_proj": "rowwise", "mlp.gate_proj": "colwise", "mlp.up_proj": "colwise", "mlp.down_proj": "rowwise",
}


def tp_case(rank, world, family, embeddings):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    model, config = M.build(family, M._any_attention(family), torch.bfloat16)
    model.eval()
    style = {"colwise": ColwiseParallel, "rowwise": RowwiseParallel}
    plan = {f"model.layers.*.{name}": style[kind]() for name, kind in TP_LAYER_PLAN.items()}
    if embeddings == "vocab-parallel":
        plan["model.embed_tokens"] = RowwiseParallel(input_layouts=Replicate())
        plan["lm_head"] = ColwiseParallel(output_layouts=Replicate())
    if world > 1:  # world 1: the same prefill in one process, the baseline
        parallelize_module(model, init_device_mesh("cpu", (world,)), plan)
    torch.manual_seed(1)  # the same prompt on every rank
    ids = torch.randint(0, M.VOCAB, (BATCH, SEQ))
    params = _params(model)
    tracker = RankTracker()
    tracker.track_all(params)
    tracker.track_all(model.buffers())
    tracker.track_all([ids])
    tracker.refresh()
    start = tracker.live
    with torch.no_grad(), tracker, tracker.in_phase("generate"):
        out = model.generate(ids, max_new_tokens=1, min_new_tokens=1, do_sample=False, use_cache=True,
                             return_dict_in_generate=True, pad_token_id=0)
    cache = out.past_key_values
    cache_bytes = local_bytes(t for layer in cache.layers for _, t in M._cache_tensors(layer))
    return config, {"weight_bytes": local_bytes(params), "start_bytes": start,
                    "peak_bytes": tracker.phases["generate"]["peak"],
                    "peak_above_start_bytes": tracker.phases["generate"]["peak"] - start,
                    "peak_op": tracker.phases["generate"]["peak_op"], "cache_bytes_after": cache_bytes}


def pp_case(rank, world, family):
    """Two stages by hand: rank 0 embeds and runs the first half of the layers, rank 1 the rest, the final
    norm and the head (with the loss). The other stage's modules are moved to the meta device."""
    from transformers.masking_utils import create_causal_mask
    model, config = M.build(family, M._any_attention(family), torch.bfloat16)
    model.train()
    base, layers = model.model, M._decoder_layers(model)
    half = (len(layers) + 1) // 2
    keep = range(half) if rank == 0 else range(half, len(layers))
    others = [layers[i] for i in range(len(layers)) if i not in keep]
    others += [base.norm, model.lm_head] if rank == 0 else [base.embed_tokens]
    for module in others:
        module.to("meta")
    params = [p for p in _params(model) if not p.is_meta]
    optimizer = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    torch.manual_seed(1)  # the last stage needs the labels of the first stage's batch
    ids = torch.randint(0, M.VOCAB, (BATCH, SEQ))
    shape = (BATCH, SEQ, config["hidden_size"])
    positions = torch.arange(SEQ).unsqueeze(0)

    def run_layers(hidden):
        mask = create_causal_mask(config=model.config, inputs_embeds=hidden, attention_mask=None, cache=None,
                                  position_ids=positions)
        rotary = base.rotary_emb(hidden, position_ids=positions)
        for i in keep:
            hidden = layers[i](hidden, attention_mask=mask, position_embeddings=rotary, position_ids=positions)
        return hidden

    tracker = RankTracker()
    tracker.track_all(params)
    tracker.track_all(b for b in model.buffers() if not b.is_meta)
    tracker.track_all([ids])
    with tracker:
        for step in (1, 2):
            if rank == 0:
                with tracker.in_phase(f"{step}.forward"):
                    out = run_layers(base.embed_tokens(ids))
                    dist.send(out.detach().contiguous(), dst=1)
                with tracker.in_phase(f"{step}.backward"):
                    grad = torch.empty(shape, dtype=torch.bfloat16)
                    dist.recv(grad, src=1)
                    out.backward(grad)
                    del out, grad
            else:
                with tracker.in_phase(f"{step}.forward"):
                    received = torch.empty(shape, dtype=torch.bfloat16)
                    dist.recv(received, src=0)
                    received.requires_grad_()
                    logits = model.lm_head(base.norm(run_layers(received)))
                    loss = model.loss_function(logits=logits, labels=ids, vocab_size=config["vocab_size"])
                with tracker.in_phase(f"{step}.backward"):
                    loss.backward()
                    dist.send(received.grad.contiguous(), dst=0)
                    del logits, loss, received
            if step == 2:
                grads = {"gradient_bytes": local_bytes(p.grad for p in params)}
            with tracker.in_phase(f"{step}.optimizer"):
                optimizer.step()
            with tracker.in_phase(f"{step}.zero_grad"):
                optimizer.zero_grad(set_to_none=True)
    return config, {"weight_bytes": local_bytes(params), "layers": list(keep), **grads,
                    "optimizer_state_bytes": _optimizer_state_bytes(optimizer), **_peaks(tracker)}


CASES = {"fsdp": fsdp_case, "ddp": ddp_case, "tp": tp_case, "pp": pp_case}


def plan():
    """(kind, world, args...) for every case."""
    cases = [("fsdp", 1, "llama", "none"), ("fsdp", 1, "qwen3", "none")]
    cases += [("tp", 1, family, "replicated") for family in ("llama", "llama-mha", "qwen3")]
    for world in (2, 4):
        for strategy in ("full-shard", "shard-grad-op"):
            cases.append(("fsdp", world, "llama", strategy))
    cases.append(("fsdp", 2, "qwen3", "full-shard"))
    for family, worlds in (("llama", (2,)), ("llama-mha", (2, 4)), ("qwen3", (2,))):
        for world in worlds:
            for embeddings in ("replicated", "vocab-parallel"):
                cases.append(("tp", world, family, embeddings))
    for bucket_view in (False, True):
        cases.append(("ddp", 2, "llama", bucket_view))
    cases.append(("pp", 2, "llama"))
    return cases


# ---------------------------------------------------------------- processes


def _worker(rank, world, port, case, outdir):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.set_num_threads(1)
    import transformers
    transformers.logging.set_verbosity_error()
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        config, measured = CASES[case[0]](rank, world, *case[2:])
        result = {"config": config, **measured}
    except Exception as error:
        result = {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
    with open(os.path.join(outdir, f"rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(result, f)
    dist.barrier()
    dist.destroy_process_group()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_case(case):
    kind, world = case[0], case[1]
    with tempfile.TemporaryDirectory() as outdir:
        mp.spawn(_worker, args=(world, _free_port(), case, outdir), nprocs=world, join=True)
        ranks = []
        for rank in range(world):
            with open(os.path.join(outdir, f"rank{rank}.json"), encoding="utf-8") as f:
                ranks.append(json.load(f))
    errors = [r["error"] for r in ranks if "error" in r]
    if errors:
        raise RuntimeError(errors[0] + "\n" + ranks[[("error" in r) for r in ranks].index(True)]["traceback"])
    config = ranks[0]["config"]
    for r in ranks:
        del r["config"]
    entry = {"kind": kind, "world": world, "family": case[2], "config": config}
    if kind == "fsdp":
        entry["strategy"] = case[3]
    elif kind == "tp":
        entry["embeddings"] = case[3]
    elif kind == "ddp":
        entry["gradient_as_bucket_view"] = case[3]
    entry.update({"batch": BATCH, "seq": SEQ, "precision": "bf16",
                  "optimizer": "adamw" if kind != "tp" else None, "ranks": ranks})
    return entry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_parallel.json")
    parser.add_argument("--only", nargs="+", choices=list(CASES))
    args = parser.parse_args(argv)
    result = {**M.provenance("tools/measure_parallel.py"), "backend": "gloo", "cases": [], "skipped": []}
    for case in plan():
        if args.only and case[0] not in args.only:
            continue
        started = time.monotonic()
        try:
            result["cases"].append(run_case(case))
        except Exception as error:
            result["skipped"].append({"case": list(case), "reason": f"{type(error).__name__}: {error}"})
            print("SKIPPED", case, error, file=sys.stderr)
            continue
        print(case, f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    M.write_json(args.out, result)


if __name__ == "__main__":
    main()
