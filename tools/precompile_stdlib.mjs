// Precompile Pyodide's standard library with the very interpreter that will run it.
//
//   node tools/precompile_stdlib.mjs node_modules/pyodide OUT.zip
//
// Boots the pinned Pyodide under Node.js, and for every .py in its python_stdlib.zip
// writes an unchecked hash-based .pyc beside it (the magic number is that CPython's),
// keeping the .py so tracebacks still show source lines. The page passes the result to
// loadPyodide as stdLibURL (static/pyodide/loader.mjs), so CPython does not compile its
// standard library at every boot. build.py runs this; never edit the zip by hand.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/" });
const summary = pyodide.runPython(`
import importlib._bootstrap_external as bootstrap
import importlib.util
import sys
import zipfile

STDLIB = "/lib/python314.zip"  # where Pyodide mounts the standard library, in Node and in the browser
assert STDLIB in sys.path, sys.path
compiled = 0
with zipfile.ZipFile(STDLIB) as source, zipfile.ZipFile("/tmp/stdlib.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
    for info in source.infolist():
        data = source.read(info)
        target.writestr(info.filename, data)
        if info.filename.endswith(".py"):
            try:
                code = compile(data, f"{STDLIB}/{info.filename}", "exec", dont_inherit=True)
            except SyntaxError:
                continue  # test fixtures with deliberate errors: left as source
            pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            entry = zipfile.ZipInfo(info.filename + "c", info.date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(entry, bytes(pyc))
            compiled += 1
f"{compiled} modules compiled by Python {sys.version.split()[0]} (magic {importlib.util.MAGIC_NUMBER.hex()})"
`);
writeFileSync(out, pyodide.FS.readFile("/tmp/stdlib.zip"));
console.log(summary);
