"""transformers' default overhead by the card (issue 28; data/gpu_overhead.json, docs/accuracy.md "The GPU's own
overhead"), and the counter the total reads against."""

from __future__ import annotations

import importlib.util
import json
import statistics
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.units import GIB, MIB
from vramcalc.engines import engine_for
from vramcalc.inputs.parse import parse_workload
from vramcalc.render.export import to_json
from vramcalc.render.i18n.en import EN
from vramcalc.render.i18n.pt import PT
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.gpu_overhead import card_overhead
from vramcalc.sources.gpus import gpu, load_gpus
from vramcalc.speed.hardware import calibration

ROOT = Path(__file__).parents[1]
CLASSES = json.loads((ROOT / "app/vramcalc/data/gpu_overhead.json").read_text(encoding="utf-8"))
SOURCES = json.loads((ROOT / "tests/data/gpu_overhead_sources.json").read_text(encoding="utf-8"))
UNIT = {"GiB": GIB, "MiB": MIB, "KiB": 1024}


def size(text: str) -> float:
    number, unit = text.split()
    return float(number) * UNIT[unit]


def included(arch: str) -> list[list[str]]:
    return [r["run"] for r in SOURCES["runs"] if r["class"] == arch and r["included"]]


def test_the_data_is_what_the_tool_writes_from_the_sources():
    tool = importlib.util.spec_from_file_location("gpu_overhead_tool", ROOT / "tools/gpu_overhead.py")
    module = importlib.util.module_from_spec(tool)  # type: ignore[arg-type]
    tool.loader.exec_module(module)  # type: ignore[union-attr]
    assert (ROOT / "app/vramcalc/data/gpu_overhead.json").read_text(encoding="utf-8") == module.render(
        module.classes(SOURCES))
    for record in SOURCES["runs"]:  # each message is of one process, within the capacity PyTorch prints
        assert record["source"] and size(record["capacity"]) > size(record["run"][0]) > size(record["run"][1])


def test_every_nvidia_card_is_in_one_class_and_only_amd_and_gb10_are_in_none():
    placed = [slug for entry in SOURCES["classes"].values() for slug in entry["cards"]]
    assert len(placed) == len(set(placed))
    amd = set(calibration()["rocm"])  # the cards ROCm runs: MI300X, Radeon, Strix Halo
    assert amd >= {"mi300x", "rx-7900-xtx", "strix-halo"}
    assert {slug for slug, _ in load_gpus().items()} - set(placed) == amd | {"dgx-spark"}


@pytest.mark.parametrize("arch", sorted(CLASSES))
def test_the_default_is_the_runs_median_at_least_the_bare_context_plus_pytorchs_cublas_workspace(arch):
    held = statistics.median(size(a) - size(b) - size(c) for a, b, c in included(arch))
    bare = [c["mib"] * MIB for c in SOURCES["bare_contexts"] if c["class"] == arch]
    # CublasHandlePool.cpp: 32 MiB on compute capability 9 to 12, else :4096:2:16:8
    workspace = 32 * MIB if 9 <= int(arch[3:]) // 10 <= 12 else 4096 * 1024 * 2 + 16 * 1024 * 8
    for slug in SOURCES["classes"][arch]["cards"]:
        workload = parse_workload({"model": "llama-3-8b", "gpu": slug})
        assert workload.overhead_bytes == pytest.approx(max([held, *bare]) + workspace, abs=1)
        row = ENGLISH.say(next(c for c in estimate(workload).components if c.key == "overhead").formula)
        assert f"transformers' default on {arch} cards" in row


def test_cards_without_a_published_figure_keep_one_gib_and_say_it_is_not_a_measurement():
    for slug in ("mi300x", "dgx-spark", "apple-m4-max-128gb", "24gb"):
        workload = parse_workload({"model": "llama-3-8b", "gpu": slug})
        assert workload.overhead_bytes == GIB and card_overhead(workload.gpu) is None
        row = ENGLISH.say(next(c for c in estimate(workload).components if c.key == "overhead").formula)
        assert "not a measurement" in row


def test_the_overhead_now_follows_the_card():
    # an A100 holds less beside PyTorch's allocator than an H100 in the published runs; each below the old 1 GiB
    sizes = {slug: parse_workload({"model": "llama-3-8b", "gpu": slug}).overhead_bytes
             for slug in ("rtx-3090", "a100-80gb", "h100-80gb", "b200")}
    assert sizes["rtx-3090"] < sizes["a100-80gb"] < sizes["b200"] < sizes["h100-80gb"] < GIB
    given = parse_workload({"model": "llama-3-8b", "gpu": "rtx-3090", "overhead_gib": "2"})
    assert given.overhead_bytes == 2 * GIB  # the user's setting wins


def test_the_note_states_the_published_reserve_it_leaves_out():
    ratios = [size(c) / size(b) for arch in CLASSES for _, b, c in included(arch)]
    low, high, median = min(ratios), max(ratios), statistics.median(ratios)
    span = f"{low * 100:.0f}–{high * 100:.0f} %"  # 0–51 %
    assert span in EN["note.counter"] and span in PT["note.counter"]
    assert f"median {median * 100:.1f} %" in EN["note.counter"]
    assert f"mediana {median * 100:.1f} %".replace(".", ",") in PT["note.counter"]
    workload = parse_workload({"model": "llama-3-8b"})
    assert "nvidia-smi" in " ".join(ENGLISH.say(note) for note in estimate(workload).notes)


@pytest.mark.parametrize("values", [{}, {"runtime": "vllm"}, {"runtime": "llamacpp", "precision": "q4_k_m"}])
def test_json_says_the_counter_and_pytorchs_own_peak(values):
    breakdown = estimate(parse_workload({"model": "llama-3-8b", **values}))
    data = to_json(breakdown, ())
    assert data["total_counter"] == "nvidia-smi"
    if not values:
        assert data["max_memory_allocated_bytes"] == breakdown.total_bytes - breakdown.bytes_of("overhead")
    else:
        assert data["max_memory_allocated_bytes"] is None


def test_another_card_gets_its_own_overhead():
    workload = parse_workload({"model": "llama-3-8b"})
    moved = engine_for(workload.runtime).default_overhead({**vars(workload), "gpu": gpu("rtx-3090")})
    assert moved == CLASSES["sm_86"]["context"] + CLASSES["sm_86"]["workspace"] != workload.overhead_bytes


@pytest.mark.parametrize("model", ["llama-3.1-8b", "llama-3-70b"])
def test_a_cards_row_in_the_fit_table_does_not_depend_on_the_card_the_form_names(model):
    """Each row counts its own card's overhead (it differs by class): the same row whichever card is chosen."""
    from vramcalc import estimate, parse_workload
    from vramcalc.analysis.fit import fit_all

    def rows(form_gpu):
        return {fit.gpu.slug: (fit.utilization, fit.count)
                for fit in fit_all(estimate(parse_workload({"model": model, "gpu": form_gpu})))}

    chosen = ("h100-80gb", "rtx-4090", "a100-80gb")
    tables = {gpu: rows(gpu) for gpu in chosen}
    for row in chosen:
        (utilization, count), *others = (tables[form][row] for form in (row, *set(chosen) - {row}))
        assert all(other[0] == pytest.approx(utilization, rel=1e-12) and other[1] == count for other in others)
