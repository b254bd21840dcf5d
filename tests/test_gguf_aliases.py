"""File types named the way users and published runs name them: llama-quantize's alias Q4_K (Q4_K_M) and Unsloth's
UD-Q4_K_XL (sized as Q4_K_M, approximate); and the GGUF sizes of the presets added for published runs, held to the
sizes llama-bench printed for them (tests/data/speed/)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from vramcalc.cli import main
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB
from vramcalc.formats.weights import parse_format, weights
from vramcalc.inputs.options import parse_precision
from vramcalc.inputs.parse import parse_workload
from vramcalc.sources.presets import preset_spec

# unsloth/Qwen3-30B-A3B-GGUF Qwen3-30B-A3B-UD-Q4_K_XL.gguf, as a public download note records it
UNSLOTH_UD_Q4_K_XL_BYTES = 17_715_663_424


def _bytes(slug: str, name: str) -> int:
    fmt = parse_format(name)
    assert fmt is not None
    return sum(part.bytes for part in weights(preset_spec(slug), fmt))


@pytest.mark.parametrize("typed", ["q4_k", "Q4_K"])
def test_q4_k_is_llama_quantizes_alias_of_q4_k_m(typed):
    fmt = parse_precision(typed)
    assert fmt.kind == "gguf" and fmt.name == "q4_k"
    assert _bytes("qwen3-30b-a3b", "q4_k") == _bytes("qwen3-30b-a3b", "q4_k_m")


def test_ud_q4_k_xl_is_sized_as_q4_k_m_and_says_so():
    fmt = parse_precision("UD-Q4_K_XL")
    assert fmt.kind == "gguf" and fmt.label.key == "format.gguf_as"
    assert dict(fmt.label.values) == {"name": "UD-Q4_K_XL", "planned": "Q4_K_M"}
    planned = _bytes("qwen3-30b-a3b", "ud-q4_k_xl")
    assert planned == _bytes("qwen3-30b-a3b", "q4_k_m")
    assert 1.0 < planned / UNSLOTH_UD_Q4_K_XL_BYTES < 1.05  # 4.7 % over Unsloth's file: the approximation


def test_the_aliases_work_in_a_link_and_on_the_command_line():
    workload = parse_workload({"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "ud-q4_k_xl"})
    assert workload.precision.name == "ud-q4_k_xl"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--model", "nemotron-3-super-120b-a12b", "--runtime", "llamacpp", "--precision", "Q4_K", "--json"])
    assert code == 0 and json.loads(out.getvalue())


def test_an_unknown_unsloth_name_is_refused_naming_the_precision():
    with pytest.raises(ValidationError) as refused:
        parse_precision("ud-q9_k_xl")
    assert refused.value.field == "precision"


@pytest.mark.parametrize(("slug", "ftype", "gib"), [
    ("llama-7b", "q8_0", 6.67), ("llama-7b", "q4_0", 3.56), ("llama-7b", "q4_1", 3.95),  # llama.cpp PR #2917
    ("nemotron-3-nano-4b", "q8_0", 3.94),  # llama.cpp benches/nemotron/nemotron-dgx-spark.md
])
def test_the_new_presets_gguf_sizes_are_llama_benchs(slug, ftype, gib):
    assert round(_bytes(slug, ftype) / GIB, 2) == gib
