// Precompile Python for the page with the very interpreter that will run it.
//
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip [--pyscript CORE_DIR] [--only-imported-by APP_DIR]
//                                                                         the standard library
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip PACKAGE_DIR             one package (the engine)
//
// Boots the pinned Pyodide under Node.js and writes a zip in which every .py has an
// unchecked hash-based .pyc beside it (the magic number is that CPython's), keeping the
// .py so tracebacks still show source lines, and every other file as it is. The page
// loads the standard library through stdLibURL (static/pyodide/loader.mjs) and the engine
// as a zip on sys.path (main.py), so CPython compiles neither at boot. build.py runs this
// and caches the result by the hash of its inputs; never edit the zips by hand.
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
// vramcalc/), and Pyodide's own pyodide and _pyodide packages whole.
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
const [pyodideDir, out, packageDir] = args;
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/" });
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
  pyodide.globals.set("names", copyIn(packageDir, "/tmp/src"));
  pyodide.runPython(`
import zipfile
with zipfile.ZipFile("/tmp/source.zip", "w") as z:
    for name in names:
        z.write("/tmp/src/" + name, name)
`);
  source = "/tmp/source.zip";
  prefix = "/home/pyodide/" + basename(out); // where main.py puts the engine zip on sys.path
}
pyodide.globals.set("source", source);
pyodide.globals.set("prefix", prefix);
pyodide.globals.set("extra", pyodide.toPy(extra));
pyodide.globals.set("keep", keep ? pyodide.toPy(keep) : undefined);
const summary = pyodide.runPython(`
import importlib._bootstrap_external as bootstrap
import importlib.util
import sys
import zipfile

# Pyodide's own packages whole, and two codecs CPython may look up by name
# Two codecs CPython may look up by name whatever the page imports
ALWAYS = ("encodings.ascii", "encodings.latin_1")
# A trimmed standard library ships bytecode only: tracebacks through it show the file and
# line but not the text (PyScript's package keeps its text: PyScript writes it to disk).
sources = keep is None


def wanted(name):
    if keep is None:
        return True
    if not name.endswith(".py"):
        return False
    module = name[:-3].removesuffix("/__init__").replace("/", ".")
    return module in keep or module in ALWAYS


def add(zout, name, data, filename, date_time):
    """name.py (unless bytecode only) and its unchecked hash-based name.pyc; False if it does not compile."""
    try:
        code = compile(data, filename, "exec", dont_inherit=True)
    except SyntaxError:
        return False
    if sources:
        zout.writestr(zipfile.ZipInfo(name, date_time), data, zipfile.ZIP_DEFLATED, 9)
    pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
    zout.writestr(zipfile.ZipInfo(name + "c", date_time), bytes(pyc), zipfile.ZIP_DEFLATED, 9)
    return True


compiled = 0
left_out = 0
with zipfile.ZipFile(source) as zin, zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
    for info in zin.infolist():
        if info.is_dir():
            continue
        if not wanted(info.filename):
            left_out += 1
            continue
        data = zin.read(info)
        if info.filename.endswith(".py") and add(zout, info.filename, data, f"{prefix}/{info.filename}", info.date_time):
            compiled += 1
        else:  # data files, and test fixtures with deliberate errors (left as source)
            zout.writestr(zipfile.ZipInfo(info.filename, info.date_time), data, zipfile.ZIP_DEFLATED, 9)
    for name, (text, filename) in extra.items():
        if not add(zout, name, text.encode(), filename, (1980, 1, 1, 0, 0, 0)):
            raise SyntaxError(name)
        compiled += 1
f"{compiled} modules compiled ({left_out} files left out{'' if sources else ', bytecode only'}) by Python {sys.version.split()[0]} (magic {importlib.util.MAGIC_NUMBER.hex()})"
`);
writeFileSync(out, pyodide.FS.readFile("/tmp/out.zip"));
console.log(summary);
