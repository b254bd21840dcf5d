"""Measure a training step whose saved activations are offloaded to the host, as torchtune's
`OffloadActivations` (training/_activation_offloading.py, TRL's copy in trl/models/activation_offloading.py)
and Unsloth's offloaded gradient checkpointing (unsloth_zoo/gradient_checkpointing.py
`UnslothCheckpointFunction`) do, for the golden tests (tests/golden/measured_activation_offload.json).

A developer tool, not run by CI, built on tools/measure_peak.py (the same models, tracker and phases).

How a CPU can measure an offload to the CPU. On this machine the "device" and the host are the same
memory, so a real `.to("cpu")` would move nothing. The measurement instead keeps two ledgers:
measure_peak's `PeakTracker` counts every storage an ATen op makes while its dispatch mode is on, and
that is the device. The host copy of an offloaded tensor is made with the dispatch modes switched off
(`_disable_current_modes`), so the tracker never sees it, and a second counter (`HostLedger`, weakref
finalisers on the storages, as the tracker does) counts it as host memory. Once the pack hook has
returned an id instead of the tensor, autograd no longer holds the device tensor: it is freed (and
uncounted) as soon as nothing else refers to it, exactly when CUDA's caching allocator would get it
back. In the backward the unpack hook copies the host tensor back with the tracker on, so the copy is
device memory again, live for as long as autograd and the hook's stashes hold it. What the device
holds is decided by references, which this reproduces; CUDA streams and events only decide *when*
copies run, so they are no-ops here, and the stashes that keep tensors alive for the streams are kept
as torchtune keeps them (`record_stream`'s delayed reuse cannot be seen: torchtune frees its stash
entry then too).

`torchtune` mode (also TRL's SFTConfig(activation_offloading=True)): every tensor the model's forward
saves for backward is offloaded if it has at least `min_offload_size` = 1024 bytes and is not an
nn.Parameter or buffer (the weights' transposed views that linear saves are not Parameters: they are
copied too, and brought back one node at a time); the forward stash keeps the device tensors of the
last `max_fwd_stash_size` = 5 saved-tensor ids alive; in the backward the tensors brought back for an
autograd node stay stashed until the next node's post-hook, and what is left at the end of the backward
is dropped by a queued callback. torchtune wraps the model's forward in the context, takes the output
head out of it (`NoOpManager` in the head's forward hooks) and computes the loss outside it: here the
context is entered by the decoder's forward pre-hook and left by its forward hook, so the head and the
loss are outside it, and the backward runs outside it (a checkpointed layer's recompute saves on the
device, as in torchtune's recipes).

`none`: the same step without offloading, the baseline the two are compared with.

`unsloth` mode (with per-layer checkpointing, reentrant): only the hidden state each checkpointed layer
saves as its input is offloaded, except the last layer's (`LAST_GC_INDEX`); in the backward it is copied
back into a persistent device buffer (`GPU_BUFFERS`, one layer input; a second one, `GPU_BUFFERS_B`, for
double buffering, made here as both are on a card with more than 512 MiB free). Unsloth offloads only
inputs above 2 MiB (`MINIMUM_SIZE`); this tool's small models have smaller ones, so the threshold is 0 here
(the engine applies 2 MiB).

About 2 minutes on two CPU cores.

Usage: python tools/measure_activation_offload.py [--out tests/golden/measured_activation_offload.json]
Needs: pip install torch==2.13.0 transformers peft
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import weakref

import torch
from torch.utils._python_dispatch import _disable_current_modes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_peak as P
import measure_reference as M
# isort: on

LAYERS = 6  # more layers than measure_peak's two, so that what stays on the device and what moves differ
MIN_OFFLOAD_SIZE = 1024  # torchtune's default min_offload_size, bytes
MAX_FWD_STASH_SIZE = 5  # torchtune's default max_fwd_stash_size


class HostLedger:
    """Live and peak bytes of the host copies (storages made with the tracker off)."""

    def __init__(self):
        self.live, self.peak, self.refs = 0, 0, {}

    def add(self, tensor):
        storage = tensor.untyped_storage()
        key, size = id(storage), storage.nbytes()
        self.live += size
        self.peak = max(self.peak, self.live)
        self.refs[key] = weakref.ref(storage, lambda _, key=key, size=size: self._free(key, size))

    def _free(self, key, size):
        self.live -= size
        self.refs.pop(key, None)


def to_host(tensor, ledger):
    with _disable_current_modes():  # not a device storage: the tracker does not see it
        host = torch.empty_like(tensor)
        host.copy_(tensor)
    ledger.add(host)
    return host


class OffloadActivations(torch.autograd.graph.saved_tensors_hooks):
    """torchtune's OffloadActivations with use_streams=True, its references kept and its streams dropped."""

    def __init__(self, ledger):
        self.ledger = ledger
        self.tracker, self.tensor_id = {}, 0
        self.fwd_stash, self.bwd_tensor_stash = {}, {}
        self.first_backward_call, self.curr_graph_id, self.curr_node = True, None, None
        super().__init__(self.pack, self.unpack)

    def pack(self, activation):
        if not self.first_backward_call:  # a new forward
            self.first_backward_call = True
        self.tensor_id += 1
        tensor_id = self.tensor_id
        nbytes = activation.element_size() * activation.nelement()
        if nbytes >= MIN_OFFLOAD_SIZE and not isinstance(activation, torch.nn.Parameter):
            for old in [k for k in self.fwd_stash if k <= tensor_id - MAX_FWD_STASH_SIZE]:
                del self.fwd_stash[old]
            self.tracker[tensor_id] = (to_host(activation, self.ledger), True)
            self.fwd_stash[tensor_id] = activation  # kept alive until the copy stream is done
        else:
            self.tracker[tensor_id] = (activation, False)
        return tensor_id

    def unpack(self, tensor_id):
        if self.first_backward_call:
            self.first_backward_call = False
            self.curr_graph_id = torch._C._current_graph_task_id()
            torch.autograd.variable.Variable._execution_engine.queue_callback(self.bwd_tensor_stash.clear)
        tensor, modified = self.tracker.pop(tensor_id)
        if not modified:
            return tensor
        graph_id, node = torch._C._current_graph_task_id(), torch._C._current_autograd_node()
        previous = []
        if graph_id == self.curr_graph_id and self.curr_node != node:
            self.curr_node = node
            previous = list(self.bwd_tensor_stash)
        if tensor_id in self.fwd_stash:  # still on the device
            tensor = self.fwd_stash[tensor_id]
        else:
            tensor = tensor.clone()  # brought back: a device storage again
            self.bwd_tensor_stash[tensor_id] = tensor

        def hook(outputs, inputs):
            self.fwd_stash.clear()  # in the backward now
            for old in previous:
                self.bwd_tensor_stash.pop(old, None)
            return outputs
        node.register_hook(hook)
        return tensor


class UnslothInputs(torch.autograd.graph.saved_tensors_hooks):
    """Unsloth's offloaded checkpointing: each checkpointed layer's input hidden state to the host, but the
    last layer's; brought back into one of two persistent device buffers of one layer input."""

    def __init__(self, ledger, buffers, layers, hidden):
        self.ledger, self.buffers, self.layers, self.hidden = ledger, buffers, layers, hidden
        self.slot, self.saved_inputs = 0, 0
        super().__init__(self.pack, self.unpack)

    def __enter__(self):
        self.saved_inputs = 0  # a new forward
        return super().__enter__()

    def pack(self, tensor):
        """Under reentrant checkpointing the decoder saves, in order: the token ids (the embedding), each
        layer's input hidden state (the checkpoint; nothing inside a layer, run under no_grad), then the
        final norm's tensors. The first `layers - 1` hidden states are the ones Unsloth offloads."""
        if not (tensor.is_floating_point() and tensor.dim() == 3 and tensor.shape[-1] == self.hidden
                and self.saved_inputs < self.layers - 1):
            return tensor
        self.saved_inputs += 1
        return (to_host(tensor, self.ledger), tensor.shape)

    def unpack(self, packed):
        if isinstance(packed, torch.Tensor):
            return packed
        host, shape = packed
        buffer = self.buffers[self.slot][:host.numel()].view(shape)
        self.slot ^= 1
        with torch.no_grad():
            buffer.copy_(host)
        return buffer


def measure(family, attention, batch, seq, checkpointing, lora, mode):
    """measure_peak.measure_training with the decoder's forward under the offloading hooks."""
    ledger = HostLedger()
    build = M.build
    at_forward_end = {}

    def built(family_, attention_, dtype, **extra):
        model, config = build(family_, attention_, dtype, num_hidden_layers=LAYERS, **extra)
        decoder, layers = model.get_decoder(), M._decoder_layers(model)
        hidden = model.config.hidden_size
        if mode == "unsloth":
            for name in ("offload_buffer_a", "offload_buffer_b"):  # module buffers: counted from the start
                model.register_buffer(name, torch.empty(batch * seq * hidden, dtype=dtype), persistent=False)
            context = UnslothInputs(ledger, [model.offload_buffer_a, model.offload_buffer_b], len(layers), hidden)
        elif mode == "torchtune":
            context = OffloadActivations(ledger)
        else:  # the same step without offloading, for comparison
            context = contextlib.nullcontext()

        def enter(*_):
            context.__enter__()

        def leave(*_):
            context.__exit__(None, None, None)
            at_forward_end["host"] = ledger.live
        decoder.register_forward_pre_hook(enter)
        decoder.register_forward_hook(leave, always_call=True)
        return model, config

    M.build = built
    try:
        config, measured = P.measure_training(family, attention, "bf16", batch, seq, checkpointing, "adamw",
                                              "foreach", lora)
    finally:
        M.build = build
    config["num_hidden_layers"] = LAYERS
    return config, {**measured, "host_bytes_at_forward_end": at_forward_end["host"], "host_peak_bytes": ledger.peak}


def plan():
    """(family, attention, batch, seq, checkpointing, lora, mode)."""
    return [
        *((family, M._any_attention(family), 2, 256, checkpointing, None, "none")
          for family in ("llama", "qwen3") for checkpointing in ("none", "layer")),
        ("llama", "flash", 2, 256, "none", (8, "all-linear"), "none"),
        ("llama", "flash", 2, 256, "none", None, "torchtune"),
        ("llama", "flash", 2, 256, "layer", None, "torchtune"),
        ("llama", "flash", 2, 256, "none", (8, "all-linear"), "torchtune"),
        ("llama", "flash", 2, 256, "layer", (8, "all-linear"), "torchtune"),
        ("qwen3", M._any_attention("qwen3"), 2, 256, "none", None, "torchtune"),
        ("qwen3", M._any_attention("qwen3"), 2, 256, "layer", None, "torchtune"),
        ("llama", "flash", 2, 256, "layer", None, "unsloth"),
        ("llama", "flash", 2, 256, "layer", (8, "all-linear"), "unsloth"),
        ("qwen3", M._any_attention("qwen3"), 2, 256, "layer", None, "unsloth"),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_activation_offload.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    result = {**M.provenance("tools/measure_activation_offload.py"), "toy": P.check_tracker(), "training": []}
    for family, attention, batch, seq, checkpointing, lora, mode in plan():
        started = time.monotonic()
        config, measured = measure(family, attention, batch, seq, checkpointing, lora, mode)
        entry = P._training_entry(family, attention, "bf16", batch, seq, checkpointing, "adamw", "foreach", lora)
        result["training"].append({**entry, "activation_offload": mode, "config": config, **measured})
        print(family, checkpointing, lora, mode, f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    M.write_json(args.out, result)


if __name__ == "__main__":
    main()
