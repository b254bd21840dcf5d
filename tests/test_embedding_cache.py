"""An embedding's forward under transformers keeps its cache in the model's dtype: QuantizedCache is generate()'s
(cache_implementation="quantized"); a forward with use_cache builds a DynamicCache."""

from __future__ import annotations

import pytest

from vramcalc import DEFAULTS, parse_workload
from vramcalc.core.errors import ValidationError


def test_transformers_keeps_an_embeddings_cache_in_the_models_dtype():
    from vramcalc.analysis.solve import best_kv_format
    from vramcalc.inputs.parse import parse_target

    values = {**DEFAULTS, "model": "qwen3-embedding-0.6b", "mode": "embedding", "runtime": "transformers"}
    with pytest.raises(ValidationError) as error:
        parse_workload({**values, "kv_precision": "int8"})
    assert error.value.field == "kv_precision"
    big = {**values, "batch": "6", "seq": "32768", "gpu": "rtx-4090"}  # bf16's cache does not fit, int8's would
    assert best_kv_format(parse_workload(big), parse_target(big)) is None
