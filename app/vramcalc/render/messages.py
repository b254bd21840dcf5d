"""Every user-facing sentence of the engine, in one catalogue, so that the page
and the command line can be translated without touching a formula.
Templates use str.format with the names the formulas pass."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping

from ..core.phrase import Formula, Part, Phrase
from .i18n.en import EN
from .i18n.pt import PT


GUIDE_ENTRIES = 7

CATALOGUES: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT}
_language = ["en"]
_SWAP = str.maketrans({",": ".", ".": ","})
# A field that is a number, possibly with its unit: "8,192", "14.96 GiB", "83.7%", "8.03B", "2.5x".
_NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?( ?(%|[KMGT]i?B|B|[KMBT]|x|×))?")


def use_language(language: str) -> None:
    if language not in CATALOGUES:
        raise ValueError(f"language {language!r}: expected one of {', '.join(CATALOGUES)}")
    _language[0] = language


def language() -> str:
    return _language[0]


class Localized(str):
    """Text whose numbers are already written the current language's way (message() leaves it alone)."""


def localize(text: str) -> str:
    """A number written in English style (4,096.5) as the current language writes it (4.096,5 in pt)."""
    return text if _language[0] == "en" or isinstance(text, Localized) else Localized(text.translate(_SWAP))


class _LocalFormatter(string.Formatter):
    """str.format, with every numeric field (a number, or a string that is only a number and its unit)
    written the current language's way; names such as 'Llama 3.1 8B' or 'q4_k_m' are left alone."""

    def format_field(self, value: object, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        if isinstance(value, Localized):
            return text
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        return localize(text) if numeric or (isinstance(value, str) and _NUMBER.fullmatch(text)) else text


_FORMATTER = _LocalFormatter()


def message(key: str, /, **values: object) -> str:
    if _language[0] == "en":
        return EN[key].format(**values)
    return _FORMATTER.vformat(CATALOGUES[_language[0]][key], (), values)


def say(said: Part | Formula, language: str | None = None) -> str:
    """A Phrase or Formula of the engine (core/phrase.py) in words: its parts in turn, each Phrase from
    the catalogue with its values (themselves said first); a literal figure written the language's way.
    `language`: the page's (use_language) unless named."""
    if language is not None and language != _language[0]:
        previous = _language[0]
        use_language(language)
        try:
            return say(said)
        finally:
            use_language(previous)
    if isinstance(said, str):
        return localize(said) if _NUMBER.fullmatch(said) else said
    if isinstance(said, tuple):
        return Localized("".join(say(part) for part in said))
    values = {name: Localized(say(value)) if isinstance(value, (Phrase, tuple)) else value
              for name, value in said.values}
    return message(said.key, **values)
