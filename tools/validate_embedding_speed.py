"""Embedders' throughput against published runs (tests/data/speed/embedding_published.json).

Each `held_out` row is run through the engine as `vramcalc --mode embedding` runs it (its preset or stored config,
runtime, precision, card, batch and tokens a sequence): the predicted sequences per second (`speed.requests_per_s`)
are set beside the published ones (sequences / seconds). Nothing is fitted: the embedders take the engines' prompt
rates (TEI takes transformers'), which no row here informs. `not_modelled` rows are listed with their reason.

    .venv/bin/python tools/validate_embedding_speed.py [--write]   # --write: the page's error line (speed.json)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))

from vramcalc import estimate  # noqa: E402
from vramcalc.inputs.options import CONFIG  # noqa: E402
from vramcalc.inputs.parse import parse_workload  # noqa: E402
from vramcalc.speed import speed_of  # noqa: E402
from vramcalc.workload import Machine  # noqa: E402

DATA = ROOT / "tests" / "data" / "speed" / "embedding_published.json"
SPEED_JSON = ROOT / "app" / "vramcalc" / "data" / "speed.json"


def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


def rows(role: str = "") -> list[dict[str, Any]]:
    return [row for row in data()["rows"] if not role or row["role"] == role]


def measured(row: dict[str, Any]) -> float:
    """The published sequences per second."""
    return float(row["sequences"] / row["seconds"])


def predict(row: dict[str, Any]) -> float:
    """The engine's sequences per second for the row's run."""
    values = {"mode": "embedding", "runtime": row["runtime"], "precision": row["precision"], "gpu": row["slug"],
              "batch": str(row["batch"]), "seq": str(row["seq"])}
    configs = data()["configs"]
    if row["model"] in configs:
        workload = parse_workload({**values, "model": CONFIG}, config=configs[row["model"]]["config"])
    else:
        workload = parse_workload({**values, "model": row["model"]})
    assert workload.gpu is not None
    speed = speed_of(estimate(workload), workload.gpu, 1, Machine())
    if speed.requests_per_s is None:
        raise ValueError(f"{row['id']}: no speed ({speed.unknown})")
    return speed.requests_per_s


def error(row: dict[str, Any]) -> float:
    """Predicted over published, less one: +100 % predicts twice the published rate."""
    return predict(row) / measured(row) - 1


def summary(errors: list[float]) -> dict[str, Any]:
    return {"rows": len(errors), "median": round(statistics.median(abs(e) for e in errors), 3),
            "worst": round(max(abs(e) for e in errors), 3),
            "within_2x": sum(1 for e in errors if 0.5 < 1 + e < 2)}


def table() -> tuple[list[str], dict[str, Any]]:
    header = "| row | runtime | model | precision | card | batch x tokens | published seq/s | predicted seq/s | error |"
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
    errors = []
    for row in rows("held_out"):
        predicted, published = predict(row), measured(row)
        errors.append(predicted / published - 1)
        lines.append(f"| {row['id']} | {row['runtime']} | {row['model']} | {row['precision']} | "
                     f"{row['slug']} | {row['batch']} x {row['seq']} | {published:,.1f} | {predicted:,.1f} | "
                     f"{100 * errors[-1]:+.0f}% |")
    return lines, summary(errors)


def main() -> None:
    lines, found = table()
    print("\n".join(lines))
    print(f"errors (|predicted / published - 1|): {found}")
    for row in rows("not_modelled"):
        print(f"not modelled: {row['id']}: {measured(row):,.1f} seq/s published ({row['why']})")
    if "--write" in sys.argv:  # the error line of every embedding answer (speed/__init__.py _embedding)
        speed = json.loads(SPEED_JSON.read_text(encoding="utf-8"))
        speed["validation"]["embedding"] = {key: found[key] for key in ("rows", "median", "worst", "within_2x")}
        SPEED_JSON.write_text(json.dumps(speed, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
