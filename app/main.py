"""The browser layer: the only Python that touches the page.

It reads the form (and, once at start, the link's query string) into the
engine's input layer, calls the engine, writes the numbers into the
prerendered elements with textContent and attributes (never markup), and keeps
the link in step with history.replaceState. PyScript runs it on the main thread;
the handlers below are bound with @when.
"""

from urllib.parse import parse_qsl, urlencode

from pyscript import document, when, window

from vramcalc import DEFAULTS, ValidationError, estimate, parse_config_json, parse_workload, parse_workload_lenient
from vramcalc.models import from_hf_config
from vramcalc.present import present

MAX_QUERY_CHARS = 2000
CUSTOM_KEYS = ("params", "hidden", "layers", "heads", "kv_heads", "vocab", "ffn")
state = {"config": None}


def element(id_):
    return document.getElementById(id_)


# ---------------------------------------------------------------- form <-> values


def read_form():
    values = {}
    for key in DEFAULTS:
        if key == "mode":
            values[key] = "training" if element("mode-training").checked else "inference"
        elif key == "mixed_precision":
            values[key] = "1" if element(key).checked else "0"
        else:
            values[key] = element(key).value
    return values


def write_form(values):
    for key, value in values.items():
        if key == "mode":
            element("mode-training").checked = value == "training"
            element("mode").checked = value != "training"
        elif key == "mixed_precision":
            element(key).checked = value == "1"
        else:
            element(key).value = value


def link_values(values):
    """The non-default keys, as a link carries them."""
    keep = {k: v for k, v in values.items() if v != DEFAULTS[k]}
    if values.get("model") != "custom":
        for key in CUSTOM_KEYS:
            keep.pop(key, None)
    if values.get("model") == "config":
        keep.pop("model")  # an imported file stays on this machine; the link cannot carry it
    return keep


# ---------------------------------------------------------------- rendering


def show_errors(problems):
    for key in DEFAULTS:
        target = element(f"{key}-error")
        if target is not None:
            target.textContent = ""
        field = element(key)
        if field is not None:
            field.removeAttribute("aria-invalid")
    for problem in problems:
        target = element(f"{problem.field}-error")
        if target is not None:
            target.textContent = str(problem)
        field = element(problem.field)
        if field is not None:
            field.setAttribute("aria-invalid", "true")


def render(breakdown):
    view = present(breakdown)
    total = element("total")
    total.setAttribute("data-bytes", str(view.total_bytes))
    element("total-gb").textContent = view.total_gb
    element("total-gib").textContent = view.total_gib
    element("summary").textContent = view.summary
    element("param-count").textContent = view.params
    for row in view.rows:
        tr = element(f"row-{row.key}")
        tr.setAttribute("data-bytes", str(row.bytes))
        tr.querySelector(".size").textContent = row.size
        tr.querySelector(".share").textContent = row.share
        tr.querySelector(".formula").textContent = row.formula
        rect = element(f"bar-{row.key}")
        rect.setAttribute("x", str(row.bar_x))
        rect.setAttribute("width", str(row.bar_width))
    element("bar-desc").textContent = view.bar_text
    for gpu in view.gpus:
        tr = element(f"gpu-{gpu.slug}")
        tr.setAttribute("data-verdict", gpu.verdict)
        tr.querySelector(".fill").style.width = f"{gpu.bar_percent}%"
        tr.querySelector(".pct").textContent = gpu.utilization
        tr.querySelector(".count").textContent = gpu.count
        tr.querySelector(".verdict").textContent = gpu.verdict
    notes = element("notes")
    while notes.firstChild:
        notes.removeChild(notes.firstChild)
    for note in view.notes:
        item = document.createElement("li")
        item.textContent = note
        notes.appendChild(item)


def update(*_args):
    values = read_form()
    element("custom-fields").hidden = values["model"] != "custom"
    element("training-fields").hidden = values["mode"] != "training"
    try:
        breakdown = estimate(parse_workload(values, config=state["config"]))
    except ValidationError as problem:
        show_errors([problem])
        element("results").classList.add("stale")
        element("stale").hidden = False
        return
    show_errors([])
    element("results").classList.remove("stale")
    element("stale").hidden = True
    render(breakdown)
    query = urlencode(link_values(values))
    window.history.replaceState(None, "", ("?" + query) if query else window.location.pathname)


@when("input", "#form")
@when("change", "#form")
def on_form_change(event):
    if event.target.id in ("config-file", "config-text"):
        return
    update()


# ---------------------------------------------------------------- config.json import


def use_config(text):
    error = element("config-error")
    try:
        config = parse_config_json(text)
        spec = from_hf_config(config)
    except ValidationError as problem:
        error.textContent = str(problem)
        return
    error.textContent = ""
    state["config"] = config
    option = element("model").querySelector("option[value='config']")
    option.disabled = False
    option.textContent = f"Imported: {spec.display_name}"
    element("model").value = "config"
    update()


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


@when("click", "#copy-link")
async def on_copy_link(event):
    status = element("copy-status")
    try:
        await window.navigator.clipboard.writeText(window.location.href)
        status.textContent = "Link copied."
    except Exception:  # the clipboard may be refused (permissions, insecure context)
        status.textContent = "Copy the address bar to share this configuration."


# ---------------------------------------------------------------- start


def start():
    query = str(window.location.search)[1:]
    pairs = parse_qsl(query[:MAX_QUERY_CHARS], keep_blank_values=True)
    link = {key: value for key, value in pairs if key in DEFAULTS}
    ignored = sorted({key for key, _ in pairs if key not in DEFAULTS})
    notice = element("notice")
    messages = []
    if link:
        _, problems = parse_workload_lenient(link)
        bad = {problem.field for problem in problems}
        # Apply the link only to fields the user has not changed while Python was starting.
        typed = read_form()
        untouched = {k: v for k, v in link.items() if k not in bad and typed[k] == DEFAULTS[k]}
        if link.get("model") == "config" or "model" in bad:
            untouched.pop("model", None)
        write_form(untouched)
        messages += [f"Ignored from the link: {problem}" for problem in problems]
    if ignored:
        messages.append("Ignored unknown link keys: " + ", ".join(k[:30] for k in ignored[:10]))
    if len(query) > MAX_QUERY_CHARS:
        messages.append(f"The link was longer than {MAX_QUERY_CHARS} characters; the rest was ignored.")
    notice.textContent = " ".join(messages)
    notice.hidden = not messages
    update()
    element("status").textContent = "Python is running: results update as you type."
    document.documentElement.setAttribute("data-py-ready", "1")


start()
