// PyScript's `interpreter` (pyscript.toml) points here instead of at pyodide.mjs.
// PyScript 0.7.31 imports this module, takes {loadPyodide, version} from it and calls
// loadPyodide with {indexURL, stdout, stderr}. We do two things it cannot:
//
// - Boot from the standard library build.py precompiled with this very Pyodide
//   (tools/precompile.mjs, the public option stdLibURL), so CPython compiles none of it,
//   nor PyScript's `pyscript` package, which that zip holds under pyscript-core/.
// - Start at once: index.html loads this module in its <head>, so Pyodide downloads,
//   compiles and starts while PyScript's own scripts, its config and its plugins load;
//   PyScript's later call gets the interpreter already on its way. Its stdout and stderr
//   are only known then, so output goes through the two functions below.
//
// Pinned with package.json; tests/test_page.py fails if a bump breaks it.
import { loadPyodide as load, version } from "./pyodide.mjs";

export { version };

export const STDLIB = new URL("./python_stdlib_pyc.zip", import.meta.url).href;

let io = { stdout: (text) => console.log(text), stderr: (text) => console.error(text) };

const started = load({
  indexURL: new URL("./", import.meta.url).href,
  stdLibURL: STDLIB,
  stdout: (text) => io.stdout(text),
  stderr: (text) => io.stderr(text),
}).then((pyodide) => {
  // PyScript's own `pyscript` package, precompiled into the standard library zip, found
  // ahead of the sources PyScript writes into the working directory at every start.
  pyodide.runPython("import sys; sys.path.insert(0, f'/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/pyscript-core')");
  return pyodide;
});

export function loadPyodide({ indexURL, stdout, stderr, ...rest } = {}) {
  // PyScript passes packages and lock files only for a config with `packages`, which this
  // page has not; fail loudly rather than boot without them.
  if (Object.keys(rest).length) throw new Error(`loader.mjs: unexpected options ${Object.keys(rest)}`);
  io = { stdout: stdout ?? io.stdout, stderr: stderr ?? io.stderr };
  return started;
}
