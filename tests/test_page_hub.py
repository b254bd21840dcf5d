"""The page's Hugging Face id: nothing is requested before the click, the click asks huggingface.co for the
two addresses the page names, and the answer is the config.json import. huggingface.co is the stub Hub of
tests/test_hub.py (tests/data/hub), reached through Playwright's routing: no test touches the network."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Route, expect

from test_hub import DATA, REPOS, Stub, _server
from test_page import open_ready, settled_url
from vramcalc import estimate, parse_workload

pytestmark = pytest.mark.browser
HUB = "https://huggingface.co"


@pytest.fixture
def hub_page(page: Page):
    """A page whose requests to huggingface.co go to the stub Hub; `page.hub_requests` lists them."""
    asked: list[str] = []
    with _server("hub", Stub()) as stub:
        def forward(route: Route) -> None:
            url = urlsplit(route.request.url)
            asked.append(route.request.url)
            response = route.fetch(url=stub + url.path + (f"?{url.query}" if url.query else ""))
            route.fulfill(response=response, headers={**response.headers, "access-control-allow-origin": "*"})

        page.route(re.compile(r"^https://huggingface\.co/"), forward)
        page.hub_requests = asked  # type: ignore[attr-defined]
        yield page


def falcon_total(**values):
    config = json.loads((DATA / REPOS["tiiuae/Falcon3-7B-Instruct"]["files"]["config.json"]).read_text())
    return estimate(parse_workload({"model": "config", **values}, config=config)).total_bytes


def test_a_link_names_the_model_and_nothing_is_requested_until_the_click(hub_page, server_url):
    page = hub_page
    open_ready(page, server_url, "?hf=tiiuae/Falcon3-7B-Instruct&seq=4096")
    expect(page.locator("#hf-id")).to_have_value("tiiuae/Falcon3-7B-Instruct")
    expect(page.locator("#notice")).to_contain_text("tiiuae/Falcon3-7B-Instruct")
    sends = page.locator("#hf-sends")
    expect(sends).to_contain_text(f"{HUB}/api/models/tiiuae/Falcon3-7B-Instruct/revision/main?blobs=true")
    expect(sends).to_contain_text(f"{HUB}/tiiuae/Falcon3-7B-Instruct/resolve/main/config.json")
    before = settled_url(page)  # the link keeps naming the id before anything is read
    assert "hf=tiiuae%2FFalcon3-7B-Instruct" in before and "seq=4096" in before
    assert page.hub_requests == []
    page.click("#hf-read")
    expect(page.locator("#model")).to_have_value("config")
    expect(page.locator("#hf-status")).to_contain_text("Read from huggingface.co")
    assert page.hub_requests == [f"{HUB}/api/models/tiiuae/Falcon3-7B-Instruct/revision/main?blobs=true",
                                 f"{HUB}/tiiuae/Falcon3-7B-Instruct/resolve/main/config.json"]
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(falcon_total(seq="4096")))
    link = settled_url(page)
    assert "hf=tiiuae%2FFalcon3-7B-Instruct" in link and "model=config" not in link and "seq=4096" in link


@pytest.mark.parametrize("hub_down", [
    lambda route: route.abort("internetdisconnected"),
    lambda route: route.fulfill(status=503, headers={"access-control-allow-origin": "*"}),
])
def test_the_answer_is_kept_for_offline_use(hub_page, server_url, hub_down):
    page = hub_page
    open_ready(page, server_url)
    page.click("#import summary")
    page.fill("#hf-id", "tiiuae/Falcon3-7B-Instruct")
    page.click("#hf-read")
    expect(page.locator("#model")).to_have_value("config")
    page.unroute(re.compile(r"^https://huggingface\.co/"))
    page.route(re.compile(r"^https://huggingface\.co/"), hub_down)
    settled_url(page)
    page.reload()  # the link now names the id (hf=), which opens the panel with the field filled
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    expect(page.locator("#hf-id")).to_have_value("tiiuae/Falcon3-7B-Instruct")
    page.click("#hf-read")
    expect(page.locator("#hf-status")).to_contain_text("this browser's copy")
    expect(page.locator("#model")).to_have_value("config")


@pytest.mark.parametrize(("hf", "said"), [
    ("tiny/qwen3-gated", "gated or private"),
    ("nobody/nothing-here", "gated or private"),  # the Hub answers 401 without a token, as for a private one
    ("tiiuae/Falcon3-7B-Instruct@no-such-branch", "404"),
    ("tiny/llama-GGUF", "holds GGUF files"),
    ("tiny/sd-pipeline", "a diffusers pipeline (model_index.json)"),  # its folder can be imported under the family
    ("not an id", "hf: "),
])
def test_what_cannot_be_read_is_said_naming_the_field(hub_page, server_url, hf, said):
    page = hub_page
    open_ready(page, server_url)
    page.click("#import summary")
    page.fill("#hf-id", hf)
    page.click("#hf-read")
    expect(page.locator("#hf-error")).to_contain_text(said)
    expect(page.locator("#model")).not_to_have_value("config")
