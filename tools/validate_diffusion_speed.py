"""The image and video pipelines' speed against published runs (tests/data/speed/diffusion_published.json).

Each row is run through `vramcalc.diffusion.speed` as the source ran it (pipeline, size, steps, guidance passes,
placement, the card); its predicted end-to-end seconds are set beside the published ones. Fitting: the share of
the card's dense 16-bit rate each kind of denoiser reaches (DiT, UNet) is the median over its rows of the share that
makes the row exact (the log errors' median is then zero); the held-out check fits on every source but one and
predicts that one. Rows whose card is not in the data, or marked `anomalous`, are printed apart. Rows marked
`held_out` (added after the fit: FLUX.2) inform no share: they are predicted at the stored shares, in a table of
their own.

    .venv/bin/python tools/validate_diffusion_speed.py          # the table, the rates as data/speed.json has them
    .venv/bin/python tools/validate_diffusion_speed.py --fit    # fit the shares and write them to data/speed.json
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

from vramcalc.diffusion import speed as diffusion_speed  # noqa: E402
from vramcalc.diffusion.pipelines import pipeline  # noqa: E402
from vramcalc.diffusion.run import Request, evaluate  # noqa: E402
from vramcalc.sources.gpus import gpu  # noqa: E402
from vramcalc.speed.hardware import device  # noqa: E402
from vramcalc.workload import Machine  # noqa: E402

DATA = ROOT / "tests" / "data" / "speed" / "diffusion_published.json"
SPEED_JSON = ROOT / "app" / "vramcalc" / "data" / "speed.json"
STORED = ("rows", "median", "worst", "held_out_median", "validated")


def rows() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["rows"]
    return data


def group(row: dict[str, Any]) -> str:
    return diffusion_speed.group(pipeline(row["pipeline"]).denoiser.class_name, device(gpu(row["slug"]), Machine()))


def source(row: dict[str, Any]) -> str:
    return str(row["url"]).split("/blob/")[0].split("#")[0]


def predict(row: dict[str, Any], share: float | None = None) -> float:
    """The row's predicted seconds (at `share` of the card's rate instead of the data's, when given)."""
    chosen = pipeline(row["pipeline"])
    precision = "bf16" if row["precision"] in ("bf16", "fp16") else row["precision"]
    request = Request(width=row["width"], height=row["height"], frames=row["frames"], batch=row["batch"],
                      cfg=row["cfg"], placement=row["placement"], precision=precision, text_precision=precision,
                      vae_precision=precision, vae_tiling=row["vae_tiling"], text_encoders=row["text_encoders"])
    result = diffusion_speed.speed_of(evaluate(chosen, request), gpu(row["slug"]), row["steps"], share=share)
    if not isinstance(result, diffusion_speed.DiffusionSpeed):
        raise ValueError(f"{row['pipeline']} on {row['slug']}: {result}")
    return result.total_s


def implied_share(row: dict[str, Any]) -> float:
    """The share that makes the row exact: its time is compute / share + transfers (which no share changes)."""
    at_one, transfers = predict(row, 1.0), predict(row, 1e12)
    return (at_one - transfers) / (row["seconds"] - transfers)


def fit(chosen: list[dict[str, Any]]) -> dict[str, float]:
    """Each group's share: the geometric median of its rows' implied shares (the log errors' median is zero)."""
    shares = {}
    for name in sorted({group(row) for row in chosen}):
        implied = [implied_share(row) for row in chosen if group(row) == name]
        shares[name] = round(math.exp(statistics.median(math.log(s) for s in implied)), 3)
    return shares


def summary(errors: list[float]) -> dict[str, Any]:
    return {"rows": len(errors), "median": round(statistics.median(abs(e) for e in errors), 3),
            "worst": round(max(abs(e) for e in errors), 3),
            "within_2x": sum(1 for e in errors if 0.5 < 1 + e < 2)}


def usable() -> list[dict[str, Any]]:
    """The rows the model describes, on cards in the data, that the shares are fitted to."""
    return [row for row in rows() if row["slug"] and not row.get("anomalous") and not row.get("held_out")]


def held_out() -> list[dict[str, Any]]:
    """The rows kept out of the fit (`held_out`) on cards in the data: each with its error at `rates()["share"]`."""
    return [row for row in rows() if row["slug"] and row.get("held_out") and not row.get("anomalous")]


def held_out_table(shares: dict[str, float]) -> tuple[list[str], list[float]]:
    """The held-out rows' markdown lines and their errors at `shares` (none of them informs a share)."""
    header = "| group | pipeline | card | size | steps | placement | encoders | published s | predicted s | error |"
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|"]
    errors = []
    for row in held_out():
        predicted = predict(row, shares[group(row)])
        errors.append(predicted / row["seconds"] - 1)
        lines.append(f"| {group(row)} | {row['pipeline']} | {row['slug']} | {row['width']}x{row['height']} | "
                     f"{row['steps']} | {row['placement']} | {row['text_encoders']} | {row['seconds']:,.2f}"
                     f"{' ~' if row.get('approximate') else ''} | {predicted:,.2f} | {100 * errors[-1]:+.1f}% |")
    return lines, errors


def table(shares: dict[str, float]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The error table (markdown lines, each row's in-sample error at `shares` and its held-out error, fitted on the
    group's other sources) and each group's validation as data/speed.json keeps it."""
    lines = ["| group | pipeline | card | size | steps | CFG | engine | published s | predicted s | error | held out |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    chosen = usable()
    by_group: dict[str, dict[str, list[Any]]] = {}
    for row in chosen:
        name = group(row)
        others = [r for r in chosen if source(r) != source(row) and group(r) == name]
        held_share = fit(others).get(name) if others else None
        predicted = predict(row, shares[name])
        e = predicted / row["seconds"] - 1
        h = predict(row, held_share) / row["seconds"] - 1 if held_share else None
        stats = by_group.setdefault(name, {"in": [], "held": [], "sources": [], "approximate": []})
        stats["in"].append(e)
        if h is not None:
            stats["held"].append(h)
        stats["sources"].append(source(row))
        stats["approximate"].append(bool(row.get("approximate")))
        size = f"{row['width']}x{row['height']}" + (f"x{row['frames']}" if row["frames"] > 1 else "")
        lines.append(f"| {name} | {row['pipeline']} | {row['slug']} | {size} | {row['steps']} | "
                     f"{'on' if row['cfg'] else 'off'} | {row['engine']} | {row['seconds']:,.2f}"
                     f"{' ~' if row.get('approximate') else ''} | {predicted:,.2f} | {100 * e:+.1f}% | "
                     f"{'-' if h is None else f'{100 * h:+.1f}%'} |")
    validation = {}
    for name, stats in sorted(by_group.items()):
        summary_in = summary(stats["in"])
        held = summary(stats["held"]) if stats["held"] else None
        sources = len(set(stats["sources"]))
        # validated: at least three rows from at least two sources, not all of them approximate, and each source
        # predicted from the others' fit within the 25 % the language models' speed holds its prompt rates to
        validated = (summary_in["rows"] >= 3 and sources >= 2 and not all(stats["approximate"])
                     and held is not None and held["median"] <= 0.25)
        validation[name] = {**summary_in, "sources": sources, "validated": validated,
                            "held_out_median": held and held["median"], "held_out_worst": held and held["worst"]}
    return lines, validation


def stored(validation: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What of the validation the engine reads (data/speed.json ships to the page: the rest is in the table)."""
    return {name: {key: stats[key] for key in STORED} for name, stats in validation.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="fit the shares and write them to data/speed.json")
    args = parser.parse_args()
    shares = fit(usable()) if args.fit else dict(diffusion_speed.rates()["share"])
    if args.fit:
        # a group without a row: its kind's share on the other class of card, scaled as the DiTs' shares scale
        # between the classes (a stated prior, shown as unvalidated)
        for kind in ("dit", "unet"):
            for card, other in (("hbm_fp8", "other"), ("other", "hbm_fp8")):
                name = f"{kind}-{card}"
                if name not in shares and f"{kind}-{other}" in shares:
                    shares[name] = round(shares[f"{kind}-{other}"] * shares[f"dit-{card}"] / shares[f"dit-{other}"], 3)
                    print(f"{name}: no row; prior {shares[name]} = {kind}-{other} x dit-{card} / dit-{other}")
    print(f"shares of the dense 16-bit rate: {shares}")
    lines, validation = table(shares)
    print("\n".join(lines))
    for name, stats in validation.items():
        print(f"{name}: {stats}")
    lines, errors = held_out_table(shares)
    if errors:
        print("held out (not fitted), at the shares above:")
        print("\n".join(lines))
    for row in rows():
        if not row["slug"] or row.get("anomalous"):
            why = row.get("anomalous") or f"{row['gpu']}: not in the GPU data"
            extra = ""
            if row["slug"] and row["precision"] != "fp32":
                extra = f": predicted {predict(row, shares[group(row)]):,.2f} s"
            print(f"apart: {row['pipeline']} {row['width']}x{row['height']}x{row['frames']} {row['seconds']} s "
                  f"({why}){extra}")
    if args.fit:
        data = json.loads(SPEED_JSON.read_text(encoding="utf-8"))
        data["diffusion"] = {**data.get("diffusion", {}), "share": dict(sorted(shares.items())),
                             "validation": stored(validation)}
        SPEED_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {SPEED_JSON.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
