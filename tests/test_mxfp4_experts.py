"""MXFP4 as the engines run it: OpenAI's gpt-oss checkpoint quantises its experts alone, and both vLLM
(quantization/mxfp4.py get_quant_method: every LinearBase gets UnquantizedLinearMethod) and transformers
(integrations/mxfp4.py replace_with_mxfp4_linear converts GptOssMLP only) keep attention in bf16; transformers has no
MXFP4 for any other model (compressed-tensors checkpoints are decompressed as they load, run_compressed=False)."""

from __future__ import annotations

import pytest

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.core.errors import ValidationError


def _weights(**values: str) -> int:
    return estimate(parse_workload({**DEFAULTS, "gpu": "h100-sxm", **values})).bytes_of("weights")


@pytest.mark.parametrize("runtime", ["vllm", "transformers"])
def test_gpt_oss_mxfp4_is_its_published_checkpoint(runtime):
    asked = _weights(model="gpt-oss-20b", runtime=runtime, precision="mxfp4")
    assert asked == _weights(model="gpt-oss-20b", runtime=runtime, precision="native") == 13_761_264_768


def test_vllm_quantises_every_linear_layer_of_another_models_mxfp4_checkpoint():
    """compressed-tensors and Quark MXFP4 checkpoints (schemes/compressed_tensors_w4a4_mxfp4.py) convert them all."""
    assert _weights(model="qwen3-30b-a3b", runtime="vllm", precision="mxfp4") < _weights(
        model="qwen3-30b-a3b", runtime="vllm", precision="mxfp4", quantise="mlp")


@pytest.mark.parametrize("model", ["qwen3-30b-a3b", "llama-3.1-8b"])
def test_transformers_refuses_mxfp4_beyond_gpt_oss(model):
    with pytest.raises(ValidationError) as error:
        parse_workload({**DEFAULTS, "model": model, "runtime": "transformers", "precision": "mxfp4"})
    assert error.value.field == "precision" and "gpt-oss" in str(error.value)

