"""Export: the CSV and Markdown documents carry the engine's own bytes, and the command line
prints the same documents the page's buttons save."""

from __future__ import annotations

import csv
import io
import json

from test_input import run_cli
from vramcalc import estimate, parse_workload
from vramcalc.analysis.fit import fit_all
from vramcalc.analysis.ranks import per_gpu
from vramcalc.render.export import to_csv, to_json, to_markdown
from vramcalc.render.messages import ENGLISH
from vramcalc.speed import cost_of, speed_of
from vramcalc.workload import Machine

TRAINING = {"model": "llama-3-70b", "mode": "training", "gpus": "8", "zero": "3"}


def test_csv_rows_are_the_engine_components():
    breakdown = estimate(parse_workload(TRAINING))
    rows = list(csv.DictReader(io.StringIO(to_csv(breakdown, 8))))
    rank = per_gpu(breakdown, 8)
    by_key = {row["component"]: row for row in rows}
    for component in breakdown.components:
        assert int(by_key[component.key]["bytes"]) == component.bytes
        assert int(by_key[component.key]["per_gpu_bytes"]) == rank.components.get(component.key, 0)
        assert by_key[component.key]["formula"] == ENGLISH.say(component.formula)  # commas and quotes survive
    assert int(by_key["total"]["bytes"]) == breakdown.total_bytes
    assert int(by_key["total"]["per_gpu_bytes"]) == rank.total_bytes


def test_markdown_names_the_total_the_nonzero_parts_and_the_link():
    breakdown = estimate(parse_workload({"model": "qwen3-32b", "precision": "awq-int4", "runtime": "vllm"}))
    text = to_markdown(breakdown, verdict="Fits on one H100", link="https://example.org/?model=qwen3-32b")
    assert f"({breakdown.total_bytes:,} bytes)" in text
    assert "**Fits on one H100**" in text
    assert "[Open in the calculator](https://example.org/?model=qwen3-32b)" in text
    table = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(table) == 2 + sum(1 for c in breakdown.components if c.bytes)  # header, parts, total
    assert all(line.count(" | ") == 3 for line in table[1:-1])  # no formula breaks the table


def test_cli_prints_the_same_documents():
    args = ("--model", "llama-3-70b", "--mode", "training", "--gpus", "8", "--zero", "3")
    breakdown = estimate(parse_workload(TRAINING))
    assert run_cli(*args, "--csv").stdout == to_csv(breakdown, 8)
    assert run_cli(*args, "--markdown").stdout == to_markdown(breakdown, 8)
    speed = speed_of(breakdown, breakdown.workload.gpu, 8, Machine())
    expected = json.loads(json.dumps(to_json(breakdown, fit_all(breakdown), 8, speed=speed,
                                             cost=cost_of(speed, breakdown.workload.gpu, 8, Machine()))))
    assert json.loads(run_cli(*args, "--json").stdout) == expected
