"""The command that runs a plan, as the command line (--command) and the page print it: the engine's
own lines (Engine.command) for the model as its engine names it."""

from __future__ import annotations

import json
import re

from ..core.choices import GGUF_RUNTIMES, Runtime
from ..engines import engine_for
from ..engines.layouts import resolve_layout
from ..engines.vllm import VllmFacts
from ..formats.weights import WeightFormat
from ..memory.components import Breakdown
from ..memory.speech import whisper_cpp_weight_type
from ..sources.presets import load_presets
from ..workload import Workload
from .messages import Words


def model_reference(workload: Workload) -> str:
    """The model as the engine reads it: the user's weight file; a GGUF file named after the preset and
    the type (llama.cpp and Ollama read a file); a Whisper model as whisper.cpp's files are named
    (ggml-large-v3.bin in f16, ggml-large-v3-q5_0.bin) or as faster-whisper names its sizes (large-v3);
    else the Hugging Face id."""
    fmt = workload.precision
    if isinstance(fmt, WeightFormat) and fmt.file is not None:
        return fmt.file.name
    size = workload.model.name.removeprefix("whisper-")
    if workload.transcribes and workload.runtime is Runtime.LLAMACPP:
        wtype = whisper_cpp_weight_type(workload)
        return f"ggml-{size}.bin" if wtype == "f16" else f"ggml-{size}-{wtype}.bin"
    if workload.runtime is Runtime.FASTER_WHISPER:
        return size
    if workload.runtime in GGUF_RUNTIMES:
        return f"{workload.model.name}-{fmt.value.upper()}.gguf"
    preset = load_presets().get(workload.model.name)
    return preset.hf_id if preset is not None and preset.hf_id else workload.model.display_name


PYTHON_LINES = (Runtime.TRANSFORMERS, Runtime.FASTER_WHISPER)  # the model inside a Python string's double quotes
_SHELL_SAFE = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


def shell_quoted(text: str) -> str:
    """`text` as one shell word: shlex.quote's rule (shlex stays out of the page's standard library)."""
    return text if _SHELL_SAFE.fullmatch(text) else "'" + text.replace("'", "'\"'\"'") + "'"


def command_lines(workload: Workload, gpus: int = 1) -> tuple[str, ...]:
    """The lines that run `workload` on `gpus` GPUs; empty where the engine has no one command. The model's name
    (a file's, a config's _name_or_path: untrusted) is quoted for the shell, escaped inside a Python string, and
    left as it is in Ollama's Modelfile, which no shell reads."""
    reference = model_reference(workload)
    if workload.runtime in PYTHON_LINES:
        reference = json.dumps(reference)[1:-1]
    elif workload.runtime is not Runtime.OLLAMA:
        reference = shell_quoted(reference)
    return engine_for(workload.runtime).command(workload, resolve_layout(workload, gpus), reference)



def run_lines(breakdown: Breakdown, gpus: int, *, words: Words) -> tuple[str, ...]:
    """The command for the breakdown on its GPUs (ranks.on_gpus), then as shell comments the lines the
    engine should log once it has sized its memory (vLLM's pool), to set beside the user's own log; the
    other engines' figures the answer prints in their own words (llama.cpp's memory breakdown)."""
    lines = command_lines(breakdown.workload, gpus)
    log = breakdown.facts.log_lines() if lines and isinstance(breakdown.facts, VllmFacts) else ()
    if log:  # after the engine's own command, before any other engine's
        lines = (lines[0], "# " + words.message("results.expected_log"), *(f"#   {line}" for line in log), *lines[1:])
    return lines
