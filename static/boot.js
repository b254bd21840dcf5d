// Shows how far Python's start has come, from the files the browser has finished
// loading: the runtime, then the interpreter's standard library, then the engine, then
// main.py. The sentences are prerendered from the message catalogue into data-step-N.
// main.py replaces the status when the form is live (html[data-py-ready]).
import { whenPythonIsReady } from "./ready.mjs";

const status = document.getElementById("status");
const progress = document.getElementById("boot-progress");
const STEPS = { "pyodide.mjs": 1, "pyodide.asm.wasm": 2, "vramcalc.zip.gz": 3, "main.py": 4 };
let reached = 0;
// The bytes so far, of the files build.py counted (BOOT_FILES), each counted once when it has arrived.
const bytes = document.getElementById("boot-bytes");
const total = Number(bytes?.getAttribute("data-boot-bytes") || 0);
const BOOT = ["/static/pyodide/", "/static/pyscript/", "/vramcalc.zip.gz", "/main.py"];
const counted = new Set();
let loaded = 0;
const megabytes = new Intl.NumberFormat(document.documentElement.lang || "en",
  { minimumFractionDigits: 1, maximumFractionDigits: 1 });

function count(entry) {
  const path = new URL(entry.name).pathname;
  if (!bytes || !total || counted.has(path) || !BOOT.some((part) => path.includes(part))) return;
  counted.add(path);
  loaded = Math.min(total, loaded + (entry.decodedBodySize || entry.encodedBodySize || 0));
  bytes.textContent = bytes.getAttribute("data-text")
    .replace("{loaded}", megabytes.format(loaded / 1e6)).replace("{total}", megabytes.format(total / 1e6));
}

function show(step) {
  if (step <= reached || document.documentElement.hasAttribute("data-py-ready")) return;
  reached = step;
  status.textContent = status.getAttribute(`data-step-${step}`);
  progress.value = step;
}

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const step = STEPS[entry.name.split("/").pop()];
    if (step) show(step);
    count(entry);
  }
}).observe({ type: "resource", buffered: true });

whenPythonIsReady().then(() => {
  progress.hidden = true;
  if (bytes) bytes.hidden = true;
});
