"""What a grammar's terminals can cost the engine, checked when the grammar loads.

The engine matches terminals with Python's `re`, which backtracks; a grammar is refused
at load (`GrammarError` naming the terminal) when one of its terminals could make a
parse super-linear in the text (SPEC G6) or could never match (SPEC 5). docs/grammars.md,
"Linear time", says why each rule is enough:

- a terminal larger than `MAX_POSITIONS` character positions (its automaton, which the
  loader builds, would take seconds);
- an atom whose shortest match is longer than `MAX_ATOM` (it would never match);
- a terminal that can read some text in ever more ways (`backtrack.py`: `(a+)+b`,
  `a*a*b`, `[^<]+(?=\\s*<)`): one failing match would be exponential or polynomial;
- an atom whose loop can read the first character of a block opener, or, where it is
  tried at every place it can start, the start of another match of it (`<c=[^>]*x>`
  over `<c=<c=<c=...`): each attempt would read on over the next ones, quadratic.

The verdicts are cached with the grammar's other compiled data (one file per grammar,
keyed by its terminals' patterns), so a warm start reads them and analyses nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from toolparse._dialect.lexer import MAX_ATOM, TerminalSpec
from toolparse._syntax.backtrack import MAX_POSITIONS, Cost, PatternTooLarge, cost_of, size_of
from toolparse._syntax.files import cached_json
from toolparse._syntax.regexp import widths

__all__ = ["check_costs", "check_loops", "check_sizes"]

Refuse = Callable[[str, str], Exception]
"""(terminal name, message) -> the error to raise (a GrammarError naming file and line)."""


def check_sizes(patterns: Iterable[tuple[str, str]], refuse: Refuse) -> None:
    """Raises `refuse(...)` for the first terminal (name, regular expression) larger than
    `MAX_POSITIONS`: before Lark builds a parser, whose strict checks would take minutes."""
    for name, pattern in patterns:
        size = size_of(pattern)
        if size > MAX_POSITIONS:
            raise refuse(name, (
                f"terminal {name} cannot be checked: it is too large ({size:,} positions, "
                f"counting each repeat's copies; at most {MAX_POSITIONS:,}): split it into "
                "several terminals or shorten it"))


def check_costs(terminals: Iterable[TerminalSpec], refuse: Refuse) -> dict[str, Cost]:
    """Each terminal's cost; raises `refuse(...)` for the first one that is too large,
    never matches, or reads some text in ever more ways."""
    specs = list(terminals)
    for spec in specs:
        found = widths(spec.full.pattern)
        if not spec.is_run and found is not None and found[0] > MAX_ATOM:
            raise refuse(spec.name, (
                f"terminal {spec.name} is at least {found[0]:,} characters long, and an atom "
                f"(a tag) is at most {MAX_ATOM:,}: it would never match; shorten it"))
    verdicts = cached_json("costs", "\0".join(spec.full.pattern for spec in specs),
                           lambda: [_verdict(spec.full.pattern) for spec in specs], _read)
    costs: dict[str, Cost] = {}
    for spec, verdict in zip(specs, verdicts):
        if isinstance(verdict, str):
            raise refuse(spec.name, f"terminal {spec.name} cannot be checked: {verdict}")
        if verdict.ambiguity:
            raise refuse(spec.name, (
                f"terminal {spec.name} can read a text in ever more ways: "
                f"{verdict.ambiguity}; Python's regex engine would try them all. Make "
                "each character readable one way only"))
        costs[spec.name] = verdict
    return costs


def check_loops(atoms: Iterable[TerminalSpec], costs: dict[str, Cost],
                openers: Iterable[TerminalSpec], tried_often: Collection[str],
                refuse: Refuse) -> None:
    """Raises `refuse(...)` for an atom a loop of which can read the first character
    of a block opener, or, among the atoms tried wherever they can start (`tried_often`:
    those searched for, and those of a state that loops over a value's pieces), one
    whose loop can read the start of another match of it."""
    opener_chars = {char: spec.name for spec in openers for char in sorted(spec.starts or ())}
    for atom in atoms:
        cost = costs.get(atom.name)
        if atom.is_run or cost is None:
            continue
        if atom.name in tried_often and cost.searched:
            raise refuse(atom.name, (
                f"terminal {atom.name} is tried wherever it can start, and {cost.searched} "
                "(quadratic); make the loop stop at a character the start needs"))
        other = cost.loops_read(sorted(opener_chars))
        if other:
            raise refuse(atom.name, (
                f"terminal {atom.name} can read {other[0]!r}, the first character of "
                f"{opener_chars[other[0]]}, in a loop: it would read on over the blocks "
                f"after it (quadratic); exclude {other[0]!r} from the loop"))


def _verdict(pattern: str) -> list[Any] | str:
    """The cost of `pattern` as data, or why it cannot be checked."""
    try:
        return cost_of(pattern).to_data()
    except PatternTooLarge as e:
        return (f"it is too large ({e}; at most {MAX_POSITIONS:,}): split it into "
                "several terminals or shorten it")
    except (ValueError, TypeError, RecursionError) as e:
        return str(e)


def _read(data: Any) -> list[Cost | str]:
    if not isinstance(data, list):
        raise TypeError("the costs are a list")
    return [item if isinstance(item, str) else Cost.from_data(item) for item in data]
