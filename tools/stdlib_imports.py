"""The standard-library modules the page imports: run by tools/precompile.mjs inside the
pinned Pyodide under Node.js, with the app in APP (main.py, vramcalc/) and PyScript's
`pyscript` package sources in PYSCRIPT (file name -> text). Prints one module a line.

What counts, all measured in that interpreter as sys.modules (less the frozen modules,
which the interpreter never reads from the zip) after:
- Pyodide's own start;
- every stdlib module named in an import statement of main.py or of PyScript's package
  (those two need the browser to run, so their imports are read, then imported here);
- importing every module of vramcalc but the command lines and running what the page runs: every preset,
  fits, the reverse answers, the capacity table, links and a config.json import.
A module imported on a path none of these take is missing from the page: the browser
tests (tests/test_page.py) boot the page and use every control, and fail on any error.
"""

import ast
import importlib
import json
import pathlib
import sys
import zipfile

ENGINE = "/tmp/engine.zip"


def imported_names(text):
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def stdlib_imports(sources):
    for text in sources:
        for name in imported_names(text):
            top = name.partition(".")[0]
            if top in sys.stdlib_module_names:
                importlib.import_module(name)


def run_the_engine():
    from vramcalc import DEFAULTS, estimate, parse_config_json, parse_workload
    from vramcalc.analysis.fit import fit_all
    from vramcalc.inputs.link import decode, encode
    from vramcalc.inputs.parse import parse_capacity_query, parse_target
    from vramcalc.render import catalog as catalog_words
    from vramcalc.render.view import present, present_capacity, present_target
    from vramcalc.sources import catalog
    from vramcalc.sources.hf_config import from_hf_config
    from vramcalc.sources.presets import load_presets

    # every module of the engine (pkgutil.walk_packages would count pkgutil, which the page never imports)
    with zipfile.ZipFile(ENGINE) as engine:
        modules = [name[:-3].removesuffix("/__init__").replace("/", ".")
                   for name in engine.namelist() if name.endswith(".py")]
    for name in modules:
        # the command lines (build.py ENGINE_LEFT_OUT)
        if name not in ("vramcalc.__main__", "vramcalc.cli", "vramcalc.diffusion.command"):
            importlib.import_module(name)
    for slug in load_presets():
        workload = parse_workload({"model": slug})
        present(estimate(workload))
        fit_all(estimate(workload))
        catalog_words.facts(slug)
    catalog.search("llama 3.1 8")
    catalog.search("Qwen/Qwen3-32B")
    workload = parse_workload(DEFAULTS)
    present_target(workload, parse_target(DEFAULTS))
    present_capacity(parse_capacity_query(DEFAULTS))
    decode(encode(DEFAULTS))
    from vramcalc.diffusion.pipelines import load_pipelines
    from vramcalc.diffusion.run import evaluate
    from vramcalc.diffusion.weights import GGUF_KEEP
    from vramcalc.inputs.parse import parse_diffusion
    from vramcalc.render.diffusion import present_diffusion

    for slug, chosen in load_pipelines().items():  # the image and video pipelines (family=diffusion), GGUF if read
        precision = "gguf-q4_0" if chosen.denoiser.class_name in GGUF_KEEP else "bf16"
        present_diffusion(evaluate(*parse_diffusion({"pipeline": slug, "denoiser_precision": precision})))
    decode("?family=diffusion&pipeline=sdxl&width=1000&cfg=off")
    decode("?model=nonsense&batch=-1&seq=%FF")
    from_hf_config(parse_config_json(json.dumps({
        "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
    })))


def main(app, pyscript):
    # the engine from a zip, as main.py has it: zipfile and its codecs count too
    with zipfile.ZipFile(ENGINE, "w") as engine:
        for path in sorted(pathlib.Path(app, "vramcalc").rglob("*")):
            if path.is_file():
                engine.write(path, path.relative_to(app).as_posix())
    sys.path.insert(0, ENGINE)
    with open(f"{app}/main.py", encoding="utf-8") as file:
        stdlib_imports([file.read(), *pyscript.values()])
    run_the_engine()
    # frozen modules (os, io, codecs, site...) are inside the interpreter: their files are never read
    frozen = {name for name, module in sys.modules.items() if getattr(module.__spec__, "origin", None) == "frozen"}
    return sorted(name for name in sys.modules
                  if name.partition(".")[0] not in ("vramcalc", "__main__", "stdlib_imports") and name not in frozen)
