// Measures the Pyodide memory snapshot under Node.js, with the built site's own files:
// how long a normal start and a restore take, and how fast the same Python runs after each.
//
//   node tools/snapshot_probe.mjs SITE_DIR [RUNS]        (SITE_DIR: a `python build.py` output)
//
// Each start runs in its own Node.js process (V8 shares compiled wasm code between instances
// of one process, which would flatter whichever runs second). The snapshot is made as the
// page's worker would make it: the pinned Pyodide, the precompiled standard library, the
// engine zip on sys.path and main.py's imports. A private API of Pyodide 314.0.7
// (_makeSnapshot, makeMemorySnapshot, _loadSnapshot): see docs/performance.md.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [site, third, snapshotPath] = process.argv.slice(2);
const PYODIDE = resolve(fileURLToPath(import.meta.url), "../../node_modules/pyodide") + "/";
const STDLIB = resolve(site, "static/pyodide/python_stdlib_pyc.zip");
const IMPORTS = `
import ast, sys
sys.path.insert(0, "/home/pyodide/vramcalc.zip")
for node in ast.parse(MAIN).body:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        modules = [node.module] if isinstance(node, ast.ImportFrom) else [alias.name for alias in node.names]
        if not any(name.split(".")[0] == "pyscript" for name in modules):
            exec(compile(ast.Module([node], []), "main.py", "exec"), {})
`;
// What runs after the start, timed step by step: compiling main.py (PyScript compiles it at
// every start), a first and a second estimate, and plain Python calls, three times each.
const WORK = [
  ["compile main.py", "compile(MAIN, 'main.py', 'exec')"],
  ["20 estimates", "from vramcalc import DEFAULTS, estimate, parse_workload\nfor _ in range(20): estimate(parse_workload(DEFAULTS))"],
  ["200k calls", "def f(x): return x + 1\nfor i in range(200_000): f(i)"],
];

async function start(mode) {
  const { loadPyodide } = await import(pathToFileURL(PYODIDE + "pyodide.mjs").href);
  const began = performance.now();
  const options = { indexURL: PYODIDE, stdLibURL: STDLIB };
  if (mode === "make") options._makeSnapshot = true;
  if (mode === "restore") options._loadSnapshot = readFileSync(snapshotPath);
  const pyodide = await loadPyodide(options);
  const booted = performance.now() - began;
  pyodide.FS.writeFile("/home/pyodide/vramcalc.zip", readFileSync(join(site, "vramcalc.zip")));
  pyodide.globals.set("MAIN", readFileSync(join(site, "main.py"), "utf8"));
  const importsStarted = performance.now();
  if (mode !== "restore") pyodide.runPython(IMPORTS);
  const result = { mode, start_ms: Math.round(booted), imports_ms: Math.round(performance.now() - importsStarted) };
  if (mode === "make") {
    const made = performance.now();
    writeFileSync(snapshotPath, pyodide.makeMemorySnapshot());
    result.snapshot_ms = Math.round(performance.now() - made);
    result.snapshot_bytes = readFileSync(snapshotPath).length;
    return result;
  }
  for (const [name, code] of WORK) {
    result[name] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      pyodide.runPython(code);
      result[name].push(Math.round(performance.now() - t));
    }
  }
  return result;
}

if (["make", "normal", "restore"].includes(third)) {
  console.log(JSON.stringify(await start(third)));
} else {
  const runs = Number(third || 3);
  const snapshot = join(mkdtempSync(join(tmpdir(), "snapshot-")), "snapshot.bin");
  const run = (mode) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), site, mode, snapshot]));
  console.log(run("make"));
  for (let i = 0; i < runs; i++) for (const mode of ["normal", "restore"]) console.log(run(mode));
}
