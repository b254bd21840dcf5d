"""Measure what a user waits for, against a bare Pyodide boot measured in the same run.

    .venv/bin/python bench/page.py [--cold 5] [--warm 10] [--out bench/results.json] [--site DIR]

Builds the site, serves it on 127.0.0.1 (counting the bytes sent), and drives
headless Chromium. Cold loads use a fresh on-disk profile each; warm loads reuse
one profile (HTTP cache and service worker in place). The baseline is a bare page
that only runs `loadPyodide()` from the unmodified npm package. A developer tool,
not a test: these machines are shared and noisy, so read ratios from one run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import build  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update"]
BARE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
LATENCY_CHANGES = 100

# Runs in every page before its own scripts: records paint and readiness times.
PROBE = """
window.__bench = {};
new MutationObserver(() => {
  const b = window.__bench;
  if (document.documentElement.hasAttribute("data-py-ready") && b.py_ready === undefined) {
    b.py_ready = performance.now();
    requestAnimationFrame(() => setTimeout(() => { b.tti = performance.now(); }));
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-py-ready"] });
"""

# The total is in the prerendered HTML, so it is painted with the first contentful paint
# when it is in the first viewport (Element Timing reported nothing for it in this Chromium).
TIMES = """() => {
  const total = document.getElementById("total");
  const box = total ? total.getBoundingClientRect() : null;
  const fcp = (performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime;
  const inView = box !== null && box.bottom <= innerHeight && box.right <= innerWidth && total.dataset.bytes;
  return { ...window.__bench, fcp, total_paint: inView ? fcp : null };
}"""

# 100 changes across controls, each dispatched as the browser does for a user's edit; the
# handler runs synchronously, so the DOM is updated when dispatchEvent returns.
LATENCY = """
(count) => {
  const steps = [
    ["batch", ["2", "3", "4", "8"]], ["seq", ["1024", "4096", "32768", "8192"]],
    ["precision", ["fp16", "int8", "int4", "bf16"]],
    ["model", ["mistral-7b", "llama-3-70b", "qwen2.5-7b", "llama-3-8b"]],
    ["gpu", ["rtx-4090", "a100-80gb", "l4", "h100-80gb"]], ["gpus", ["2", "4", "1", "8"]],
    ["headroom", ["10", "25", "20", "30"]], ["overhead_gib", ["0.5", "2", "1", "1.5"]],
  ];
  const times = [];
  let changed = 0;
  for (let i = 0; i < count; i++) {
    const [id, values] = steps[i % steps.length];
    const element = document.getElementById(id);
    element.value = values[Math.floor(i / steps.length) % values.length];
    const before = document.getElementById("total").dataset.bytes
      + document.getElementById("answer-max_seq").dataset.value
      + document.querySelector("#capacity-16 td").textContent;
    const start = performance.now();
    element.dispatchEvent(new Event("input", { bubbles: true }));
    times.push(performance.now() - start);
    const after = document.getElementById("total").dataset.bytes
      + document.getElementById("answer-max_seq").dataset.value
      + document.querySelector("#capacity-16 td").textContent;
    if (after !== before) changed++;
  }
  return { times, changed };
}
"""

# The same over every mode the page has (inference on each engine, full fine-tuning, LoRA), with
# numbers never typed before (so nothing is remembered from an earlier change), 40 changes each.
LATENCY_ALL = """
(count) => {
  const common = [["batch", ["2", "3", "4", "8"]], ["seq", ["1024", "4096", "32768", "8192"]],
    ["model", ["mistral-7b", "llama-3-70b", "qwen2.5-7b", "llama-3-8b"]],
    ["gpu", ["rtx-4090", "a100-80gb", "l4", "h100-80gb"]], ["gpus", ["2", "4", "1", "8"]],
    ["headroom", ["10", "25", "20", "30"]], ["overhead_gib", ["0.5", "2", "1", "1.5"]]];
  const scenarios = {
    transformers: [{}, [["precision", ["fp16", "int8", "int4", "bf16"]]]],
    vllm: [{runtime: "vllm"}, [["precision", ["fp8", "awq-int4", "bf16", "gptq-int8"]]]],
    llamacpp: [{runtime: "llamacpp", precision: "q4_k_m"}, [["precision", ["q8_0", "q4_k_m", "iq2_xs", "q6_k"]]]],
    training: [{mode: "training", runtime: "transformers", precision: "bf16", seq: "2048"},
               [["optimizer", ["adamw", "sgd", "adamw-8bit", "adafactor"]]]],
    lora: [{mode: "training", lora_rank: "16", seq: "2048"}, [["lora_rank", ["8", "32", "64", "16"]]]],
  };
  const set = (id, value) => {
    let element = document.getElementById(id);
    if (element.type === "radio") {
      element = document.querySelector(`input[name="${id}"][value="${value}"]`);
      element.checked = true;
    } else {
      element.value = value;
    }
    const start = performance.now();
    element.dispatchEvent(new Event("input", { bubbles: true }));
    return performance.now() - start;
  };
  const out = {};
  const engine = {};
  let fresh = 0;
  for (const [name, [setup, extra]] of Object.entries(scenarios)) {
    for (const [id, value] of Object.entries(setup)) set(id, value);
    const steps = [...common, ...extra];
    const times = [];
    for (let i = 0; i < count; i++) {
      const [id, values] = steps[i % steps.length];
      let value = values[Math.floor(i / steps.length) % values.length];
      fresh++;
      if (id === "batch" || id === "seq") value = String(Number(value) + 7 * fresh);
      if (id === "overhead_gib") value = (Number(value) + fresh / 997).toFixed(4);
      times.push(set(id, value));
    }
    out[name] = times;
    engine[name] = window.vramcalcEngineTimes().slice(-count);  // of the same changes: one update each
  }
  return { times: out, engine };
}
"""
# Our page makes a memory snapshot in a worker after a normal start, once it is idle, and
# later loads restore it (static/pyodide/loader.mjs). A warm profile gets one only if its first
# load stays open until it is stored: wait for that (for a build without it, return at once).
SNAPSHOT_MADE = """() => {
  const { boot, snapshot } = document.documentElement.dataset;
  return boot !== "normal" || (snapshot !== undefined && snapshot !== "making");
}"""

BARE_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>bare</title>
<script type="module" src="./boot.js"></script></head><body><p>bare Pyodide</p></body></html>
"""
BARE_JS = """import { loadPyodide } from "./pyodide.mjs";
const pyodide = await loadPyodide();
pyodide.runPython("1 + 1");
document.documentElement.setAttribute("data-py-ready", "1");
"""


class CountingHandler(SimpleHTTPRequestHandler):
    counter = None

    def log_message(self, *args):
        pass

    def copyfile(self, source, outputfile):
        data = source.read()
        try:
            outputfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            return  # the browser closed the page while it was loading; nothing was delivered
        with self.counter["lock"]:
            self.counter["bytes"] += len(data)


def serve(directory: Path, counter: dict) -> ThreadingHTTPServer:
    handler = type("Handler", (CountingHandler,), {"counter": counter})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def load(context, url: str, counter: dict) -> dict:
    counter["bytes"] = 0
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("window.__bench && window.__bench.tti !== undefined", timeout=120_000)
    result = page.evaluate(TIMES)
    result["boot"] = page.evaluate("document.documentElement.dataset.boot || null")
    result["bytes"] = counter["bytes"]
    return {"page": page, **result}


def measure(playwright, url: str, counter: dict, cold: int, warm: int, *, site: bool) -> dict:
    runs = {"cold": [], "warm": []}
    extra: dict = {}
    for _ in range(cold):
        with tempfile.TemporaryDirectory() as profile:
            context = playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                                    headless=True)
            context.add_init_script(PROBE)
            run = load(context, url, counter)
            run.pop("page").close()
            runs["cold"].append(run)
            context.close()
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                                headless=True)
        context.add_init_script(PROBE)
        first = load(context, url, counter)  # fills the caches and installs the service worker
        if site:
            first["page"].evaluate("navigator.serviceWorker.ready")
            first["page"].wait_for_function("navigator.serviceWorker.controller !== null", timeout=120_000)
            first["page"].wait_for_timeout(500)
            extra["first_visit_bytes_with_offline_copy"] = counter["bytes"]
            first["page"].wait_for_function(SNAPSHOT_MADE, timeout=120_000)
            extra["snapshot"] = first["page"].evaluate("document.documentElement.dataset.snapshot || null")
        first.pop("page").close()
        for index in range(warm):
            run = load(context, url, counter)
            page = run.pop("page")
            if site and index == warm - 1:
                latency = page.evaluate(LATENCY, LATENCY_CHANGES)
                extra["input_ms"] = latency["times"]
                extra["input_changed_results"] = latency["changed"]
                every = page.evaluate(LATENCY_ALL, 40)
                extra["input_all_ms"], extra["input_all_engine_ms"] = every["times"], every["engine"]
                extra["engine_ms"] = [page.evaluate("window.vramcalcTimeEngine()") for _ in range(5)]
                extra["bytecode"] = page.evaluate("document.documentElement.dataset.bytecode")
            page.close()
            runs["warm"].append(run)
        context.close()
    return {"runs": runs, **extra}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    values = [v for v in values if v is not None]
    return (min(values), max(values)) if values else (None, None)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


# Brotli at its highest quality, by Node.js's zlib (Node is already needed for the build).
BROTLI = """const zlib = require("zlib"), fs = require("fs");
const q = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 } };
let total = 0;
for (const path of process.argv.slice(1)) total += zlib.brotliCompressSync(fs.readFileSync(path), q).length;
console.log(total);"""


def brotli_size(paths: list[Path]) -> int:
    result = subprocess.run(["node", "-e", BROTLI, *map(str, paths)], capture_output=True, text=True, check=True)
    return int(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.json"))
    parser.add_argument("--site", help="measure this built site (e.g. an older build) instead of building one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        if args.site:
            shutil.copytree(args.site, site)
        else:
            build.build(site)
        bare = Path(folder) / "bare"
        bare.mkdir()
        for name in BARE_FILES:
            shutil.copy2(ROOT / "node_modules" / "pyodide" / name, bare / name)
        (bare / "index.html").write_text(BARE_HTML)
        (bare / "boot.js").write_text(BARE_JS)
        shipped = sorted(p for p in site.rglob("*") if p.is_file())
        sizes = {"raw": sum(p.stat().st_size for p in shipped), "gzip": sum(gzip_size(p) for p in shipped),
                 "brotli": brotli_size(shipped)}
        counters = {name: {"bytes": 0, "lock": threading.Lock()} for name in ("site", "bare")}
        servers = {"site": serve(site, counters["site"]), "bare": serve(bare, counters["bare"])}
        urls = {name: f"http://127.0.0.1:{server.server_address[1]}/index.html" for name, server in servers.items()}
        results = {}
        with sync_playwright() as playwright:
            # interleave the two pages, so drift on a shared machine hits both alike
            for index, name in enumerate(("bare", "site", "bare", "site")):
                first_half = index < 2
                cold = args.cold // 2 if first_half else args.cold - args.cold // 2
                warm = args.warm // 2 if first_half else args.warm - args.warm // 2
                measured = measure(playwright, urls[name], counters[name], cold, warm, site=name == "site")
                if name in results:
                    for kind in ("cold", "warm"):
                        results[name]["runs"][kind] += measured["runs"][kind]
                    results[name].update({k: v for k, v in measured.items() if k != "runs"})
                else:
                    results[name] = measured
        for server in servers.values():
            server.shutdown()
    report = summarise(results, sizes)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print_table(report)
    print(f"\nwritten: {args.out}")


def summarise(results: dict, sizes: dict) -> dict:
    def stats(name, kind, key):
        values = [run.get(key) for run in results[name]["runs"][kind]]
        low, high = spread(values)
        return {"median": median(values), "min": low, "max": high, "n": len(values)}

    summary: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.node()}: {platform.machine()}, {subprocess.getoutput('nproc')} cores, "
        f"{platform.system()} {platform.release()}, "
        + subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
        "shipped_bytes": sizes,
    }
    for name in ("bare", "site"):
        for kind in ("cold", "warm"):
            keys = ("fcp", "total_paint", "py_ready", "tti", "bytes")
            summary[f"{name}_{kind}"] = {key: stats(name, kind, key) for key in keys}
    site = results["site"]
    summary["input_ms"] = {"median": median(site["input_ms"]), "p95": percentile(site["input_ms"], 0.95),
                           "max": max(site["input_ms"]), "n": len(site["input_ms"]),
                           "changes_that_changed_results": site["input_changed_results"]}
    every = {name: times for name, times in site["input_all_ms"].items()}
    every["all"] = [t for times in site["input_all_ms"].values() for t in times]
    summary["input_all_ms"] = {name: {"median": median(times), "p95": percentile(times, 0.95), "max": max(times),
                                      "n": len(times)} for name, times in every.items()}
    engine = {**site["input_all_engine_ms"], "all": [t for ts in site["input_all_engine_ms"].values() for t in ts]}
    for name, times in engine.items():
        summary["input_all_ms"][name]["engine_median"] = median(times)
    summary["engine_ms"] = {"median": median(site["engine_ms"]), "runs": site["engine_ms"]}
    summary["bytecode"] = site["bytecode"]
    summary["first_visit_bytes_with_offline_copy"] = site["first_visit_bytes_with_offline_copy"]
    summary["snapshot"] = site.get("snapshot")
    for kind in ("cold", "warm"):  # how each load of our page started: "snapshot", "normal" (or None: an older build)
        boots = [run.get("boot") for run in site["runs"][kind]]
        summary[f"site_{kind}_boots"] = {str(boot): boots.count(boot) for boot in set(boots)}
    for kind in ("cold", "warm"):
        site, bare = summary[f"site_{kind}"]["tti"]["median"], summary[f"bare_{kind}"]["tti"]["median"]
        summary[f"tti_ratio_{kind}"] = site / bare
    return summary


def print_table(report: dict) -> None:
    print(f"{report['date']} · {report['machine']}")
    print(f"{'':26}{'bare cold':>11}{'site cold':>11}{'bare warm':>11}{'site warm':>11}")
    for key, label in (("fcp", "first contentful paint ms"), ("total_paint", "total painted ms"),
                       ("py_ready", "py:ready ms"), ("tti", "time to interactive ms"), ("bytes", "bytes transferred")):
        cells = []
        for name in ("bare_cold", "site_cold", "bare_warm", "site_warm"):
            value = report[name][key]["median"]
            cells.append("–" if value is None else f"{value:,.0f}")
        print(f"{label:26}" + "".join(f"{c:>11}" for c in cells))
    print(f"TTI ratio site/bare: cold {report['tti_ratio_cold']:.2f}x, warm {report['tti_ratio_warm']:.2f}x")
    print(f"our page's starts: cold {report['site_cold_boots']}, warm {report['site_warm_boots']}; "
          f"snapshot after the warm profile's first load: {report['snapshot']}")
    i = report["input_ms"]
    print(f"input → DOM: median {i['median']:.1f} ms, p95 {i['p95']:.1f} ms, max {i['max']:.1f} ms"
          f" over {i['n']} changes")
    for name, i in report["input_all_ms"].items():
        print(f"  fresh values, {name}: median {i['median']:.1f} ms (engine {i['engine_median']:.1f}), "
              f"p95 {i['p95']:.1f} ms, max {i['max']:.1f} ms over {i['n']}")
    print(f"engine (presets × GPUs + 200-point sweep): median {report['engine_ms']['median']:.1f} ms")
    s = report["shipped_bytes"]
    print(f"first visit until the offline copy is complete: {report['first_visit_bytes_with_offline_copy']:,} B")
    print(f"shipped: {s['raw']:,} B raw, {s['gzip']:,} B gzip, {s['brotli']:,} B brotli;"
          f" precompiled: {report['bytecode']}")


if __name__ == "__main__":
    main()
