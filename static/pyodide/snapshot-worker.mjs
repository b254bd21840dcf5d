// Makes the memory snapshot loader.mjs restores on later loads; started by loader.mjs in a
// module Web Worker after a normal start, when the page is idle. It boots the same Pyodide
// with the same standard library, brings Python to the state the page's start reaches just
// before main.py's own code runs, and stores the heap (raw: restoring is then one copy) in
// IndexedDB under this build's key, dropping other builds' snapshots. Replies with
// {status, bytes, ms}.
//
// What the snapshot may hold, and what it may not: the file system is not in it, so the
// page still writes vramcalc.zip (main.py inflates the vramcalc.zip.gz of [files] in
// pyscript.toml) to the same path, with the same bytes (the key covers them), before main.py
// imports anything from it. PyScript's own
// `pyscript` package is not imported here: it needs the JS modules PyScript registers in the page.
import { loadPyodide } from "./pyodide.mjs";
import { SNAPSHOT_KEY, boot, inflated, prepare, storeSnapshot } from "./loader.mjs";

const SITE = new URL("../../", import.meta.url); // build.py: static/pyodide/ sits two folders below main.py
const HOME = "/home/pyodide"; // Pyodide's working directory, where PyScript writes [files]

// Runs main.py's top-level imports, as main.py would, except PyScript's.
const IMPORTS = `
import ast, sys
sys.path.insert(0, ${JSON.stringify(`${HOME}/vramcalc.zip`)})  # as main.py does, and will again
for node in ast.parse(MAIN).body:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        modules = [node.module] if isinstance(node, ast.ImportFrom) else [alias.name for alias in node.names]
        if not any(name.split(".")[0] == "pyscript" for name in modules):
            exec(compile(ast.Module([node], []), "main.py", "exec"), {})
sys.path.pop(0)  # sys.path as a normal start leaves it (the module cache keeps the zip's importer)
sys._vramcalc_snapshot = ${JSON.stringify(SNAPSHOT_KEY)}  # loader.mjs checks it after a restore
del ast, node, modules, MAIN
`;

async function make() {
  const started = performance.now();
  const [engine, main] = await Promise.all([
    inflated(fetch(new URL("vramcalc.zip.gz", SITE))).then((r) => r.arrayBuffer()),  // main.py inflates it too
    fetch(new URL("main.py", SITE)).then((r) => r.text()),
  ]);
  // indexURL as PyScript passes it: the folder of the interpreter module.
  const pyodide = await boot(loadPyodide, { indexURL: new URL(".", import.meta.url).href, _makeSnapshot: true });
  const heap = pyodide._module.HEAP8.length;
  prepare(pyodide);
  pyodide.FS.writeFile(`${HOME}/vramcalc.zip`, new Uint8Array(engine));
  pyodide.globals.set("MAIN", main);
  pyodide.runPython(IMPORTS);
  // Pyodide 314.0.7 restores into a heap of the size it was built with (pyodide#6254): a
  // state that grew past it cannot be restored, so it is not stored.
  if (pyodide._module.HEAP8.length > heap) throw new Error(`the heap grew to ${pyodide._module.HEAP8.length} B`);
  const snapshot = pyodide.makeMemorySnapshot();
  await storeSnapshot({ status: "stored", blob: new Blob([snapshot]) });
  return { status: "stored", bytes: snapshot.length, ms: Math.round(performance.now() - started) };
}

// A failure here would fail again at every visit: a marker stops retries until the next build.
make().then(postMessage, async (error) => {
  await storeSnapshot({ status: "failed" }).catch(() => {});
  postMessage({ status: `failed: ${error}` });
});
