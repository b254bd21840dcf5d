"""Measure the optimizer state bitsandbytes keeps, for the golden tests (tests/golden/measured_bnb_state.json).

A developer tool, not run by CI. A small bf16 Llama (transformers' LlamaForCausalLM, random weights, untied
head) whose tensors fall on both sides of bitsandbytes' thresholds (4,096 elements: min_8bit_size; 100,000:
paged) and whose sizes are not all multiples of 256 (the blockwise absmax). One step of AdamW8bit,
PagedAdamW8bit and PagedAdamW on random gradients; the bytes of every state tensor are summed (each storage
once). The 256-entry code books (qmap1 / qmap2, 2 KiB per optimizer object, shared by its tensors) are
recorded apart.

On the CPU bitsandbytes' paged optimizers fall back to ordinary tensors (optim/optimizer.py
get_state_buffer), so which bytes CUDA would page cannot be measured here: `paged_bytes` applies that
function's CUDA rule to the measured tensors (state1 / state2 of a parameter of 100,000 elements or more go
to F.get_paged, cudaMallocManaged attached to the host; absmax and smaller tensors stay CUDA tensors).

`torchao_update` (evidence for tests/test_frameworks.py's 8-bit row, no test reads it): the peak resident
memory during torchao's AdamW8bit step of one bf16 parameter, beyond what lives before and after, in fp32
copies of that parameter (the compiled single_param_adam keeps the fp32 moments of the tensor; CPU inductor).

About 3 minutes on two CPU cores.

Usage: python tools/measure_bnb_state.py [--out tests/golden/measured_bnb_state.json]
Needs: pip install torch==2.13.0 transformers bitsandbytes==0.50.2 torchao==0.18.0
"""

from __future__ import annotations

import argparse
import gc
import json

import torch

CONFIG = {"model_type": "llama", "hidden_size": 320, "num_hidden_layers": 2, "num_attention_heads": 5,
          "num_key_value_heads": 1, "intermediate_size": 1010, "vocab_size": 1001, "tie_word_embeddings": False}
OPTIMIZERS = {"adamw-8bit": "AdamW8bit", "paged-adamw-8bit": "PagedAdamW8bit", "paged-adamw": "PagedAdamW"}
PAGED_FROM = 100_000  # bitsandbytes optim/optimizer.py get_state_buffer: `p.numel() < 1e5` stays unpaged


def measure_state(name: str) -> dict:
    import bitsandbytes as bnb
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**{k: v for k, v in CONFIG.items() if k != "model_type"}))
    model = model.to(torch.bfloat16)
    for p in model.parameters():
        p.grad = torch.randn_like(p)
    optimizer = getattr(bnb.optim, OPTIMIZERS[name])(model.parameters(), lr=1e-4)
    optimizer.step()
    paged_optimizer = optimizer.is_paged
    seen, state, qmap, paged = set(), 0, 0, 0
    for p in model.parameters():
        for key, value in optimizer.state[p].items():
            if not torch.is_tensor(value) or value.untyped_storage().data_ptr() in seen:
                continue
            seen.add(value.untyped_storage().data_ptr())
            size = value.untyped_storage().nbytes()
            if key.startswith("qmap"):
                qmap += size
            else:
                state += size
                paged += size if paged_optimizer and key in ("state1", "state2") and p.numel() >= PAGED_FROM else 0
    return {"params": sum(p.numel() for p in model.parameters()), "state_bytes": state, "qmap_bytes": qmap,
            "paged_bytes": paged}


def _status(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field))


def measure_torchao(numel: int = 64 * 2**20) -> list[float]:
    """Peak resident bytes during each of three AdamW8bit steps beyond those before it, in fp32 copies."""
    from torchao.optim import AdamW8bit

    p = torch.nn.Parameter(torch.randn(numel // 4096, 4096, dtype=torch.bfloat16))
    p.grad = torch.randn_like(p)
    optimizer = AdamW8bit([p], lr=1e-4)
    copies = []
    for _ in range(3):
        gc.collect()
        before = _status("VmRSS")
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")  # resets VmHWM to the current resident size
        optimizer.step()
        copies.append(round((_status("VmHWM") - before) / (4 * numel), 2))
    return copies


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default="tests/golden/measured_bnb_state.json")
    args = parser.parse_args(argv)
    import bitsandbytes
    import torchao

    result = {"versions": {"torch": torch.__version__, "bitsandbytes": bitsandbytes.__version__,
                           "torchao": torchao.__version__},
              "config": CONFIG, "paged_from": PAGED_FROM,
              "optimizers": {name: measure_state(name) for name in OPTIMIZERS},
              "torchao_update": {"numel": 64 * 2**20, "fp32_copies_by_step": measure_torchao()}}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
