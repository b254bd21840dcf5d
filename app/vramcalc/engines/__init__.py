"""One module per runtime, each an `Engine` (base.py); `ENGINES` is the registry.

A new engine is one module with an `ENGINE` object and one line below (plus its words in the
catalogues and its options, see CONTRIBUTING.md).
"""

from __future__ import annotations

from ..core.choices import Runtime
from . import faster_whisper, llamacpp_engine, ollama, tei, transformers, vllm
from .base import Engine

ENGINES: dict[Runtime, Engine] = {
    Runtime.TRANSFORMERS: transformers.ENGINE,
    Runtime.VLLM: vllm.ENGINE,
    Runtime.LLAMACPP: llamacpp_engine.ENGINE,
    Runtime.OLLAMA: ollama.ENGINE,
    Runtime.TEI: tei.ENGINE,
    Runtime.FASTER_WHISPER: faster_whisper.ENGINE,
}


def engine_for(runtime: Runtime) -> Engine:
    return ENGINES[runtime]
