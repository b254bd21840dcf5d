"""CHANGELOG.md's "Public interfaces" lists against the code: link keys, command-line flags and
subcommands, `--json` names and CSV columns. A name the code has and the changelog does not list
fails (add a line to the changelog), and so does a listed name the code no longer has (public names
are added, never renamed or removed)."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent


@cache
def engine() -> SimpleNamespace:
    """Every import from the engine, in one place, so that moving the engine's modules repoints only this."""
    from vramcalc import DEFAULTS, estimate, parse_workload
    from vramcalc.analysis.fit import fit_all
    from vramcalc.cli import COMMANDS, build_capacity_parser, build_models_parser, build_parser
    from vramcalc.diffusion.command import build_diffusion_parser
    from vramcalc.render.export import to_json
    from vramcalc.speed import cost_of, speed_of
    from vramcalc.workload import Machine

    return SimpleNamespace(DEFAULTS=DEFAULTS, estimate=estimate, parse_workload=parse_workload, COMMANDS=COMMANDS,
                           build_parser=build_parser, build_capacity_parser=build_capacity_parser,
                           build_models_parser=build_models_parser, to_json=to_json,
                           build_diffusion_parser=build_diffusion_parser,
                           fit_all=fit_all, speed_of=speed_of, cost_of=cost_of, Machine=Machine)


PAGE_KEYS = {"lang", "hf"}  # link keys the page reads itself (static/lang.js, main.py), not settings


# ---------------------------------------------------------------- what the changelog lists


@cache
def listed() -> dict[str, list[str]]:
    """The names of each "###" list under "## Public interfaces": on each "- label: names" line, the
    backticked names after the first colon."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    section = re.search(r"^## Public interfaces\n(.*?)^## ", text, re.MULTILINE | re.DOTALL)
    assert section, "CHANGELOG.md has no '## Public interfaces' section"
    lists: dict[str, list[str]] = {}
    heading = None
    for line in section.group(1).splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
            lists[heading] = []
        elif line.startswith("- ") and heading is not None and ": " in line:
            lists[heading] += re.findall(r"`([^`]+)`", line.split(": ", 1)[1])
    return lists


def names(heading: str) -> set[str]:
    assert heading in listed(), f"CHANGELOG.md has no '### {heading}' list"
    return set(listed()[heading])


# ---------------------------------------------------------------- link keys


def test_no_link_key_is_listed_twice():
    keys = listed()["Link keys"]
    assert len(keys) == len(set(keys)), sorted({key for key in keys if keys.count(key) > 1})


def test_every_link_key_is_listed():
    missing = set(engine().DEFAULTS) - names("Link keys")
    assert not missing, f"link keys without a CHANGELOG.md line: {sorted(missing)}"


def test_every_listed_link_key_exists():
    gone = names("Link keys") - set(engine().DEFAULTS) - PAGE_KEYS
    assert not gone, f"listed link keys the code no longer has (never rename a key): {sorted(gone)}"


# ---------------------------------------------------------------- command line


def _flags() -> set[str]:
    e = engine()
    parsers = (e.build_parser(), e.build_parser(target=True), e.build_capacity_parser(), e.build_models_parser(),
               e.build_diffusion_parser())
    return {flag for parser in parsers for action in parser._actions for flag in action.option_strings
            if flag.startswith("--") and flag != "--help"}


def test_every_flag_is_listed():
    missing = _flags() - names("Command line")
    assert not missing, f"flags without a CHANGELOG.md line: {sorted(missing)}"


def test_every_listed_flag_and_subcommand_exists():
    listed_cli = names("Command line")
    gone = {name for name in listed_cli if name.startswith("--")} - _flags()
    assert not gone, f"listed flags the code no longer has (never rename a flag): {sorted(gone)}"
    subcommands = {name for name in listed_cli if not name.startswith("--")}
    assert subcommands == set(engine().COMMANDS)


# ---------------------------------------------------------------- --json names


def _run(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "vramcalc", *args], capture_output=True, text=True, check=True,
                            env={"PYTHONPATH": str(ROOT / "app"), "PATH": "/usr/bin:/bin"}, cwd=ROOT)
    return result.stdout


def _breakdown_json(**values: str) -> dict:
    """The breakdown's JSON as `python -m vramcalc --json` prints it, for link-style values."""
    e = engine()
    breakdown = e.estimate(e.parse_workload({**e.DEFAULTS, **values}))
    gpus = int(values.get("gpus", "1"))
    speed = e.speed_of(breakdown, breakdown.workload.gpu, gpus, e.Machine())
    cost = e.cost_of(speed, breakdown.workload.gpu, gpus, e.Machine())
    return json.loads(json.dumps(e.to_json(breakdown, e.fit_all(breakdown), gpus, speed=speed, cost=cost)))


@cache
def json_names() -> dict[str, set[str]]:
    """The names each JSON document of the command line uses, by where they sit."""
    found: dict[str, set[str]] = {}

    def add(where: str, mapping: dict) -> None:
        found.setdefault(where, set()).update(mapping)

    documents = (_breakdown_json(), _breakdown_json(runtime="vllm"), _breakdown_json(runtime="llamacpp"),
                 _breakdown_json(runtime="vllm", kv_precision="fp8"),  # the T4's row: refused
                 _breakdown_json(mode="training", gpus="2"), _breakdown_json(mode="training", objective="dpo"),
                 _breakdown_json(mode="training", objective="kto", batch="2"),
                 _breakdown_json(mode="training", objective="orpo"),
                 _breakdown_json(mode="training", objective="grpo", reference="copy", batch="8"),
                 _breakdown_json(runtime="llamacpp", precision="q4_k_m", gpu="rtx-3090,rtx-4060-ti-16gb", gpus="2"))
    for document in documents:
        add("breakdown", document)
        add("components", document["components"])
        add("components", document["per_gpu"]["components"])
        add("phases", document["phases"])
        add("phases", document["phase_components"])
        for live in document["phase_components"].values():
            add("components", live)
        for fit in document["gpus"]:
            add("gpus", fit)
        add("per_gpu", document["per_gpu"])
        add("per_gpu.engine", document["per_gpu"]["engine"])
        for device in document["per_gpu"]["devices"]:
            add("per_gpu device", device)
        add(f"runtime {document['runtime']['name']}", document["runtime"])
        add("speed", document["speed"])
        add("cost", document["cost"])
    add("fit", json.loads(_run("fit", "--json")))
    llamacpp = json.loads(_run("fit", "--json", "--runtime", "llamacpp", "--model", "qwen3-30b-a3b",
                               "--gpu", "rtx-4090"))
    add("fit", llamacpp)
    add("fit llamacpp_fit", llamacpp["llamacpp_fit"])
    capacity = json.loads(_run("capacity", "--json"))
    add("capacity", capacity)
    for row in capacity["rows"]:
        add("capacity row", row)
        for cell in row["cells"].values():
            add("capacity cell", cell)
        for example in row["examples"]:
            add("capacity example", example)
    for entry in json.loads(_run("models", "--json")):
        add("models", entry)
    for pipeline in ("flux.1-dev", "sdxl"):
        document = json.loads(_run("diffusion", "--pipeline", pipeline, "--json"))
        add("diffusion", document)
        for part in document["parts"]:
            add("diffusion part", part)
        for stage in document["stages"]:
            add("diffusion stage", stage)
    timed = json.loads(_run("diffusion", "--gpu", "h100-80gb", "--json"))
    add("diffusion", timed)
    add("diffusion speed", timed["speed"])
    add("diffusion cost", timed["cost"])
    document = json.loads(_run("diffusion", "--train-lora", "16", "--gpu", "h100-80gb", "--json"))
    add("diffusion training", document)
    add("diffusion train_lora", document["train_lora"])
    add("allocator_reserve", _breakdown_json(mode="training", lora_rank="16")["allocator_reserve"])
    return found


def test_the_json_documents_were_all_seen():
    """Guards the test itself: every place it reads was reached (vLLM's per-GPU pool, each engine, ...)."""
    expected = {"breakdown", "components", "phases", "gpus", "per_gpu", "per_gpu.engine", "per_gpu device",
                "runtime transformers",
                "runtime vllm", "runtime llamacpp", "fit", "fit llamacpp_fit", "capacity", "capacity row",
                "capacity cell",
                "capacity example", "models", "speed", "cost", "diffusion", "diffusion part", "diffusion stage",
                "diffusion speed", "diffusion cost", "diffusion training", "diffusion train_lora", "allocator_reserve"}
    assert {where for where, found in json_names().items() if found} == expected


def test_every_json_name_is_listed():
    listed_json = names("`--json` names")
    missing = {f"{where}: {name}" for where, found in json_names().items() for name in found - listed_json}
    assert not missing, f"--json names without a CHANGELOG.md line: {sorted(missing)}"


def test_every_listed_json_name_exists():
    gone = names("`--json` names") - set().union(*json_names().values())
    assert not gone, f"listed --json names the code no longer writes (never rename a name): {sorted(gone)}"


@pytest.mark.parametrize("engine_name", ["transformers", "vllm", "llamacpp"])
def test_each_engine_runtime_is_listed_as_it_is(engine_name):
    """The runtime object's names, engine by engine, as the changelog lists them for that engine."""
    label = {"transformers": "transformers", "vllm": "vLLM", "llamacpp": "llama.cpp"}[engine_name]
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    line = re.search(rf"^- runtime with {re.escape(label)}: (.*)$", text, re.MULTILINE)
    assert line, f"CHANGELOG.md lists no runtime names for {label}"
    assert set(re.findall(r"`([^`]+)`", line.group(1))) == json_names()[f"runtime {engine_name}"]


# ---------------------------------------------------------------- CSV


def test_csv_columns_are_listed_as_they_are():
    header = next(csv.reader(io.StringIO(_run("--csv"))))
    assert header == listed()["CSV columns"]
