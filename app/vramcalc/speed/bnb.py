"""What bitsandbytes' layers add to a transformers decode step, as bitsandbytes 0.45-0.49 runs them
(bitsandbytes/autograd/_functions.py, backends/cuda/ops.py):
- 4-bit (Linear4bit, `matmul_4bit`): one token (A.numel() == A.shape[-1]) goes to `gemv_4bit`, which reads the packed
  weights and their absmax; more tokens go to `dequantize_4bit`, which writes the weight out in 16-bit, and
  `F.linear` reads it back: 2 + 2 bytes per weight more than the 4-bit read (`dequant_bytes`). Double quantisation
  (nf4-dq) first dequantises each layer's absmax (`nested`);
- 8-bit (Linear8bitLt, `MatMul8bitLt` at load_in_8bit's outlier threshold 6.0): the activations quantised,
  `if outliers.any()` read on the host (a synchronisation at every layer), the int8 GEMM and its dequantisation, the
  outlier columns in 16-bit. The host then waits for the GPU at every linear layer, so their times add (`serial`)
  instead of overlapping;
- each layer's Python and launches on the host: seconds per linear layer (`linear_s`), fitted to published runs
  (data/speed.json engines.transformers.bnb, tools/fit_speed.py --engine transformers);
- LLM.int8() before 0.45 (`bnb_version`; 0.41.3's MatMul8bitLt.forward): `double_quant` reads the outliers' count
  on the host twice (`nnz_row_ptr[-1].item()`), `torch.unique` of their columns a third time, then the weight's
  outlier columns taken out of its col_ampere layout and rescaled at every call, the activations transformed to
  col32, `igemmlt`, `mm_dequant`: more kernels and synchronisations per layer than 0.45's `int8_vectorwise_quant`
  (one `outliers.any()`). Its cost is the step's, times `int8_before_0_45`: the median of bitsandbytes'
  benchmarking/README.md @81e6345 v0.44.1 / v0.45.0 latencies of INT8+Decomp on the same machines (RTX 4090 and
  T4, batch 1-32: 1.63-1.82);
- 4-bit before 0.45: every call into the library (`gemv_4bit`, `dequantize_4bit`, and nf4-dq's
  `dequantize_blockwise` of the absmax) switched the CUDA device there and back (`pre_call`/`post_call`:
  `torch.cuda.set_device` twice); 0.45 on one GPU enters a `nullcontext` (`_cuda_device_of`). Host seconds per call
  (`call_before_0_45_s`): the same README's host-bound H100 (Llama 3.1 8B, nf4 and nf4-dq, batch 1/8/32), its v0.44.1
  latency less v0.45.0's over 224 linear layers and their calls, 20-34 µs, the median.
bitsandbytes 0.50's 4-bit GEMM kernels for several tokens (PR #1949, 2026-05) are not measured: not modelled."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from ..formats.weights import BNB_FORMATS, WeightFormat, quantised_by
from ..model.families.decoder.spec import ModelSpec
from ..model.table import counted_tensors
from ..workload import Workload


@dataclasses.dataclass(frozen=True)
class BnbCost:
    gpu_bytes: float  # read and written on the GPU beyond the weights' own bytes (the 4-bit dequantisation)
    host_s: float  # the host's seconds for the linear layers' Python and launches
    serial: bool  # the host waits for the GPU at every layer (LLM.int8()'s outlier check)
    scale: float = 1.0  # the whole step's time multiplied (LLM.int8() before bitsandbytes 0.45)


@functools.lru_cache(maxsize=64)
def _linears(model: ModelSpec, fmt: WeightFormat) -> tuple[int, int]:
    """(modules, weights) of the linear layers bitsandbytes converts (formats.weights.quantised_by): a stacked
    expert tensor counts one module per expert."""
    convert = quantised_by(fmt)
    modules = weights = 0
    for tensor, count in counted_tensors(model):
        if convert(tensor):
            modules += (tensor.shape[0] if len(tensor.shape) == 3 else 1) * count
            weights += tensor.numel * count
    return modules, weights


def bnb_cost(workload: Workload, rates: Mapping[str, Any], tokens: int) -> BnbCost | None:
    """A step of `tokens` tokens (batch × tokens per sequence) through the model's bitsandbytes layers, or None when
    its weights are not a bitsandbytes format or the engine has no such rates."""
    fmt = workload.precision
    table = rates.get("bnb")
    if table is None or not isinstance(fmt, WeightFormat) or fmt.name not in BNB_FORMATS:
        return None
    modules, weights = _linears(workload.model, fmt)
    per_linear = table["linear_s"]
    if fmt.name == "bnb-int8":
        old = workload.bnb_version is not None and workload.bnb_version < (0, 45)
        return BnbCost(gpu_bytes=0.0, host_s=modules * float(per_linear["int8"]), serial=True,
                       scale=float(table["int8_before_0_45"]) if old else 1.0)
    dequantised = tokens > 1
    host = float(per_linear["4bit-dequant" if dequantised else "4bit"])
    calls = 1
    if fmt.name == "nf4-dq":
        host += float(per_linear["nested"])
        calls += 1
    if workload.bnb_version is not None and workload.bnb_version < (0, 45):
        host += calls * float(table["call_before_0_45_s"])
    extra = weights * float(table["dequant_bytes"]) if dequantised else 0.0
    return BnbCost(gpu_bytes=extra, host_s=modules * host, serial=False)
