"""The engine's data folders (data/models/, data/gpus/): one JSON file per entry, in the order of the folder's
order.json, as the repository keeps them; or one all.json holding them all in that order, as the page's copy
ships them (tools/precompile.mjs, BUNDLED)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def read_folder(name: str) -> list[tuple[str, Any]]:
    """(file name without .json, its parsed content) of every entry of data/`name`/, in order."""
    folder = resources.files("vramcalc") / "data" / name
    bundled = folder / "all.json"
    if bundled.is_file():
        return list(json.loads(bundled.read_text(encoding="utf-8")).items())
    order = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    return [(entry, json.loads((folder / f"{entry}.json").read_text(encoding="utf-8"))) for entry in order]
