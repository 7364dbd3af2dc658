"""The LALR table Lark builds from a grammar, and a small driver that runs it.

Lark decides what parses: the table (`Lark.parser.parser.parser.parse_table`) is Lark's
own, built from the grammar file. This module only reads it into plain dictionaries and
steps it, token by token, calling the builders of `build.py` at each reduction instead
of building a tree. An equivalence test (tests/test_driver_equivalence.py) checks that
it takes and refuses exactly the token sequences Lark's `InteractiveParser` does, on
every block of the corpus and on generated sequences.

Two speed-ups are read off the table too. A *default reduction*: a state whose every
action reduces the same rule reduces at once, without waiting for the next token (an LR
classic: it never changes which sequences are accepted). A *loop token* is a terminal T
in a state B such that shifting T leads to a state whose every action reduces a
left-recursive list rule `xs: xs T` back to B (Lark's `*`/`+` helpers, such as the text
runs of a value). Feeding T in B then changes nothing but the list on top of the value
stack, so the driver appends T's value there and does no shift and no reduce: a value of
any length costs one append per piece.

The table and rules come as the plain records of `records.py` (read off Lark by
`from_lark.py`, or from the cache), so this module never imports Lark.

Cost: one dictionary look-up per action; memory: the table, once per dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolparse._dialect.records import LalrTable, RuleRecord

__all__ = ["Driver", "Rejected", "Table", "flat", "general_value", "read_table",
           "reduce_above"]

SHIFT: Final = 0
REDUCE: Final = 1
END: Final = "$END"

Builder = Callable[[list[Any]], Any]


class Rejected(Exception):
    """The parser cannot take this token here (SPEC 3.2: the block fails at it)."""


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """One grammar rule as the driver needs it."""

    origin: str
    """The rule's name (Lark's: a `%import`ed rule carries its namespace)."""
    length: int
    """How many symbols it reduces."""
    flatten: bool
    """A helper or unnamed rule: its children join the parent's (no builder)."""
    left_list: bool
    """`xs: xs ...`: the first child is the list being extended."""
    expansion: tuple[str, ...]
    """The symbols it reduces, by name."""


@dataclass(frozen=True, slots=True)
class Table:
    """Lark's LALR table for one start rule set, as plain dictionaries."""

    actions: tuple[dict[str, tuple[int, int]], ...]
    """state -> {terminal: (SHIFT, next state) | (REDUCE, rule index)}."""
    gotos: tuple[dict[str, int], ...]
    """state -> {rule name: next state}."""
    rules: tuple[RuleInfo, ...]
    starts: dict[str, int]
    """Start rule -> its initial state."""
    ends: dict[str, int]
    """Start rule -> the state that accepts it."""
    loops: tuple[frozenset[str], ...]
    """state -> its loop tokens (see the module header)."""
    terminals: frozenset[str]
    defaults: tuple[int, ...] = ()
    """state -> the rule it reduces whatever comes next, or -1."""
    plans: tuple[tuple[int, str, bool], ...] = ()
    """rule -> (length, origin, left_list) of its `RuleInfo`, for the driver's loop."""
    shifts: tuple[dict[str, int], ...] = ()
    """state -> {terminal: next state} for the terminals it only shifts: no reduction
    before, none by default after, not a loop token (a caller may shift them itself)."""


def read_table(lalr: LalrTable, rule_records: Sequence[RuleRecord],
               terminals: frozenset[str]) -> Table:
    """A `Table` from Lark's parse table and rules (as `records.py` holds them)."""
    infos = tuple(_rule_info(rule) for rule in rule_records)
    count = len(lalr.states)
    actions: list[dict[str, tuple[int, int]]] = [{} for _ in range(count)]
    gotos: list[dict[str, int]] = [{} for _ in range(count)]
    for state, row in enumerate(lalr.states):
        for symbol, action in row.items():
            if symbol in terminals or symbol == END:
                actions[state][symbol] = action
            else:
                gotos[state][symbol] = action[1]
    table = Table(tuple(actions), tuple(gotos), infos, dict(lalr.start_states),
                  dict(lalr.end_states), (), terminals)
    loops = tuple(_loop_tokens(table, state) for state in range(count))
    defaults = tuple(_default_reduction(actions[state], gotos[state]) for state in range(count))
    shifts = tuple({term: target for term, (kind, target) in actions[state].items()
                    if kind == SHIFT and defaults[target] < 0 and term not in loops[state]}
                   for state in range(count))
    plans = tuple((info.length, info.origin, info.left_list) for info in infos)
    return Table(table.actions, table.gotos, infos, table.starts, table.ends, loops, terminals,
                 defaults, plans, shifts)


def _default_reduction(row: dict[str, tuple[int, int]], gotos: dict[str, int]) -> int:
    rules = {argument for kind, argument in row.values() if kind == REDUCE}
    if row and not gotos and len(rules) == 1 and all(kind == REDUCE for kind, _ in row.values()):
        return rules.pop()
    return -1


def _rule_info(rule: RuleRecord) -> RuleInfo:
    origin = rule.origin
    expansion = tuple(symbol.name for symbol in rule.expansion)
    own = origin.rsplit("__", 1)[-1] if not origin.startswith("__") else origin
    # Lark's `*`/`+` helpers and `_rules` inline into their parent; so do `?rules`.
    helper = origin.startswith("_") or own.startswith("_")
    return RuleInfo(origin=origin, length=len(expansion), flatten=helper or rule.expand1,
                    left_list=bool(expansion) and expansion[0] == origin, expansion=expansion)


def _loop_tokens(table: Table, state: int) -> frozenset[str]:
    found = set()
    for term, (kind, target) in table.actions[state].items():
        if kind != SHIFT:
            continue
        row = table.actions[target]
        if row and not table.gotos[target] and all(
                kind2 == REDUCE and _is_loop_rule(table.rules[rule], term)
                for kind2, rule in row.values()):
            found.add(term)
    return frozenset(found)


def _is_loop_rule(info: RuleInfo, term: str) -> bool:
    """`xs: xs term`, a flattened list rule (its value is the list, extended)."""
    return info.left_list and info.flatten and info.expansion[1:] == (term,)


def reduce_above(table: Table, stack: list[int], rule: int) -> bool:
    """Reduce `rule` on `stack`, states walked from a bottom one that must stay (a
    probe of what the table does after a token, `Grammar._held`, `whole._probe`): the
    goto pushed, or False when the reduction would pop the bottom state."""
    info = table.rules[rule]
    if info.length >= len(stack):
        return False
    del stack[len(stack) - info.length:]
    stack.append(table.gotos[stack[-1]][info.origin])
    return True


class Driver:
    """Steps `table` from one start rule, building values with `builders`.

    `builders[rule index]` is called with the rule's children at each reduction of a
    rule that is not flattened; flattened rules give their children to the parent.
    """

    __slots__ = ("actions", "gotos", "rules", "plans", "loops", "defaults", "builders",
                 "stack", "values", "end_state")

    def __init__(self, table: Table, start: str, builders: tuple[Builder | None, ...]) -> None:
        self.actions = table.actions
        self.gotos = table.gotos
        self.rules = table.rules
        self.plans = table.plans
        self.loops = table.loops
        self.defaults = table.defaults
        self.builders = builders
        self.stack: list[int] = [table.starts[start]]
        self.values: list[Any] = []
        self.end_state = table.ends[start]

    def feed(self, term: str, value: Any) -> None:
        """Take one token; raises Rejected when the grammar cannot take it here."""
        state = self.stack[-1]
        loops, actions = self.loops, self.actions
        while True:
            if term in loops[state]:
                self.values[-1].append(value)
                return
            action = actions[state].get(term)
            if action is None:
                raise Rejected(term)
            if action[0] == SHIFT:
                self.pushed(action[1], value)
                return
            state = self._reduce(action[1])

    def ready(self, term: str) -> int:
        """Make the reductions the table makes before it shifts `term` (none when it
        does not take it) and return the state then on top: where `term` is shifted."""
        stack, loops, actions = self.stack, self.loops, self.actions
        state = stack[-1]
        while term not in loops[state]:
            action = actions[state].get(term)
            if action is None or action[0] == SHIFT:
                break
            state = self._reduce(action[1])
        return state

    def pushed(self, state: int, value: Any) -> None:
        """Push `state` with `value` (a token shifted, or a rule's value taken whole,
        `whole.py`: the state the table goes to after the rule, whose own reduction is a
        default one) and make the default reductions that follow."""
        self.stack.append(state)
        self.values.append(value)
        defaults = self.defaults
        rule = defaults[state]
        while rule >= 0:
            state = self._reduce(rule)
            rule = defaults[state]

    def _reduce(self, rule_index: int) -> int:
        n, origin, left_list = self.plans[rule_index]
        stack, values = self.stack, self.values
        builder = self.builders[rule_index]
        if builder is None and n == 1 and not left_list:
            # `xs: x`, a list rule of `*` or `+` starting (a sixth of all reductions):
            # the general case's value, without its slices.
            child = values[-1]
            values[-1] = list(child) if isinstance(child, list) else [child]
            state = stack[-1] = self.gotos[stack[-2]][origin]
            return state
        if builder is None and n == 2 and left_list and isinstance(values[-2], list):
            # `xs: xs x`, the list growing (as often): the same, in place.
            child = values.pop()
            if isinstance(child, list):
                values[-1].extend(child)
            else:
                values[-1].append(child)
            del stack[-1]
            state = stack[-1] = self.gotos[stack[-2]][origin]
            return state
        if n:
            children = values[-n:]
            del values[-n:]
            del stack[-n:]
        else:
            children = []
        value = builder(children) if builder is not None else general_value(children, left_list)
        state = self.gotos[stack[-1]][origin]
        stack.append(state)
        values.append(value)
        return state

    def accepts_end(self) -> bool:
        """Whether the tokens so far form a complete start rule. An LALR state may take
        $END as a lookahead that only another start rule's context allows (states are
        merged), so the reductions are walked first (`takes`)."""
        top = self.stack[-1]
        if top == self.end_state:
            return True
        return END in self.actions[top] and self.takes(END)

    def continues(self) -> bool:
        """Whether some token other than the end could come next (`takes`): a block
        that can end here may still go on (SPEC 5.3 a, `block_end=value`)."""
        return any(self.takes(term) for term in self.actions[self.stack[-1]] if term != END)

    def takes(self, term: str) -> bool:
        """Whether the parser would take `term` now (shift it; for $END, accept),
        changing nothing. LALR may reduce before it finds that it cannot (its states
        merge lookaheads), so the reductions are walked on a view of the stack: the
        stack's own states below the deepest one a reduction reached, and the few
        states the walk pushed (never a copy: a value nested thousands deep would make
        every close a copy of the whole stack)."""
        actions, gotos, plans, loops = self.actions, self.gotos, self.plans, self.loops
        stack = self.stack
        depth = len(stack)   # the stack's states still in view: stack[:depth]
        pushed: list[int] = []
        while True:
            top = pushed[-1] if pushed else stack[depth - 1]
            if term == END and top == self.end_state:
                return True
            if term in loops[top]:
                return True
            action = actions[top].get(term)
            if action is None:
                return False
            if action[0] == SHIFT:
                return term != END
            length, origin, _ = plans[action[1]]
            from_pushed = min(length, len(pushed))
            if from_pushed:
                del pushed[-from_pushed:]
            depth -= length - from_pushed
            below = pushed[-1] if pushed else stack[depth - 1]
            pushed.append(gotos[below][origin])

    def finish(self) -> Any:
        """Feed the end of input; returns the start rule's value. Raises Rejected."""
        state = self.stack[-1]
        while state != self.end_state:
            action = self.actions[state].get(END)
            if action is None or action[0] == SHIFT:
                raise Rejected(END)
            state = self._reduce(action[1])
        return self.values[-1]

    def expected(self) -> tuple[str, ...]:
        """The terminals the grammar would take now, sorted."""
        state = self.stack[-1]
        return tuple(sorted(term for term in self.actions[state] if term != END))

    def open_values(self, kinds: frozenset[str]) -> int:
        """How many shifted tokens of these terminals are still on the stack (sections
        still open, for a failed span)."""
        return sum(1 for value in self.values
                   if isinstance(value, Tag) and value.term in kinds)


class Tag:
    """A token that delimits a rule (a tag, a marker): its terminal, text and offset."""

    __slots__ = ("term", "text", "start")

    def __init__(self, term: str, text: str, start: int) -> None:
        self.term = term
        self.text = text
        self.start = start

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    def __repr__(self) -> str:
        return f"Tag({self.term}, {self.text!r}, {self.start})"


def general_value(children: list[Any], left_list: bool) -> Any:
    """The value of a rule without a builder: a left-recursive list (`xs: xs ...`)
    extended by the rest of its children, in place; else the children with the lists
    of flattened rules spliced in (`flat`)."""
    if left_list and children and isinstance(children[0], list):
        value = children[0]
        for child in children[1:]:
            if isinstance(child, list):
                value.extend(child)
            else:
                value.append(child)
        return value
    return flat(children)


def flat(children: list[Any]) -> list[Any]:
    """Children with the lists of flattened (inlined) rules spliced in."""
    for child in children:   # a loop, not any(): this runs once per reduction
        if isinstance(child, list):
            break
    else:
        return children
    out: list[Any] = []
    for child in children:
        if isinstance(child, list):
            out.extend(child)
        else:
            out.append(child)
    return out
