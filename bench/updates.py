"""What the engine spends per change of the page's form, in CPython: the work main.py's update asks of it
(parse, estimate and present the breakdown, the reverse answers and charts, the capacity table).

    python3 bench/updates.py [--fresh] [--speed] [--app DIR]

The same changes as bench/page.py's fresh-value run: in each mode (inference on each engine, full
fine-tuning, LoRA) 100 changes across the form's main controls. Without --fresh the values cycle
through four each, as the page's own latency run does, so later changes find earlier results
remembered (pergpu.most_loaded); with --fresh every batch, sequence and overhead is new and the
remembered results are cleared before each change. CPU time (time.process_time), so other work
on a shared machine counts less. --app measures another checkout's engine (e.g. a git worktree of
an older commit) for a before/after in one sitting.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

COMMON = [("batch", ["2", "3", "4", "8"]), ("seq", ["1024", "4096", "32768", "8192"]),
          ("model", ["mistral-7b", "llama-3-70b", "qwen2.5-7b", "llama-3-8b"]),
          ("gpu", ["rtx-4090", "a100-80gb", "l4", "h100-80gb"]), ("gpus", ["2", "4", "1", "8"]),
          ("headroom", ["10", "25", "20", "30"]), ("overhead_gib", ["0.5", "2", "1", "1.5"])]
MODES = {
    "transformers": ({}, [("precision", ["fp16", "int8", "int4", "bf16"])]),
    "vllm": ({"runtime": "vllm"}, [("precision", ["fp8", "awq-int4", "bf16", "gptq-int8"])]),
    "llamacpp": ({"runtime": "llamacpp", "precision": "q4_k_m"}, [("precision", ["q8_0", "q4_k_m", "iq2_xs", "q6_k"])]),
    "training": ({"mode": "training", "seq": "2048"}, [("optimizer", ["adamw", "sgd", "adamw-8bit", "adafactor"])]),
    "lora": ({"mode": "training", "lora_rank": "16", "seq": "2048"}, [("lora_rank", ["8", "32", "64", "16"])]),
}


def run(setup: dict, steps: list, changes: int, fresh: bool, offset: int = 0, speed: bool = False) -> list[float]:
    from vramcalc import DEFAULTS, ValidationError, estimate, parse_workload
    from vramcalc.engines.layouts import resolve_layout
    from vramcalc.inputs.parse import parse_capacity_query, parse_target
    from vramcalc.render.view import present, present_capacity, present_target

    try:
        from vramcalc.analysis.ranks import most_loaded
        forget = most_loaded.cache_clear
    except ImportError:  # an engine from before most_loaded
        forget = lambda: None  # noqa: E731
    values = {**DEFAULTS, **setup}
    shown: dict = {}
    times = []
    for index in range(changes):
        key, choices = steps[index % len(steps)]
        values[key] = choices[(index // len(steps)) % len(choices)]
        if fresh:
            if key in ("batch", "seq"):
                values[key] = str(int(values[key]) + 7 * (index + 1 + offset))
            elif key == "overhead_gib":
                values[key] = f"{float(values[key]) + (index + offset) / 997:.4f}"
            forget()
        start = time.process_time()
        try:
            workload, target = parse_workload(values), parse_target(values)
            resolve_layout(workload, target.count)
            query = parse_capacity_query(values)
            if workload != shown.get("workload"):
                present(estimate(workload))
                shown["workload"] = workload
            if (workload, target) != shown.get("target"):
                present_target(workload, target)
                shown["target"] = (workload, target)
            if query != shown.get("query"):
                present_capacity(query)
                shown["query"] = query
            if speed and (workload, target) != shown.get("speed"):
                from vramcalc.analysis.speed_answers import evaluate_speed
                from vramcalc.inputs.parse import parse_machine
                from vramcalc.render.speed import present_speed
                present_speed(workload, evaluate_speed(workload, target, parse_machine(values)))
                shown["speed"] = (workload, target)
        except ValidationError:
            pass  # the page shows the error: also a change the user waits for
        times.append((time.process_time() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--app", default=str(Path(__file__).resolve().parent.parent / "app"))
    parser.add_argument("--speed", action="store_true", help="also the Speed section (speed/, since issue 24)")
    args = parser.parse_args()
    sys.path.insert(0, args.app)
    every = []
    for name, (setup, extra) in MODES.items():
        steps = COMMON + extra
        run(setup, steps, 16, args.fresh, offset=1000, speed=args.speed)  # the caches a page in use has
        times = run(setup, steps, 100, args.fresh, speed=args.speed)
        every += times
        print(f"{name:13} median {statistics.median(times):6.1f} ms  p95 {sorted(times)[94]:6.1f} ms"
              f"  max {max(times):7.1f} ms")
    ordered = sorted(every)
    print(f"{'all':13} median {statistics.median(every):6.1f} ms  p95 {ordered[int(0.95 * len(ordered))]:6.1f} ms  "
          f"max {max(every):7.1f} ms  ({len(every)} changes, {'fresh' if args.fresh else 'cycled'} values)")


if __name__ == "__main__":
    main()
