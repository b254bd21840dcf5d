// PyScript's `interpreter` (pyscript.toml) points here instead of at pyodide.mjs.
// PyScript 0.7.31 imports this module, takes {loadPyodide, version} from it and calls
// loadPyodide with its own options; we add one public option, stdLibURL, so Pyodide
// 314.0.7 boots from the standard library build.py precompiled with this very Pyodide
// (tools/precompile_stdlib.mjs) instead of compiling it from source at every start.
// Pinned with package.json; tests/test_page.py fails if a bump breaks it.
import { loadPyodide as load, version } from "./pyodide.mjs";

export { version };

export const STDLIB = new URL("./python_stdlib_pyc.zip", import.meta.url).href;

export function loadPyodide(options = {}) {
  return load({ ...options, stdLibURL: STDLIB });
}
