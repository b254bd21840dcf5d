"""Print the estimator against tests/golden/measured.json as a Markdown table
(for docs/accuracy.md). Standard library only: PYTHONPATH=app python tools/accuracy_report.py"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode
from vramcalc.core.dtypes import Precision
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "measured.json"


def main() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    print(f"Measured {golden['generated']} on {golden['machine']}, torch {golden['torch']}, "
          f"transformers {golden['transformers']}.\n")
    print("| family | attention | dtype | batch × seq | checkpointing | measured B | estimated B | error |")
    print("|---|---|---|---|---|---:|---:|---:|")
    errors = []
    for case in golden["cases"]:
        if case["kind"] != "training":
            continue
        workload = Workload(
            model=from_hf_config(case["config"]), mode=Mode.TRAINING, precision=Precision(case["precision"]),
            batch=case["batch"], seq=case["seq"], attention=Attention(case["attention"]),
            checkpointing=Checkpointing(case["checkpointing"]), overhead_bytes=0,
        )
        breakdown = estimate(workload)
        estimated = breakdown.bytes_of("activations") + breakdown.bytes_of("logits")
        measured = case["measured"]["saved_bytes"]
        error = (estimated - measured) / measured
        errors.append(abs(error))
        print(f"| {case['family']} | {case['attention']} | {case['precision']} | {case['batch']} × {case['seq']} | "
              f"{case['checkpointing']} | {measured:,} | {estimated:,} | {error:+.2%} |")
    print(f"\n{len(errors)} cases; largest |error| {max(errors):.2%}, median {statistics.median(errors):.2%}.")


if __name__ == "__main__":
    main()
