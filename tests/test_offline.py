"""Offline use and the no-foreign-request rule, with the service worker in play.

Each test serves its own copy of the built site, so it can stop the server or
deploy a new version without disturbing the other browser tests."""

from __future__ import annotations

import re
import shutil
import threading
from functools import partial
from http.server import ThreadingHTTPServer
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, expect

from conftest import QuietHandler
from vramcalc import estimate, parse_workload

pytestmark = pytest.mark.browser


class Site:
    def __init__(self, root):
        self.root = root
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(site_dir, tmp_path):
    root = tmp_path / "site"
    shutil.copytree(site_dir, root)
    served = Site(root)
    yield served
    served.stop()


@pytest.fixture
def context(browser: Browser):
    context = browser.new_context(service_workers="allow")
    foreign = []
    context.on("request", lambda r: foreign.append(r.url) if urlparse(r.url).hostname != "127.0.0.1" else None)
    yield context
    context.close()
    assert foreign == []


def first_visit(context, url):
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{url}/index.html")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    # wait until the service worker has cached everything and controls the page
    page.evaluate("navigator.serviceWorker.ready")
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
    assert errors == []
    return page


def test_second_visit_works_offline(site, context):
    page = first_visit(context, site.url)
    site.stop()
    context.set_offline(True)
    page.goto(f"{site.url}/index.html?model=mistral-7b&batch=2")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    values = {"model": "mistral-7b", "batch": "2"}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(estimate(parse_workload(values)).total_bytes))
    page.fill("#seq", "1000")
    values["seq"] = "1000"
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(estimate(parse_workload(values)).total_bytes))
    page.select_option("#gpu", "l4")
    expect(page.locator("#answer-max_seq")).not_to_have_attribute("data-value", "")


def test_a_new_deploy_is_offered_and_never_mixed(site, context):
    page = first_visit(context, site.url)
    old_cache = page.evaluate("caches.keys()")
    # deploy: change a file and the worker's cache name, as build.py does for any change
    sw = site.root / "sw.js"
    text = sw.read_text()
    sw.write_text(re.sub(r'vramcalc-[0-9a-f]+', "vramcalc-0000000000000000", text))
    page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
    expect(page.locator("#update")).to_be_visible(timeout=60_000)
    with page.expect_navigation():
        page.click("#update-reload")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    assert page.evaluate("caches.keys()") == ["vramcalc-0000000000000000"] != old_cache


def test_shipped_pyscript_files_are_exactly_those_loaded(site, context):
    page = context.new_page()
    loaded = set()
    page.on("request", lambda r: loaded.add(urlparse(r.url).path))
    page.goto(f"{site.url}/index.html")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    page.fill("#batch", "2")
    page.click("#import summary")
    shipped = {f"/static/pyscript/{p.name}" for p in (site.root / "static/pyscript").iterdir()}
    assert shipped == {path for path in loaded if path.startswith("/static/pyscript/")}


def test_a_file_that_does_not_match_the_build_is_never_cached(site, context):
    # as if a host served one stale file: the worker refuses to install a mixture
    (site.root / "static" / "style.css").write_text("/* another version */\n")
    page = context.new_page()
    page.goto(f"{site.url}/index.html")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    state = page.evaluate("""async () => {
        // register as the page does (the same script and scope give the same registration) and follow the install
        const registration = await navigator.serviceWorker.register("./sw.js");
        const worker = registration.installing || registration.waiting || registration.active;
        if (worker.state !== "redundant" && worker.state !== "activated") {
            await new Promise((resolve) => worker.addEventListener("statechange", () => {
                if (worker.state === "redundant" || worker.state === "activated") resolve();
            }));
        }
        return { state: worker.state, caches: await caches.keys() };
    }""")
    assert state == {"state": "redundant", "caches": []}


@pytest.fixture(params=["", "/sub"], ids=["root", "sub-path"])
def hosted(request, site_dir, tmp_path):
    """The built site at the host's root, or under a sub-path (/sub/) of a host that has other things."""
    www = tmp_path / "www"
    shutil.copytree(site_dir, www / request.param.strip("/") if request.param else www)
    served = Site(www)
    served.url += request.param
    yield served
    served.stop()


def test_the_worker_serves_each_page_at_its_own_address(hosted, context):
    """After one visit the service worker answers navigations: /pt is the Portuguese page (at /pt/,
    where its links resolve), and an address that is no page of the site is a 404, online and
    offline, never the calculator served where its styles and Python cannot load."""
    page = first_visit(context, hosted.url)
    base = urlparse(hosted.url).path
    for online in (True, False):
        if not online:
            hosted.stop()
            context.set_offline(True)
        page.goto(f"{hosted.url}/pt?gpu=rtx-4090")
        page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
        assert urlparse(page.url).path == f"{base}/pt/"
        expect(page.locator("html")).to_have_attribute("lang", "pt")
        expect(page.locator("#verdict-text")).to_contain_text("RTX 4090")
        for path in ("/nonexistent/page", "/static/", "/static/pyodide/"):
            response = page.goto(f"{hosted.url}{path}")
            assert page.locator("#verdict").count() == 0, (online, path)  # not the calculator at a wrong address
            if not online or path == "/nonexistent/page":
                assert response.status == 404, (online, path)
