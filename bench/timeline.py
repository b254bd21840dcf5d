"""Where a start of our page goes: resource timing and marks, cold and warm.

    .venv/bin/python bench/timeline.py [--cold 3] [--warm 5] [--site DIR]

Builds the site (or takes a built one), copies it and instruments the copy only:
loader.mjs marks when PyScript calls loadPyodide and when it resolves, and main.py
marks its first line, the end of its imports and its end. Prints, per resource and
mark, the median start and end in ms from navigation start. A developer tool, like
bench/page.py; the shipped files are not changed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import build  # noqa: E402
from page import ARGS, CHROMIUM, PROBE, SNAPSHOT_MADE, serve  # noqa: E402

EVENTS = """
for (const name of ["py:ready", "py:done"]) {
  addEventListener(name, () => performance.mark(name), true);
}
"""

COLLECT = """() => {
  const rows = [];
  for (const e of performance.getEntriesByType("resource")) {
    rows.push([e.name.split("/").pop(), e.startTime, e.responseEnd, e.transferSize]);
  }
  for (const m of performance.getEntriesByType("mark")) rows.push(["mark " + m.name, m.startTime, m.startTime, 0]);
  rows.push(["data-py-ready", window.__bench.py_ready, window.__bench.py_ready, 0]);
  rows.push(["tti", window.__bench.tti, window.__bench.tti, 0]);
  rows.push(["boot " + (document.documentElement.dataset.boot || "unmarked"), 0, 0, 0]);
  return rows;
}"""

MAIN_MARK = "import js as _js; _js.performance.mark({!r}); del _js\n"


def instrument(site: Path) -> None:
    loader = site / "static" / "pyodide" / "loader.mjs"
    text = loader.read_text()
    if "const started = " in text:  # started at module evaluation, handed to PyScript's call
        text = text.replace("  return started;", "  performance.mark('loadPyodide:call');\n  return started;")
        text += "\nperformance.mark('loadPyodide:start');\nstarted.then(() => performance.mark('loadPyodide:done'));\n"
    else:  # started by PyScript's call: wrap the exported function, whatever it does inside
        text, count = re.subn(r"export async function loadPyodide\(", "async function loadPyodideUnmarked(", text)
        assert count == 1, "loader.mjs changed: update bench/timeline.py"
        text += ("\nexport async function loadPyodide(options) {\n  performance.mark('loadPyodide:call');\n"
                 "  const pyodide = await loadPyodideUnmarked(options);\n  performance.mark('loadPyodide:done');\n"
                 "  return pyodide;\n}\n")
    loader.write_text(text)
    main = site / "main.py"
    lines = main.read_text().splitlines(keepends=True)
    out, seen_import, marked_imports = [], False, False
    for line in lines:
        if not seen_import and line.startswith(("import ", "from ")):
            out.append(MAIN_MARK.format("main:start"))
            seen_import = True
        if seen_import and not marked_imports and line.startswith("INPUT_AREAS"):
            out.append(MAIN_MARK.format("main:imported"))
            marked_imports = True
        out.append(line)
    out.append(MAIN_MARK.format("main:end"))
    main.write_text("".join(out))
    # the service worker refuses files whose hash is not the build's: hash the instrumented copy
    (site / build.SERVICE_WORKER).unlink(missing_ok=True)
    build.write_service_worker(build.environment(), site)


def one(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("window.__bench && window.__bench.tti !== undefined", timeout=120_000)
    rows = page.evaluate(COLLECT)
    return page, rows


def launch(playwright, profile):
    context = playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS, headless=True)
    context.add_init_script(PROBE + EVENTS)
    return context


def run(playwright, urls, cold, warm):
    """Load by load, the sites take turns (cold: a fresh profile each; warm: one profile per
    site, all open, reloaded in turn), so that a shared machine's drift hits them alike."""
    runs = [{"cold": [], "warm": []} for _ in urls]
    # Every other round in the opposite order: a load right after another browser's runs beside that
    # browser's background work (the same build read 2.8-4.0 s second in a round, 1.8 s first: docs/performance.md).
    def order(round_):
        pairs = list(enumerate(urls))
        return pairs if round_ % 2 == 0 else pairs[::-1]
    for round_ in range(cold):
        for index, url in order(round_):
            with tempfile.TemporaryDirectory() as profile:
                context = launch(playwright, profile)
                page, rows = one(context, url)
                runs[index]["cold"].append(rows)
                context.close()
    with tempfile.TemporaryDirectory() as folder:
        contexts = []
        for index, url in enumerate(urls):
            context = launch(playwright, f"{folder}/{index}")
            page, _ = one(context, url)  # fills the caches and installs the service worker
            page.evaluate("navigator.serviceWorker.ready")
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=120_000)
            page.wait_for_timeout(500)
            page.wait_for_function(SNAPSHOT_MADE, timeout=120_000)  # later loads restore it
            page.close()
            contexts.append(context)
        for round_ in range(warm):
            for index, url in order(round_):
                page, rows = one(contexts[index], url)
                page.close()
                runs[index]["warm"].append(rows)
        for context in contexts:
            context.close()
    return runs


def table(runs):
    names = []
    for rows in runs:
        for row in rows:
            if row[0] not in names:
                names.append(row[0])
    result = []
    for name in names:
        starts = [r[1] for rows in runs for r in rows if r[0] == name and r[1] is not None]
        ends = [r[2] for rows in runs for r in rows if r[0] == name and r[2] is not None]
        if starts:
            result.append((name, statistics.median(starts), statistics.median(ends)))
    return sorted(result, key=lambda row: row[2])


# (label, start, end): a start of None is navigation start; "a|b" is the later of the two marks.
PHASES = (
    ("PyScript until it calls loadPyodide", None, "mark loadPyodide:call"),
    ("Pyodide boot", "mark loadPyodide:start|mark loadPyodide:call", "mark loadPyodide:done"),
    ("loadPyodide done (and called) to main.py's first line",
     "mark loadPyodide:done|mark loadPyodide:call", "mark main:start"),
    ("main.py imports", "mark main:start", "mark main:imported"),
    ("main.py after its imports", "mark main:imported", "mark main:end"),
    ("TTI", None, "tti"),
)


def phases(runs):
    """Each phase per load, then the median over loads."""
    out = []
    for label, start, end in PHASES:
        values = []
        for rows in runs:
            times = {row[0]: row[2] for row in rows}
            if start is None:
                begin = 0
            elif "|" in start and label.startswith("loadPyodide done"):
                begin = max(times[name] for name in start.split("|") if name in times)
            else:
                begin = next(times[name] for name in start.split("|") if name in times)
            values.append(times[end] - begin)
        out.append((label, statistics.median(values)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", type=int, default=3)
    parser.add_argument("--warm", type=int, default=5)
    parser.add_argument("--site", action="append", help="a built site to copy (default: build one); "
                        "give several to compare them, interleaved in one run")
    parser.add_argument("--full", action="store_true", help="every resource, not only the marks")
    args = parser.parse_args()
    sources = args.site or [None]
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        urls, servers = [], []
        for index, source in enumerate(sources):
            site = Path(folder) / f"site{index}"
            if source:
                shutil.copytree(source, site)
            else:
                build.build(site)
            instrument(site)
            server = serve(site, {"bytes": 0, "lock": threading.Lock()})
            servers.append(server)
            urls.append(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        results = dict(enumerate(run(playwright, urls, args.cold, args.warm)))
        for server in servers:
            server.shutdown()
    for index, source in enumerate(sources):
        for kind in ("cold", "warm"):
            count = len(results[index][kind])
            print(f"\n{source or 'this tree'}: {kind} ({count} loads), ms from navigation start, medians")
            print(f"{'what':40}{'start':>8}{'end':>8}")
            boots = [row[0] for rows in results[index][kind] for row in rows if row[0].startswith("boot ")]
            print("starts: " + ", ".join(f"{name[5:]} {boots.count(name)}" for name in sorted(set(boots))))
            for name, start, end in table(results[index][kind]):
                if not name.startswith("boot ") and (args.full or not name.endswith((".js", ".css", ".svg"))):
                    print(f"{name[:40]:40}{start:8.0f}{end:8.0f}")
        print("phases (medians of per-load differences, ms):")
        for kind in ("cold", "warm"):
            print(f"  {kind}: " + ", ".join(f"{label} {value:.0f}" for label, value in phases(results[index][kind])))


if __name__ == "__main__":
    main()
