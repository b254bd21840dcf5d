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

// The zip travels gzipped, as python_stdlib_pyc.zip.gz: its modules are stored, not deflated
// one by one, so that gzip compresses across them, whether or not the host compresses .zip
// (docs/performance.md, "Bytes under 5 MB gzip"). Pyodide fetches stdLibURL itself, in
// parallel with the wasm; while it boots, that one request gets the inflated zip.
async function inflated(response) {
  const packed = await response;
  if (!packed.ok) return packed;
  const bytes = new Uint8Array(await packed.arrayBuffer());
  // a host that sends .gz with Content-Encoding: gzip has had the browser inflate it already
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return new Response(bytes);
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")));
}

export async function loadPyodide(options = {}) {
  const fetch = globalThis.fetch;
  globalThis.fetch = (input, init) => (String(input) === STDLIB ? inflated(fetch(`${STDLIB}.gz`)) : fetch(input, init));
  const pyodide = await load({ ...options, stdLibURL: STDLIB }).finally(() => { globalThis.fetch = fetch; });
  pyodide.runPython("import sys; sys.path.insert(0, f'/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/pyscript-core')");
  return pyodide;
}
