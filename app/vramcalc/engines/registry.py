"""Which runtime a weight format suggests."""

from __future__ import annotations

from ..core.choices import GGUF_RUNTIMES, Mode, Runtime
from ..core.errors import ValidationError
from ..formats.weights import parse_format


def suggested_runtime(precision: str, runtime: str, mode: str = "inference") -> str:
    """The engine a weight format runs on, when the one chosen cannot run it: GGUF types on
    llama.cpp, GPU formats on vLLM; otherwise `runtime` unchanged. The page applies it when
    the format is changed, so choosing q4_k_m does not end in an error."""
    if mode == Mode.TRAINING.value:
        return Runtime.TRANSFORMERS.value  # training runs with transformers, whatever the format
    if runtime == Runtime.TEI.value and mode != Mode.EMBEDDING.value:
        return Runtime.TRANSFORMERS.value  # TEI serves embedders only
    if runtime == Runtime.FASTER_WHISPER.value and mode != Mode.SPEECH.value:
        return Runtime.TRANSFORMERS.value  # faster-whisper transcribes only
    try:
        fmt = parse_format(precision) if isinstance(precision, str) else None
    except ValidationError:
        return runtime
    if fmt is None or fmt.kind in ("auto", "native"):  # every engine runs the checkpoint as published
        return runtime
    gguf = {member.value for member in GGUF_RUNTIMES}
    if fmt.kind == "gguf" and runtime not in gguf:
        return Runtime.LLAMACPP.value
    if fmt.kind != "gguf" and runtime in gguf:
        return Runtime.VLLM.value
    return runtime


# ---------------------------------------------------------------- each engine's own input keys

from . import ENGINES  # noqa: E402

ENGINE_OPTIONS = {runtime: engine.options for runtime, engine in ENGINES.items() if engine.options}
"""The link, form and command-line keys each engine declares for itself (inputs/options.py gathers them)."""
