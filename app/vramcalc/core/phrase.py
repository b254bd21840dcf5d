"""What the engine says, in no language: a sentence of the catalogues named by its key, with its
numbers. The engine's formulas, notes and assumptions are Phrases; render/ turns them into words in
the language of the page (render/messages.py `say`), so nothing below render/ makes a sentence.

A Formula is a sequence of parts, each a Phrase or a literal string (" + ", "; ", or a number the
engine has written as an English-style figure, "14.96 GiB", which render/ writes the page's way).
A Phrase's values are numbers, names, figures, or other Phrases and Formulas, said in turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Union

Part = Union["Phrase", str]
Formula = tuple[Part, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Phrase:
    key: str
    values: tuple[tuple[str, object], ...] = ()


def phrase(key: str, /, **values: object) -> Phrase:
    return Phrase(key, tuple(values.items()))


def join(separator: str, parts: Iterable[Part | Formula]) -> Formula:
    """The parts with `separator` between them, as one Formula (a part that is a Formula is spliced in)."""
    joined: list[Part] = []
    for index, part in enumerate(parts):
        if index:
            joined.append(separator)
        joined.extend(part if isinstance(part, tuple) else (part,))
    return tuple(joined)
