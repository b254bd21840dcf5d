// Precompile Python for the page with the very interpreter that will run it.
//
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip [--pyscript CORE_DIR] [--only-imported-by APP_DIR]
//                                                                         the standard library
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip PACKAGE_DIR [--leave-out A,B]
//                                                  one package (the engine), less the files A, B
//
// Boots the pinned Pyodide under Node.js and writes a zip in which every .py is replaced
// by an unchecked hash-based .pyc (the magic number is that CPython's), and every other
// file is kept as it is. The page loads the standard library through stdLibURL
// (static/pyodide/loader.mjs) and the engine as a zip on sys.path (main.py), so CPython
// compiles neither at boot. build.py runs this and caches the result by the hash of its
// inputs; never edit the zips by hand.
//
// Bytes (docs/performance.md, "Bytes under 5 MB gzip"): the bytecode is all that ships,
// without the .py (tracebacks give file, line and function but not the line's text;
// the page shows none anyway, and nothing it runs reads sources), without docstrings
// (an AST pass; not optimize=2, which would drop asserts too; a dataclass keeps its
// class docstring, or dataclasses would build one from inspect.signature at import),
// and with line numbers but no column ranges (PYTHONNODEBUGRANGES: no ^^^ markers
// under a traceback's lines). Together they take a third off the standard library.
// Both zips keep of their line numbers only each function's first (without_lines: a
// traceback names file, function and def line; -115 kB gzip off the standard library).
// The engine's bytecode also leaves out function annotations (nothing it runs reads them;
// class-body annotations stay, dataclasses read them), and its JSON data its indentation.
// Every file is stored, not deflated: build.py gzips each zip whole, so that gzip finds
// what the modules share (7 % smaller for the standard library, 21 % for the engine).
//
// --pyscript adds PyScript's own Python package (the `pyscript` module main.py imports)
// under pyscript-core/ in the standard library zip: a name no import can take, since a
// plain `_pyscript/` folder would shadow the JS module PyScript registers by that name.
// PyScript writes that package as source into the working directory and imports it at
// every start; loader.mjs puts /lib/python3XX.zip/pyscript-core ahead of it on sys.path,
// so it is imported precompiled. The sources are taken from @pyscript/core's
// src/stdlib/pyscript.js and checked to be, byte for byte, those its dist/ bundle writes.
//
// --only-imported-by keeps only the standard-library modules the page imports, as
// tools/stdlib_imports.py finds them in this interpreter (APP_DIR holds main.py and
// vramcalc/).
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args.splice(index, 2)[1];
};
const pyscriptDir = option("--pyscript");
const appDir = option("--only-imported-by");
const leaveOut = (option("--leave-out") ?? "").split(",").filter(Boolean);
const [pyodideDir, out, packageDir] = args;
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
// PYTHONNODEBUGRANGES: compile() records line numbers only, no columns (see the top)
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/", env: { PYTHONNODEBUGRANGES: "1" } });
const STDLIB = "/lib/python314.zip"; // where Pyodide mounts the standard library, in Node and in the browser

let extra = {}; // zip name -> [source text, file name compiled into the code]
if (pyscriptDir) {
  const { default: tree } = await import(pathToFileURL(resolve(pyscriptDir, "src/stdlib/pyscript.js")).href);
  const dist = resolve(pyscriptDir, "dist");
  const bundle = readdirSync(dist).filter((name) => /^core-[\w-]+\.js$/.test(name))
    .map((name) => readFileSync(join(dist, name), "utf8")).join("\n");
  const walk = (node, path) => {
    for (const [name, value] of Object.entries(node)) {
      if (typeof value !== "string") walk(value, `${path}${name}/`);
      else if (!bundle.includes(JSON.stringify(value))) throw new Error(`${path}${name} is not the one dist/ writes`);
      else extra[`pyscript-core/${path}${name}`] = [value, `/home/pyodide/${path}${name}`];
    }
  };
  walk(tree, "");
}

let source = STDLIB;
let prefix = STDLIB;
// Copies a folder's files (no __pycache__) into Pyodide's file system; returns their names
// relative to the folder's parent.
function copyIn(dir, into) {
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (name === "__pycache__") continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(dir);
  const root = resolve(dir, "..");
  for (const path of files) {
    const target = `${into}/${relative(root, path)}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, readFileSync(path));
  }
  return files.map((path) => relative(root, path));
}

let keep = null; // the modules to keep, or null for all
if (appDir) {
  if (!pyscriptDir) throw new Error("--only-imported-by needs --pyscript: PyScript's package imports count");
  const here = resolve(new URL(".", import.meta.url).pathname);
  copyIn(resolve(appDir, "vramcalc"), "/tmp/app");
  pyodide.FS.writeFile("/tmp/app/main.py", readFileSync(resolve(appDir, "main.py")));
  pyodide.FS.writeFile("/tmp/stdlib_imports.py", readFileSync(join(here, "stdlib_imports.py")));
  const sources = Object.fromEntries(Object.entries(extra).map(([name, [text]]) => [name, text]));
  pyodide.globals.set("pyscript_sources", pyodide.toPy(sources));
  keep = pyodide.runPython(`
import sys
sys.path.insert(0, "/tmp")
import stdlib_imports
stdlib_imports.main("/tmp/app", pyscript_sources)
`).toJs();
}

if (packageDir) {
  // copy the package into Pyodide's file system as a zip of sources
  pyodide.FS.mkdirTree("/tmp/src");
  const names = copyIn(packageDir, "/tmp/src");
  for (const name of leaveOut) {
    if (!names.includes(name)) throw new Error(`--leave-out ${name}: no such file`);
  }
  pyodide.globals.set("names", names.filter((name) => !leaveOut.includes(name)));
  pyodide.runPython(`
import zipfile
with zipfile.ZipFile("/tmp/source.zip", "w") as z:
    for name in names:  # dated 1980-01-01, not when copied: the same sources, the same zip (and gzip) bytes
        with open("/tmp/src/" + name, "rb") as file:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), file.read())
`);
  source = "/tmp/source.zip";
  prefix = "/home/pyodide/" + basename(out); // where main.py puts the engine zip on sys.path
}
pyodide.globals.set("source", source);
pyodide.globals.set("prefix", prefix);
pyodide.globals.set("extra", pyodide.toPy(extra));
pyodide.globals.set("keep", keep ? pyodide.toPy(keep) : undefined);
pyodide.globals.set("left_out_already", leaveOut.length);
pyodide.globals.set("strip_annotations", Boolean(packageDir));
const summary = pyodide.runPython(`
import ast
import dis
import logging
import importlib
import importlib._bootstrap_external as bootstrap
import json
import importlib.util
import sys
import zipfile

# Two codecs CPython may look up by name whatever the page imports
ALWAYS = ("encodings.ascii", "encodings.latin_1")


# html.entities (36 kB gzipped) is imported by html/__init__ for unescape(); PyScript's display imports html
# for escape() alone, and nothing here unescapes. With the standard library cut to what the app imports,
# html/__init__ gets it on first use instead, so it is left out; an unescape() of a named reference then
# fails loudly (ImportError), never silently. tests/test_bytes.py checks that it is left out; every
# browser test boots PyScript, whose display module imports html.
# The same for four more, each imported at the top of a module the page imports, for functions it never
# calls (-50 kB gzip, docs/performance.md): ipaddress by urllib.parse, for a bracketed host in urlsplit()
# (main.py uses parse_qsl, quote and urlencode); locale by subprocess, for the encoding of a text-mode
# child process (a browser starts none); tempfile by importlib.resources (as_file() of a resource not on
# disk; the engine reads its data with read_bytes()) and by Pyodide's package loader (wheels: the page
# loads no packages), and with it random, which nothing else imports. tests/test_bytes.py boots Pyodide
# from the shipped zip and runs tools/stdlib_imports.py's probe, so an import of any of them fails there.
def as_literal(value):
    return repr(int(value) if isinstance(value, int) else value)


def on_first_use(module, name=None, constants=()):
    """Python that binds the name (the module's, or name) to an object importing the module when an attribute
    is first asked of it, but for the module's constants named, which it holds as this interpreter has them (an
    int enum's member, such as socket.AF_UNSPEC, as its int: its repr is no Python)."""
    name = name or module
    values = "".join(f"    {constant} = {as_literal(getattr(importlib.import_module(module), constant))}\\n"
                     for constant in constants)
    return (f"class _OnFirstUse:  # {module} on first use (tools/precompile.mjs, LAZY)\\n"
            f"{values}"
            f"    def __getattr__(self, attribute):\\n"
            f"        import {module}\\n"
            f"        return getattr({module}, attribute)\\n"
            f"{name} = _OnFirstUse()\\n").encode()


def logger_on_first_use(name, logger):
    """Python that binds name to an object asking logging.getLogger(logger) for each attribute asked of it."""
    return (f"class _LoggerOnFirstUse:  # logging.getLogger({logger}) on first use (tools/precompile.mjs, LAZY)\\n"
            f"    def __getattr__(self, attribute):\\n"
            f"        import logging\\n"
            f"        return getattr(logging.getLogger({logger}), attribute)\\n"
            f"{name} = _LoggerOnFirstUse()\\n").encode()


# asyncio's modules its __init__ imports on first use instead (LAZY below), with the names they export
ASYNCIO_ON_FIRST_USE = {name: importlib.import_module(f"asyncio.{name}").__all__
                        for name in ("graph", "streams", "subprocess", "taskgroups", "base_events", "unix_events")}
asyncio_on_first_use = {name: module for module, names in ASYNCIO_ON_FIRST_USE.items() for name in (module, *names)}
# The lines of asyncio/__init__.py that import them and add their names to __all__, each with what replaces it:
# their names as this interpreter's modules export them (base_events' are the first of __all__, and unix_events'
# come in the branch for any platform but Windows); the policy its __getattr__ still hands out imports on use
ASYNCIO_LINES = {
    **{f"from .{name} import *\\n": "" for name in ("graph", "streams", "subprocess", "taskgroups", "base_events")},
    **{f"           {name}.__all__ +\\n": f"           {tuple(ASYNCIO_ON_FIRST_USE[name])!r} +\\n"
       for name in ("graph", "streams", "subprocess", "taskgroups")},
    "__all__ = (base_events.__all__ +\\n": f"__all__ = ({tuple(ASYNCIO_ON_FIRST_USE['base_events'])!r} +\\n",
    "    from .unix_events import *  # pragma: no cover\\n    __all__ += unix_events.__all__\\n":
        f"    __all__ += {tuple(ASYNCIO_ON_FIRST_USE['unix_events'])!r}\\n",
    "            return unix_events._DefaultEventLoopPolicy\\n":
        "            from . import unix_events\\n            return unix_events._DefaultEventLoopPolicy\\n",
}


LAZY = {"html/__init__.py": (b"from html.entities import html5 as _html5\\n",
                             b"class _Html5:  # html.entities on first use\\n"
                             b"    def __contains__(self, key):\\n"
                             b"        from html.entities import html5\\n"
                             b"        return key in html5\\n"
                             b"    def __getitem__(self, key):\\n"
                             b"        from html.entities import html5\\n"
                             b"        return html5[key]\\n"
                             b"_html5 = _Html5()\\n",
                             ("html.entities",)),
        "urllib/parse.py": (b"import ipaddress\\n", on_first_use("ipaddress"), ("ipaddress",)),
        "subprocess.py": (b"import locale\\n", on_first_use("locale"), ("locale",)),
        "importlib/resources/_common.py": (b"import tempfile\\n", on_first_use("tempfile"), ("tempfile", "random")),
        "pyodide/_package_loader.py": (b"from tempfile import NamedTemporaryFile\\n",
                                       b"def NamedTemporaryFile(*args, **kwargs):  # tempfile on first use\\n"
                                       b"    import tempfile\\n"
                                       b"    return tempfile.NamedTemporaryFile(*args, **kwargs)\\n",
                                       ("tempfile",)),
        # asyncio's TLS protocol: base_events and selector_events import it at the top for their TLS methods
        # alone (ssl is left out below, so asyncio offers no TLS anyway; -7 kB gzip); base_events imports
        # staggered for create_connection's Happy Eyeballs race alone, and both import trsock for the socket
        # a server or transport exposes (the page opens no socket): the block of imports they sit in, rewritten
        # subprocess and selectors (-24 kB gzip), imported at the top of asyncio's own loops (base_events, events'
        # abstract loop, base_subprocess, unix_events, selector_events) for their methods that start a process or
        # watch file descriptors; the page runs Pyodide's WebLoop, which does neither. The one use at import is
        # subprocess.PIPE in those methods' defaults: the object holds it as this interpreter's subprocess has it
        "asyncio/base_events.py": ((b"from . import sslproto\\nfrom . import staggered\\nfrom . import tasks\\n"
                                    b"from . import timeouts\\nfrom . import transports\\nfrom . import trsock\\n",
                                    b"import subprocess\\n"),
                                   (on_first_use("asyncio.sslproto", "sslproto")
                                    + on_first_use("asyncio.staggered", "staggered")
                                    + b"from . import tasks\\nfrom . import timeouts\\nfrom . import transports\\n"
                                    + on_first_use("asyncio.trsock", "trsock"),
                                    on_first_use("subprocess", constants=("PIPE",))),
                                   ("asyncio.sslproto", "asyncio.staggered", "asyncio.trsock", "subprocess")),
        # socket (-11 kB gzip) too: of the modules the page keeps, only asyncio.events imports it at the top, for two
        # defaults of its abstract create_server (the others are asyncio's own loops, left out below)
        "asyncio/events.py": ((b"import socket\\n", b"import subprocess\\n"),
                              (on_first_use("socket", constants=("AF_UNSPEC", "AI_PASSIVE")),
                               on_first_use("subprocess", constants=("PIPE",))),
                              ("socket", "subprocess")),
        # asyncio's own loops (-52 kB gzip): base_events, unix_events' selector loop, selector_events and
        # base_subprocess, which only unix_events imports, and asyncio.log, which only they do. The page runs
        # Pyodide's WebLoop, an AbstractEventLoop of its own; its policy subclasses asyncio.DefaultEventLoopPolicy,
        # unix_events' policy, of which it overrides every method (__init__, get_event_loop, new_event_loop and
        # set_event_loop) and never reads the one attribute the Unix policy adds (_loop_factory, the selector loop):
        # it subclasses the base policy the Unix one extends instead, and asyncio's __init__ has them on first use
        "pyodide/webloop.py": (b"class WebLoopPolicy(asyncio.DefaultEventLoopPolicy):  # type: ignore[name-defined]\\n",
                               b"class WebLoopPolicy(asyncio.events._BaseDefaultEventLoopPolicy):  # precompile.mjs\\n",
                               ("asyncio.unix_events", "asyncio.selector_events", "asyncio.base_subprocess",
                                "asyncio.log")),
        "asyncio/base_subprocess.py": (b"import subprocess\\n", on_first_use("subprocess", constants=("PIPE",)),
                                       ("subprocess",)),
        "asyncio/unix_events.py": ((b"import selectors\\n", b"import subprocess\\n"),
                                   (on_first_use("selectors"), on_first_use("subprocess", constants=("PIPE",))),
                                   ("selectors", "subprocess")),
        "asyncio/selector_events.py": ((b"from . import sslproto\\nfrom . import transports\\nfrom . import trsock\\n",
                                        b"import selectors\\n"),
                                       (on_first_use("asyncio.sslproto", "sslproto")
                                        + b"from . import transports\\n" + on_first_use("asyncio.trsock", "trsock"),
                                        on_first_use("selectors")),
                                       ("asyncio.sslproto", "asyncio.trsock", "selectors")),
        # dis (with opcode and _opcode_metadata, -17 kB gzip), imported by inspect for getclosurevars() and the
        # positions in getframeinfo()/stack() alone (nothing the page runs calls them; importlib.resources
        # would, for files() without a package, and the engine always names one), and at its top for the
        # CO_* flags, which the loop then takes from dis.COMPILER_FLAG_NAMES as this interpreter has it
        "inspect.py": ((b"import dis\\n", b"for k, v in dis.COMPILER_FLAG_NAMES.items():\\n"),
                       (on_first_use("dis"),
                        f"for k, v in {dis.COMPILER_FLAG_NAMES!r}.items():  # dis.COMPILER_FLAG_NAMES\\n".encode()),
                       ("dis", "opcode", "_opcode_metadata")),
        # logging (-17 kB gzip): imported at the top of asyncio.log and concurrent.futures for a logger each, which
        # only asyncio's own loops (base_events, selector_events, unix_events: the page runs Pyodide's WebLoop,
        # whose exception handler prints) and a concurrent future's failing callback log to, and of
        # asyncio.futures for logging.DEBUG, written as this interpreter's logging has it
        "asyncio/log.py": ((b"import logging\\n", b"logger = logging.getLogger(__package__)\\n"),
                           (on_first_use("logging"), logger_on_first_use("logger", "__package__")), ("logging",)),
        "asyncio/futures.py": ((b"import logging\\n", b"STACK_DEBUG = logging.DEBUG - 1  # heavy-duty debugging\\n"),
                               (on_first_use("logging"),
                                f"STACK_DEBUG = {logging.DEBUG - 1}  # logging.DEBUG - 1\\n".encode()),
                               ("logging",)),
        "concurrent/futures/_base.py": ((b"import logging\\n",
                                         b'LOGGER = logging.getLogger("concurrent.futures")\\n'),
                                        (on_first_use("logging"),
                                         logger_on_first_use("LOGGER", '"concurrent.futures"')),
                                        ("logging",)),
        # asyncio's streams, subprocesses, call graphs and task groups (-10 kB gzip), and its own loops (base_events,
        # unix_events: see pyodide/webloop.py above): its __init__ star-imports them all, and nothing the page runs
        # uses them (PyScript's and Pyodide's asyncio: tasks, futures, gather, the WebLoop and its policy). Their names are then had on first use through the package's __getattr__, and
        # __all__ lists them as this interpreter's modules do ("from asyncio import *" would import them all)
        "asyncio/__init__.py": (tuple(line.encode() for line in ASYNCIO_LINES) + (b"def __getattr__(name: str):\\n",),
                                tuple(text.encode() for text in ASYNCIO_LINES.values())
                                + (f"_ON_FIRST_USE = {asyncio_on_first_use!r}  # tools/precompile.mjs, LAZY\\n"
                                   f"def __getattr__(name: str):\\n"
                                   f"    if name in _ON_FIRST_USE:\\n"
                                   f"        import importlib\\n"
                                   f"        module = importlib.import_module('asyncio.' + _ON_FIRST_USE[name])\\n"
                                   f"        return module if name == _ON_FIRST_USE[name] else getattr(module, name)\\n"
                                   .encode(),),
                                tuple(f"asyncio.{name}" for name in ASYNCIO_ON_FIRST_USE))}
# Imported only to be had if present: zipfile's "from compression import zstd" sits in a try/except
# ImportError (zstd None without it), and nothing here reads a Zstandard zip (-9.6 kB gzip). So do
# zipfile's and shutil's "import bz2" and "import lzma" (bz2 None, _BZ2_SUPPORTED False; no zip here is
# bzip2 or LZMA), and asyncio's "import ssl" in base_events, selector_events and sslproto (ssl None: asyncio
# then offers no TLS streams, and Pyodide's ssl is a stub over a stub _ssl that can open none anyway;
# -19 kB gzip for the four, docs/performance.md).
OPTIONAL = ("compression", "compression.zstd", "compression.zstd._zstdfile", "compression._common",
            "compression._common._streams", "bz2", "lzma", "ssl", "_ssl")
if keep is not None:
    keep = [module for module in keep if module not in {m for _, _, lazy in LAZY.values() for m in lazy}
            and module not in OPTIONAL]


# The engine's sentence catalogues (render/i18n/en.py, pt.py: one dict of strings each) ship as JSON beside
# a module that loads it: their bytecode gzips to 27-29 kB each, the same strings as JSON to 17-18 kB.
# The form's labels and help and the guide's questions are written into the page when it is built, and
# nothing in Python asks for them (tests/test_bytes.py checks the sources): they stay out (-6 kB gzip).
# Both languages ship in one catalogue.json, each key once with its sentences in the languages' order
# ({"weights": ["Weights", "Pesos"], ...}); each module takes its own: as two files of 62-67 kB, gzip's
# 32 kB window could share nothing between them (-6 kB gzip, docs/performance.md).
CATALOGUE = ("render/i18n/", ".py")
CATALOGUE_FILE = "catalogue.json"
catalogues = {}
PAGE_ONLY = ("field.", "guide.")
# The presets, the GPUs and the diffusion pipelines, a file each in the repository, ship as one all.json per
# folder (sources/folders.py reads either): 143 files' zip headers fewer, -4.6 kB gzip.
BUNDLED = ("data/models", "data/gpus", "data/diffusion")
bundles = {}


def as_data(data, filename, index):
    """(a module that loads the catalogue, the catalogue) for a module whose one assignment is a dict of
    string literals, the language at index in CATALOGUE_FILE; anything else in it is an error here, not a
    surprise in the browser."""
    tree = ast.parse(data, filename)
    body = [node for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]  # imports, its docstring
    tables = [node for node in body if isinstance(node, (ast.Assign, ast.AnnAssign))]
    if len(body) != 1 or len(tables) != 1 or not isinstance(tables[0].value, ast.Dict):
        raise ValueError(f"{filename}: a catalogue is its imports and one dict assignment, nothing else")
    target = tables[0].target if isinstance(tables[0], ast.AnnAssign) else tables[0].targets[0]
    table = ast.literal_eval(tables[0].value)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError(f"{filename}: a catalogue maps strings to strings")
    table = {k: v for k, v in table.items() if not k.startswith(PAGE_ONLY)}
    module = (f"import json\\nfrom importlib.resources import files\\n"
              f"{target.id} = {{key: texts[{index}] for key, texts in "
              f"json.loads(files(__package__).joinpath({CATALOGUE_FILE!r}).read_bytes()).items()}}\\n")
    return module.encode(), table


def is_catalogue(name):
    return CATALOGUE[0] in name and name.endswith(CATALOGUE[1]) and not name.endswith("__init__.py")


def wanted(name):
    if keep is None:
        return True
    if not name.endswith(".py"):
        return False
    module = name[:-3].removesuffix("/__init__").replace("/", ".")
    return module in keep or module in ALWAYS


def is_dataclass(node):
    for decorator in node.decorator_list:
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        if getattr(call, "id", getattr(call, "attr", None)) == "dataclass":
            return True
    return False


def without_docstrings(tree):
    """tree less every module, class and function docstring but those of dataclasses."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = node.body[0] if node.body else None
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)):
            continue
        if isinstance(node, ast.ClassDef) and is_dataclass(node):
            continue
        del node.body[0]
        if not node.body:  # a body that was only its docstring
            node.body.append(ast.copy_location(ast.Pass(), first))
    return tree


def without_function_annotations(tree):
    """tree less the annotations of function arguments and returns (the engine only: nothing in it reads
    them at run time; a class body's annotations stay, as dataclasses read those)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             arguments.vararg, arguments.kwarg):
                if argument is not None:
                    argument.annotation = None
    return tree


def without_lines(code):
    """code (and the code inside it) with a location table that gives every instruction its function's
    first line (a traceback names the file, the function and its def line; -36 kB gzip off the engine,
    -115 kB off the standard library, whose line numbers nothing the page runs reads).
    The table: one entry per 8 code units (caches included), kind 13 (PY_CODE_LOCATION_INFO_NO_COLUMNS)
    with a line delta of 0 (CPython's Objects/locations.md). An empty table would be smaller, but
    traceback's co_positions() walk then stops early and formatting the exception raises."""
    consts = tuple(without_lines(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    units, table = len(code.co_code) // 2, bytearray()
    while units:
        n = min(units, 8)
        table += bytes((0x80 | 13 << 3 | n - 1, 0))
        units -= n
    return code.replace(co_linetable=bytes(table), co_consts=consts)


def add(zout, name, data, filename, date_time):
    """name.pyc, unchecked and hash-based, for the source data; False if it does not compile."""
    try:
        tree = without_docstrings(ast.parse(data, filename))
        if strip_annotations:
            tree = without_function_annotations(tree)
        code = compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError:
        return False
    code = without_lines(code)
    pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
    zout.writestr(zipfile.ZipInfo(name + "c", date_time), bytes(pyc))
    return True


compiled = 0
left_out = left_out_already
# config keys no reader reads (tests/test_types.py checks it): what the presets are stripped of below; read here and
# by that test alone (from the repository), so it is not shipped
UNREAD = "data/config_keys_unread.json"
with zipfile.ZipFile(source) as zin, zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_STORED) as zout:
    listed = [name for name in zin.namelist() if name.endswith(UNREAD)] if strip_annotations else []
    stripping = json.loads(zin.read(listed[0])) if listed else {"keys": [], "vision_read": None}
    unread, vision_read = set(stripping["keys"]), stripping["vision_read"]
    languages = sorted(name for name in zin.namelist() if strip_annotations and is_catalogue(name))
    for info in zin.infolist():
        if info.is_dir():
            continue
        if not wanted(info.filename) or info.filename in listed:
            left_out += 1
            continue
        data = zin.read(info)
        if keep is not None and info.filename in LAZY:
            lines, replacements, _ = LAZY[info.filename]
            if isinstance(lines, bytes):  # one line, or a tuple of them
                lines, replacements = (lines,), (replacements,)
            for line, replacement in zip(lines, replacements, strict=True):
                if data.count(b"\\n" + line) != 1:  # once, at the top level
                    raise ValueError(f"{info.filename}: {line!r} not found once; LAZY needs a look at this Python")
                data = data.replace(b"\\n" + line, b"\\n" + replacement)
        if strip_annotations and is_catalogue(info.filename):
            data, catalogues[info.filename] = as_data(data, info.filename, languages.index(info.filename))
        if info.filename.endswith(".py") and add(zout, info.filename, data, f"{prefix}/{info.filename}", info.date_time):
            compiled += 1
        else:  # data files, and test fixtures with deliberate errors (left as source)
            if strip_annotations and info.filename.endswith(".json"):  # the engine's data, without its indentation
                parsed = json.loads(data)
                if isinstance(parsed, dict):  # what the data says of itself, read by people, not by the engine
                    for key in [key for key in parsed if key.startswith(("about", "_generated_by", "_comment"))]:
                        del parsed[key]
                    for inner in parsed.values():  # and of its sections (speed.json's speculative, diffusion, speech)
                        if isinstance(inner, dict):
                            for key in [key for key in inner if key.startswith("about")]:
                                del inner[key]
                if info.filename.endswith("/data/examples.json") and isinstance(parsed, dict):
                    for entry in parsed.get("models", []):  # each count's provenance: no page shows it
                        entry.pop("source", None)
                if "/data/models/" in "/" + info.filename and isinstance(parsed, dict) and "config" in parsed:
                    parsed.pop("source", None)  # its provenance, for people reading the data: no page shows it
                    parsed.pop("published_params", None)  # the publisher's figure, for people: no code reads it
                    config = parsed["config"]  # a preset: its config less the keys nothing reads
                    kept = set(stripping.get("encoder_read", ())) if config.get("model_type") in stripping.get(
                        "encoder_types", ()) else set()  # an encoder's reranker class and labels
                    for inner in (config, config.get("text_config") or {}):
                        for key in (unread - kept) & set(inner):
                            del inner[key]
                    vision = config.get("vision_config")
                    if isinstance(vision, dict) and vision_read is not None:
                        config["vision_config"] = {k: v for k, v in vision.items() if k in vision_read}
                if "/data/diffusion/" in "/" + info.filename and isinstance(parsed, dict):
                    for part in parsed.get("components", {}).values():  # each config's provenance: no page shows it
                        part.pop("source", None)
                    parsed.pop("source", None)  # a variant's (same_parts)
                if "/data/gpus/" in "/" + info.filename and isinstance(parsed, dict):
                    for key in ("source", "compute_source"):  # each figure's provenance: no page shows it
                        parsed.pop(key, None)
                folder, _, file = info.filename.rpartition("/")
                if folder.endswith(BUNDLED):  # one all.json for the folder, written below
                    bundles.setdefault(folder, {})[file[:-5]] = parsed
                    continue
                data = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False).encode()
            zout.writestr(zipfile.ZipInfo(info.filename, info.date_time), data)
    for folder, files in bundles.items():  # in order.json's order, which all.json then replaces
        bundle = {slug: files[slug] for slug in files.pop("order")}
        if set(bundle) != set(files):
            raise ValueError(f"{folder}: order.json and the files differ: {sorted(set(bundle) ^ set(files))}")
        zout.writestr(zipfile.ZipInfo(f"{folder}/all.json", (1980, 1, 1, 0, 0, 0)),
                      json.dumps(bundle, separators=(",", ":"), ensure_ascii=False).encode())
    if catalogues:  # every key once, with its sentence in each language (languages' order)
        tables = [catalogues[name] for name in languages]
        if any(set(table) != set(tables[0]) for table in tables):
            raise ValueError(f"{CATALOGUE[0]}: the catalogues' keys differ")
        zout.writestr(zipfile.ZipInfo(languages[0].rpartition("/")[0] + "/" + CATALOGUE_FILE, (1980, 1, 1, 0, 0, 0)),
                      json.dumps({key: [table[key] for table in tables] for key in tables[0]},
                                 separators=(",", ":"), ensure_ascii=False).encode())
    for name, (text, filename) in extra.items():
        if not add(zout, name, text.encode(), filename, (1980, 1, 1, 0, 0, 0)):
            raise SyntaxError(name)
        compiled += 1
f"{compiled} modules compiled ({left_out} files left out, bytecode only, no docstrings, no columns) by Python {sys.version.split()[0]} (magic {importlib.util.MAGIC_NUMBER.hex()})"
`);
writeFileSync(out, pyodide.FS.readFile("/tmp/out.zip"));
console.log(summary);
