"""Fit an engine's rates in data/speed.json to the published runs (tests/data/speed/) by coordinate
search on the median absolute log error of each group, and print the fitted values (--write stores them).

    PYTHONPATH=app python tools/fit_speed.py [--write]             # llama.cpp (tgN, ppN)
    PYTHONPATH=app python tools/fit_speed.py --engine vllm [--write]  # vLLM and SGLang serving runs
    PYTHONPATH=app python tools/fit_speed.py --fit-on xiongjiedai   # fit on those tables, test on the rest
    PYTHONPATH=app python tools/fit_speed.py --prefill [...]        # llama.cpp's prompt rates alone (faster)
    PYTHONPATH=app python tools/fit_speed.py --rocm                 # llama.cpp's ROCm rates alone
    PYTHONPATH=app python tools/fit_speed.py --rocm --leave-one-out  # each refitted without one card, then it
    PYTHONPATH=app python tools/fit_speed.py --engine vllm --fold 0  # fit on half the rows (fold), test on the other
    PYTHONPATH=app python tools/fit_speed.py --engine transformers [--fit-on benchmarking_v045]  # generate, bnb
    PYTHONPATH=app python tools/fit_speed.py --moe-metal [--fit-on disc15396]  # Metal's cost per MoE layer alone

Fitted on every row tools/validate_speed.py predicts: the validation it then prints is in-sample, which
docs/accuracy.md says; the held-out check is the split by era there (fit on one source, test on another)."""

from __future__ import annotations

import functools
import json
import math
import statistics
import sys
from typing import Any

import validate_speed
from vramcalc.speed import hardware

PARAMETERS_VLLM = [  # (path in engines.vllm, the values tried: within what such kernels reach): serving runs
    (("decode_bandwidth", "hbm"), [0.6 + 0.05 * i for i in range(8)]),  # a CUDA-graph decode step's read: 0.6-0.95
    (("decode_bandwidth", "gddr"), [0.6 + 0.05 * i for i in range(8)]),
    (("layer_overhead_s", "cuda"), [5e-6 * i for i in range(13)]),
    (("layer_overhead_s", "rocm"), [5e-6 * i for i in range(13)]),
    (("prefill_compute", "16-bit"), [0.4 + 0.05 * i for i in range(10)]),  # a large-M cuBLAS GEMM: 0.4-0.85
    (("prefill_compute", "fp8"), [0.3 + 0.05 * i for i in range(12)]),
    (("prefill_compute", "quantised"), [0.2 + 0.05 * i for i in range(14)]),  # Marlin / MXFP4 kernels
    (("prefill_compute_rocm", "fp8"), [0.3 + 0.05 * i for i in range(12)]),
    (("moe_compute",), [0.05 + 0.025 * i for i in range(23)]),  # the fused-MoE grouped GEMM: 0.05-0.6
    (("host_s", "request"), [0.0, 1e-3, 2e-3, 3e-3, 5e-3, 7e-3, 1e-2]),
    (("host_s", "token"), [0.0, 2e-5, 4e-5, 6e-5, 8e-5, 1e-4, 1.2e-4, 1.5e-4]),
]
PARAMETERS_TRANSFORMERS = [  # (path in engines.transformers, the values tried): transformers generate, bitsandbytes
    (("decode_bandwidth", "gddr"), [0.6 + 0.025 * i for i in range(15)]),
    (("decode_bandwidth", "hbm"), [0.6 + 0.025 * i for i in range(15)]),
    (("layer_overhead_s", "cuda"), [5e-5 * i for i in range(25)]),  # the host's Python and launches per layer
    (("bnb", "linear_s", "4bit"), [5e-6 * i for i in range(31)]),  # per bitsandbytes layer: gemv_4bit's dispatch
    (("bnb", "linear_s", "4bit-dequant"), [1e-5 * i for i in range(31)]),  # dequantize_4bit + F.linear
    (("bnb", "linear_s", "nested"), [5e-6 * i for i in range(21)]),  # nf4-dq: the absmax's own dequantisation
    (("bnb", "linear_s", "int8"), [2e-5 * i for i in range(41)]),  # MatMul8bitLt, its host synchronisation
]
PARAMETERS = [  # (path in engines.llamacpp, the values tried)
    (("decode_bandwidth", "gddr"), [0.7 + 0.025 * i for i in range(13)]),
    (("decode_bandwidth", "hbm"), [0.4 + 0.025 * i for i in range(17)]),
    (("decode_bandwidth", "unified"), [0.6 + 0.025 * i for i in range(15)]),
    (("kquant_bandwidth",), [0.7 + 0.025 * i for i in range(13)]),
    (("kv_bandwidth",), [0.2 + 0.05 * i for i in range(17)]),
    (("layer_overhead_s", "cuda"), [1e-5 * i for i in range(13)]),
    (("layer_overhead_s", "cuda-hbm"), [1e-5 * i for i in range(21)]),
    (("layer_overhead_s", "metal"), [2e-5 * i for i in range(16)]),
    (("prefill_compute", "geforce"), [0.3 + 0.025 * i for i in range(21)]),
    (("prefill_compute", "gddr"), [0.2 + 0.025 * i for i in range(21)]),
    (("prefill_compute", "hbm"), [0.1 + 0.025 * i for i in range(21)]),
    (("prefill_compute", "unified"), [0.1 + 0.025 * i for i in range(21)]),
    (("activation_bytes",), [2.0 * i for i in range(16)]),
    (("prefill_compute_metal", "16-bit"), [0.3 + 0.05 * i for i in range(13)]),
    (("prefill_compute_metal", "quantised"), [0.3 + 0.05 * i for i in range(13)]),
]
# --rocm: llama.cpp's ROCm (HIP) build alone; an RDNA card (gddr) keeps CUDA's workstation prompt share, unfitted
PARAMETERS_ROCM: list[tuple[tuple[str, ...], list[float]]] = [
    (("layer_overhead_s", "rocm"), [1e-5 * i for i in range(21)]),
    (("layer_overhead_s", "rocm-hbm"), [1e-5 * i for i in range(31)]),
    (("prefill_compute_rocm", "hbm"), [0.05 + 0.025 * i for i in range(17)]),
    (("prefill_compute_rocm", "unified"), [0.05 + 0.025 * i for i in range(17)]),
]


def _set(rates: dict, path: tuple[str, ...], value: float) -> None:
    for key in path[:-1]:
        rates = rates.setdefault(key, {})
    rates[path[-1]] = value


FIT_ON = ""  # the tables fitted (validate_speed.rows' filter): all by default
KINDS: tuple[str, ...] = ()  # the kinds of rows predicted (validate_speed.results' filter): all by default
ENGINE = "llamacpp"  # the engine fitted: its groups make the loss


PREFILL = ("prefill_compute", "activation_bytes")  # --prefill: llama.cpp's prompt rates alone, on its prompt rows


OWN_TABLES = "\0"  # --engine transformers: the tables of its rows (no table name holds a NUL)
WORST = 0.25  # the weight of a group's worst row in the loss (--worst W)
FOLD: int | None = None  # --fold k: fit on the rows of that half (validate_speed.fold), report the other


def loss() -> float:
    found = [r for r in validate_speed.results(FIT_ON, kinds=KINDS) if FOLD is None or validate_speed.fold(r) == FOLD]
    groups: dict[str, list[float]] = {}
    for r in found:
        groups.setdefault(f"{r['group']} {r['kind']}", []).append(abs(math.log(1 + r["error"])))
    return sum(statistics.median(errors) + WORST * max(errors) for name, errors in groups.items()
               if "train" not in name and len(errors) > 5 and name.startswith(ENGINE))


def _rocm_rows(kind: str, path: tuple[str, ...]) -> list[dict[str, Any]]:
    """The ROCm rows of `kind` a rate applies to, by its class of card: `hbm` and `rocm-hbm` the CDNA cards,
    `unified` Strix Halo, `rocm` the others (RDNA and Strix Halo)."""
    calibration = hardware.calibration()
    hbm, unified = set(calibration["hbm"]), set(calibration["unified"])
    cards = {"hbm": hbm, "rocm-hbm": hbm, "unified": unified}
    found = [r for r in validate_speed.results(kinds=(kind,)) if r["group"] == "llamacpp-rocm"]
    if path[-1] in cards:
        return [r for r in found if r["gpu"] in cards[path[-1]]]
    return [r for r in found if r["gpu"] not in cards["hbm"]]


def _loss_without(path: tuple[str, ...], kind: str, left: str, value: float) -> float:
    _set(hardware.calibration()["engines"][ENGINE], path, value)
    errors = [abs(math.log(1 + r["error"])) for r in _rocm_rows(kind, path) if r["gpu"] != left]
    return statistics.median(errors) + WORST * max(errors)


def leave_one_out() -> None:
    """Each ROCm rate refitted (the fitter's loss) on its class's rows less one card, then that card predicted."""
    rates = hardware.calibration()["engines"][ENGINE]
    for path, values in PARAMETERS_ROCM:
        kind = "prefill" if path[0].startswith("prefill") else "decode"
        keep = _get(rates, path)
        cards = [r["gpu"] for r in _rocm_rows(kind, path)]
        for left in cards if len(cards) > 1 else ():
            fitted = min(values, key=functools.partial(_loss_without, path, kind, left))
            _set(rates, path, fitted)
            error = next(r["error"] for r in _rocm_rows(kind, path) if r["gpu"] == left)
            print(f"{'.'.join(path)} fitted without {left}: {fitted:.3g}; {left} {kind} {error:+.1%}")
        _set(rates, path, keep)


def main() -> int:
    global FIT_ON, ENGINE, KINDS, FOLD, WORST, OWN_TABLES
    if "--worst" in sys.argv:
        WORST = float(sys.argv[sys.argv.index("--worst") + 1])
    if "--fold" in sys.argv:
        FOLD = int(sys.argv[sys.argv.index("--fold") + 1])
    parameters = PARAMETERS_VLLM if "--engine" in sys.argv and "vllm" in sys.argv else PARAMETERS
    if "--engine" in sys.argv and "transformers" in sys.argv:
        parameters = PARAMETERS_TRANSFORMERS
    if "--rocm" in sys.argv:
        parameters = PARAMETERS_ROCM
        if "--leave-one-out" in sys.argv:
            leave_one_out()
            return 0
    if "--prefill" in sys.argv:
        KINDS = ("prefill",)
        parameters = [(path, values) for path, values in parameters if path[0].startswith(PREFILL)]  # of --rocm's too
    if "--fit-on" in sys.argv:
        FIT_ON = sys.argv[sys.argv.index("--fit-on") + 1]
    if "--moe-metal" in sys.argv:
        return moe_metal(FIT_ON or "benches_mac_m2_ultra")
    if "--engine" in sys.argv:
        ENGINE = sys.argv[sys.argv.index("--engine") + 1]
        KINDS = ("serve",) if ENGINE == "vllm" else KINDS
        if ENGINE == "transformers":  # its rows' tables alone (the others' rows do not move with its rates)
            OWN_TABLES = "transformers_"
            FIT_ON = FIT_ON or OWN_TABLES
    rates = hardware.calibration()["engines"][ENGINE]  # the cached dict: predictions read it
    best = loss()
    for _ in range(3):  # passes over the parameters, until one changes nothing
        start = best
        for path, values in parameters:
            chosen = _get(rates, path)  # kept unless a value tried does better
            for value in values:
                _set(rates, path, value)
                current = loss()
                if current < best - 1e-9:
                    best, chosen = current, value
            _set(rates, path, chosen)
            print(".".join(path), chosen, f"loss {best:.4f}", file=sys.stderr)
        if best > start - 1e-3:
            break
    print(json.dumps(rates, indent=2))
    if FOLD is not None:  # the other half: the held-out error
        held = [r for r in validate_speed.results(kinds=KINDS) if validate_speed.fold(r) != FOLD]
        for name, s in validate_speed.summary(held).items():
            print(f"held out {name:<28}{s['rows']:>5}{s['median']:>8.1%}{s['worst']:>8.1%}{s['bias']:>+8.1%}")
        return 0
    if FIT_ON and FIT_ON != OWN_TABLES:  # the rows not fitted: the held-out error
        held_out = FIT_ON[1:] if FIT_ON.startswith("!") else "!" + FIT_ON
        if ENGINE == "transformers":  # its other tables
            held_out = OWN_TABLES
            found = [r for r in validate_speed.results(held_out, kinds=KINDS) if FIT_ON not in r["source"]]
        else:
            found = validate_speed.results(held_out, kinds=KINDS)
        table = validate_speed.summary(found)
        for name, s in table.items():
            print(f"held out {name:<28}{s['rows']:>5}{s['median']:>8.1%}{s['worst']:>8.1%}{s['bias']:>+8.1%}")
        return 0
    if "--write" in sys.argv:
        data = json.loads(validate_speed.SPEED_JSON.read_text())
        data["engines"][ENGINE] = {key: _round(value) for key, value in rates.items()}
        validate_speed.SPEED_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return 0


MOE_METAL = ("moe_layer_overhead_s", "metal")
MOE_METAL_VALUES = [5e-6 * i for i in range(41)]


def moe_metal(fit_on: str) -> int:
    """llama.cpp's further cost per MoE layer on Metal alone, fitted (median absolute log error) to the Metal decode
    rows of mixtures of experts in the tables matching `fit_on` (default: llama.cpp's own M2 Ultra benches, one
    build), then the other tables' such rows predicted (held out) and the whole table printed."""
    rates = hardware.calibration()["engines"]["llamacpp"]

    def metal(value: float) -> list[dict[str, Any]]:
        _set(rates, MOE_METAL, value)
        return [r for r in validate_speed.results(kinds=("decode",)) if r["group"] == "llamacpp-metal"]

    without, moved = metal(0.0), metal(1e-4)  # the rows the cost moves: those of a mixture of experts
    moe = {i for i, (a, b) in enumerate(zip(without, moved, strict=True)) if a["predicted"] != b["predicted"]}

    def rows(value: float, held: bool) -> list[dict[str, Any]]:
        found = metal(value)
        return [found[i] for i in sorted(moe) if (fit_on in found[i]["source"]) != held]

    def loss(value: float) -> float:
        return statistics.median(abs(math.log(1 + r["error"])) for r in rows(value, False))

    fitted = min(MOE_METAL_VALUES, key=loss)
    for held in (False, True):
        for value, name in ((0.0, "without"), (fitted, f"{fitted:.3g} s")):
            found = rows(value, held)
            errors = [r["error"] for r in found]
            print(f"{'held out' if held else 'fitted  '} {name:<9}{len(found):>4} rows, median "
                  f"{statistics.median(abs(e) for e in errors):.1%}, bias {statistics.median(errors):+.1%}: "
                  + ", ".join(f"{r['model']} {r['gpu']} {r['error']:+.0%}" for r in found))
    return 0


def _get(rates: Any, path: tuple[str, ...]) -> float:
    for key in path:
        rates = rates.get(key, 0.0) if isinstance(rates, dict) else 0.0
    return float(rates)


def _round(value: object) -> object:
    if isinstance(value, dict):
        return {key: _round(inner) for key, inner in value.items()}
    return float(f"{value:.3g}") if isinstance(value, float) else value


if __name__ == "__main__":
    sys.exit(main())
