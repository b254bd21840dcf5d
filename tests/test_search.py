"""core/search.py: the binary searches every "fewest that fit" and "most that fit" answer uses."""

from __future__ import annotations

import pytest

from vramcalc.core.search import first_true, last_true


@pytest.mark.parametrize("edge", range(12))
def test_each_search_finds_the_edge_of_a_monotone_test(edge):
    assert first_true(lambda n: n >= edge, 0, 10) == (edge if edge <= 10 else None)
    assert last_true(lambda n: n <= edge, 0, 10) == min(edge, 10)
    assert last_true(lambda n: n < edge, 0, 10) == (None if edge == 0 else min(edge - 1, 10))


def test_an_empty_range_holds_nothing():
    assert first_true(lambda n: True, 5, 4) is None and last_true(lambda n: True, 5, 4) is None
