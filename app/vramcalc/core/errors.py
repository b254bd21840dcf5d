"""The one error type that bad input raises: it names the field, the value given
and what is allowed, so every front end can show it next to the right control."""

from __future__ import annotations


class ValidationError(ValueError):
    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field}: got {shown_value(value)}; {allowed}")


def shown_value(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
