"""tests/data/llamacpp_vulkan_twodev.json from the two-device loads of llama.cpp's Vulkan build (docs/accuracy.md,
"Against llama.cpp with a GPU backend"): GGML_VK_VISIBLE_DEVICES=0,0 makes Vulkan0 and Vulkan1 of one lavapipe
device, each reporting 2048 MiB free, so the default split is the equal-memory one and -ts 3,1 the given one.

    python tools/llamacpp_twodev.py /work/notes/vulkan/logs/runs

Each run: its settings as link keys, each device's [model, context, compute] bytes as llama_get_memory_breakdown
gave them after the context was made (the probe's `MEMBYTES allocated` lines), whether llama.cpp enabled pipeline
parallelism (its compute buffers then hold 4 scheduler copies, not modelled). Which layers each device got
shows in its model and context bytes (a layer's cache is its own).
Left out: -nkvo (the cache in RAM) and -ot runs, which the engine does not model on several GPUs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "llamacpp_vulkan_twodev.json"
NAME = re.compile(r"twodev_(dense|moe|mdense|mmoe)_ngl(\d+)(?:_(ts31|cpumoe))?_fa(on|off)_c(\d+)_ub(\d+)")


def settings(match: re.Match[str]) -> dict[str, str]:
    _, ngl, variant, fa, ctx, ub = match.groups()
    values = {"seq": ctx, "gpu_layers": ngl, "ubatch": ub, "attention": "flash" if fa == "on" else "eager",
              "llamacpp_program": "llama-completion"}
    if variant == "ts31":
        values["tensor_split"] = "3,1"
    if variant == "cpumoe":
        values["cpu_moe"] = "1"
    return values


def main(folder: Path) -> None:
    runs = []
    for log in sorted(folder.glob("twodev_*.membytes.log")):
        name = log.name.removesuffix(".membytes.log")
        match = NAME.fullmatch(name)
        if match is None:
            continue  # -nkvo and -ot runs
        text = log.read_text(errors="replace")
        devices = [[int(m.group(i)) for i in (2, 3, 4)] for m in re.finditer(
            r"MEMBYTES allocated buft=(Vulkan[01]) host=0 dev=\S+ model=(\d+) context=(\d+) compute=(\d+)", text)]
        assert len(devices) == 2, name
        completion = (folder / f"{name}.completion.log").read_text(errors="replace")
        runs.append([name, match.group(1), settings(match), devices, "pipeline parallelism enabled" in completion])
    OUT.write_text(json.dumps({"_about": __doc__.split("\n\n")[0].replace("\n", " "), "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
