"""The memory snapshot made in the browser (static/pyodide/loader.mjs, snapshot-worker.mjs):
after a normal start the page makes one in a worker, later loads restore it and must behave
exactly like a normal start; a bad one must give a normal start and never be tried again.

Each test has its own browser context (its own IndexedDB and service worker). Nothing here
waits for a time: the page says how it started (<html data-boot>) and what became of the
snapshot (<html data-snapshot>), and the tests wait for those."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from vramcalc import estimate, parse_workload

pytestmark = pytest.mark.browser
QUERY = "?model=mistral-7b&batch=2"
VALUES = {"model": "mistral-7b", "batch": "2"}

# Runs in the page: reads or rewrites the stored snapshot records ({key: {status, blob}}).
RECORDS = """async ([change, otherKey]) => {
  const { SNAPSHOT_KEY } = await import("./static/pyodide/loader.mjs");
  const db = await new Promise((resolve, reject) => {
    const open = indexedDB.open("pyodide-snapshot", 1);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const run = (mode, use) => new Promise((resolve, reject) => {
    const transaction = db.transaction("snapshots", mode);
    const request = use(transaction.objectStore("snapshots"));
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error);
  });
  const record = await run("readonly", (store) => store.get(SNAPSHOT_KEY));
  if (change === "garbage") {
    await run("readwrite",
              (store) => store.put({ status: "stored", blob: new Blob([new Uint8Array(4096).fill(7)]) }, SNAPSHOT_KEY));
  } else if (change === "other pyodide") {  // the same heap, stamped with another Pyodide build id
    const bytes = new Uint8Array(await record.blob.arrayBuffer());
    bytes[16] ^= 0xff;
    await run("readwrite", (store) => store.put({ status: "stored", blob: new Blob([bytes]) }, SNAPSHOT_KEY));
  } else if (change === "other build") {  // a good snapshot, but stored by another build of the site
    await run("readwrite", (store) => { store.delete(SNAPSHOT_KEY); return store.put(record, otherKey); });
  }
  const keys = await run("readonly", (store) => store.getAllKeys());
  const statuses = await run("readonly", (store) => store.getAll());
  db.close();
  return { key: SNAPSHOT_KEY, records: Object.fromEntries(keys.map((key, i) => [key, statuses[i].status])) };
}"""


@pytest.fixture
def context(browser: Browser):
    context = browser.new_context(service_workers="allow")  # no snapshot is made without one
    yield context
    context.close()


@pytest.fixture
def page(context) -> Page:
    page = context.new_page()
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: problems.append(f"foreign request: {r.url}")
            if urlparse(r.url).hostname not in ("127.0.0.1", None) else None)
    yield page
    assert problems == []


def load(page: Page, url: str, boot: str) -> None:
    page.goto(url)
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    expect(page.locator("html")).to_have_attribute("data-boot", boot)


def load_and_make_snapshot(page: Page, url: str) -> None:
    load(page, url, "normal")
    page.wait_for_function("(document.documentElement.dataset.snapshot || 'making') !== 'making'", timeout=120_000)
    expect(page.locator("html")).to_have_attribute("data-snapshot", "stored")


def works_like_a_normal_start(page: Page) -> None:
    total = page.locator("#total")
    expect(total).to_have_attribute("data-bytes", str(estimate(parse_workload(VALUES)).total_bytes))
    # the `pyscript` package and the engine still come precompiled, the engine from the zip PyScript wrote
    expect(page.locator("html")).to_have_attribute("data-bytecode", "stdlib,pyscript,engine")
    page.fill("#seq", "1000")
    expect(total).to_have_attribute("data-bytes", str(estimate(parse_workload({**VALUES, "seq": "1000"})).total_bytes))
    page.select_option("#gpu", "l4")
    expect(page.locator("#answer-max_seq")).not_to_have_attribute("data-value", "")


def python_random(page: Page) -> str:
    """Eight bytes of Python's entropy (os.urandom, which also seeds `random`) in this page, by a script PyScript
    runs after the start. The page ships no `random` (tools/precompile.mjs, LAZY), so the entropy source is checked."""
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.type = "py";
        script.textContent = "import js, os\\njs.document.documentElement.dataset.random = os.urandom(8).hex()";
        document.body.append(script);
    }""")
    page.wait_for_selector("html[data-random]", state="attached", timeout=30_000)
    return page.evaluate("document.documentElement.dataset.random")


def test_a_second_load_boots_from_the_snapshot_and_shows_the_same_numbers(page: Page, server_url):
    url = f"{server_url}/index.html{QUERY}"
    load_and_make_snapshot(page, url)
    normal = python_random(page)
    load(page, url, "snapshot")
    works_like_a_normal_start(page)
    first = python_random(page)
    load(page, url, "snapshot")
    # fresh entropy after each restore, never bytes kept in the heap the snapshot holds
    assert len({normal, first, python_random(page)}) == 3
    assert page.evaluate(RECORDS, [None, None])["records"] == {page.evaluate(RECORDS, [None, None])["key"]: "stored"}


@pytest.mark.parametrize("change", ["garbage", "other pyodide"])
def test_a_bad_snapshot_gives_a_normal_start_and_is_not_tried_again(page: Page, server_url, change):
    url = f"{server_url}/index.html{QUERY}"
    load_and_make_snapshot(page, url)
    page.evaluate(RECORDS, [change, None])
    load(page, url, "normal")
    works_like_a_normal_start(page)
    state = page.evaluate(RECORDS, [None, None])
    assert state["records"] == {state["key"]: "failed"}  # the bytes are gone; no new one is made
    load(page, url, "normal")


def test_another_builds_snapshot_is_not_used_and_is_replaced(page: Page, server_url):
    url = f"{server_url}/index.html{QUERY}"
    load_and_make_snapshot(page, url)
    page.evaluate(RECORDS, ["other build", "0123456789abcdef"])
    load_and_make_snapshot(page, url)  # a normal start, which makes this build's snapshot again
    state = page.evaluate(RECORDS, [None, None])
    assert state["records"] == {state["key"]: "stored"}
    load(page, url, "snapshot")
    works_like_a_normal_start(page)
