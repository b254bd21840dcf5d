"""Embedding throughput against published runs (tests/data/speed/embedding_published.json,
tools/validate_embedding_speed.py; docs/accuracy.md, "Embedding and diffusion times against published runs").

Each predicted row must come within 2x of its published rate; the rows the engine misses by 2x or more are strict
xfails with the reason, so that a change which brings them within 2x is seen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import validate_embedding_speed  # noqa: E402

OFF_BY_2X = {
    "infinity-l4-sentence-transformers": (
        "sentence-transformers' encode() tokenises on the host inside the timed call and ran BERT's eager attention "
        "(transformers of early 2024); the engine counts the forward's FLOPs only: infinity's torch engine on the "
        "same card and batch is predicted within 33 %"),
}


def _cases() -> list[object]:
    cases: list[object] = []
    for row in validate_embedding_speed.rows("held_out"):
        marks = [pytest.mark.xfail(strict=True, reason=OFF_BY_2X[row["id"]])] if row["id"] in OFF_BY_2X else []
        cases.append(pytest.param(row, id=row["id"], marks=marks))
    return cases


@pytest.mark.parametrize("row", _cases())
def test_each_published_run_is_predicted_within_2x(row: dict[str, object]) -> None:
    assert 0.5 < 1 + validate_embedding_speed.error(row) < 2


def test_the_rows_the_engine_misses_are_the_ones_named() -> None:
    ids = {row["id"] for row in validate_embedding_speed.rows("held_out")}
    assert set(OFF_BY_2X) <= ids and len(ids) == 9
    _, found = validate_embedding_speed.table()
    assert found["rows"] == 9 and found["within_2x"] == 9 - len(OFF_BY_2X)


def test_every_row_names_its_source_and_setup() -> None:
    for row in validate_embedding_speed.rows():
        assert str(row["url"]).startswith("https://github.com/") and row["quoted"]
        assert row["sequences"] > 0 and row["seconds"] > 0
        if row["role"] == "held_out":
            assert row["slug"] and row["batch"] and row["seq"] and row["assumed"]
        else:
            assert row["role"] == "not_modelled" and row["why"]
