"""Which runtime a workload suggests, and each runtime's default framework overhead."""

from __future__ import annotations

from ..core.choices import Mode, Runtime
from ..core.errors import ValidationError
from ..formats.weights import parse_format
from ..workload import DEFAULT_OVERHEAD_BYTES
from .llamacpp import LLAMACPP_CUDA_OVERHEAD
from .vllm import VLLM_CUDA_GRAPHS, VLLM_NON_TORCH


def suggested_runtime(precision: str, runtime: str, mode: str = "inference") -> str:
    """The engine a weight format runs on, when the one chosen cannot run it: GGUF types on
    llama.cpp, GPU formats on vLLM; otherwise `runtime` unchanged. The page applies it when
    the format is changed, so choosing q4_k_m does not end in an error."""
    if mode == Mode.TRAINING.value:
        return Runtime.TRANSFORMERS.value  # training runs with transformers, whatever the format
    try:
        fmt = parse_format(precision) if isinstance(precision, str) else None
    except ValidationError:
        return runtime
    if fmt is None:
        return runtime
    if fmt.kind == "gguf" and runtime != Runtime.LLAMACPP.value:
        return Runtime.LLAMACPP.value
    if fmt.kind != "gguf" and runtime == Runtime.LLAMACPP.value:
        return Runtime.VLLM.value
    return runtime


def runtime_overhead(runtime: Runtime, enforce_eager: bool) -> int:
    """The memory an engine takes beyond weights, cache and activations, when the user sets none."""
    if runtime is Runtime.VLLM:
        return VLLM_NON_TORCH + (0 if enforce_eager else VLLM_CUDA_GRAPHS)
    if runtime is Runtime.LLAMACPP:
        return LLAMACPP_CUDA_OVERHEAD
    return DEFAULT_OVERHEAD_BYTES


# ---------------------------------------------------------------- each engine's own input keys

from . import llamacpp, vllm  # noqa: E402

ENGINE_OPTIONS = {Runtime.VLLM: vllm.OPTIONS, Runtime.LLAMACPP: llamacpp.OPTIONS}
"""The link, form and command-line keys each engine declares for itself (inputs/options.py gathers them)."""
