"""Render the site into dist/: the prerendered page, pyscript.toml, the engine
files for the browser, the static assets and the pinned runtime from node_modules.

    python build.py [--out dist]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import zopfli.gzip
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "app"))

from vramcalc import DEFAULTS, estimate, parse_workload  # noqa: E402
from vramcalc.analysis.capacity import COLUMNS  # noqa: E402
from vramcalc.analysis.speed_answers import evaluate_speed  # noqa: E402
from vramcalc.core.dtypes import KV_FORMATS, Precision  # noqa: E402
from vramcalc.diffusion.pipelines import load_pipelines  # noqa: E402
from vramcalc.formats.weights import WEIGHT_FORMAT_GROUPS  # noqa: E402
from vramcalc.inputs.options import CUSTOM_KEYS, OPTION  # noqa: E402
from vramcalc.inputs.parse import parse_capacity_query, parse_machine, parse_target  # noqa: E402
from vramcalc.render import catalog as catalog_words  # noqa: E402
from vramcalc.render.charts import BOX  # noqa: E402
from vramcalc.render.messages import GUIDE_ENTRIES, Words  # noqa: E402
from vramcalc.render.rank import BAR_WIDTH, DEVICE_COLUMNS  # noqa: E402
from vramcalc.render.speed import CHARTS as SPEED_CHARTS  # noqa: E402
from vramcalc.render.speed import FIGURES as SPEED_FIGURES  # noqa: E402
from vramcalc.render.speed import present_speed  # noqa: E402
from vramcalc.render.view import present, present_capacity, present_target, rank_rows  # noqa: E402
from vramcalc.sources import catalog  # noqa: E402
from vramcalc.sources.gpus import load_apple, load_gpus  # noqa: E402
from vramcalc.sources.presets import load_presets  # noqa: E402

# python_stdlib.zip is not shipped: the page loads the precompiled one (static/pyodide/loader.mjs).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
# Pyodide fetches its lock file at every start to know its packages; the page loads none, so it
# gets the lock's `info` with no packages (119 kB less; `packages` in a config would fail anyway).
PYODIDE_LOCK = "pyodide-lock.json"
# The two precompiled zips ship gzipped (NAME.gz): their files are stored, so gzip compresses
# across modules on any host, whether or not it compresses .zip. loader.mjs inflates the
# standard library as Pyodide fetches it, main.py the engine.
PRECOMPILED_STDLIB = "python_stdlib_pyc.zip"
ENGINE_ZIP = "vramcalc.zip"  # the engine, precompiled; main.py puts it on sys.path
# What of the engine the page never reads: the command lines, and the data's notes for people.
ENGINE_LEFT_OUT = (
    "vramcalc/cli.py", "vramcalc/__main__.py", "vramcalc/diffusion/command.py", "vramcalc/data/README.md")
# Made in the browser on a first visit and restored on later ones (docs/performance.md).
SNAPSHOT_LOADER, SNAPSHOT_WORKER = "loader.mjs", "snapshot-worker.mjs"
CACHE = ROOT / ".cache"
PYODIDE_VERSION = json.loads((ROOT / "node_modules/pyodide/package.json").read_text())["version"]
PYSCRIPT_CORE = ROOT / "node_modules" / "@pyscript" / "core"
# PyScript's plugins the page does not use, switched off in pyscript.toml and, for MicroPython,
# which PyScript 0.7.31 sets up as well, in index.html's <mpy-config>: it then never imports their
# chunks (codemirror is inside the core chunk; error stays, it shows failures).
PYSCRIPT_PLUGINS_OFF = ("codemirror", "deprecations-manager", "donkey", "py-editor", "py-game", "py-terminal")
# PyScript chunks core-*.js imports lazily and this page never triggers: the py-editor's
# CodeMirror, zip archives, the Pyodide package graph (we load no packages) and the plugins above.
PYSCRIPT_NEVER_LOADED = ("codemirror", "zip-", "pyodide_graph-", *(f"{name}-" for name in PYSCRIPT_PLUGINS_OFF))
SERVICE_WORKER = "sw.js"
PAGE_DIRS = {"en": "", "pt": "pt/"}  # each language's prerendered page, by its folder in the site
CSP = "; ".join((
    # The smallest policy the page works with, measured in docs/security.md: everything from our
    # own origin, WebAssembly compilation allowed, no inline script or style. 'unsafe-eval' is
    # there for PyScript 0.7.31 alone (its hooks.js builds worker hooks with Function());
    # Pyodide itself boots without it.
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'",
    "style-src 'self'",
    "img-src 'self'",
    # huggingface.co for one thing: a model's file list and config.json, when its Hugging Face id is given
    # and the button that says so is clicked (main.py, on_hf_read); nothing else leaves the page.
    "connect-src 'self' https://huggingface.co",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
))


def log(message: str) -> None:
    print(f"build: {message}")


def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(ROOT),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def build(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = environment()
    (out / "main.py").write_text(without_comments(ROOT / "app" / "main.py"), encoding="utf-8")
    gzipped(precompiled(ENGINE_ZIP, ROOT / "app" / "vramcalc", leave_out=ENGINE_LEFT_OUT), out / f"{ENGINE_ZIP}.gz")
    log(f"main.py, {ENGINE_ZIP}.gz")
    shutil.copytree(ROOT / "static", out / "static")
    runtime = out / "static" / "pyodide"
    runtime.mkdir(exist_ok=True)  # static/pyodide/loader.mjs is ours
    for name in PYODIDE_FILES:
        shutil.copy2(ROOT / "node_modules" / "pyodide" / name, runtime / name)
    lock = json.loads((ROOT / "node_modules" / "pyodide" / PYODIDE_LOCK).read_text(encoding="utf-8"))
    (runtime / PYODIDE_LOCK).write_text(json.dumps({"info": lock["info"], "packages": {}}), encoding="utf-8")
    stdlib = precompiled(PRECOMPILED_STDLIB, pyscript=PYSCRIPT_CORE, only_imported_by=ROOT / "app")
    gzipped(stdlib, runtime / f"{PRECOMPILED_STDLIB}.gz")
    log(f"static/pyodide ({PYODIDE_VERSION}, precompiled standard library)")
    pyscript = out / "static" / "pyscript"
    pyscript.mkdir()
    for name in pyscript_files(ROOT / "node_modules" / "@pyscript" / "core" / "dist"):
        shutil.copy2(ROOT / "node_modules" / "@pyscript" / "core" / "dist" / name, pyscript / name)
    log("static/pyscript")
    write_snapshot_key(out)
    for lang, folder in PAGE_DIRS.items():  # last: the pages say how many bytes Python's start downloads
        render_page(env, out, lang, folder)
    write_service_worker(env, out)


BOOT_FILES = ("main.py", f"{ENGINE_ZIP}.gz", "static/pyodide/*", "static/pyscript/*")
"""What Python's start fetches (static/boot.js counts them as they arrive): the page shows their sum."""


def boot_bytes(out: Path) -> int:
    """The bytes of BOOT_FILES in the built site (as stored; a server that compresses sends fewer)."""
    return sum(path.stat().st_size for pattern in BOOT_FILES for path in out.glob(pattern) if path.is_file())


DRAFT_MAX_PARAMS = 10e9  # the draft models the page offers: the small ones (a link may name any preset)


def draft_models() -> dict[str, str]:
    """The presets the page offers as draft models (llama.cpp, vLLM, transformers): decoders of at most
    DRAFT_MAX_PARAMS."""
    from vramcalc.model.table import count_params
    from vramcalc.sources.presets import preset_spec

    return {slug: preset.display_name for slug, preset in load_presets().items()
            if (spec := preset_spec(slug)).encoder is None and spec.speech is None
            and count_params(spec, active=False) <= DRAFT_MAX_PARAMS}


def render_page(env: Environment, out: Path, lang: str, folder: str) -> None:
    """The page in one language, prerendered with the default results, in `folder` of the site."""
    words = Words(lang)
    root = "../" * folder.count("/")  # from the page's folder back to the site's root
    others = {other: root + other_folder for other, other_folder in PAGE_DIRS.items() if other != lang}
    workload = parse_workload({})
    target = present_target(workload, parse_target({}), words=words)
    capacity_rows, _ = present_capacity(parse_capacity_query({}), words=words)
    page = env.get_template("index.html").render(
        lang=lang,
        root=root,
        others=others,
        presets=load_presets(),
        draft_models=draft_models(),
        pipelines={slug: pipeline.display_name for slug, pipeline in load_pipelines().items()},
        model_families=catalog.families(),
        model_facts=catalog_words.facts(DEFAULTS["model"], words=words),
        gpu_groups=(("cards", tuple(load_gpus().items())), ("apple", tuple(load_apple().items()))),
        defaults=DEFAULTS,
        weight_formats=WEIGHT_FORMAT_GROUPS,
        kv_formats=[p.value for p in KV_FORMATS],
        gguf_formats=dict(WEIGHT_FORMAT_GROUPS)["gguf"],
        options=OPTION,  # each key's Option (inputs/options.py): a select's choices
        custom_fields=CUSTOM_KEYS,
        t=words.message,
        guide_entries=GUIDE_ENTRIES,
        csp=CSP,
        plugins_off=[f"!{name}" for name in PYSCRIPT_PLUGINS_OFF],
        view=present(estimate(workload), words=words),
        target=target,
        rank_rows=rank_rows(target, words=words),
        speed=present_speed(workload, evaluate_speed(workload, parse_target({}), parse_machine({})), words=words),
        speed_keys=SPEED_FIGURES,
        speed_charts=SPEED_CHARTS,
        chart_box=BOX,
        bar_width=BAR_WIDTH,
        device_columns=DEVICE_COLUMNS,
        capacity_columns=["FP16/BF16" if p is Precision.FP16 else p.value.upper() for p in COLUMNS],
        capacity_rows=capacity_rows,
        boot_bytes=boot_bytes(out),
    )
    page_dir = out / folder
    page_dir.mkdir(parents=True, exist_ok=True)
    (page_dir / "index.html").write_text(page, encoding="utf-8")
    toml = env.get_template("pyscript.toml.j2").render(engine_zip=ENGINE_ZIP, pyodide_version=PYODIDE_VERSION,
                                                       root=root, plugins_off=PYSCRIPT_PLUGINS_OFF)
    (page_dir / "pyscript.toml").write_text(toml, encoding="utf-8")
    log(f"{folder}index.html and pyscript.toml ({lang}, default results prerendered)")


def precompiled(name: str, package: Path | None = None, pyscript: Path | None = None,
                only_imported_by: Path | None = None, leave_out: tuple[str, ...] = ()) -> Path:
    """A zip of Python with .pyc compiled by the pinned Pyodide under Node.js (tools/precompile.mjs):
    the standard library (with PyScript's own `pyscript` package when `pyscript` is given; only the
    modules the app in `only_imported_by` imports when that is given), or one package less the files
    `leave_out` (paths from the package's parent). Cached by the hash of every input and option, so
    any change to the sources, the tools, Pyodide or PyScript rebuilds it."""
    tool = ROOT / "tools" / "precompile.mjs"
    pyodide = ROOT / "node_modules" / "pyodide"
    inputs = [tool, pyodide / "python_stdlib.zip", pyodide / "pyodide.asm.wasm"]
    command = ["node", str(tool), str(pyodide)]
    options = []
    if package is not None:
        inputs += sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        options.append(str(package))
        if leave_out:
            options += ["--leave-out", ",".join(leave_out)]
    if pyscript is not None:
        inputs += [pyscript / "src" / "stdlib" / "pyscript.js", *sorted((pyscript / "dist").glob("core-*.js"))]
        options += ["--pyscript", str(pyscript)]
    if only_imported_by is not None:
        inputs += [ROOT / "tools" / "stdlib_imports.py", only_imported_by / "main.py"]
        engine = (only_imported_by / "vramcalc").rglob("*")
        inputs += sorted(p for p in engine if p.is_file() and "__pycache__" not in p.parts)
        options += ["--only-imported-by", str(only_imported_by)]
    digest = hashlib.sha256(json.dumps([arg.replace(str(ROOT), "") for arg in options]).encode())
    for path in inputs:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    target = CACHE / f"{Path(name).stem}-{digest.hexdigest()[:16]}.zip"
    if not target.exists():
        CACHE.mkdir(exist_ok=True)
        partial = CACHE / "partial" / name  # the tool compiles the engine's paths from this name
        partial.parent.mkdir(parents=True, exist_ok=True)
        result = subprocess.run([*command, str(partial), *options], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise SystemExit(f"build: precompiling {name} failed:\n{result.stderr}")
        partial.rename(target)
        log(f"precompiled {name}: {result.stdout.strip()}")
    return target


def without_comments(source: Path) -> str:
    """The page module as it ships: its code as ast.unparse writes it, without comments or docstrings of
    its module and functions (a third fewer bytes; the page shows no tracebacks; PyScript runs it as source)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) and ast.get_docstring(node):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"


def gzipped(source: Path, target: Path) -> None:
    """target: the zip source, its files in gzip_order, gzipped by zopfli (4-5 % smaller than gzip -9, and any
    gzip reader inflates it), with no time or name in its header (the same build, the same bytes); cached by
    the source's hash, as zopfli takes seconds on the standard library."""
    data = source.read_bytes()
    cached = CACHE / f"{source.stem}-{GZIP_ORDER}-{hashlib.sha256(data).hexdigest()[:16]}.gz"
    if not cached.exists():
        CACHE.mkdir(exist_ok=True)
        cached.write_bytes(zopfli.gzip.compress(gzip_order(data), numiterations=15))
    target.write_bytes(cached.read_bytes())


GZIP_ORDER = "greedy1"  # names gzip_order's method in the cache: change it when the method changes
WINDOW = 32 * 1024  # how far back deflate can look
PROBE = 8 * 1024  # how much of each file the order is chosen on


def gzip_order(data: bytes) -> bytes:
    """The stored zip data with the same files in another order, chosen for a gzip of the whole: after the
    first file, each next one is the file that deflate (zlib level 6, its first PROBE bytes) compresses best
    after the last WINDOW bytes, relative to alone. Zipimport and zipfile read the central directory, so
    the order changes nothing but the compressed size (-4.7 kB gzip off the engine, -2.6 kB off the
    standard library: docs/performance.md); it takes seconds."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        files = [(info, archive.read(info)) for info in archive.infolist()]
    if any(info.compress_type != zipfile.ZIP_STORED for info, _ in files):
        raise SystemExit("build: gzip_order expects a stored zip")
    alone = [len(zlib.compress(content[:PROBE], 6)) for _, content in files]
    left = list(range(1, len(files)))
    order, tail = [0], files[0][1][-WINDOW:]
    while left:
        base = len(zlib.compress(tail, 6))
        best = min(left, key=lambda i: (len(zlib.compress(tail + files[i][1][:PROBE], 6)) - base) / alone[i])
        left.remove(best)
        order.append(best)
        tail = (tail + files[best][1])[-WINDOW:]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for i in order:
            archive.writestr(files[i][0], files[i][1])
    return out.getvalue()


def pyscript_files(dist: Path) -> list[str]:
    """core.js, core.css, the chunk core.js re-exports, and the chunks that chunk imports,
    except those the page never loads (a browser test checks this list against what loads)."""
    core = (dist / "core.js").read_text(encoding="utf-8")
    chunks = set(re.findall(r'from\s*"\./([\w.-]+\.js)"', core))
    for chunk in list(chunks):
        chunks |= set(re.findall(r'import\("\./([\w.-]+\.js)"\)', (dist / chunk).read_text(encoding="utf-8")))
    chunks = {name for name in chunks if not name.startswith(PYSCRIPT_NEVER_LOADED)}
    return sorted({"core.js", "core.css", *chunks})


def write_snapshot_key(out: Path) -> None:
    """loader.mjs restores a memory snapshot only under the key of the build that made it: a hash
    of everything in the snapshot's state (Pyodide, the standard library and engine zips, main.py's
    imports, the loader and the worker that make it)."""
    runtime = out / "static" / "pyodide"
    names = (*PYODIDE_FILES, f"{PRECOMPILED_STDLIB}.gz", SNAPSHOT_LOADER, SNAPSHOT_WORKER)
    inputs = [*(runtime / name for name in names), out / f"{ENGINE_ZIP}.gz", out / "main.py"]
    digest = hashlib.sha256()
    for path in inputs:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    key = digest.hexdigest()[:16]
    loader = runtime / SNAPSHOT_LOADER
    text = loader.read_text(encoding="utf-8")
    placeholder = 'export const SNAPSHOT_KEY = "unbuilt";'
    assert text.count(placeholder) == 1, f"{SNAPSHOT_LOADER}: the snapshot key's placeholder is gone"
    loader.write_text(text.replace(placeholder, f'export const SNAPSHOT_KEY = "{key}";'), encoding="utf-8")
    log(f"memory snapshot key {key}")


def write_service_worker(env: Environment, out: Path) -> None:
    """sw.js precaches every file of the site, each with its SHA-256, under a cache named by a
    hash of them all, so a new deploy gets a new cache and the old one is never mixed with it."""
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    hashes = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in files}
    version = hashlib.sha256("".join(f"{name}\0{hashes[name]}\0" for name in files).encode()).hexdigest()[:16]
    pages = [[f"./{lang_dir}", hashes[f"{lang_dir}index.html"]] for lang_dir in PAGE_DIRS.values()]
    entries = [*pages, *[[f"./{name}", hashes[name]] for name in files]]
    script = env.get_template("sw.js.j2").render(version=version, files=entries, pages=[page for page, _ in pages])
    (out / SERVICE_WORKER).write_text(script, encoding="utf-8")
    log(f"{SERVICE_WORKER} (cache vramcalc-{version}, {len(files)} files)")


def main() -> None:
    parser = argparse.ArgumentParser(description="Render the site into a folder.")
    parser.add_argument("--out", default=str(ROOT / "dist"))
    build(Path(parser.parse_args().out))


if __name__ == "__main__":
    main()
