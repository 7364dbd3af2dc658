"""`_syntax/backtrack.py`: which patterns a backtracking matcher reads in ever more ways
(the grammar loader refuses them: SPEC G6, docs/grammars.md "Linear time")."""

from __future__ import annotations

import pytest

from toolparse._syntax.backtrack import MAX_POSITIONS, PatternTooLarge, cost_of

CASES = [
    # (pattern, "" for bounded, or a word of the verdict)
    (r"(a+)+b", "exponentially"),
    (r"(?:a*)*b", "exponentially"),
    (r"(a|ab)*(?:c|bc)*d", ""),
    (r"(a|a?)+", "exponentially"),
    (r"a*a*b", "polynomial"),
    (r"\w+\s*\w+x", "polynomial"),
    (r"(a?){8}a{8}", "polynomial"),          # a counted repeat is read as a loop
    (r"[^<]+(?=\s*<)", "polynomial"),         # the lookahead re-reads the loop's text
    (r"[^\s<]+(?=\s*<(?:a>|\/b>))", ""),      # GLM's name: the two never read one text
    (r"<x(?:\s+[a-z]+=\"[^\"<]*\")*\s*>", ""),  # a tag with attributes
    (r"(?i:ab)+c", ""),
    (r"[|｜]{0,2}[Dd]|[|｜]{1,2}", ""),
    (r"\d+\.\d+", ""),
]


@pytest.mark.parametrize(("pattern", "verdict"), CASES)
def test_what_a_backtracking_matcher_reads_in_ever_more_ways(pattern: str, verdict: str) -> None:
    found = cost_of(pattern).ambiguity
    assert (verdict in found) if verdict else found == "", (pattern, found)


def test_loops_say_what_they_read() -> None:
    cost = cost_of(r"<c=[^>]*x>")
    assert cost.loops_read("<>x") == ["<", "x"]
    assert cost_of(r"<call>").loops_read("<") == []


SEARCHED = [
    # (pattern, whether a search for it keeps ever more attempts alive)
    (r"<c=[^>]*x>", True),                   # `<c=<c=<c=...`: each attempt reads on
    (r"[a-z]+(?=\s*<)", True),
    (r"(?:a|b)*c", True),
    (r"<x(?:\s+a=\"[^\"<]*\")*\s*>", False),  # the value stops at `"`, the name at `<`
    (r"\[/x(?:\s+a=\"[^\"<]*\")*\s*>", False),  # its value reads `[`, not `[/x a="`
    (r"<call>", False),
]


@pytest.mark.parametrize(("pattern", "unbounded"), SEARCHED)
def test_a_search_keeps_a_bounded_number_of_attempts_alive(pattern: str,
                                                          unbounded: bool) -> None:
    assert bool(cost_of(pattern).searched) == unbounded, cost_of(pattern)


def test_size_counts_each_repeat_copy_and_is_bounded() -> None:
    assert cost_of("abc").positions == 3
    assert cost_of("(?:ab){3}").positions == 6
    with pytest.raises(PatternTooLarge):
        cost_of(f"(?:ab){{{MAX_POSITIONS}}}")
    with pytest.raises(ValueError, match="refers back"):
        cost_of(r"(a)\1")
