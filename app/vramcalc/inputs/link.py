"""Shareable links: the configuration as a query string, and back.

A link is untrusted input. `decode` caps its size, keeps the first of repeated
keys, ignores unknown keys, checks every value with the same parsers as the form
(workload.parse_link) and drops what is invalid, and says what it dropped. It never
raises. `encode` writes only the keys that differ from the defaults, so links stay
short and a default that changes later does not rewrite old links' meaning for
the keys they carry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from urllib.parse import parse_qsl, urlencode

from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..diffusion.imported import IMPORTED
from ..sources.gpus import named
from ..training.frameworks import FRAMEWORK_KEYS
from .options import CONFIG, CUSTOM, CUSTOM_KEYS, DEFAULTS, LAYOUT_KEYS, shown_values
from .parse import parse_link

MAX_QUERY_CHARS = 2000
MAX_FIELDS = 64
MAX_VALUE_CHARS = 100


@dataclasses.dataclass(frozen=True)
class Decoded:
    values: dict[str, str]  # known keys with valid values only
    notices: tuple[Phrase, ...]  # what was ignored (render/ says it)
    given: frozenset[str] = frozenset()  # a framework's settings the link sets, its defaults then leave them


def _shown(text: str, limit: int = 30) -> str:
    """A piece of untrusted text, safe and short enough to quote in a notice (it is set as text, never markup)."""
    printable = "".join(c if c.isprintable() else "?" for c in text)
    return repr(printable[:limit] + ("…" if len(printable) > limit else ""))


# read by the page itself: its language (en or pt, static/lang.js) and a Hugging Face id (main.py, read on a click)
PAGE_KEYS = ("lang", "hf")


def decode(query: str) -> Decoded:
    query = query.removeprefix("?")
    notices = []
    if len(query) > MAX_QUERY_CHARS:
        notices.append(phrase("link.too_long", limit=MAX_QUERY_CHARS))
        query = query[:MAX_QUERY_CHARS]
    pieces = query.split("&")
    if len(pieces) > MAX_FIELDS:
        notices.append(phrase("link.too_many", limit=MAX_FIELDS))
        pieces = pieces[:MAX_FIELDS]
    values: dict[str, str] = {}
    unknown: list[str] = []
    repeated: list[str] = []
    for key, value in parse_qsl("&".join(pieces), keep_blank_values=True, errors="replace"):
        if key in PAGE_KEYS:
            continue  # read by the page itself, not a setting of the calculation
        if key not in DEFAULTS:
            unknown.append(key)
        elif key in values:
            repeated.append(key)
        elif len(value) > MAX_VALUE_CHARS:
            notices.append(phrase("link.value_too_long", field=key, limit=MAX_VALUE_CHARS))
            values[key] = DEFAULTS[key]
        else:
            values[key] = value
    if values.get("model") == CONFIG:
        notices.append(phrase("link.config"))
        del values["model"]
    if values.get("pipeline") == IMPORTED:
        notices.append(phrase("link.pipeline_config"))
        del values["pipeline"]
    given = frozenset(key for key in values if key in FRAMEWORK_KEYS)
    values = _with_plus(values, given)
    if "gpu" in values:  # a card named as people type it ("rtx4090", "4090") opens as its slug; each of a list
        values["gpu"] = ",".join(_slug(card) for card in values["gpu"].split(","))  # (two alike: not one card)
    shown = shown_values(values)  # a key the page would hide (tp with one GPU) opens as its default
    # the layout's keys are said (they made the page refuse one GPU); others a hidden field holds never counted
    hidden = sorted(key for key in LAYOUT_KEYS if key in values and shown[key] != values[key])
    if hidden:
        notices.append(phrase("link.hidden", keys=", ".join(hidden)))
    values = shown
    *_, problems = parse_link(values, given=given)
    for problem in problems:
        if problem.field not in (*values, *LAYOUT_KEYS, "model", *CUSTOM_KEYS):
            continue  # a default the link left alone (GRPO's 8 generations, batch 1): the form says so
        notices.append(phrase("link.ignored", problem=problem))
        values.pop(problem.field, None)
        if problem.field in LAYOUT_KEYS:  # a layout these GPUs cannot run opens as the default layout
            for key in LAYOUT_KEYS:
                values.pop(key, None)
        if problem.field == "model" or problem.field in CUSTOM_KEYS:  # a broken model falls back whole
            for key in ("model", *CUSTOM_KEYS):
                values.pop(key, None)
    if unknown:
        notices.append(phrase("link.unknown", keys=", ".join(_shown(k) for k in sorted(set(unknown))[:10])))
    if repeated:
        notices.append(phrase("link.repeated", keys=", ".join(sorted(set(repeated)))))
    values = {key: value for key, value in values.items() if value != DEFAULTS[key] or key in given}
    return Decoded(values=values, notices=tuple(notices), given=given & values.keys())


def _slug(card: str) -> str:
    """A card's slug, or the text as typed: a card's memory ("24gb"), or refused below with the reason."""
    try:
        return named(card.strip(" \t")) if "," not in card else card
    except ValidationError:
        return card


def _with_plus(values: dict[str, str], given: frozenset[str]) -> dict[str, str]:
    """A "+" typed into a link reads as a space (form encoding), so a hand-typed
    offload=optimizer+params arrives as "optimizer params". A value with a space that is
    refused takes its "+" spelling back when that one is read differently (valid, or
    refused for another reason, which is then the one reported)."""
    *_, problems = parse_link(values, given=given)
    spaced = {p.field: p.allowed for p in problems if " " in values.get(p.field, "")}
    if not spaced:
        return values
    plus = {**values, **{key: values[key].replace(" ", "+") for key in spaced}}
    *_, again = parse_link(plus, given=given)
    still = {(p.field, p.allowed) for p in again}
    return {**values, **{key: plus[key] for key in spaced if (key, spaced[key]) not in still}}


def encode(values: Mapping[str, str], given: Collection[str] = ()) -> str:
    """The query string (without '?') for form values: the non-default keys the page shows, and a framework's
    setting the user set at the form's default (`given`), which the framework's default would otherwise take."""
    shown = shown_values({key: value for key, value in values.items() if key in DEFAULTS})
    framework = shown.get("framework", DEFAULTS["framework"]) != DEFAULTS["framework"]
    keep = {key: value for key, value in shown.items()
            if value != DEFAULTS[key] or (framework and key in given and key in FRAMEWORK_KEYS)}
    if values.get("model") != CUSTOM:
        for key in CUSTOM_KEYS:
            keep.pop(key, None)
    if values.get("model") == CONFIG:
        keep.pop("model")  # an imported file stays on this machine; the link cannot carry it
    if values.get("pipeline") == IMPORTED:
        keep.pop("pipeline", None)  # as model=config: the imported pipeline's files stay on this machine
    return urlencode(keep)
