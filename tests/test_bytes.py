"""What a first visit downloads: every file of the built site, since the service worker
precaches them all. Measured as bench/page.py does, each file gzipped at level 9; with the
pinned Pyodide and PyScript the number depends only on our own sources, so it can be a test
(docs/performance.md, "Bytes under 5 MB gzip")."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIRST_VISIT_GZIP_BUDGET = 5_000_000  # bytes
ZIPS = ("vramcalc.zip.gz", "static/pyodide/python_stdlib_pyc.zip.gz")


def test_a_first_visit_is_at_most_5_mb_gzip(site_dir):
    sizes = {p.relative_to(site_dir).as_posix(): len(gzip.compress(p.read_bytes(), 9))
             for p in site_dir.rglob("*") if p.is_file()}
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    assert sum(sizes.values()) <= FIRST_VISIT_GZIP_BUDGET, largest


def test_the_zips_ship_gzipped_bytecode_stored_uncompressed(site_dir):
    # stored, so that the gzip around each zip compresses across its modules; no .py sources
    for name in ZIPS:
        with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / name).read_bytes()))) as archive:
            infos = archive.infolist()
        assert any(info.filename.endswith(".pyc") for info in infos), name
        assert not [info.filename for info in infos if info.filename.endswith(".py")], name
        assert {info.compress_type for info in infos} == {zipfile.ZIP_STORED}, name


def test_the_page_says_how_many_bytes_pythons_start_downloads(site_dir):
    """static/boot.js counts the boot files as they arrive against the total build.py wrote."""
    import re

    total = sum(p.stat().st_size for pattern in ("main.py", "vramcalc.zip.gz", "static/pyodide/*", "static/pyscript/*")
                for p in site_dir.glob(pattern) if p.is_file())
    for page in ("index.html", "pt/index.html"):
        match = re.search(r'data-boot-bytes="(\d+)"', (site_dir / page).read_text(encoding="utf-8"))
        assert match and int(match.group(1)) == total > 5_000_000, page


def test_zstandard_is_left_out_of_the_standard_library(site_dir):
    """zipfile imports compression.zstd inside try/except ImportError; no zip here is Zstandard, so the
    package is left out (tools/precompile.mjs, OPTIONAL) and zipfile runs with zstd None: every browser
    test boots the page, which reads the engine's zip with zipfile."""
    data = gzip.decompress((site_dir / ZIPS[1]).read_bytes())
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "zipfile/__init__.pyc" in names and not [name for name in names if name.startswith("compression/")]


def test_html_entities_are_left_out_of_the_standard_library(site_dir):
    """html.entities (36 kB gzipped) serves only html.unescape, which nothing on the page calls;
    tools/precompile.mjs has html/__init__ import it on first use instead (LAZY)."""
    with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / ZIPS[1]).read_bytes()))) as archive:
        names = set(archive.namelist())
    assert "html/__init__.pyc" in names and "html/entities.pyc" not in names


def test_the_sentence_catalogues_ship_as_json_beside_a_module_that_loads_them(site_dir):
    """tools/precompile.mjs (CATALOGUE): each catalogue's bytecode gzips to 27-29 kB, the same strings as JSON to
    17-18 kB, both languages in one file (each key once) less. What ships must be every sentence Python can ask
    for, unchanged: all but the form's and the guide's (PAGE_ONLY), which the built page already holds."""
    import json

    from vramcalc.render.i18n.en import EN
    from vramcalc.render.i18n.pt import PT

    page_only = ("field.", "guide.")
    with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / ZIPS[0]).read_bytes()))) as archive:
        catalogue = json.loads(archive.read("vramcalc/render/i18n/catalogue.json"))
        names = archive.namelist()
        for index, (name, table) in enumerate((("en", EN), ("pt", PT))):
            shipped = {key: text for key, text in table.items() if not key.startswith(page_only)}
            assert {key: texts[index] for key, texts in catalogue.items()} == shipped
            assert len(archive.read(f"vramcalc/render/i18n/{name}.pyc")) < 1000
            assert f"vramcalc/render/i18n/{name}.json" not in names


def test_no_python_on_the_page_asks_for_a_sentence_left_out_of_the_catalogues():
    """The keys PAGE_ONLY leaves out (field.*, guide.*) are named by no string in main.py or the engine, whole
    or as the head of an f-string, so no lookup at run time can miss."""
    import ast
    from pathlib import Path

    app = Path(__file__).resolve().parent.parent / "app"
    sources = [app / "main.py", *(p for p in (app / "vramcalc").rglob("*.py") if "i18n" not in p.parts)]
    named = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            head = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
            if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith(
                    ("field.", "guide.")):
                named.append(f"{path.name}: {head.value}")
    assert not named


def test_the_presets_and_gpus_ship_as_one_file_each_in_their_order(site_dir):
    """tools/precompile.mjs (BUNDLED): data/models/, data/gpus/ and data/diffusion/ as one all.json each, in
    order.json's order; sources/folders.py reads either form."""
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parent.parent / "app" / "vramcalc" / "data"
    with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / ZIPS[0]).read_bytes()))) as archive:
        for folder in ("models", "gpus", "diffusion"):
            names = [n for n in archive.namelist() if n.startswith(f"vramcalc/data/{folder}/")]
            assert names == [f"vramcalc/data/{folder}/all.json"]
            bundle = json.loads(archive.read(names[0]))
            assert list(bundle) == json.loads((data / folder / "order.json").read_text(encoding="utf-8"))


def test_the_list_of_config_keys_nothing_reads_is_not_shipped(site_dir):
    """tools/precompile.mjs strips the presets' configs of the keys data/config_keys_unread.json lists, and leaves
    the list out: no Python of the page names it (tests/test_types.py reads it from the repository)."""
    app = ROOT / "app"
    with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / ZIPS[0]).read_bytes()))) as archive:
        names = archive.namelist()
    assert "vramcalc/data/config_defaults.json" in names and "vramcalc/data/config_keys_unread.json" not in names
    sources = [app / "main.py", *(app / "vramcalc").rglob("*.py")]
    assert not [path.name for path in sources if "config_keys_unread" in path.read_text(encoding="utf-8")]


def _node(script: str):
    """Run an ES module in Node.js (the pinned Pyodide boots there) and return its finished process."""
    import subprocess

    result = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def test_the_engines_bytecode_still_formats_a_traceback_in_pyodide(site_dir, tmp_path):
    """The engine ships one line per function (tools/precompile.mjs, without_lines): an exception raised in
    it, in the pinned Pyodide, formats with its file, function and def line, and warnings still work."""
    import json

    engine = tmp_path / "vramcalc.zip"
    engine.write_bytes(gzip.decompress((site_dir / "vramcalc.zip.gz").read_bytes()))
    pyodide = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"
    script = f"""
import {{ loadPyodide }} from {json.dumps(pyodide.as_uri())};
import {{ readFileSync }} from "node:fs";
const py = await loadPyodide();
py.FS.writeFile("/tmp/vramcalc.zip", readFileSync({json.dumps(str(engine))}));
console.log(py.runPython(`
import sys, traceback, warnings
sys.path.insert(0, "/tmp/vramcalc.zip")
from vramcalc.core.option import parse_int
try:
    parse_int("batch", "many", 1, 4)
except Exception as error:
    text = "".join(traceback.format_exception(error))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.warn("said")
from vramcalc.render.i18n.en import EN
from vramcalc.render.i18n.pt import PT
text + "|" + EN["weights"] + "/" + PT["weights"] + "|" + str(len(caught))
`));
"""
    result = _node(script)
    assert 'vramcalc/core/option.py", line ' in result.stdout and ", in parse_int" in result.stdout
    assert "ValidationError" in result.stdout and result.stdout.strip().endswith("|Weights/Pesos|1")


def test_the_standard_librarys_bytecode_still_formats_a_traceback_in_pyodide(site_dir, tmp_path):
    """The standard library ships one line per function too (tools/precompile.mjs, without_lines): the pinned
    Pyodide boots from it, and an exception raised inside it formats with file, function and def line; every
    frame of a stack has a line (what inspect.stack() needs; it also needs dis, left out: LAZY). inspect's CO_*
    flags, which it takes from a literal instead of dis, still tell a coroutine function (PyScript's `when`)."""
    import json

    stdlib = tmp_path / "python_stdlib.zip"
    stdlib.write_bytes(gzip.decompress((site_dir / ZIPS[1]).read_bytes()))
    pyodide = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"
    script = f"""
import {{ loadPyodide }} from {json.dumps(pyodide.as_uri())};
const py = await loadPyodide({{ stdLibURL: {json.dumps(str(stdlib))} }});
console.log(py.runPython(`
import inspect, json, sys, traceback
try:
    json.loads("{{x")
except Exception as error:
    text = "".join(traceback.format_exception(error))
async def coroutine(): pass
def generator(): yield
stack = traceback.extract_stack()
flags = (inspect.iscoroutinefunction(coroutine), inspect.isgeneratorfunction(generator),
         inspect.iscoroutinefunction(generator), inspect.CO_COROUTINE, inspect.CO_VARARGS)
text + "|" + str(len(stack) > 1 and all(isinstance(frame.lineno, int) for frame in stack)) + str(flags)
`));
"""
    result = _node(script)
    assert 'json/decoder.py", line ' in result.stdout and ", in raw_decode" in result.stdout
    assert "JSONDecodeError" in result.stdout and result.stdout.strip().endswith("|True(True, True, False, 128, 4)")


def test_argparse_is_left_out_of_the_standard_library(site_dir):
    """argparse and the gettext it imports (32 kB gzipped) serve only the command lines, which the page leaves out
    (build.py ENGINE_LEFT_OUT); a module the page imports that pulls argparse in puts them back."""
    with zipfile.ZipFile(io.BytesIO(gzip.decompress((site_dir / ZIPS[1]).read_bytes()))) as archive:
        names = set(archive.namelist())
    assert "json/__init__.pyc" in names and not names & {"argparse.pyc", "gettext.pyc"}


def test_what_the_page_runs_imports_nothing_left_out_of_the_standard_library(site_dir, tmp_path):
    """tools/precompile.mjs leaves out modules only imported to be had if present (OPTIONAL) or imported by
    the standard library on first use instead (LAZY). Pyodide booted from the shipped zip under Node.js then
    runs the probe that chose the modules (tools/stdlib_imports.py: the imports of main.py and of PyScript's
    package, every engine module, every preset and pipeline): a left-out module any of it imports fails here."""
    import json

    stdlib = tmp_path / "python_stdlib.zip"
    stdlib.write_bytes(gzip.decompress((site_dir / ZIPS[1]).read_bytes()))
    pyodide = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"
    pyscript = ROOT / "node_modules" / "@pyscript" / "core" / "src" / "stdlib" / "pyscript.js"
    left_out = ["ssl", "_ssl", "bz2", "lzma", "compression", "html.entities", "ipaddress", "locale", "tempfile",
                "random", "dis", "opcode", "_opcode_metadata", "logging", "asyncio.graph",
                "asyncio.streams", "asyncio.subprocess", "asyncio.taskgroups", "subprocess", "selectors",
                "asyncio.base_events", "asyncio.unix_events", "asyncio.selector_events", "asyncio.base_subprocess",
                "asyncio.log", "socket"]
    script = f"""
import {{ loadPyodide }} from {json.dumps(pyodide.as_uri())};
import {{ default as tree }} from {json.dumps(pyscript.as_uri())};
import {{ readFileSync, readdirSync, statSync }} from "node:fs";
import {{ join, relative }} from "node:path";
const py = await loadPyodide({{ stdLibURL: {json.dumps(str(stdlib))} }});
const app = {json.dumps(str(ROOT / "app"))};
const walk = (dir) => readdirSync(dir).flatMap((name) => {{
  const path = join(dir, name);
  return name === "__pycache__" ? [] : statSync(path).isDirectory() ? walk(path) : [path];
}});
for (const path of [...walk(join(app, "vramcalc")), join(app, "main.py")]) {{
  const target = "/tmp/app/" + relative(app, path);
  py.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  py.FS.writeFile(target, readFileSync(path));
}}
py.FS.writeFile("/tmp/stdlib_imports.py", readFileSync({json.dumps(str(ROOT / "tools" / "stdlib_imports.py"))}));
const sources = {{}};
const add = (node, path) => {{
  for (const [name, value] of Object.entries(node)) {{
    if (typeof value === "string") sources[path + name] = value; else add(value, path + name + "/");
  }}
}};
add(tree, "");
py.globals.set("pyscript_sources", py.toPy(sources));
py.globals.set("left_out", py.toPy({json.dumps(left_out)}));
console.log(py.runPython(`
import sys
sys.path.insert(0, "/tmp")
import stdlib_imports
imported = stdlib_imports.main("/tmp/app", pyscript_sources)
"ran|" + ",".join(name for name in left_out if name in sys.modules)
`));
"""
    result = _node(script)
    assert result.stdout.strip().endswith("ran|"), result.stdout[-2000:]


def test_asyncio_runs_on_the_webloop_without_its_own_loops_logging_subprocess_and_socket_in_pyodide(site_dir, tmp_path):
    """logging is left out (tools/precompile.mjs, LAZY): concurrent.futures' logger imports it on first use, which
    only a concurrent future's failing callback would make. In the pinned Pyodide booted from the shipped zip,
    Pyodide's WebLoop runs tasks, gathers them and reports a task's exception nobody retrieved (its handler prints),
    a concurrent future runs its callbacks, and logging is never imported. asyncio's own loops (base_events,
    unix_events, selector_events, base_subprocess, and asyncio.log, which only they import), its streams,
    subprocess, graph and taskgroups are left out too, imported by the package on first use: its __all__ is still,
    name for name, that of the npm package's standard library, and the WebLoop's policy, which subclasses the base
    policy instead of the Unix one, still hands out the WebLoop. So are subprocess, selectors and socket, which
    only asyncio's own loops use: the abstract loop's defaults still read subprocess.PIPE and socket's two flags."""
    import json

    stdlib = tmp_path / "python_stdlib.zip"
    stdlib.write_bytes(gzip.decompress((site_dir / ZIPS[1]).read_bytes()))
    pyodide = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"
    script = f"""
import {{ loadPyodide }} from {json.dumps(pyodide.as_uri())};
const py = await loadPyodide({{ stdLibURL: {json.dumps(str(stdlib))} }});
const npm = await loadPyodide();
const all = "import asyncio; repr(asyncio.__all__)";
console.log(py.runPython(all) === npm.runPython(all) ? "same __all__" : py.runPython(all));
const defaults = `import asyncio
loop = asyncio.events.AbstractEventLoop
server = loop.create_server.__kwdefaults__
repr((int(server["family"]), int(server["flags"]), loop.subprocess_exec.__kwdefaults__["stdin"]))`;
console.log(py.runPython(defaults) === npm.runPython(defaults) ? "same defaults" : py.runPython(defaults));
console.log(await py.runPythonAsync(`
import asyncio, concurrent.futures, gc, sys
from pyodide.webloop import WebLoop
async def twice(x):
    await asyncio.sleep(0)
    return 2 * x
async def fails():
    raise ValueError("nobody looks")
results = await asyncio.gather(twice(1), twice(2))
task = asyncio.ensure_future(fails())
await asyncio.sleep(0.01)
del task
gc.collect()
future = concurrent.futures.Future()
seen = []
future.add_done_callback(lambda done: seen.append(done.result()))
future.set_result(3)
lazy = []
for name in ("TaskGroup", "BaseEventLoop", "SelectorEventLoop"):
    try:
        getattr(asyncio, name)
    except ImportError as error:
        lazy.append(error.name)
try:
    concurrent.futures._base.LOGGER.info("x")
except ImportError as error:
    lazy.append(error.name)
loop = asyncio.events._get_event_loop_policy().new_event_loop()
webloop = isinstance(asyncio.get_running_loop(), WebLoop) and isinstance(loop, WebLoop)
gone = [name for name in ("logging", "socket", "asyncio.base_events", "asyncio.unix_events") if name in sys.modules]
f"{{results}}|{{seen}}|{{asyncio.futures.STACK_DEBUG}}|{{','.join(lazy)}}|{{webloop}}|{{gone}}|"
`));
"""
    result = _node(script)
    assert "same __all__" in result.stdout and "same defaults" in result.stdout, result.stdout[-2000:]
    assert ("[2, 4]|[3]|9|asyncio.taskgroups,asyncio.base_events,asyncio.unix_events,logging|True|[]|"
            in result.stdout), result.stdout[-2000:]
    output = result.stdout + result.stderr  # the handler's report, printed whenever the task is collected
    assert "Unhandled exception in event loop" in output and "ValueError: nobody looks" in output, output[-2000:]
