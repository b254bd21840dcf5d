"""The catalog in words: the line under the model picker, and `vramcalc models`' table rows."""

from __future__ import annotations

import dataclasses

from ..formats.weights import native_format_phrase
from ..sources.catalog import Entry, entries
from .messages import ENGLISH, Words


def facts(slug: str, *, words: Words = ENGLISH) -> str:
    """One line under the picker: what the chosen preset is."""
    entry = next((e for e in entries() if e.slug == slug), None)
    if entry is None:
        return ""
    params = words.count(entry.params)
    if entry.active_params != entry.params:
        params += words.message("results.active", count=words.count(entry.active_params))
    text = words.message("model.facts", hf_id=entry.hf_id, params=params,
                   context=f"{entry.context:,}" if entry.context else "?", architecture=words.say(entry.architecture))
    if entry.native_format:
        text += words.message("model.facts.native", format=words.say(native_format_phrase(entry.native_format)))
    return text


def summary_line(entry: Entry) -> str:
    """A row of `vramcalc models`, in English like the rest of the command line."""
    params = ENGLISH.count(entry.params)
    if entry.active_params != entry.params:
        params += f" ({ENGLISH.count(entry.active_params)} active)"
    context = f"{entry.context:,}" if entry.context else "-"
    return f"{entry.slug:<38} {entry.name:<30} {params:<26} {context:>10}  {ENGLISH.say(entry.architecture)}"


def as_json(entry: Entry) -> dict[str, object]:
    """An entry under its public names (`vramcalc models --json`), the architecture in English."""
    return {**dataclasses.asdict(entry), "architecture": ENGLISH.say(entry.architecture)}
