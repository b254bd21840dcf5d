"""TRL's step times against published runs: GRPO (tests/data/speed/trl_published.json), the preference trainers,
ORPO, KTO and DPO (tests/data/speed/trl_preference_published.json), and apart the Hugging Face Trainer's supervised
runs (SFTTrainer, tests/data/speed/trl_sft_published.json: printed apart; --write stores their own "trl-sft" line,
which the answer shows beside the supervised rate's error, as no rate is fitted to them).

Each row is run through the engine as its source ran it (parse_workload, estimate, speed_of, as
tools/validate_speed.py does for torchtune's rows): the objective, the model's shapes, the training GPUs, the
per-device batch of completions, gradient accumulation, the rollout engine, lengths, ZeRO stage, checkpointing and
the reference model the row names. Its predicted seconds per optimizer step are set beside the published ones.
No rate is fitted here: data/speed.json's "training" share (fitted to torchtune's SFT table) and the inference
model's decode rates are used as they are.

    .venv/bin/python tools/validate_trl_speed.py            # measured, predicted, error per row; median and worst
    .venv/bin/python tools/validate_trl_speed.py --parts    # the predicted step split into rollout and the rest
    .venv/bin/python tools/validate_trl_speed.py --write    # store GRPO's and the preference lines in data/speed.json

Error = predicted / measured - 1. A row marked `anomalous` is not predicted (its reason is printed)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))

from vramcalc.analysis.evaluate import estimate  # noqa: E402
from vramcalc.inputs.parse import parse_workload  # noqa: E402
from vramcalc.speed import Speed, speed_of  # noqa: E402
from vramcalc.workload import Machine  # noqa: E402

DATA = ROOT / "tests" / "data" / "speed" / "trl_published.json"
PREFERENCE = ROOT / "tests" / "data" / "speed" / "trl_preference_published.json"
# the Hugging Face Trainer's supervised runs (TRL's SFTTrainer): printed apart, no rate is fitted to them (too few)
SFT = ROOT / "tests" / "data" / "speed" / "trl_sft_published.json"
PREFERENCE_OBJECTIVES = ("dpo", "orpo", "kto")
SPEED_JSON = ROOT / "app" / "vramcalc" / "data" / "speed.json"


def table(path: Path = DATA) -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(path.read_text())
    return data


def values(row: Mapping[str, Any]) -> dict[str, str]:
    """The form values of a row: what its source ran, in the calculator's options."""
    out = {"model": str(row["model"]), "mode": "training", "objective": str(row["objective"]),
           "gpu": str(row["slug"]), "gpus": str(row["gpus"]), "batch": str(row["batch"]),
           "grad_accum": str(row["grad_accum"]), "seq": str(row["seq"]), "precision": "bf16",
           "checkpointing": str(row.get("checkpointing") or "none"), "attention": str(row.get("attention") or "eager"),
           "lora_rank": str(row.get("lora_rank") or 0)}
    if row.get("zero") is not None:
        out |= {"zero": str(row["zero"]), "recipe": "mixed"}  # DeepSpeed bf16: fp32 master weights and Adam states
    # the preference rows name what they ran: FSDP, the optimizer, the weights' precision and the recipe
    out |= {key: str(row[key]) for key in ("fsdp", "optimizer", "precision", "recipe") if row.get(key)}
    out |= {key: "1" for key in ("activation_offload", "fused_ce") if row.get(key)}  # TRL's offloading, Liger's loss
    if row["objective"] in ("grpo", "rloo"):
        out |= {"num_generations": str(row.get("num_generations") or 8),
                "completion_tokens": str(row["completion_tokens"]),
                "rollout": str(row["rollout"]), "steps_per_generation": str(row.get("steps_per_generation") or ""),
                "reference": str(row.get("reference") or "")}
    return {key: value for key, value in out.items() if value != ""}


def predict(row: Mapping[str, Any]) -> Speed:
    """The engine's speed for a row; `hf_config`: the checkpoint's config.json, for a model with no preset."""
    workload = parse_workload(values(row), config=row.get("hf_config"))
    return speed_of(estimate(workload), workload.gpu, int(row["gpus"]), Machine())  # type: ignore[arg-type]


def results(path: Path = DATA) -> list[dict[str, Any]]:
    """Every row of a table not marked anomalous, with its prediction and error."""
    out = []
    for row in table(path)["rows"]:
        if row.get("anomalous"):
            continue
        speed = predict(row)
        assert speed.step_s is not None, row["id"]
        measured = float(row["step_s"])
        out.append({"id": row["id"], "objective": row["objective"], "gpu": row["slug"], "gpus": row["gpus"],
                    "rollout": row.get("rollout", ""), "measured": measured, "predicted": speed.step_s,
                    "rollout_s": speed.rollout_s or 0.0, "error": speed.step_s / measured - 1,
                    "approximate": bool(row.get("approximate")), "assumed": bool(row.get("inputs_assumed"))})
    return out


def summary(found: list[dict[str, Any]]) -> dict[str, float]:
    absolute = [abs(r["error"]) for r in found]
    ratios = [r["measured"] / r["predicted"] for r in found]  # how many times the predicted step the run took
    return {"rows": len(found), "median": statistics.median(absolute), "worst": max(absolute),
            "bias": statistics.median(r["error"] for r in found),
            "within_2x": sum(1 for r in found if 0.5 < 1 + r["error"] < 2), "low": min(ratios), "high": max(ratios)}


def preference_line(found: list[dict[str, Any]]) -> dict[str, Any]:
    """data/speed.json's "trl-pref" (the page's line for DPO, ORPO and KTO, speed/validation.py): the runs predicted,
    the objectives they are, their median and worst |error| and the range of measured / predicted step times."""
    s = summary(found)
    return {"rows": s["rows"], "objectives": sorted({r["objective"] for r in found}), "median": round(s["median"], 3),
            "worst": round(s["worst"], 3), "low": round(s["low"], 1), "high": round(s["high"], 1)}


def trainer_line(found: list[dict[str, Any]]) -> dict[str, Any]:
    """data/speed.json's "trl-sft": the Hugging Face Trainer's supervised runs, which the training rate (fitted to
    torchtune's compiled runs) is not fitted to; the page says how they compare beside the SFT error line."""
    s = summary(found)
    return {"rows": s["rows"], "median": round(s["median"], 3), "worst": round(s["worst"], 3),
            "low": round(s["low"], 1), "high": round(s["high"], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", action="store_true", help="also print the predicted rollout seconds")
    parser.add_argument("--write", action="store_true", help='store the GRPO errors in data/speed.json "validation"')
    args = parser.parse_args()
    found = results() + results(PREFERENCE)
    print(f"{'row':<46}{'gpus':>5} {'rollout':<13}{'measured s':>11}{'predicted s':>12}{'error':>8}"
          + (f"{'rollout s':>11}" if args.parts else ""))
    for r in found:
        flags = ("~" if r["approximate"] else "") + ("*" if r["assumed"] else "")
        print(f"{r['id']:<46}{r['gpus']:>5} {r['rollout']:<13}{r['measured']:>11.1f}{r['predicted']:>12.1f}"
              f"{r['error']:>+8.0%}" + (f"{r['rollout_s']:>11.1f}" if args.parts else "") + f" {flags}")
    s = summary(found)
    print(f"{s['rows']} rows: median |error| {s['median']:.0%}, worst {s['worst']:.0%}, bias {s['bias']:+.0%}, "
          f"within 2x {s['within_2x']}/{s['rows']}  (~ approximate time, * inputs assumed)")
    for path in (DATA, PREFERENCE):
        for row in table(path)["rows"]:
            if row.get("anomalous"):
                print(f"not predicted: {row['id']}: {row['anomalous']}")
    sft = results(SFT)  # the Trainer's SFT runs, apart: the lines above and --write do not count them
    print(f"\nHugging Face Trainer SFT runs ({SFT.name}; no rate fitted to them: too few, all one-GPU QLoRA)")
    for r in sft:
        print(f"{r['id']:<46}{r['gpus']:>5} {'':<13}{r['measured']:>11.1f}{r['predicted']:>12.1f}{r['error']:>+8.0%}"
              + (" ~" if r["approximate"] else "") + (" *" if r["assumed"] else ""))
    t = summary(sft)
    print(f"{t['rows']} rows: median |error| {t['median']:.0%}, worst {t['worst']:.0%}, within 2x {t['within_2x']}/"
          f"{t['rows']}, {t['low']:.1f}-{t['high']:.1f}x the predicted time")
    for row in table(SFT)["rows"]:
        if row.get("anomalous"):
            print(f"not predicted: {row['id']}: {row['anomalous']}")
    if args.write:  # the page's error lines for GRPO and the preference trainers (speed/validation.py)
        grpo = summary([r for r in found if r["objective"] == "grpo"])
        data = json.loads(SPEED_JSON.read_text())
        data["validation"]["trl-grpo"] = {"median": round(grpo["median"], 3), "worst": round(grpo["worst"], 3),
                                          "rows": grpo["rows"]}
        data["validation"]["trl-pref"] = preference_line(
            [r for r in found if r["objective"] in PREFERENCE_OBJECTIVES])
        data["validation"]["trl-sft"] = trainer_line(sft)
        SPEED_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
