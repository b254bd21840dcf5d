"""What gpt-oss's MXFP4 experts cost a transformers decode step on an RDNA card (issue 24).

transformers keeps a published MXFP4 checkpoint in MXFP4 on a ROCm GPU (quantizer_mxfp4.py validate_environment:
ROCm is `torch.cuda`, every RDNA target passes the (7, 5) capability test) and runs each MoE layer through the
Hub's triton_kernels: `routing`, then two `matmul_ogs` (integrations/mxfp4.py, Mxfp4GptOssMLP.forward and
Mxfp4GptOssExperts.forward_routed; transformers 4.57.1 loads kernels-community/triton_kernels, 5.23.0
kernels-community/gpt-oss-triton-kernels). The latter's AMD launch settings (matmul_ogs_details/opt_flags.py,
make_default_opt_flags_amd, huggingface/kernels-community @40d4194) have no RDNA case: at m <= 16 routed rows
(tokens x experts per token: decode of 1 to 4 sequences) `num_warps = 2`, block_m 32; the former is pinned at
triton 7d0efaa7, before triton-lang/triton PR #10810 (2026-07-06, RDNA configs for the MXFP4 matmul_ogs, in
neither Hub copy), which measured that setting on a gfx1201 with GPT-OSS's MoE: 2.954 ms at M = 16 where its
tuned config takes 0.398 ms (`slowdown` 7.42; at M = 32, where the default gives 8 warps, 0.631 against 0.547).
Modelled: the experts a step reads take `slowdown` times their read at the engine's bandwidth share, on RDNA cards
(hardware.is_rdna), MXFP4 weights, m <= `max_rows`; the host's work still overlaps (transformers' host_overlap).
Not modelled: the gfx1201 ratio carried to RDNA 3 and 3.5 as it is (the PR's configs were searched on both; its
RDNA 3 timings are not in the stored text), and to gpt-oss-20b's 32 experts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.choices import Runtime
from ..workload import Workload
from .hardware import Device
from .reads import Reads


def mxfp4_experts(workload: Workload) -> bool:
    """Experts in MXFP4: asked (`mxfp4`), or a checkpoint published so run as it is (gpt-oss's `native`)."""
    name = getattr(workload.precision, "name", "")
    return name == "mxfp4" or (name == "native" and workload.model.native_format.startswith("MXFP4"))


def rdna_mxfp4_seconds(workload: Workload, device: Device, rates: Mapping[str, Any], weights: Reads, tokens: int,
                       share: float) -> float:
    """The seconds a step of `tokens` tokens (batch x tokens per sequence) spends in the MXFP4 experts beyond their
    read at `share` of the card's bandwidth: 0 off transformers, off RDNA, for other weights, dense models, or more
    routed rows than the slow launch setting takes."""
    table = rates.get("rdna_mxfp4")
    if (table is None or workload.runtime is not Runtime.TRANSFORMERS or not device.rdna or not weights.experts
            or not mxfp4_experts(workload) or tokens * weights.per_token > table["max_rows"]):
        return 0.0
    assert device.bandwidth is not None
    experts = sum(layer.experts for layer in weights.layers) * weights.touched(tokens)
    return experts * (float(table["slowdown"]) - 1) / (share * device.bandwidth)
