"""The browser layer: the only Python that touches the page.

It reads the form (and, once at start, the link's query string) into the
engine's input layer, calls the engine, writes the numbers into the
prerendered elements with textContent and attributes (never markup), and keeps
the link in step with history.replaceState. PyScript runs it on the main thread;
the handlers below are bound with @when.
"""

import collections
import dataclasses
import json
import os
import sys
import time
import zlib
from urllib.parse import parse_qsl, quote, urlencode

from pyodide.ffi import create_proxy, jsnull, to_js
from pyscript import document, when, window


def engine_zip():
    """The engine's zip, precompiled by build.py; it arrives gzipped (pyscript.toml [files])."""
    with open("vramcalc.zip.gz", "rb") as packed:
        data = packed.read()
    if data[:2] == b"\x1f\x8b":  # not if a host sent it with Content-Encoding: gzip, inflated on the way
        data = zlib.decompress(data, wbits=31)  # 31: a gzip stream
    with open("vramcalc.zip", "wb") as file:
        file.write(data)
    return os.path.abspath("vramcalc.zip")


sys.path.insert(0, engine_zip())

import vramcalc  # noqa: E402
from vramcalc import DEFAULTS, ValidationError, estimate, parse_config_json, parse_workload  # noqa: E402
from vramcalc.analysis.fit import fit_all  # noqa: E402
from vramcalc.analysis.speed_answers import evaluate_speed  # noqa: E402
from vramcalc.core.units import format_binary  # noqa: E402
from vramcalc.diffusion.imported import IMPORTED, MAX_JSON_CHARS, counted, import_pipeline  # noqa: E402
from vramcalc.diffusion.pipelines import load_pipelines  # noqa: E402
from vramcalc.diffusion.run import evaluate as evaluate_pipeline  # noqa: E402
from vramcalc.diffusion.training import train  # noqa: E402
from vramcalc.engines.layouts import resolve_layout  # noqa: E402
from vramcalc.engines.registry import suggested_runtime  # noqa: E402
from vramcalc.formats.file_weights import WeightsGiven  # noqa: E402
from vramcalc.formats.headers import MAX_HEADER_BYTES, Truncated, read_header  # noqa: E402
from vramcalc.inputs.link import decode, encode  # noqa: E402
from vramcalc.inputs.options import CHECKBOXES, OPTIONS, shown_values  # noqa: E402
from vramcalc.inputs.parse import (  # noqa: E402
    parse_capacity_query,
    parse_diffusion,
    parse_diffusion_training,
    parse_link,
    parse_machine,
    parse_target,
)
from vramcalc.render import catalog as catalog_words  # noqa: E402
from vramcalc.render.diffusion import present_diffusion, present_training  # noqa: E402
from vramcalc.render.export import to_csv, to_json, to_markdown  # noqa: E402
from vramcalc.render.messages import Words  # noqa: E402
from vramcalc.render.speed import CHARTS as SPEED_CHARTS  # noqa: E402
from vramcalc.render.speed import FIGURES as SPEED_FIGURES  # noqa: E402
from vramcalc.render.speed import present_speed  # noqa: E402
from vramcalc.render.view import present, present_capacity, present_target  # noqa: E402
from vramcalc.sources import catalog, hub  # noqa: E402
from vramcalc.sources.hf_config import from_hf_config  # noqa: E402
from vramcalc.sources.presets import load_presets  # noqa: E402

WORDS = Words(document.documentElement.lang or "en")  # the language this page was prerendered in: it says everything
INPUT_AREAS = "#form, #reverse, #capacity-section"
# What the page shows before Python has drawn anything: the prerendered defaults.
DEFAULT_WORKLOAD = parse_workload(DEFAULTS)
state = {
    "lang_in_link": "lang=" in str(window.location.search),
    "config": None,  # an imported config.json, parsed
    "weights": None,  # the headers of the weight files opened (WeightsGiven), never their data
    "hf": None,  # the Hugging Face id the imported config.json was read from, for the link
    "hf_linked": None,  # the id a link named, kept in the link until it is read or the field changes
    "given": set(),  # the fields the user or the link set, which a framework's defaults then leave as they are
    "engine_ms": collections.deque([0.0], maxlen=1000),  # the engine's time in each recent update (timed)
    "shown": {
        "workload": DEFAULT_WORKLOAD,
        "gpus": parse_target(DEFAULTS).count,
        "target": (DEFAULT_WORKLOAD, parse_target(DEFAULTS)),
        "capacity": parse_capacity_query(DEFAULTS),
        "speed": (DEFAULT_WORKLOAD, parse_target(DEFAULTS), parse_machine(DEFAULTS)),  # build.py prerendered it
    },
}


# ---------------------------------------------------------------- the page's nodes
#
# Every touch of the page crosses from Python into JavaScript, and an update made some seven hundred
# of them, most of it re-writing what the page already showed (docs/performance.md). So nodes are
# looked up once, a write is skipped when the node already shows that value, and the writes of an
# update are queued and applied in one call (static/apply.js, flush). Only this module writes the
# nodes below, so what it wrote last is what they show.

NODES = {}
WRITTEN = {}
QUEUE = []


def flush():
    if QUEUE:
        window.vramcalcApply(to_js(QUEUE))
        QUEUE.clear()


def element(id_):
    """The element with this id, or None, looked up once (getElementById's null arrives as jsnull, which
    is not None)."""
    if id_ not in NODES:
        found = document.getElementById(id_)
        NODES[id_] = None if found is jsnull else found
    return NODES[id_]


def option_of(id_, value):
    """The <option> of the select `id_` whose value is `value`, or None. The value is escaped
    for the selector: it may come from a link or local storage ("x']", a newline)."""
    found = element(id_).querySelector(f'option[value="{window.CSS.escape(value)}"]')
    return None if found is jsnull else found


def set_text(id_, text, selector=None):
    if WRITTEN.get((id_, selector, "text")) != text:
        QUEUE.append((id_, selector, "text", text))
        WRITTEN[id_, selector, "text"] = text


def set_attribute(id_, name, value, selector=None):
    """value None removes the attribute."""
    value = None if value is None else str(value)
    if WRITTEN.get((id_, selector, name), "") != value:
        QUEUE.append((id_, selector, name, value))
        WRITTEN[id_, selector, name] = value


def set_hidden(id_, hidden, selector=None):
    if WRITTEN.get((id_, selector, "hidden")) != hidden:
        QUEUE.append((id_, selector, "hidden", hidden))
        WRITTEN[id_, selector, "hidden"] = hidden


# ---------------------------------------------------------------- form <-> values


def read_form():
    values = {}
    for key in DEFAULTS:
        if key == "mode":
            values[key] = next((mode for mode in ("training", "embedding", "speech")
                                if element(f"mode-{mode}").checked), "inference")
        elif key in CHECKBOXES:
            values[key] = "1" if element(key).checked else "0"
        else:
            values[key] = element(key).value
    cards = [select.value for select in document.querySelectorAll("#cards-list select")]
    if cards and values["family"] == "language":  # a pipeline runs on one GPU
        values["gpu"] = ",".join([values["gpu"], *cards])  # one machine's cards, CUDA0 first
    return values


# ---------------------------------------------------------------- a machine of different cards (gpu=a,b)
# llama.cpp and Ollama split a model over the cards of one machine whatever their kinds; the page's other
# engines take one kind of card (and the engine says so, naming gpu, when cards were added). The first card is
# the GPU select's (CUDA0); each added one is a copy of it.
MIXED_RUNTIMES = ("llamacpp", "ollama")


def show_cards(values):
    shown = values["family"] == "language" and (
        values["runtime"] in MIXED_RUNTIMES or element("cards-list").children.length > 0)
    set_hidden("cards-box", not shown)


def add_card(slug=None):
    """One more card, CUDA1 on, as the GPU select lists them (a slug it does not list, "24gb", is added)."""
    items = element("cards-list")
    index = items.children.length + 1
    item = element("card-template").content.firstElementChild.cloneNode(True)
    select = element("gpu").cloneNode(True)
    select.id = select.name = f"card-{index}"
    select.removeAttribute("aria-describedby")
    select.removeAttribute("aria-invalid")
    slug = slug or element("gpu").value
    if option_of("gpu", slug) is None:
        option = document.createElement("option")
        option.value = option.textContent = slug
        select.appendChild(option)
    select.value = slug
    label = item.querySelector("label")
    label.htmlFor = select.id
    label.textContent = f"CUDA{index}"
    item.insertBefore(select, item.querySelector("button"))
    items.appendChild(item)
    return select


def emptied(id_):
    """The element, its children removed."""
    parent = element(id_)
    while parent.firstChild:
        parent.removeChild(parent.firstChild)
    return parent


def set_cards(slugs):
    """The added cards, from a link or local storage: CUDA1 on."""
    emptied("cards-list")
    for slug in slugs:
        add_card(slug)


@when("click", "#card-add")
def on_card_add(event):
    add_card().focus()
    update()


@when("click", "#cards-list")
def on_card_remove(event):
    if not event.target.classList.contains("card-remove"):
        return
    slugs = [select.value for select in document.querySelectorAll("#cards-list select")]
    item = event.target.closest("li")
    del slugs[list(element("cards-list").children).index(item)]
    set_cards(slugs)  # renumbered: CUDA1 on
    element("card-add").focus()
    update()


def write_form(values):
    for key, value in values.items():
        if key == "mode":
            element("mode-training").checked = value == "training"
            element("mode-embedding").checked = value == "embedding"
            element("mode-speech").checked = value == "speech"
            element("mode").checked = value not in ("training", "embedding", "speech")
        elif key in CHECKBOXES:
            element(key).checked = value == "1"
        else:
            if key == "gpu":
                value, *cards = (slug.strip(" \t") for slug in value.split(","))
                set_cards(cards)
            if key in ("precision", "gpu") and option_of(key, value) is None:
                option = document.createElement("option")  # a bpw:X.XX or "24gb" card the list does not offer
                option.value = option.textContent = value
                element(key).appendChild(option)
            element(key).value = value


# ---------------------------------------------------------------- rendering


def show_errors(problems):
    errors = {problem.field: WORDS.problem(problem) for problem in problems}
    for key in (*DEFAULTS, *errors):
        if element(f"{key}-error") is not None:
            set_text(f"{key}-error", errors.get(key, ""))
        if element(key) is not None:
            set_attribute(key, "aria-invalid", "true" if key in errors else None)
    for key in errors:
        field = element(key)
        if field is not None:
            folded = field.closest("details")
            if folded not in (None, jsnull):
                folded.open = True  # an error is never hidden behind "More options"
    set_text("stale-fields", WORDS.message("page.stale_fields", fields=", ".join(map(field_label, errors)))
             if errors else "")


def field_label(key):
    """The label the page shows for a field, in its language (a link opened with a combination that does not
    hold keeps the default's answer, dimmed: the notice above it says which fields to fix)."""
    found = document.querySelector(f'label[for="{key}"]')
    return key if found in (None, jsnull) else found.textContent.strip()


WRAPPER = "[id$='-field'], [id$='-fields']"  # the elements that show or hide fields: #vllm-fields, #batch-field, ...


def show_fields(values):
    """Each wrapper of fields shown when one of its keys' Option.shown_when holds (inputs/options.py)."""
    if "wrappers" not in state:  # which keys each wrapper holds: the page's structure, read once
        wrappers = {}
        for option in OPTIONS:
            field = element(option.key)
            wrapper = field.closest(WRAPPER) if option.shown_when and field is not None else None
            if wrapper not in (None, jsnull):
                wrappers.setdefault(wrapper.id, []).append(option)
        state["wrappers"] = wrappers
    for id_, options in state["wrappers"].items():
        set_hidden(id_, not any(option.shown(values) for option in options))


def summarize_options(values):
    """Each "More options" says how many of its settings differ from the defaults."""
    if "folded" not in state:  # which settings each one holds: the page's structure, read once
        state["folded"] = []
        for details in document.querySelectorAll("details.more"):
            summary = details.querySelector("summary")
            keys = [key for key in DEFAULTS if element(key) is not None and details.contains(element(key))]
            state["folded"].append((details.id, summary, summary.getAttribute("data-label"), keys))
    for id_, summary, label, keys in state["folded"]:
        changed = sum(1 for key in keys if values[key] != DEFAULTS[key])
        text = WORDS.message("more.set", label=label, count=changed) if changed else label
        # kept by the details' id: every "More options" has the same label, so a cache by label
        # skipped one summary's change whenever the one written last said the same
        if WRITTEN.get((id_, "more")) != text:
            summary.textContent = WRITTEN[id_, "more"] = text


def render_total(view):
    """The total, its summary and the parameter count: a language model's or a pipeline's."""
    set_attribute("total", "data-bytes", view.total_bytes)
    set_text("total-gb", view.total_gb)
    set_text("total-gib", view.total_gib)
    set_text("summary", view.summary)
    set_text("param-count", view.params)


def render(view):
    render_total(view)
    for row in view.rows:
        tr = f"row-{row.key}"
        set_attribute(tr, "data-bytes", row.bytes)
        set_attribute(tr, "data-absent", "1" if row.absent else None)  # not "": what was written starts as ""
        set_text(tr, row.size, ".size")
        set_text(tr, row.share, ".share")
        set_text(tr, row.formula, ".formula")
        set_attribute(f"bar-{row.key}", "x", row.bar_x)
        set_attribute(f"bar-{row.key}", "width", row.bar_width)
    set_text("bar-desc", view.bar_text)
    render_gpus(view.gpus)
    fill_list("notes", view.notes)
    fill_list("runtime-facts", view.runtime_lines)
    set_text("run-command", view.command)
    set_hidden("command", not view.command)
    fill_list("assumptions", view.assumptions)
    set_hidden("approximate", not view.assumptions)


def render_gpus(gpus):
    for gpu in gpus:
        tr = f"gpu-{gpu.slug}"
        set_attribute(tr, "data-verdict", gpu.verdict)
        set_attribute(tr, "width", gpu.bar_percent, ".fill")
        set_text(tr, gpu.utilization, ".pct")
        set_text(tr, gpu.count, ".count")
        set_text(tr, gpu.verdict_text, ".verdict")


def render_diffusion(view):
    """An image or video pipeline (render/diffusion.py): its peak as the total, its rows, the GPUs it fits."""
    render_total(view)
    render_gpus(view.gpus)
    set_text("diffusion-caption", view.caption)
    fill_list("diffusion-notes", view.notes)
    fill_rows("diffusion-rows", view.rows, ("size", "formula"))  # as the breakdown's: the formula folds on a phone


def fill_rows(id_, rows, classes):
    """A table body: a row per tuple of cells, the first a row header, the others `classes` in turn
    (the last class for every further cell)."""
    if WRITTEN.get((id_, "rows")) == rows:
        return
    body = emptied(id_)
    for cells in rows:
        row = document.createElement("tr")
        for index, text in enumerate(cells):
            cell = document.createElement("th" if index == 0 else "td")
            if index == 0:
                cell.setAttribute("scope", "row")
            else:
                cell.className = classes[min(index, len(classes)) - 1]
            cell.textContent = text
            row.appendChild(cell)
        body.appendChild(row)
    WRITTEN[id_, "rows"] = rows


def fill_list(id_, texts):
    texts = list(texts)
    if WRITTEN.get((id_, "items")) == texts:
        return
    parent = emptied(id_)
    for text in texts:
        item = document.createElement("li")
        item.textContent = text
        parent.appendChild(item)
    WRITTEN[id_, "items"] = texts


def render_target(view):
    set_text("target-heading", view.heading)
    for answer in view.answers:
        target = f"answer-{answer.key}"
        set_text(target, answer.text)
        if WRITTEN.get((target, "label")) != answer.label:
            element(target).previousElementSibling.textContent = WRITTEN[target, "label"] = answer.label
        set_attribute(target, "data-value", "" if answer.value is None else answer.value)
    render_rank(view.rank)
    render_verdict(view.verdict)
    for chart in view.charts:
        key = chart.key
        set_text(f"chart-{key}-title", WORDS.message("chart.title", axis=chart.x_label))  # llama.cpp: --parallel
        set_text(f"chart-{key}-axis", chart.x_label)
        set_text(f"chart-{key}-desc", chart.desc)
        set_attributes(f"chart-{key}-line", d=chart.path)
        set_attributes(f"chart-{key}-limit", y1=chart.limit_y, y2=chart.limit_y)
        set_attributes(f"chart-{key}-limit-label", y=chart.limit_y - 5)
        set_text(f"chart-{key}-limit-label", chart.limit_label)
        set_attributes(f"chart-{key}-over", x=chart.over_x, width=chart.over_width)
        set_attributes(f"chart-{key}-now", x1=chart.now_x, x2=chart.now_x)
        set_attributes(f"chart-{key}-now-label", x=chart.now_x + 4)
        set_text(f"chart-{key}-now-label", chart.now_label)
        for axis, ticks in (("x", chart.x_ticks), ("y", chart.y_ticks)):
            for index, tick in enumerate(ticks):
                set_attribute(f"chart-{key}-{axis}-{index}", axis, tick.pos)
                set_text(f"chart-{key}-{axis}-{index}", tick.label)
                if axis == "y":
                    set_attributes(f"chart-{key}-ygrid-{index}", y1=tick.pos, y2=tick.pos)


def render_speed(view):
    """The speed section and the verdict's speed line (render/speed.py)."""
    set_text("verdict-speed", view.line)
    shown = {key: value for key, _, value in view.figures}
    for key in SPEED_FIGURES:
        set_hidden(f"speed-{key}", key not in shown)
        set_text(f"speed-{key}-value", shown.get(key, ""))
    fill_list("speed-basis", view.basis)
    for key in SPEED_CHARTS:
        chart = view.charts[key]
        set_hidden(f"speed-{key}-figure", not chart.path)
        set_attributes(f"speed-{key}-line", d=chart.path)
        limit = 0 if chart.limit_x is None else chart.limit_x
        set_attributes(f"speed-{key}-limit", x1=limit, x2=limit,
                       visibility="hidden" if chart.limit_x is None else "visible")
        set_text(f"speed-{key}-desc", chart.desc)
        set_text(f"speed-{key}-y", chart.y_top)
        set_text(f"speed-{key}-x", chart.x_end)


def render_verdict(verdict):
    """The answer first: fits, tight or not on the chosen card(s), and the single changes that fit."""
    set_attribute("verdict", "data-verdict", verdict.kind)
    set_attribute("sticky", "data-verdict", verdict.kind)
    set_text("sticky", verdict.short)
    set_text("verdict-text", verdict.text)
    set_attribute("verdict-meter", "width", verdict.percent, ".fill")
    set_hidden("verdict-changes", not verdict.changes and verdict.kind != "does not fit")
    set_text("verdict-changes-title", WORDS.message("verdict.changes" if verdict.changes else "verdict.none"))
    fill_list("verdict-change-list", verdict.changes)


def render_rank(rank):
    """The most loaded GPU of the layout, shown with more than one GPU."""
    set_hidden("rank", rank is None)
    if rank is None:
        return
    set_text("rank-title", rank.title)
    for row in rank.rows:
        tr = f"rank-row-{row.key}"
        set_hidden(tr, not row.bytes)
        set_attribute(tr, "data-bytes", row.bytes)
        set_text(tr, row.size, ".size")
        set_text(tr, row.how, ".how")
        set_attributes(f"rank-bar-{row.key}", x=row.bar_x, width=row.bar_width)
    fill_list("rank-lines", rank.lines)
    set_hidden("rank-devices", not rank.devices)
    fill_rows("rank-device-rows", rank.devices, ("size",))


def set_attributes(id_, **attributes):
    for name, value in attributes.items():
        set_attribute(id_, name, value)


def render_capacity(rows, user):
    for row in (*rows, user) if user else rows:
        set_text(row.id, row.memory, "th")
        for index, text in enumerate(row.cells):  # the range cells are the row's first <td>s
            set_text(row.id, text, f"td:nth-of-type({index + 1})")
        set_text(row.id, row.examples, "td.examples")
    set_hidden("capacity-user", user is None)


def mark_stale(id_, stale):
    if WRITTEN.get((id_, "stale")) != stale:
        element(id_).classList.toggle("stale", stale)
        WRITTEN[id_, "stale"] = stale


def attempt(parse, problems):
    """parse(), or None with its ValidationError added to problems."""
    try:
        return parse()
    except ValidationError as problem:
        problems.append(problem)
        return None


def timed(compute, *args):
    """compute(*args), its time added to this update's engine time (bench/page.py splits input
    latency into the engine's and the page's drawing with it)."""
    start = time.perf_counter()
    try:
        return compute(*args)
    finally:
        state["engine_ms"][-1] += (time.perf_counter() - start) * 1000


def update(*_args):
    try:
        redraw()
    finally:
        flush()


# What only a language model has on the page, hidden for an image or video pipeline (family=diffusion).
LANGUAGE_ONLY = ("language-inputs", "language-gpus", "language-more", "language-notice", "language-results",
                 "verdict-speed", "sticky", "speed", "reverse", "capacity-section")


def redraw():
    """Read the form, check it, and show what changed."""
    values = read_form()
    show_fields(values)
    show_cards(values)
    set_hidden("runtime", values["mode"] != "embedding", "option[value='tei']")  # TEI serves embedders only
    set_hidden("runtime", values["mode"] != "speech", "option[value='faster-whisper']")  # Whisper models only
    set_text("model-facts", catalog_words.facts(values["model"], words=WORDS))
    summarize_options(values)
    remember_gpu(values)
    values = shown_values(values)  # a hidden field's value counts as its default (it is kept for when it shows again)
    diffusion = values["family"] == "diffusion"
    for id_ in LANGUAGE_ONLY:
        set_hidden(id_, diffusion)
    set_hidden("diffusion-results", not diffusion)
    if diffusion:
        return redraw_diffusion(values)
    problems = []
    workload = attempt(lambda: parse_workload(values, config=state["config"], weights=state["weights"],
                                              given=state["given"]), problems)
    target = attempt(lambda: parse_target(values), problems)
    if workload is not None and target is not None and attempt(
            lambda: resolve_layout(workload, target.count), problems) is None:
        target = None  # a layout that does not fit these GPUs: its field says why
    query = attempt(lambda: parse_capacity_query(values), problems)
    machine = attempt(lambda: parse_machine(values), problems)
    show_errors(problems)
    mark_stale("results", workload is None)
    set_hidden("stale", workload is not None)
    mark_stale("reverse", workload is None or target is None)
    mark_stale("verdict", workload is None or target is None)  # the answer, and its copy on a phone
    mark_stale("sticky", workload is None or target is None)
    mark_stale("capacity-section", query is None)
    # Redraw only what changed: the page already shows state["shown"] (at first, the prerendered defaults).
    state["engine_ms"].append(0.0)
    gpus = target.count if target is not None else 1  # vLLM reports the pool of each GPU of the layout
    if workload is not None and (workload, gpus) != (state["shown"]["workload"], state["shown"]["gpus"]):
        render(timed(lambda: present(estimate(workload), gpus, words=WORDS)))
        state["shown"]["workload"], state["shown"]["gpus"] = workload, gpus
    if workload is not None and target is not None and (workload, target) != state["shown"]["target"]:
        render_target(timed(lambda: present_target(workload, target, words=WORDS)))
        state["shown"]["target"] = (workload, target)
    mark_stale("speed", workload is None or target is None or machine is None)
    if workload is not None and target is not None and machine is not None and (
            workload, target, machine) != state["shown"]["speed"]:
        render_speed(timed(lambda: present_speed(workload, evaluate_speed(workload, target, machine), words=WORDS)))
        state["shown"]["speed"] = (workload, target, machine)
    if query is not None and query != state["shown"]["capacity"]:
        render_capacity(*timed(lambda: present_capacity(query, words=WORDS)))
        state["shown"]["capacity"] = query
    if not problems:
        link = encode(values, state["given"])
        # the id an imported config was read from, never the config itself; or the id a link named, until read
        hf = state["hf"] if values["model"] == "config" else state["hf_linked"]
        if hf:
            link = "&".join([part for part in link.split("&") if part] + [urlencode({"hf": hf})])
        show_link(link)


def redraw_diffusion(values):
    """A pipeline's generation, or one LoRA training step of its denoiser (train_lora a rank)."""
    problems = []
    target = attempt(lambda: parse_target(values), problems)
    card = target.gpu if target else None

    def answer():
        chosen, request = parse_diffusion(values, imported=state.get("pipeline"))
        training = parse_diffusion_training(values)
        if training is None:
            return present_diffusion(evaluate_pipeline(chosen, request), gpu=card, words=WORDS)
        step = train(chosen, request, training)
        return present_training(chosen, request, training, step, gpu=card, words=WORDS)

    view = attempt(lambda: timed(answer), problems)
    show_errors(problems)
    mark_stale("results", view is None)
    mark_stale("verdict", view is None or target is None)
    set_hidden("stale", view is not None)
    if view is not None:
        render_diffusion(view)
        if view.verdict is not None:
            render_verdict(view.verdict)
            set_hidden("verdict-changes", not view.verdict.changes)  # "no single change..." is a language model's
            state["shown"]["target"] = None  # the verdict shows the pipeline's: redrawn on the way back
        state["shown"]["gpus"] = None  # the total and the GPU table show the pipeline's: redrawn on the way back
        show_link(encode(values))


# In a burst of changes, writing the link (history.replaceState and the switch's two anchors) took
# about 9 ms per change in Chromium (bench/page.py, 200 changes: 1.9 s of 7.6 s), more than the rest
# of the page's drawing. So the address bar and the language
# switch follow the settings at most every LINK_DELAY_MS: the first change of a burst sets a timer,
# and whatever the settings are when it fires is written. Copying or exporting writes it at once;
# <html data-link="pending"> says a write is due (the tests wait for it).
LINK_DELAY_MS = 100


def show_link(settings):
    state["link"] = settings
    if state.get("link_timer") is None and WRITTEN.get("link") != settings:
        state["link_timer"] = window.setTimeout(WRITE_LINK, LINK_DELAY_MS)
        document.documentElement.setAttribute("data-link", "pending")


def write_link(*_args):
    """The link in the address bar, and the language switch pointing at the same settings."""
    if state.get("link_timer") is not None:
        window.clearTimeout(state["link_timer"])
        state["link_timer"] = None
        document.documentElement.removeAttribute("data-link")
    settings = state.get("link")
    if settings is None or WRITTEN.get("link") == settings:
        return
    WRITTEN["link"] = settings

    def with_lang(lang):
        return "?" + "&".join(part for part in (settings, f"lang={lang}") if part)

    # a language chosen through a link or the switch stays chosen
    address = with_lang(WORDS.language) if state["lang_in_link"] else ("?" + settings if settings else "")
    window.history.replaceState(None, "", address or window.location.pathname)
    for anchor in document.querySelectorAll("nav.languages a"):
        base = anchor.getAttribute("href").split("?")[0]
        anchor.setAttribute("href", base + with_lang(anchor.getAttribute("hreflang")))


WRITE_LINK = create_proxy(write_link)


@when("click", "nav.languages a")  # before the browser follows the link: its settings are the current ones
def on_language_click(event):
    write_link()


def filter_models(query):
    """Show only the presets that match what was typed, and choose the best match, so the
    numbers follow the search; an empty search shows every preset again."""
    if not any(character.isalnum() for character in query):
        query = ""  # only spaces or punctuation ("("): as if nothing were typed, never a random model
    matches = catalog.search(query)
    shown = set(matches) if query else None
    picker = element("model")
    for group in picker.querySelectorAll("optgroup"):
        options = group.querySelectorAll("option")
        visible = 0
        for index in range(options.length):
            option = options.item(index)
            option.hidden = shown is not None and option.value not in shown
            visible += not option.hidden
        group.hidden = visible == 0
    status = element("model-search-status")
    if shown is None:
        status.textContent = ""
    elif not matches:
        status.textContent = WORDS.message("model_search.none")
        for option in picker.querySelectorAll("option[hidden], optgroup[hidden]"):
            option.hidden = False
    else:
        picker.value = matches[0]
        name = picker.options.item(picker.selectedIndex).textContent
        key = "model_search.found" if len(matches) == 1 else "model_search.found_many"
        if matches == [catalog.base_of(query)]:  # "...-Instruct": sized as its base model, and said so
            key = "model_search.base"
        status.textContent = WORDS.message(key, count=len(matches), first=name)


@when("input", INPUT_AREAS)  # fires for text, select, radio and checkbox alike; "change" would repeat it
def on_form_change(event):
    if event.target.id in ("config-file", "config-text", "weights-file", "hf-id"):
        return
    try:
        apply_edit(event.target)
        update()
    except Exception as error:  # a bug, not bad input: keep the last good numbers and say so, without a traceback
        show_failure(error)


def apply_edit(target):
    """What an edit of `target` changes besides itself; start() replays the edits made while Python
    was starting through here, so that they end as they would have later."""
    key = "mode" if target.name == "mode" else target.id
    if key in DEFAULTS:  # set on purpose: a framework's default no longer takes it (as a command-line flag)
        state["given"].add(key)
    if target.id == "model-search":
        filter_models(target.value)
    if target.id == "config-apply":  # clicked while Python was starting (static/edits.js)
        use_config(element("config-text").value)
    if target.id == "precision":  # a GGUF type runs on llama.cpp, a GPU format on vLLM
        element("runtime").value = suggested_runtime(target.value, element("runtime").value, read_form()["mode"])
    if target.name == "mode":  # training runs with transformers
        element("runtime").value = suggested_runtime(element("precision").value, element("runtime").value,
                                                     read_form()["mode"])


def show_failure(error):
    notice = element("notice")
    notice.textContent = WORDS.message("page.internal_error", kind=type(error).__name__)
    notice.hidden = False
    mark_stale("results", True)
    window.console.warn(f"vramcalc: {type(error).__name__}: {error}")


# ---------------------------------------------------------------- config.json import


def use_config(text, hf=None):
    """Import a config.json (read from `hf`, a Hugging Face id, when given); False if it cannot be read."""
    error = element("config-error")
    try:
        config = parse_config_json(text)
        spec = from_hf_config(config)
    except ValidationError as problem:
        error.textContent = WORDS.problem(problem)
        return False
    error.textContent = ""
    state["config"] = config
    state["hf"] = hf
    option = element("model").querySelector("option[value='config']")
    option.disabled = False
    option.textContent = WORDS.message("page.imported", name=spec.display_name)
    element("model").value = "config"
    update()
    return True


@when("click", "#config-apply")
def on_config_apply(event):
    use_config(element("config-text").value)


@when("change", "#config-file")
async def on_config_file(event):
    files = event.target.files
    if files.length == 0:
        return
    text = await files.item(0).text()
    element("config-text").value = text
    use_config(text)


# ---------------------------------------------------------------- a diffusers pipeline's folder: its JSON only


@when("change", "#pipeline-folder")
async def on_pipeline_folder(event):
    """model_index.json at the folder's top and each counted part's <part>/config.json, read as text (the weights
    beside them are listed by the browser, never opened); the pipeline imported as pipeline=config."""
    files = {file.webkitRelativePath: file for file in
             (event.target.files.item(i) for i in range(event.target.files.length))}
    error = element("pipeline-folder-error")
    index = next((path for path in files if path.count("/") == 1 and path.endswith("/model_index.json")), None)
    try:
        if index is None:
            raise ValidationError("model_index.json", "not found", "a diffusers pipeline's folder has it at its top")
        root = index.split("/")[0]
        wanted = {path.split("/")[1]: path for path in files
                  if path.count("/") == 2 and path.startswith(root + "/") and path.endswith("/config.json")
                  and counted(path.split("/")[1])}
        for path in (index, *wanted.values()):
            if files[path].size > MAX_JSON_CHARS * 4:
                raise ValidationError(path.split("/", 1)[1], f"{files[path].size:,} bytes", "a config's JSON text")
        texts = {role: await files[path].text() for role, path in wanted.items()}
        chosen = import_pipeline(await files[index].text(), texts, name=root)
    except ValidationError as problem:
        error.textContent = WORDS.problem(problem)
        return
    error.textContent = ""
    state["pipeline"] = chosen
    select = element("pipeline")
    option = select.querySelector(f"option[value='{IMPORTED}']")
    if option in (None, jsnull):
        option = document.createElement("option")
        option.value = IMPORTED
        select.appendChild(option)
    option.textContent = WORDS.message("page.imported", name=chosen.display_name)
    select.value = IMPORTED
    element("pipeline-status").textContent = WORDS.message(
        "import.pipeline.status", name=chosen.display_name,
        parts=", ".join(f"{part.role} {part.class_name}" for part in chosen.parts),
        defaults=load_pipelines()[chosen.defaults_of].display_name,
        ignored=", ".join(role for role, _ in chosen.ignored) or "-")
    update()


# ---------------------------------------------------------------- weight files: their headers only

FIRST_READ = 1 << 20  # a header's first slice; a GGUF's tokenizer makes some headers several MB


async def read_file_header(file):
    """A file's header from slices of its start (File.slice): never the tensors' data, never uploaded."""
    size = min(file.size, FIRST_READ)
    while True:
        data = (await file.slice(0, size).arrayBuffer()).to_bytes()
        try:
            return read_header(data, file.name)
        except Truncated as more:
            if more.needed > file.size or more.needed > MAX_HEADER_BYTES:
                raise ValidationError("weights", file.name, "the file ends inside its header") from None
            size = more.needed


@when("change", "#weights-file")
async def on_weights_file(event):
    files = [event.target.files.item(i) for i in range(event.target.files.length)]
    if not files:
        return
    error = element("weights-error")
    name = files[0].name + (f" (+{len(files) - 1})" if len(files) > 1 else "")
    try:
        given = WeightsGiven(name=name, headers=tuple([await read_file_header(file) for file in files]))
    except ValidationError as problem:  # a header, or the files together (a tensor twice, a projector, ...)
        error.textContent = WORDS.problem(problem)
        return
    use_weights(given)


def use_weights(given):
    """Weights from the files' headers: a GGUF alone is its model, on llama.cpp; safetensors shards
    are the weights of the model chosen or imported."""
    element("weights-error").textContent = ""
    state["weights"] = given
    element("weights-clear").hidden = given is None
    option = element("model").querySelector("option[value='weights']")
    option.disabled = given is None or given.kind != "gguf"
    element("weights-status").textContent = "" if given is None else WORDS.message(
        "page.weights", name=f"{given.name}, {format_binary(sum(h.nbytes for h in given.headers))}")
    if given is not None:
        element("precision").value = "auto"
        if given.kind == "gguf":
            option.textContent = WORDS.message("page.imported", name=given.name)
            if state["config"] is None:
                element("model").value = "weights"
            if element("runtime").value not in ("llamacpp", "ollama"):
                element("runtime").value = "llamacpp"
    elif element("model").value == "weights":
        element("model").value = DEFAULTS["model"]
    update()


@when("click", "#weights-clear")
def on_weights_clear(event):
    element("weights-file").value = ""
    use_weights(None)


# ---------------------------------------------------------------- a Hugging Face id, read on request
#
# Nothing goes to huggingface.co but on a click of #hf-read, whose neighbour #hf-sends names the two
# addresses it will ask for (the Content-Security-Policy allows that host and no other). A link carries
# the id (hf=) and fills the field; opening it requests nothing. The config.json read is kept in local
# storage, so the same click works offline afterwards.

HUB = "https://huggingface.co"
HUB_TIMEOUT_MS = 10_000
HUB_SAVED = "vramcalc.hf:"  # local storage: a repository@revision's config.json, as last read and imported


def hub_addresses(text):
    """(repo, revision, the model info's address, config.json's address) for an id; ValidationError naming hf."""
    repo, revision = hub.parse_id(text)
    at = quote(revision, safe="")
    return repo, revision, f"{HUB}/api/models/{repo}/revision/{at}?blobs=true", f"{HUB}/{repo}/resolve/{at}/config.json"


@when("input", "#hf-id")
def on_hf_input(event):
    if element("hf-id").value.strip() != state["hf_linked"]:
        state["hf_linked"] = None  # the person is typing another id: the link no longer names the linked one
    show_hub_request()


def show_hub_request():
    """Say what a click will send, for the id as typed."""
    element("hf-error").textContent = ""
    try:
        _, _, info, config = hub_addresses(element("hf-id").value)
        element("hf-sends").textContent = WORDS.message("import.hf_sends", info=info, config=config)
    except ValidationError:
        element("hf-sends").textContent = WORDS.message("import.hf_sends_none")


async def hub_text(url):
    """(the body or None, the response or None, why not): a GET without credentials, HUB_TIMEOUT_MS at most."""
    options = to_js({"credentials": "omit", "signal": window.AbortSignal.timeout(HUB_TIMEOUT_MS)},
                    dict_converter=window.Object.fromEntries)
    try:
        response = await window.fetch(url, options)
        if not response.ok:
            return None, response, str(response.status)
        return await response.text(), response, ""
    except Exception as error:  # offline, refused, timed out (also mid-body), or blocked by the policy
        return None, None, str(getattr(error, "name", "") or type(error).__name__)


def saved_config(repo, revision):
    try:
        saved = window.localStorage.getItem(f"{HUB_SAVED}{repo}@{revision}")
    except Exception:  # storage switched off
        return None
    return None if saved is None or saved is jsnull else str(saved)


def save_config(repo, revision, config):
    try:
        window.localStorage.setItem(f"{HUB_SAVED}{repo}@{revision}", config)
    except Exception:  # storage full or switched off: the answer stands, it is only not kept
        return False
    return True


async def read_hub(text):
    """(config.json's text or None, what to say, whether it is fresh from the Hub) for the id `text`.
    A repository that is gated, private or missing is said so; a Hub that cannot be reached, or that
    answers otherwise (429, 5xx), gives way to this browser's copy, if it has one."""
    repo, revision, info_url, config_url = hub_addresses(text)
    body, response, why = await hub_text(info_url)
    if body is not None:
        try:
            files = hub.files_of(json.loads(body))
        except (ValueError, AttributeError):
            return None, WORDS.message("page.hf.not_json", url=info_url), False
        if "config.json" not in {name for name, _ in files}:
            models = hub.gguf_files(files)
            if models:
                listed = "; ".join(m.describe() for m in models)
                return None, WORDS.message("page.hf.gguf", repo=repo, files=listed), False
            if "model_index.json" in {name for name, _ in files}:  # a diffusers pipeline: its folder, or the CLI
                return None, WORDS.message("page.hf.pipeline", repo=repo), False
            return None, WORDS.message("page.hf.no_model", repo=repo), False
        body, response, why = await hub_text(config_url)
        if body is not None:
            return body, "", True
    if response is not None and response.status in (401, 403, 404):
        return None, hub_refusal(response, repo, revision, response.url or info_url), False
    saved = saved_config(repo, revision)
    if saved is not None:
        return saved, WORDS.message("page.hf.saved", repo=repo, why=why), False
    if response is not None:
        return None, hub_refusal(response, repo, revision, response.url or info_url), False
    return None, WORDS.message("page.hf.unreachable", why=why), False


def hub_refusal(response, repo, revision, url):
    if response.status in (401, 403):
        return WORDS.message("page.hf.gated", repo=repo, status=response.status)
    if response.status == 404:
        return WORDS.message("page.hf.missing", repo=repo, revision=revision)
    return WORDS.message("page.hf.status", status=response.status, url=url)


@when("click", "#hf-read")
async def on_hf_read(event):
    button = element("hf-read")
    if button.disabled:  # a read is under way
        return
    text = element("hf-id").value.strip()
    error, status = element("hf-error"), element("hf-status")
    error.textContent = status.textContent = ""
    try:
        repo, revision = hub.parse_id(text)
    except ValidationError as problem:
        error.textContent = WORDS.problem(problem)
        return
    button.disabled = True
    status.textContent = WORDS.message("page.hf.reading", repo=repo)
    try:
        config, said, fresh = await read_hub(text)
        if config is None:
            error.textContent, status.textContent = said, ""
            return
        element("config-text").value = config
        if not use_config(config, hf=text):  # read, but not a config.json this page reads: said by config-error
            status.textContent = ""
            return
        state["hf_linked"] = None
        if fresh:
            key = "page.hf.read" if save_config(repo, revision, config) else "page.hf.read_unsaved"
            said = WORDS.message(key, repo=repo, revision=revision)
        status.textContent = said
    except Exception as failure:  # a bug, not the network: say so rather than leave "Reading..." on screen
        window.console.warn(f"vramcalc: reading {text}: {type(failure).__name__}: {failure}")
        error.textContent, status.textContent = WORDS.message("page.hf.unreachable", why=type(failure).__name__), ""
    finally:
        button.disabled = False


def linked_hub_id(notices):
    """A link's hf=ORG/NAME: the field filled and the import opened, the button left for the person to press."""
    query = str(window.location.search).removeprefix("?")
    text = next((value for key, value in parse_qsl(query) if key == "hf"), None)
    if not text:
        return
    try:
        repo, _ = hub.parse_id(text)
    except ValidationError as problem:
        notices.append(WORDS.message("link.ignored", problem=problem))
        return
    element("hf-id").value = text
    element("import").open = True
    state["hf_linked"] = text
    show_hub_request()
    notices.append(WORDS.message("link.hf", repo=repo, button=WORDS.message("import.hf_button"),
                                 where=WORDS.message("import.summary")))


@when("click", "#copy-command")
async def on_copy_command(event):
    try:
        await window.navigator.clipboard.writeText(element("run-command").textContent)
    except Exception:  # the clipboard may be refused (permissions, insecure context): the text stays selectable
        window.console.warn("vramcalc: the clipboard refused the command")


@when("click", "#copy-link")
async def on_copy_link(event):
    status = element("copy-status")
    try:
        write_link()
        await window.navigator.clipboard.writeText(window.location.href)
        status.textContent = WORDS.message("page.copied")
    except Exception:  # the clipboard may be refused (permissions, insecure context)
        status.textContent = WORDS.message("page.copy_failed")


# ---------------------------------------------------------------- export


def shown():
    """The breakdown on screen and its GPU count (1 when the GPU fields are not valid)."""
    workload = state["shown"]["workload"]
    target_workload, target = state["shown"]["target"]
    return estimate(workload), target.count if target_workload == workload else 1


def download(name, text, mime):
    blob = window.Blob.new(to_js([text]), to_js({"type": mime}, dict_converter=window.Object.fromEntries))
    url = window.URL.createObjectURL(blob)
    link = document.createElement("a")
    link.href, link.download = url, name
    document.body.appendChild(link)
    link.click()
    link.remove()
    window.URL.revokeObjectURL(url)
    element("export-status").textContent = WORDS.message("export.downloaded", name=name)


@when("click", "#export-csv")
def on_export_csv(event):
    breakdown, gpus = shown()
    download("vram.csv", to_csv(breakdown, gpus, words=WORDS), "text/csv")


@when("click", "#export-json")
def on_export_json(event):
    breakdown, gpus = shown()
    download("vram.json", json.dumps(to_json(breakdown, fit_all(breakdown), gpus, words=WORDS), indent=2),
             "application/json")


@when("click", "#export-markdown")
async def on_export_markdown(event):
    breakdown, gpus = shown()
    write_link()
    text = to_markdown(breakdown, gpus, verdict=element("verdict-text").textContent, link=str(window.location.href),
                       words=WORDS)
    status = element("export-status")
    try:
        await window.navigator.clipboard.writeText(text)
        status.textContent = WORDS.message("export.copied")
    except Exception:  # the clipboard may be refused: offer the file instead
        download("vram.md", text, "text/markdown")


@when("click", "#export-print")
def on_export_print(event):
    window.print()


# ---------------------------------------------------------------- start


REMEMBERED = "vramcalc.gpu"  # localStorage key, written only while "Remember my card" is ticked


def remember_gpu(values):
    saved = json.dumps({"gpu": values["gpu"], "gpus": values["gpus"]}) if element("remember-gpu").checked else None
    if WRITTEN.get("remembered", "") == saved:
        return
    if saved is None:
        window.localStorage.removeItem(REMEMBERED)
    else:
        window.localStorage.setItem(REMEMBERED, saved)
    WRITTEN["remembered"] = saved


def remembered_gpu():
    """The card the user asked this browser to remember, as link values checked like a link's
    ({} if none or unreadable), and what was ignored of it, in words."""
    try:
        saved = json.loads(window.localStorage.getItem(REMEMBERED) or "{}")
    except Exception:  # storage disabled, or not ours
        return {}, []
    if not isinstance(saved, dict):
        return {}, []
    values = {key: str(saved[key])[:100] for key in ("gpu", "gpus") if key in saved}
    *_, problems = parse_link(values)
    for problem in problems:
        values.pop(problem.field, None)
    return values, [WORDS.message("page.remembered_ignored", problem=problem) for problem in problems]


def linked_values():
    """What the link and this browser's remembered card set, and the notices about what was ignored.
    A remembered card fills in where the link names none."""
    decoded = decode(str(window.location.search))
    state["given"].update(decoded.given)
    saved, ignored = remembered_gpu()
    element("remember-gpu").checked = bool(saved)
    linked = {key for key, _ in parse_qsl(str(window.location.search).removeprefix("?"))}
    return ({**{k: v for k, v in saved.items() if k not in linked}, **decoded.values},
            [*(WORDS.say(notice) for notice in decoded.notices), *ignored])


def start():
    # Nothing a link or local storage holds may stop the start: a value that reaches code that breaks
    # is a bug to fix there, and this keeps the page usable (and says so) until it is.
    typed = read_form()  # what the user changed while Python was starting stays as they set it
    edits = [str(id_) for id_ in (window.vramcalcBootEdits or [])]
    try:
        values, notices = linked_values()
        write_form({key: value for key, value in values.items() if typed[key] == DEFAULTS[key]})
        linked_hub_id(notices)
    except Exception as error:
        window.console.warn(f"vramcalc: link or storage: {type(error).__name__}: {error}")
        write_form(typed)
        notices = [WORDS.message("page.start_error", kind=type(error).__name__)]
    notice = element("notice")
    notice.textContent = "\n".join(notices)  # one line each (#notice keeps the line breaks)
    notice.hidden = not notices
    try:
        # then the edits, in the order last made, as an edit is applied when Python is running; a field
        # set after an edit that changes it (the engine after the format) keeps what the user set
        order = [id_ for id_ in list(dict.fromkeys(reversed(edits)))[::-1] if element(id_) is not None]
        for position, id_ in enumerate(order):
            apply_edit(element(id_))
            later = {"mode" if later.startswith("mode-") else later for later in order[position + 1:]}
            write_form({key: typed[key] for key in later if key in typed})
        if edits or read_form() != DEFAULTS:  # otherwise the prerendered numbers are already the right ones
            update()
    except Exception as error:
        show_failure(error)
    set_hidden("stale-boot", True)
    flush()
    element("status").textContent = WORDS.message("page.status.ready")
    root = document.documentElement
    # Which parts came precompiled (loader.mjs, the stdlib zip, vramcalc.zip); the tests and bench/page.py check it.
    modules = (("stdlib", json), ("pyscript", sys.modules["pyscript"]), ("engine", vramcalc))
    compiled = [name for name, module in modules if module.__file__.endswith(".pyc")]
    root.setAttribute("data-bytecode", ",".join(compiled) or "none")
    root.setAttribute("data-py-ready", "1")


def time_engine():
    """Milliseconds for every preset on every GPU plus a 200-point sequence sweep, in this
    interpreter: bench/page.py calls it through window.vramcalcTimeEngine."""
    start = time.perf_counter()
    for slug in load_presets():
        fit_all(estimate(parse_workload({"model": slug})))
    workload = parse_workload({})
    for index in range(200):
        estimate(dataclasses.replace(workload, seq=1 + index * 1000))
    return (time.perf_counter() - start) * 1000


window.vramcalcTimeEngine = create_proxy(time_engine)
window.vramcalcEngineTimes = create_proxy(lambda: to_js(list(state["engine_ms"])))


start()
