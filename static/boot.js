// Shows how far Python's start has come, from the files the browser has finished
// loading: the runtime, then the interpreter's standard library, then the engine, then
// main.py. The sentences are prerendered from the message catalogue into data-step-N.
// main.py replaces the status when the form is live (html[data-py-ready]).
import { whenPythonIsReady } from "./ready.mjs";

const status = document.getElementById("status");
const progress = document.getElementById("boot-progress");
const STEPS = { "pyodide.mjs": 1, "pyodide.asm.wasm": 2, "vramcalc.zip.gz": 3, "main.py": 4 };
let reached = 0;

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
  }
}).observe({ type: "resource", buffered: true });

whenPythonIsReady().then(() => { progress.hidden = true; });
