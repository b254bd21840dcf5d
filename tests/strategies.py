"""Hypothesis strategies shared by the engine tests."""

from __future__ import annotations

from hypothesis import strategies as st

from vramcalc.core.choices import Attention, Checkpointing, Mode, Optimizer
from vramcalc.core.dtypes import Precision
from vramcalc.sources.presets import load_presets, preset_spec
from vramcalc.workload import Workload

models = st.sampled_from(sorted(load_presets()))
float_precisions = st.sampled_from([Precision.FP32, Precision.FP16, Precision.BF16])


@st.composite
def workloads(draw):
    mode = draw(st.sampled_from(list(Mode)))
    precision = draw(float_precisions) if mode is Mode.TRAINING else draw(st.sampled_from(list(Precision)))
    return Workload(
        model=preset_spec(draw(models)),
        mode=mode,
        precision=precision,
        kv_precision=draw(st.none() | st.sampled_from(list(Precision))),
        batch=draw(st.integers(1, 64)),
        seq=draw(st.integers(1, 65_536)),
        optimizer=draw(st.sampled_from(list(Optimizer))),
        mixed_precision=precision is not Precision.FP32 and draw(st.booleans()),
        checkpointing=draw(st.sampled_from(list(Checkpointing))),
        attention=draw(st.sampled_from(list(Attention))),
    )
