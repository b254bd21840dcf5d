"""The record of one input key, and the parsers its rows are made of.

An `Option` says everything the input layer, the command line and the page need to know about one
key: its link key and text default, the parser that turns text into a value, its command-line
flag, its help text, its group, and when the page shows it. `inputs/options.py` holds the table of
them; an engine declares its own keys with the same record (engines/vllm.py, engines/llamacpp.py),
so this module sits in `core` and imports nothing above it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Callable, Mapping

from .errors import ValidationError


class Kind(enum.Enum):
    """How the command line takes the key."""

    VALUE = "value"  # --flag TEXT
    FLAG = "flag"  # --flag alone (store_true): "1" when given, else "0"; a checkbox on the page
    CHOICE = "choice"  # --flag TEXT, argparse refusing what `choices` does not list


@dataclasses.dataclass(frozen=True, slots=True)
class Not:
    """In a condition: the value is none of these."""

    values: tuple[str, ...]


When = Mapping[str, "tuple[str, ...] | Not"]
"""A condition on the form's values: every key's value (stripped) is one of its tuple's (or none of a Not's)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One input key: the same name in a link, the form (the control's id) and on the command line."""

    key: str  # the link key (`kv_heads`); the command line's `--kv-heads`
    default: str  # the default, as text
    parse: Callable[[str], object]  # text -> value; raises ValidationError naming `key`
    group: str  # model, request, training, engine, machine, target, layout, capacity
    help: str | Callable[[], str] | None = None  # the command line's help text (a callable when it lists data)
    kind: Kind = Kind.VALUE
    choices: tuple[str, ...] = ()  # the values a select offers (Kind.CHOICE: the only ones argparse takes)
    metavar: str | None = None
    flags: tuple[str, ...] = ()  # the command-line flags; empty: --key with dashes for underscores
    cli_group: str | None = None  # the --help section, when it is not `group`'s ("" for the top section)
    attribute: str | None = None  # the Workload attribute, when it is not `key` (a key named by its unit)
    shown_when: When | tuple[When, ...] = ()  # the page shows the key when any of these holds (empty: always)

    def __post_init__(self) -> None:
        if isinstance(self.shown_when, Mapping):
            object.__setattr__(self, "shown_when", (self.shown_when,))

    @property
    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.key.replace("_", "-"),)

    @property
    def checkbox(self) -> bool:
        """A yes/no key: a checkbox on the page, a store_true flag on the command line, "1"/"0" in a link."""
        return self.kind is Kind.FLAG

    @property
    def help_text(self) -> str | None:
        return self.help() if callable(self.help) else self.help

    def shown(self, values: Mapping[str, str]) -> bool:
        """Whether the page shows this key for the form's `values`."""
        conditions = self.shown_when if isinstance(self.shown_when, tuple) else (self.shown_when,)
        return not conditions or any(holds(when, values) for when in conditions)


def holds(when: When, values: Mapping[str, str]) -> bool:
    for key, allowed in when.items():
        value = values.get(key, "").strip()
        if isinstance(allowed, Not):
            if value in allowed.values:
                return False
        elif value not in allowed:
            return False
    return True


# ---------------------------------------------------------------- the parsers the rows are made of

MAX_BATCH = 1_000_000
MAX_SEQ = 100_000_000  # 100M tokens: beyond any model today, far below overflow

_INT_RE = re.compile(r"[ \t]*[0-9]{1,18}[ \t]*")  # not \s, which also matches "\x1f": int() refuses that
_DECIMAL_RE = re.compile(r"[ \t]*([0-9]{1,15}(\.[0-9]{0,12})?|\.[0-9]{1,12})[ \t]*")


def parse_int(field: str, text: str, low: int, high: int) -> int:
    """A whole number written in decimal digits, within [low, high]."""
    if not isinstance(text, str) or not _INT_RE.fullmatch(text):
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    value = int(text)
    if not low <= value <= high:
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    return value


_VERSION_RE = re.compile(r"\s*v?(\d{1,3})\.(\d{1,3})(?:\.(\d{1,3}))?(?:-rc\d+|\.post\d+)?\s*")


def parse_version(field: str, text: str, example: str) -> tuple[int, int, int] | None:
    """A program's version (0.15.5, v0.6.7, 0.9): None when empty or 'latest'."""
    if text.strip() in ("", "latest"):
        return None
    match = _VERSION_RE.fullmatch(text)
    if not match:
        raise ValidationError(field, text, f"a version such as {example}")
    return int(match[1]), int(match[2]), int(match[3] or 0)


_TOKENS_RE = re.compile(r"[ \t]*([0-9]{1,12})[ \t]*[kK][ \t]*")


def parse_tokens(field: str, text: str, low: int, high: int) -> int:
    """A number of tokens: whole, or in thousands of 1,024 as contexts are named ("32k" = 32,768, "128K")."""
    match = _TOKENS_RE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return parse_int(field, text, low, high)
    value = int(match.group(1)) * 1024
    if not low <= value <= high:
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    return value


def parse_decimal(field: str, text: str, low: float, high: float, *, low_inclusive: bool = True) -> float:
    """A plain decimal number (digits and one point: no exponent, sign, NaN or infinity)."""
    allowed = (f"expected a number {'from' if low_inclusive else 'above'} {plain(low)} "
               f"{'to' if low_inclusive else 'up to'} {plain(high)}")
    if not isinstance(text, str) or not _DECIMAL_RE.fullmatch(text):
        raise ValidationError(field, text, allowed)
    value = float(text)
    too_low = value < low if low_inclusive else value <= low
    if not math.isfinite(value) or too_low or value > high:
        raise ValidationError(field, text, allowed)
    return value


def plain(number: float) -> str:
    return f"{number:,.0f}" if number == int(number) else f"{number:g}"


def parse_choice(field: str, text: str, enum_type: type[enum.Enum]) -> object:
    for member in enum_type:  # in any case: Q8_0 as llama.cpp writes it, q8_0 as the link does
        if text.lower() == str(member.value).lower():
            return member
    loose = [m for m in enum_type if _loose(str(m.value)) == _loose(text)]  # llama.cpp, vLLM, adamw_8bit
    if len(loose) == 1:
        return loose[0]
    named = [str(m.value) for m in enum_type if m.value != ""]
    empty = " or nothing (the default)" if len(named) < len(enum_type) else ""
    raise ValidationError(field, text, "expected one of: " + ", ".join(named) + empty)


def _loose(text: str) -> str:
    return re.sub(r"[\s._-]", "", text.lower())


def parse_flag(field: str, text: str) -> bool:
    if text in ("1", "true", "on"):
        return True
    if text in ("0", "false", "off", ""):
        return False
    raise ValidationError(field, text, "expected 1 or 0")


def optional(parse: Callable[[str], object]) -> Callable[[str], object]:
    """`parse`, with blank text meaning None (the engine's own default)."""
    return lambda text: None if text.strip() == "" else parse(text)


def values_of(enum_type: type[enum.Enum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum_type)
