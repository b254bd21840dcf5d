"""Typed reads of a config's fields: each value checked for its type and range, refused in words naming the key
(the config readers of decoders, encoders, rerankers and speech models share them)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from ..core.errors import ValidationError

MAX_DIM = 1_000_000  # hidden, ffn, vocabulary: far above any real model
MAX_LAYERS = 10_000
MAX_HEADS = 100_000
MAX_POSITIONS = MAX_DIM * 100


def read_int(config: Mapping[str, object], key: str, low: int, high: int, *, default: int | None = None) -> int:
    value = config.get(key)
    if value is None:
        if default is None:
            raise ValidationError(key, None, f"config.json needs an integer {key} from {low:,} to {high:,}")
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and (
        not math.isfinite(value) or value != int(value)
    )):
        raise ValidationError(key, value, f"expected an integer from {low:,} to {high:,}")
    number = int(value)
    if not low <= number <= high:
        raise ValidationError(key, value, f"expected an integer from {low:,} to {high:,}")
    return number


def read_bool(config: Mapping[str, object], key: str, *, default: bool) -> bool:
    value = config.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValidationError(key, value, "expected true or false")
    return value


def read_text(config: Mapping[str, object], key: str, limit: int = 100, *, field: str = "") -> str:
    """A string field ("" when absent or null), refused in words when it is another type or too long."""
    value = config.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(field or key, short(value), "expected a string")
    if len(value) > limit:
        raise ValidationError(field or key, short(value), f"at most {limit:,} characters")
    return value


def short(value: object) -> str:
    try:
        text = json.dumps(value)[:41] if not isinstance(value, str) else value
    except (ValueError, RecursionError):  # not JSON (a float nan is), or nested too deep
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."
