"""Activations: what a training step saves for backward, or the inference forward's peak."""

from __future__ import annotations

from ..model.families.decoder.prefill import inference_activations
from ..model.families.decoder.saved import training_activations
from ..workload import Workload
from .components import Component


def activations_bytes(workload: Workload) -> Component:
    if not workload.is_training:
        return inference_activations(workload)
    return training_activations(workload)[0]
