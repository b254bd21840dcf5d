"""gpt-oss's MXFP4 experts under transformers on RDNA cards (speed/triton_moe.py, issue 24).

Sources: transformers 4.57.1 and 5.23.0 quantizers/quantizer_mxfp4.py validate_environment (ROCm is torch.cuda, its
capability passes >= (7, 5): MXFP4 kept), integrations/mxfp4.py (Mxfp4GptOssMLP.forward: triton_kernels' routing and
two matmul_ogs per MoE layer); the Hub kernels' matmul_ogs_details/opt_flags.py make_default_opt_flags_amd
(huggingface/kernels-community @40d4194, gpt-oss-triton-kernels: `num_warps = 2 if (m is not None and m <= 16)`, no
RDNA case; m = gather_indx.src_indx.shape[0], tokens x experts per token, matmul_ogs.py); triton-lang/triton PR #10810
(gfx1201, GPT-OSS MoE at M = 16: 2.954 ms with that setting, 0.398 ms tuned)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.inputs.parse import parse_workload
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.gpus import GpuSpec
from vramcalc.speed import speed_of
from vramcalc.speed.hardware import device, engine_rates, is_rdna
from vramcalc.speed.inference import Placement, forward
from vramcalc.speed.reads import reads
from vramcalc.workload import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import validate_speed


def _workload(gpu: str = "strix-halo", **fields: str):
    return parse_workload({"model": "gpt-oss-20b", "runtime": "transformers", "gpu": gpu, "precision": "mxfp4",
                           "prompt_tokens": "90", "output_tokens": "87", **fields})


def _step(workload, batch: int = 1):
    assert workload.gpu is not None
    return forward(workload, device(workload.gpu, Machine()), Machine(), Placement(), batch=batch, depth=133)


def test_the_rate_is_the_sources():
    """7.42 = 2.954 / 0.398 ms (PR #10810, M = 16); 16 rows: opt_flags.py's `m <= 16`."""
    table = engine_rates(_workload().runtime)["rdna_mxfp4"]
    assert table == {"max_rows": 16, "slowdown": 7.42}
    assert round(2.954 / 0.398, 2) == table["slowdown"]


@pytest.mark.parametrize(("gfx", "rdna"), [("gfx1100", True), ("gfx1151", True), ("gfx1201", True),
                                           ("gfx1250", False), ("gfx942", False), ("gfx90a", False), (None, False)])
def test_rdna_is_triton_kernels_get_rdna_version(gfx, rdna):
    """target_info.get_rdna_version: gfx11* is RDNA 3, gfx12* but gfx125* RDNA 4, anything else -1."""
    card = _workload().gpu
    assert isinstance(card, GpuSpec)
    assert is_rdna(dataclasses.replace(card, gfx=gfx)) is rdna


def test_the_experts_read_takes_the_slowdown_on_strix_halo():
    """One token routes to 4 of 32 experts in each of 24 layers: their MXFP4 bytes read 7.42 times slower than
    at the engine's 80 % of 256 GB/s, the rest of the step as before."""
    workload = _workload()
    weights = reads(workload)
    experts = sum(layer.experts for layer in weights.layers) * 4 / 32
    step = _step(workload)
    assert step.moe_kernel_s == pytest.approx(experts * 6.42 / (0.8 * 256e9))
    assert 0.035 < step.moe_kernel_s < 0.045  # 1.27 GB of experts
    assert step.seconds == pytest.approx(step.gpu_read_s) and step.bound == "memory"


@pytest.mark.parametrize(("gpu", "fields"), [
    ("mi300x", {}),  # CDNA 3: get_rdna_version() is -1 (ROCm/triton #970: ~0.1 ms a matmul at M = 1 on gfx942)
    ("rtx-4090", {}),  # NVIDIA's opt flags (opt_flags_nvidia.py), not the AMD default
    ("strix-halo", {"precision": "bf16"}),  # no triton_kernels: the bf16 experts' grouped_mm or eager loop
    ("strix-halo", {"runtime": "vllm"}),  # vLLM's own MoE path, not this one
])
def test_no_slowdown_elsewhere(gpu, fields):
    assert _step(_workload(gpu, **fields)).moe_kernel_s == 0.0


def test_more_than_16_routed_rows_take_the_other_setting():
    """batch 4 is 16 rows (2 warps, slow); batch 5 is 20 (8 warps: PR #10810's M = 32 row, 0.631 against 0.547 ms)."""
    workload = _workload()
    assert _step(workload, batch=4).moe_kernel_s > 0
    assert _step(workload, batch=5).moe_kernel_s == 0.0


def test_the_answer_says_why():
    workload = _workload()
    assert workload.gpu is not None
    speed = speed_of(estimate(workload), workload.gpu, 1, Machine())
    lines = [ENGLISH.say(line) for line in speed.basis]
    assert any("PR #10810" in line and "MXFP4 experts on an RDNA card" in line for line in lines)
    assert speed.decode_tokens_per_s is not None and 15 < speed.decode_tokens_per_s < 25  # 41.7 without the rule


def test_the_strix_halo_row_moves_within_2x():
    """amd/playbooks #882: 11.6 tokens/s measured; 41.7 predicted before (+259 %), 17.3 now (+49 %): 18.7 with this
    rule alone, then attention read in bf16 (transformers converts gpt-oss's experts alone)."""
    (row,) = validate_speed.results("transformers_rocm")
    assert 0.44 < row["error"] < 0.54


def test_the_checkpoint_as_published_takes_it_too():
    """gpt-oss at precision auto runs its MXFP4 experts as published (`native`): the same kernels."""
    native = parse_workload({"model": "gpt-oss-20b", "runtime": "transformers", "gpu": "strix-halo"})
    assert native.precision.value == "native"
    assert _step(native).moe_kernel_s == pytest.approx(_step(_workload()).moe_kernel_s)


def _weights_gib(workload) -> float:
    return next(c.bytes for c in estimate(workload).components if c.key == "weights") / 2**30


def test_transformers_converts_gpt_oss_experts_alone():
    """replace_with_mxfp4_linear turns each GptOssMLP into an Mxfp4GptOssMLP and nothing else: attention stays bf16.
    amd/playbooks #882 loaded gpt-oss-20b in 12.83 GiB (before: 11.94 GiB, attention counted in MXFP4)."""
    workload = _workload()
    assert workload.precision.mlp_only
    assert _weights_gib(workload) == pytest.approx(12.83, abs=0.02)
    assert _weights_gib(workload) == _weights_gib(parse_workload(
        {"model": "gpt-oss-20b", "runtime": "transformers", "gpu": "strix-halo"}))
    vllm = parse_workload({"model": "gpt-oss-20b", "runtime": "vllm", "gpu": "h100-80gb", "precision": "mxfp4"})
    assert vllm.precision.mlp_only  # vLLM too (tests/test_mxfp4_experts.py)


@pytest.mark.parametrize(("fields", "said"), [
    ({}, True), ({"precision": "mxfp4"}, True), ({"precision": "bf16"}, False), ({"runtime": "vllm"}, False),
    ({"gpu": "apple-m4-max-128gb"}, False),  # dequantised there: note.dequantised_mxfp4 says it
])
def test_the_memory_answer_says_what_keeps_mxfp4(fields, said):
    """Without the kernels package (or Triton 3.4) transformers dequantises to bf16 as it loads
    (quantizer_mxfp4.py): amd/playbooks #792's out of memory on a 64 GB Strix Halo, gone with kernels (#882)."""
    workload = parse_workload({"model": "gpt-oss-20b", "runtime": "transformers", "gpu": "strix-halo", **fields})
    notes = [ENGLISH.say(note) for note in estimate(workload).notes]
    line = next((note for note in notes if "kernels package" in note), None)
    assert (line is not None) is said
    if said:
        assert "41.83 GB of weights instead of 13.76 GB" in line


def test_the_line_reads_in_portuguese():
    from test_portuguese_page import assert_portuguese
    from vramcalc.render.messages import Words

    workload = _workload()
    assert workload.gpu is not None
    speed = speed_of(estimate(workload), workload.gpu, 1, Machine())
    lines = [Words("pt").say(line) for line in speed.basis if line.key == "speed.basis.rdna_mxfp4"]
    assert len(lines) == 1 and "PR #10810" in lines[0]
    assert_portuguese(lines, "the RDNA line")
