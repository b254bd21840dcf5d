// PyScript's `interpreter` (pyscript.toml) points here instead of at pyodide.mjs.
// PyScript 0.7.31 imports this module, takes {loadPyodide, version} from it and calls
// loadPyodide with its own options; we add one public option, stdLibURL, so Pyodide
// 314.0.7 boots from the standard library build.py precompiled with this very Pyodide
// (tools/precompile.mjs) instead of compiling it from source at every start. That zip
// also holds PyScript's own `pyscript` package, precompiled, under pyscript-core/, which
// goes ahead of the sources PyScript writes into the working directory at every start.
// Pinned with package.json; tests/test_page.py fails if a bump breaks it.
//
// Starting loadPyodide earlier, from index.html's <head>, while PyScript's own scripts
// load, was measured and made cold starts slower (docs/performance.md): PyScript calls it.
import { loadPyodide as load, version } from "./pyodide.mjs";

export { version };

export const STDLIB = new URL("./python_stdlib_pyc.zip", import.meta.url).href;

export async function loadPyodide(options = {}) {
  const pyodide = await load({ ...options, stdLibURL: STDLIB });
  pyodide.runPython("import sys; sys.path.insert(0, f'/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/pyscript-core')");
  return pyodide;
}
