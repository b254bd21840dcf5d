"""Survey: every model_type with a causal-LM class in transformers, its class's default config built on the meta
device (tools/measure_types.text_params) and read by the engine: exact, approximate (and by how much), refused, or
not buildable by transformers itself. A developer tool, not run by CI; docs/research/types-2026.md has its table.

Usage: python tools/survey_types.py OUT.json [MODEL_TYPE ...]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from transformers import AutoConfig
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "app"))
from measure_types import NOISE, text_params
from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config


def survey(model_type: str) -> dict:
    row: dict = {"type": model_type}
    try:
        config = AutoConfig.for_model(model_type)
    except Exception as error:  # the class refuses its own defaults (Gemma4AssistantConfig's validation)
        return row | {"truth_err": f"{type(error).__name__}: {str(error)[:120]}", "status": "no-truth"}
    given = {k: v for k, v in config.to_dict().items() if k not in NOISE} | {"model_type": model_type}
    try:
        row["truth"] = text_params(config)
    except Exception as error:  # the class's own defaults do not build
        row["truth_err"] = f"{type(error).__name__}: {str(error)[:120]}"
    try:
        spec = from_hf_config(given)
        row["ours"], row["assume"] = param_count(spec), [ENGLISH.say(a)[:140] for a in spec.assumptions]
    except Exception as error:
        row["ours_err"] = f"{type(error).__name__}: {str(error)[:160]}"
    if row.get("truth") and "ours" in row:
        exact = row["truth"] == row["ours"]
        row["status"] = "approx" if row["assume"] else "exact" if exact else "WRONG"
        row["err"] = (row["ours"] - row["truth"]) / row["truth"]
    else:
        row["status"] = "refused" if "ours_err" in row else "no-truth"
    return row


def main(argv: list[str]) -> None:
    only = set(argv[1:])
    rows = [survey(t) for t in sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
            if t in CONFIG_MAPPING_NAMES and (not only or t in only)]
    Path(argv[0]).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
