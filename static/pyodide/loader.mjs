// PyScript's `interpreter` (pyscript.toml) points here instead of at pyodide.mjs.
// PyScript 0.7.31 imports this module, takes {loadPyodide, version} from it and calls
// loadPyodide with its own options; we add one public option, stdLibURL, so Pyodide
// 314.0.7 boots from the standard library build.py precompiled with this very Pyodide
// (tools/precompile.mjs) instead of compiling it from source at every start. That zip
// also holds PyScript's own `pyscript` package, precompiled, under pyscript-core/, which
// goes ahead of the sources PyScript writes into the working directory at every start.
// Pinned with package.json; tests/test_page.py fails if a bump breaks it.
//
// Warm loads restore a memory snapshot instead of booting (private Pyodide API, tested in
// tests/test_snapshot.py): CPython already initialised, the engine already imported.
// No snapshot is shipped: after a normal boot, once the page is interactive, its service
// worker active and the browser idle, snapshot-worker.mjs boots the same Pyodide in a Web
// Worker, does what a start does before main.py runs, imports what main.py imports, and
// stores the heap in IndexedDB under this build's key (not in Cache Storage, which is the
// service worker's copy of the site). Any trouble means a normal boot.
// <html data-boot> says which start the page had ("snapshot" or "normal"), <html
// data-snapshot> what became of making one ("making", "stored", "failed: ...").
//
// Starting loadPyodide earlier, from index.html's <head>, while PyScript's own scripts
// load, was measured and made cold starts slower (docs/performance.md): PyScript calls it.
import { loadPyodide as load, version } from "./pyodide.mjs";
import { whenPythonIsReady } from "../ready.mjs";

export { version };

export const STDLIB = new URL("./python_stdlib_pyc.zip", import.meta.url).href;
// A hash of everything the snapshot's state comes from (Pyodide, both zips, main.py, this
// file and the worker), written by build.py. A snapshot is only ever restored by the build
// that made it: the heap holds the zips' directories and code from them.
export const SNAPSHOT_KEY = "unbuilt";

// The Python a start runs before PyScript's: the precompiled `pyscript` package first on
// sys.path. Idempotent, and it drops repeated entries: a restore adds "" (the working
// directory, where PyScript writes the package as source) in front again.
export function prepare(pyodide) {
  pyodide.runPython(`import sys
sys.path[:] = dict.fromkeys([f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/pyscript-core", *sys.path])`);
}

// The zip travels gzipped, as python_stdlib_pyc.zip.gz: its modules are stored, not deflated
// one by one, so that gzip compresses across them, whether or not the host compresses .zip
// (docs/performance.md, "Bytes under 5 MB gzip"). Pyodide fetches stdLibURL itself, in
// parallel with the wasm; while it boots, that one request gets the inflated zip.
export async function inflated(response) {
  const packed = await response;
  if (!packed.ok) return packed;
  const bytes = new Uint8Array(await packed.arrayBuffer());
  // a host that sends .gz with Content-Encoding: gzip has had the browser inflate it already
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return new Response(bytes);
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")));
}

// Pyodide's loadPyodide (`load`) with the precompiled standard library; the page and the snapshot
// worker both boot through here.
export async function boot(load, options) {
  const fetch = globalThis.fetch;
  globalThis.fetch = (input, init) => (String(input) === STDLIB ? inflated(fetch(`${STDLIB}.gz`)) : fetch(input, init));
  return load({ ...options, stdLibURL: STDLIB }).finally(() => { globalThis.fetch = fetch; });
}

export async function loadPyodide(options = {}) {
  const root = document.documentElement;
  const stored = await snapshotStore("readonly", (store) => store.get(SNAPSHOT_KEY)).catch(() => null);
  if (stored?.status === "stored") {
    try {
      const pyodide = await boot(load, { ...options, _loadSnapshot: stored.blob.arrayBuffer() });
      prepare(pyodide);
      // The marker the worker left; then a new seed, or every restore would draw the same
      // numbers (the generator's state is in the heap).
      pyodide.runPython(`import sys
if sys._vramcalc_snapshot != ${JSON.stringify(SNAPSHOT_KEY)}: raise RuntimeError("not this build's snapshot")
if "random" in sys.modules: sys.modules["random"].seed()`);
      root.dataset.boot = "snapshot";
      return pyodide;
    } catch (error) {
      // Corrupt, from another Pyodide, or too large to restore (pyodide#6254): never try it
      // again in this build. A marker replaces the bytes so that no new one is made either.
      console.warn("Pyodide snapshot not restored, booting normally:", error);
      await storeSnapshot({ status: "failed" }).catch(() => {});
    }
  }
  const pyodide = await boot(load, options);
  prepare(pyodide);
  root.dataset.boot = "normal";
  if (stored === undefined) makeSnapshotWhenIdle(); // none yet (null: no IndexedDB here)
  return pyodide;
}

// One record per origin, this build's: {status: "stored", blob} or {status: "failed"}.
export function storeSnapshot(record) {
  return snapshotStore("readwrite", (store) => {
    store.clear(); // other builds' snapshots
    return store.put(record, SNAPSHOT_KEY);
  });
}

function snapshotStore(mode, use) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("pyodide-snapshot", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("snapshots");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const transaction = db.transaction("snapshots", mode);
      const request = use(transaction.objectStore("snapshots"));
      transaction.oncomplete = () => {
        db.close();
        resolve(request.result);
      };
      transaction.onerror = transaction.onabort = () => {
        db.close();
        reject(transaction.error);
      };
    };
  });
}

// Only once the page is interactive and its service worker active (which also keeps the
// worker's downloads from competing with the first start and the offline copy), and the
// browser idle: making one takes a core for a few seconds. Without a service worker (tests
// block it, some private modes) no snapshot is made.
async function makeSnapshotWhenIdle() {
  const root = document.documentElement;
  await whenPythonIsReady();
  if (!("serviceWorker" in navigator)) return;
  await navigator.serviceWorker.ready;
  await new Promise((resolve) => ("requestIdleCallback" in self ? requestIdleCallback(resolve, { timeout: 10_000 }) : setTimeout(resolve, 1000)));
  root.dataset.snapshot = "making";
  const worker = new Worker(new URL("./snapshot-worker.mjs", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    root.dataset.snapshot = data.status;
    console.info("Pyodide snapshot:", data);
    worker.terminate();
  };
  worker.onerror = (event) => {
    root.dataset.snapshot = `failed: ${event.message}`;
    worker.terminate();
  };
}
