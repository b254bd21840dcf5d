// Precompile Python for the page with the very interpreter that will run it.
//
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip                 the standard library
//   node tools/precompile.mjs PYODIDE_DIR OUT.zip PACKAGE_DIR     one package (the engine)
//
// Boots the pinned Pyodide under Node.js and writes a zip in which every .py has an
// unchecked hash-based .pyc beside it (the magic number is that CPython's), keeping the
// .py so tracebacks still show source lines, and every other file as it is. The page
// loads the standard library through stdLibURL (static/pyodide/loader.mjs) and the engine
// as a zip on sys.path (main.py), so CPython compiles neither at boot. build.py runs this
// and caches the result by the hash of its inputs; never edit the zips by hand.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, out, packageDir] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/" });
const STDLIB = "/lib/python314.zip"; // where Pyodide mounts the standard library, in Node and in the browser

let source = STDLIB;
let prefix = STDLIB;
if (packageDir) {
  // copy the package into Pyodide's file system as a zip of sources
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (name === "__pycache__") continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(packageDir);
  const root = resolve(packageDir, "..");
  pyodide.FS.mkdirTree("/tmp/src");
  for (const path of files) {
    const target = "/tmp/src/" + relative(root, path);
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, readFileSync(path));
  }
  pyodide.globals.set("names", files.map((path) => relative(root, path)));
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
const summary = pyodide.runPython(`
import importlib._bootstrap_external as bootstrap
import importlib.util
import sys
import zipfile

compiled = 0
with zipfile.ZipFile(source) as zin, zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
    for info in zin.infolist():
        data = zin.read(info)
        zout.writestr(info.filename, data)
        if info.filename.endswith(".py"):
            try:
                code = compile(data, f"{prefix}/{info.filename}", "exec", dont_inherit=True)
            except SyntaxError:
                continue  # test fixtures with deliberate errors: left as source
            pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            entry = zipfile.ZipInfo(info.filename + "c", info.date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(entry, bytes(pyc))
            compiled += 1
f"{compiled} modules compiled by Python {sys.version.split()[0]} (magic {importlib.util.MAGIC_NUMBER.hex()})"
`);
writeFileSync(out, pyodide.FS.readFile("/tmp/out.zip"));
console.log(summary);
