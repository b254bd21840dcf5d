"""Whisper transcriptions' time against published runs (tests/data/speed/speech_published.json).

Each row is run through `vramcalc.speed.speech` as the README ran it (large-v2, 780 s of audio, beam 5, its engine,
precision and batch, the card with its own bandwidth and dense rate); its predicted seconds are set beside the
published ones. Fitting: data/speed.json's two "speech" rates, the fixed cost per decoder layer and step of the C++
engines (CTranslate2, whisper.cpp) and the host's seconds per second of audio, minimise the sum of squared log errors
of the `fit` rows (a grid, then a finer one around its best); `held_out` rows are predicted only.

    .venv/bin/python tools/validate_speech_speed.py          # the table, at the rates data/speed.json has
    .venv/bin/python tools/validate_speech_speed.py --fit    # fit the rates and write them to data/speed.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))

from vramcalc import estimate  # noqa: E402
from vramcalc.inputs.options import CONFIG  # noqa: E402
from vramcalc.inputs.parse import parse_workload  # noqa: E402
from vramcalc.speed.hardware import calibration, device  # noqa: E402
from vramcalc.speed.speech import transcription  # noqa: E402
from vramcalc.workload import Machine  # noqa: E402

DATA = ROOT / "tests" / "data" / "speed" / "speech_published.json"
SPEED_JSON = ROOT / "app" / "vramcalc" / "data" / "speed.json"
LARGE_V3 = json.loads((ROOT / "app/vramcalc/data/models/whisper-large-v3.json").read_text())
# openai/whisper-large-v2's config.json differs from large-v3's in its 80 mel bins and 51,865 tokens
LARGE_V2 = {**LARGE_V3["config"], "num_mel_bins": 80, "vocab_size": 51865}


def rows(role: str = "") -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["rows"]
    return [row for row in data if not role or row["role"] == role]


def predict(row: dict[str, Any], fitted: dict[str, float] | None = None) -> float:
    values = {"model": CONFIG, "mode": "speech", "runtime": row["runtime"], "precision": row["precision"],
              "gpu": row["slug"], "audio_seconds": str(row["audio_seconds"]), "batch": str(row["batch"]),
              "beams": str(row["beams"])}
    workload = parse_workload(values, config=LARGE_V2)
    assert workload.gpu is not None
    card = device(workload.gpu, Machine(gpu_bandwidth_gb_s=row["gpu_bandwidth_gb_s"], gpu_tflops=row["gpu_tflops"]))
    result = transcription(estimate(workload), card, fitted)
    assert result is not None
    return result.seconds


def _loss(fitted: dict[str, float], chosen: list[dict[str, Any]]) -> float:
    return sum(math.log(predict(row, fitted) / row["seconds"]) ** 2 for row in chosen)


def fit() -> dict[str, float]:
    """The two rates minimising the fit rows' squared log errors: layer_s in µs steps, host_s in 0.1 ms steps."""
    chosen = rows("fit")
    best: tuple[float, dict[str, float]] | None = None
    for layer in range(200, 801, 10):
        for host in range(0, 101, 2):
            fitted = {"layer_s": layer * 1e-6, "host_s": host * 1e-4}
            loss = _loss(fitted, chosen)
            if best is None or loss < best[0]:
                best = (loss, fitted)
    assert best is not None
    middle = best[1]
    for layer in range(round(middle["layer_s"] * 1e6) - 10, round(middle["layer_s"] * 1e6) + 11):
        for host in range(max(0, round(middle["host_s"] * 1e4) - 2), round(middle["host_s"] * 1e4) + 3):
            fitted = {"layer_s": layer * 1e-6, "host_s": host * 1e-4}
            loss = _loss(fitted, chosen)
            if loss < best[0]:
                best = (loss, fitted)
    return {"layer_s": round(best[1]["layer_s"], 6), "host_s": round(best[1]["host_s"], 4)}


def errors(role: str, fitted: dict[str, float] | None = None) -> list[float]:
    return [predict(row, fitted) / row["seconds"] - 1 for row in rows(role)]


def summary(found: list[float]) -> dict[str, Any]:
    return {"rows": len(found), "median": round(statistics.median(abs(e) for e in found), 3),
            "worst": round(max(abs(e) for e in found), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="fit the rates and write them to data/speed.json")
    fitted = fit() if parser.parse_args().fit else {k: calibration()["speech"][k] for k in ("layer_s", "host_s")}
    print("| implementation | precision | batch | card | role | published s | predicted s | error |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows():
        predicted = predict(row, fitted)
        print(f"| {row['implementation']} | {row['precision']} | {row['batch']} | {row['gpu']} | {row['role']} | "
              f"{row['seconds']} | {predicted:,.1f} | {100 * (predicted / row['seconds'] - 1):+.0f}% |")
    validation = {role: summary(errors(role, fitted)) for role in ("fit", "held_out")}
    print(fitted, validation)
    if parser.parse_args().fit:
        data = json.loads(SPEED_JSON.read_text(encoding="utf-8"))
        data["speech"].update(fitted, validation=validation)
        SPEED_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
