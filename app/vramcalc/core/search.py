"""Binary searches over a monotone test of whole numbers: every answer of "the fewest that fit" or "the most that
fit" (memory grows with the number searched, or falls)."""

from __future__ import annotations

from collections.abc import Callable


def first_true(holds: Callable[[int], bool], low: int, high: int) -> int | None:
    """The smallest n in [low, high] for which `holds`, false below it and true from it on (None: not even high)."""
    if low > high or not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if holds(middle) else (middle + 1, high)
    return low


def last_true(holds: Callable[[int], bool], low: int, high: int) -> int | None:
    """The largest n in [low, high] for which `holds`, true up to it and false after (None: not even low)."""
    if low > high or not holds(low):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if holds(middle) else (low, middle - 1)
    return low
