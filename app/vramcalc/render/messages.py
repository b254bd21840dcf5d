"""Every user-facing sentence of the engine, in one catalogue per language (i18n/), so that the page
and the command line can be translated without touching a formula. Templates use str.format with
the names the formulas pass.

The language is never global: a renderer is handed a `Words` for the page's language (the command
line's is `ENGLISH`), and says everything through it. Portuguese (pt-BR, as the seed documents write
it) writes numbers with a decimal comma and a dot between thousands: 4.096 tokens, 14,96 GiB, 83,7%.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping

from ..core import units
from ..core.errors import ValidationError, shown_value
from ..core.phrase import Formula, Part, Phrase
from .i18n.en import EN
from .i18n.pt import PT

GUIDE_ENTRIES = 7

CATALOGUES: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT}
_SWAP = str.maketrans({",": ".", ".": ","})
# A field that is a number, possibly with its unit: "8,192", "14.96 GiB", "83.7%", "8.03B", "2.5x".
_NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?( ?(%|[KMGT]i?B|B|[KMBT]|x|×))?")


class Localized(str):
    """Text whose numbers are already written the language's way (a message leaves it alone)."""


class _PluralFormatter(string.Formatter):
    """str.format, where a field formatted `{n:sequence|sequences}` is the word before the bar when n is 1, the one
    after it otherwise (the count itself is written by its own `{n}`)."""

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" in format_spec:
            one, _, many = format_spec.partition("|")
            return one if str(value) == "1" else many
        return str(super().format_field(value, format_spec))


_PLURAL = _PluralFormatter()

# The reasons core/option.py gives for a value a field cannot take, as patterns; a reason of its own (a
# combination the engine refuses) has no pattern and is said in English, whole, rather than half translated.
_REASONS = (
    (re.compile(r"expected a whole number from ([\d,]+) to ([\d,]+)"), "problem.whole_number"),
    (re.compile(r"expected a number from (\S+) to (\S+)"), "problem.number"),
    (re.compile(r"expected a number above (\S+) up to (\S+)"), "problem.number_above"),
    (re.compile(r"expected one of: (.*) or nothing \(the default\)"), "problem.one_of_or_empty"),
    (re.compile(r"expected one of: (.*)"), "problem.one_of"),
    (re.compile(r"expected 1 or 0"), "problem.flag"),
    (re.compile(r"a version such as (\S+), as `(.+)` prints it"), "problem.version_printed"),
    (re.compile(r"a version such as (\S+)"), "problem.version"),
    # the free-text fields' and the link-only choices' own formats (training/lora.py, engines/llamacpp*.py,
    # sources/gpus.py): said in the page's language too
    (re.compile(r"expected all-linear, all-linear,head or a comma-separated subset of (\S+)"), "problem.lora_targets"),
    (re.compile(r"expected PATTERN=DEVICE, e\.g\. (\S+)"), "problem.override_tensor"),
    (re.compile(r"at least one proportion above 0 \(all zero: leave it empty\)"), "problem.tensor_split_zero"),
    (re.compile(r"at most (\d+) patterns"), "problem.at_most_patterns"),
    (re.compile(r"at most (\d+) proportions, one per GPU"), "problem.at_most_proportions"),
    (re.compile(r"a listed GPU or Mac \(e\.g\. (.+)\), or a card's memory such as (\S+) \((\d+) to (\d+) GB\)"),
     "problem.gpu"),
    (re.compile(r"a preset's name \(a small model of the same family\), or empty"), "problem.draft_model"),
    (re.compile(r"a GGUF type \((.+)\)"), "problem.gguf_type"),
    (re.compile(r"one of: (.*)"), "problem.one_of"),  # the diffusion pipeline's (diffusion/pipelines.py)
)


class _LocalFormatter(_PluralFormatter):
    """The plural formatter, with every numeric field (a number, or a string that is only a number and its unit)
    written the language's way; names such as 'Llama 3.1 8B' or 'q4_k_m' are left alone."""

    def __init__(self, words: Words) -> None:
        self.words = words

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" in format_spec:
            return super().format_field(value, format_spec)
        if isinstance(value, ValidationError):
            return self.words.problem(value)
        text: str = super().format_field(value, format_spec)
        if isinstance(value, Localized):
            return text
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        return self.words.localize(text) if numeric or (isinstance(value, str) and _NUMBER.fullmatch(text)) else text


class Words:
    """Sentences and numbers in one language."""

    def __init__(self, language: str) -> None:
        if language not in CATALOGUES:
            raise ValueError(f"language {language!r}: expected one of {', '.join(CATALOGUES)}")
        self.language = language
        self.catalogue = CATALOGUES[language]
        self._formatter = _LocalFormatter(self)

    def __repr__(self) -> str:
        return f"Words({self.language!r})"

    def localize(self, text: str) -> str:
        """A number written in English style (4,096.5) as this language writes it (4.096,5 in pt)."""
        return text if self.language == "en" or isinstance(text, Localized) else Localized(text.translate(_SWAP))

    def message(self, key: str, /, **values: object) -> str:
        if self.language == "en":
            template = EN[key]
            return str(_PLURAL.vformat(template, (), values)) if "|" in template else template.format(**values)
        return self._formatter.vformat(self.catalogue[key], (), values)

    def problem(self, problem: ValidationError) -> str:
        """A refused value in words: its field, what it got and what the field takes, in this language where the
        reason is one of core/option.py's (a range, a choice, a flag, a version); else as the engine wrote it."""
        if self.language == "en":
            return str(problem)
        for pattern, key in _REASONS:
            match = pattern.fullmatch(problem.allowed)
            if match:
                groups = [Localized(self.localize(g)) if g and _NUMBER.fullmatch(g) else g or ""
                          for g in match.groups()]
                reason = self.message(key, **{f"g{i}": g for i, g in enumerate(groups)})
                return self.message("problem", field=problem.field, value=shown_value(problem.value), reason=reason)
        return str(problem)

    def say(self, said: Part | Formula) -> str:
        """A Phrase or Formula of the engine (core/phrase.py) in words: its parts in turn, each Phrase from
        the catalogue with its values (themselves said first); a literal figure written this language's way."""
        if isinstance(said, str):
            return self.localize(said) if _NUMBER.fullmatch(said) else said
        if isinstance(said, tuple):
            return Localized("".join(self.say(part) for part in said))
        values = {name: Localized(self.say(value)) if isinstance(value, (Phrase, tuple)) else value
                  for name, value in said.values}
        return self.message(said.key, **values)

    # numbers, each naming its unit

    def gb(self, num_bytes: int, digits: int = 2) -> str:
        return self.localize(units.format_gb(num_bytes, digits))

    def gib(self, num_bytes: int, digits: int = 2) -> str:
        return self.localize(units.format_gib(num_bytes, digits))

    def count(self, value: int) -> str:
        """A large count in words people use for model sizes: 8.03B, 124.4M."""
        return self.localize(units.format_count(value))

    def binary(self, num_bytes: int) -> str:
        """A byte count in the largest binary unit that keeps it readable: 14.96 GiB, 501 MiB, 12 KiB."""
        return self.localize(units.format_binary(num_bytes))


ENGLISH = Words("en")
"""The command line's language, and the exports' when no other is asked for."""
