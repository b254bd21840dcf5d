"""Every public output of the engine for every preset under a grid of workloads, as one JSON file:
the command line's table (formulas in words), --json, --markdown and `fit --json`, and the page's view
in both languages. Two runs of it (before and after a change meant to keep the numbers) are compared
with --compare; a refactor keeps them identical.

    PYTHONPATH=app python tools/outputs.py OUT.json [--quick]
    python tools/outputs.py --compare BEFORE.json AFTER.json
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
from typing import Any

WORKLOADS = {
    "infer": [],
    "infer-long-int4": ["--seq", "32768", "--precision", "int4", "--batch", "4"],
    "infer-fp8-kv": ["--precision", "fp8", "--kv-precision", "fp8", "--attention", "eager"],
    "vllm": ["--runtime", "vllm", "--gpu", "h100-80gb"],
    "vllm-2gpu-fp8": ["--runtime", "vllm", "--precision", "fp8", "--gpu", "h100-80gb", "--gpus", "2"],
    "llamacpp": ["--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4090"],
    "llamacpp-ngl": ["--runtime", "llamacpp", "--precision", "q8_0", "--gpu-layers", "10", "--parallel", "2"],
    "train": ["--mode", "training", "--seq", "2048"],
    "train-ckpt-8bit": ["--mode", "training", "--seq", "1024", "--checkpointing", "full", "--optimizer",
                        "adamw-8bit", "--grad-accum", "4"],
    "lora": ["--mode", "training", "--lora-rank", "16", "--seq", "2048"],
    "qlora": ["--mode", "training", "--lora-rank", "16", "--precision", "nf4", "--seq", "1024"],
    "train-zero3-4": ["--mode", "training", "--seq", "2048", "--gpus", "4", "--zero", "3"],
    "infer-tp4": ["--gpus", "4", "--tp", "4"],
    "train-tp2-pp2": ["--mode", "training", "--seq", "1024", "--gpus", "4", "--tp", "2", "--pp", "2"],
}


def _run(argv: list[str]) -> str:
    from vramcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return f"{code}\n{out.getvalue()}{err.getvalue()}"  # exit code, then what it printed


def _first(name: str, *modules: str) -> Any:
    """`name` from the first of `modules` that has it: this checkout's path, or an older checkout's."""
    for module in modules:
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"{name} is in none of {', '.join(modules)}")


def _has(module: str, name: str) -> bool:
    try:
        return hasattr(importlib.import_module(module), name)
    except ImportError:
        return False


def _page(values: dict[str, str]) -> dict[str, str]:
    """The page's view of one workload in each language (the objects' reprs)."""
    import inspect

    from vramcalc import DEFAULTS, ValidationError, estimate, parse_workload

    present = _first("present", "vramcalc.render.view", "vramcalc.present")
    present_target = _first("present_target", "vramcalc.render.view", "vramcalc.present")
    parse_target = _first("parse_target", "vramcalc.inputs.parse", "vramcalc.workload")
    words_of = _first("Words", "vramcalc.render.messages")  if _has("vramcalc.render.messages", "Words") else None
    set_language = None
    if words_of is None:  # an older checkout: a module-global language
        for where in ("vramcalc.render.messages", "vramcalc.messages"):
            if _has(where, "use_language"):
                set_language = _first("use_language", where)
                break
    shown = {}
    for language in ("en", "pt"):
        kwargs: dict[str, Any] = {"words": words_of(language)} if words_of else {}
        if set_language:
            set_language(language)
        try:
            merged = {**DEFAULTS, **values}
            workload, target = parse_workload(merged), parse_target(merged)
            gpus = {"gpus": target.count} if "gpus" in inspect.signature(present).parameters else {}
            shown[language] = repr(present(estimate(workload), **gpus, **kwargs)) + repr(
                present_target(workload, target, **kwargs))
        except ValidationError as error:
            shown[language] = f"error {error}"
    if set_language:
        set_language("en")
    return shown


def _values(argv: list[str]) -> dict[str, str]:
    values = {}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        values[flag[2:].replace("-", "_")] = value
    return values


def collect(quick: bool) -> dict[str, str]:
    from vramcalc.cli import main  # noqa: F401  (fail early)

    load_presets = _first("load_presets", "vramcalc.sources.presets", "vramcalc.models")
    slugs = list(load_presets())
    if quick:
        slugs = slugs[::8]
    outputs = {}
    for slug in slugs:
        for name, argv in WORKLOADS.items():
            base = ["--model", slug, *argv]
            outputs[f"{slug}/{name}/table"] = _run(base)
            outputs[f"{slug}/{name}/json"] = _run([*base, "--json"])
            outputs[f"{slug}/{name}/markdown"] = _run([*base, "--markdown"])
            fit = ["fit", "--model", slug, *[a for a in argv]]
            if "--gpu" not in argv:
                fit += ["--gpu", "a100-80gb"]
            outputs[f"{slug}/{name}/fit"] = _run([*fit, "--json"])
            for language, text in _page({"model": slug, **_values(argv)}).items():
                outputs[f"{slug}/{name}/page-{language}"] = text
    outputs["capacity"] = _run(["capacity", "--json"]) + _run(["capacity"])
    outputs["models"] = _run(["models", "--json"])
    return outputs


def compare(before_path: str, after_path: str) -> int:
    with open(before_path) as file:
        before = json.load(file)
    with open(after_path) as file:
        after = json.load(file)
    differ = sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))
    for key in differ[:20]:
        print(f"--- {key}\n  before: {before.get(key)!r:.600}\n  after:  {after.get(key)!r:.600}")
    print(f"{len(differ)} of {len(before)} outputs differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    outputs = collect("--quick" in sys.argv)
    with open(sys.argv[1], "w") as file:
        json.dump(outputs, file, indent=0, sort_keys=True)
