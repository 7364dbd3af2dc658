"""A grammar file compiled for the stream engine: its table, terminals, openers, roles.

Everything the engine knows about a dialect's syntax is here, and all of it comes from
the loaded grammar file: the LALR table (Lark's, read by `table.py`), the terminals
(compiled for streaming by `lexer.py`), the terminals that open a block (from the start
rules' first states), the roles of terminals (`roles.py`) and the builders of its rules
(`build.py`). Python spells no tag.

Per-state lexers and the automata are built when first needed and kept: a grammar's
first parse pays for the states it visits, later parses nothing. So is Lark's own parser
(`lark`): the engine never uses it, and a grammar loaded from the cache does not import
Lark at all.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolparse._dialect.build import Builders
from toolparse._dialect.gates import Closers, closers_of, gates_of, late_closers
from toolparse._dialect.header import Header
from toolparse._dialect.inside import Inside, inside_of
from toolparse._dialect.lexer import StateLexer, TerminalSpec, can_start, plain_pattern
from toolparse._dialect.openers import BlockStarts
from toolparse._dialect.records import GrammarRecord
from toolparse._dialect.roles import BlockRoles, block_ends, lenient_openers, own_name
from toolparse._dialect.table import SHIFT, Table, reduce_above
from toolparse._dialect.whole import Whole, whole_plans
from toolparse._reasoning.formats import resolve_format
from toolparse._reasoning.region import Markers
from toolparse._syntax.dfa import DFA, dfa_for
from toolparse._syntax.regexp import (
    first_chars,
    leading_literal,
    lookahead_chars,
    partial_pattern,
)

if TYPE_CHECKING:
    import lark
    import regex

__all__ = ["Grammar"]


@dataclass(eq=False)
class Grammar:
    """One grammar file, compiled."""

    name: str
    path: Path
    header: Header
    source: str
    """The grammar file's text."""
    starts: tuple[str, ...]
    """The start rules it is compiled for."""
    record: GrammarRecord
    """What Lark compiled from it (terminals, rules, table), as plain records."""
    table: Table
    terminals: dict[str, TerminalSpec]
    ignored: frozenset[str]
    """The %ignore terminals: kept in a block's text, never fed to the parser."""
    openers: tuple[TerminalSpec, ...]
    """Terminals that can start a block, in lexer order."""
    opener_rule: dict[str, str]
    """For each opener terminal, the start rule it opens."""
    roles: BlockRoles
    build: Builders
    builders: tuple[Any, ...]
    """Rule index -> its builder (None: the rule inlines into its parent)."""
    name_at_tag: bool
    """A call's name is in its opening tag, so a nameless call tag is refused at once."""
    state_lexers: dict[int, StateLexer] = field(default_factory=dict, repr=False)
    _event_gates: dict[tuple[str, ...], tuple[str, Closers | None]] = field(
        default_factory=dict, repr=False)
    _insides: dict[tuple[int, str], Inside | None] = field(default_factory=dict, repr=False)
    json_reference: GrammarRecord | None = field(default=None, repr=False)
    """For a grammar that imports `json_call`: the bundled `common/json.lark` compiled
    alone, which `wholes` compares its JSON rules and terminals with."""

    def lexer(self, state: int) -> StateLexer:
        """The terminals to try in parser state `state`: those the parser takes there
        and the %ignore ones, in Lark's lexer order, compiled into one pattern."""
        found = self.state_lexers.get(state)
        if found is None:
            candidates = self.candidates(state)
            found = StateLexer.build(candidates, self.table.loops[state] - self.ignored,
                                     self.ignored, self._held(state, candidates))
            self.state_lexers[state] = found
        return found

    def _held(self, state: int, candidates: list[TerminalSpec]) -> frozenset[str]:
        """The runs `state` shifts after which the table takes no more of them
        (`StateLexer.held`): followed through the default reductions the shift makes,
        as far as they stay above `state`, the state reached neither shifts the run nor
        loops on it. (Where the reductions reach below, the run is not held.)"""
        table = self.table
        found = set()
        for spec in candidates:
            name = spec.name
            action = table.actions[state].get(name)
            if (not spec.is_run or name in self.ignored or name in table.loops[state]
                    or action is None or action[0] != SHIFT):
                continue
            stack = [state, action[1]]
            while (rule := table.defaults[stack[-1]]) >= 0 and reduce_above(table, stack, rule):
                pass
            top = stack[-1]
            if table.defaults[top] < 0 and name not in table.actions[top] and (
                    name not in table.loops[top]):
                found.add(name)
        return frozenset(found)

    def inside(self, state: int, run: TerminalSpec) -> Inside | None:
        """What text stays in `run` (a loop token with stop characters) in parser state
        `state` (`inside.py`), or None; built when first asked for and kept."""
        key = (state, run.name)
        found = self._insides.get(key, self)
        if found is self:
            found = self._insides[key] = inside_of(
                self.lexer(state), run, self.table.loops[state] - self.ignored)
        return found  # type: ignore[return-value]

    def candidates(self, state: int) -> list[TerminalSpec]:
        """The terminals of state `state`'s lexer, in order (without compiling it)."""
        names = {n for n in self.table.actions[state] if n in self.terminals}
        specs = [self.terminals[n] for n in names | self.ignored]
        return sorted(specs, key=lambda t: t.sort_key)

    @functools.cached_property
    def lark(self) -> lark.Lark:
        """Lark's own parser of the grammar (through Lark's cache), built when first
        asked for: the engine never needs it, so loading a dialect from the cache does
        not import Lark. For tests and tools that compare with Lark's parser."""
        from toolparse._dialect.from_lark import lark_parser  # noqa: PLC0415

        return lark_parser(self.source, self.path, self.starts)

    # ---- what the grammar only accepts (docs/grammars.md) -------------------------------

    @functools.cached_property
    def accept_only(self) -> frozenset[str]:
        """The grammar's marks on what it reads but a generator must never write (SPEC
        12): the `orphan_block` rule (a block without its wrapper), rules and
        alternatives named `lenient_*` (a rule's name, or an alternative's `-> alias`),
        and terminal definitions named `LENIENT_*` or `_LENIENT_*`, which the terminal
        that uses them joins as an alternative (spelling drift)."""
        marks = {own for rule in self.record.rules
                 for own in (own_name(rule.origin), rule.alias or "")
                 if own == "orphan_block" or own.startswith("lenient_")}
        marks.update(m.group(1) for m in _LENIENT_TERMINAL.finditer(self.source))
        return frozenset(marks)

    @functools.cached_property
    def lenient_openers(self) -> frozenset[str]:
        """The opening terminals of accept-only alternatives only (qwen3_coder's
        `<seed:tool_call>`): under `auto`, a grammar that writes the same tag reads it
        instead (`_stream/contest.py`)."""
        return lenient_openers(self.record.rules, set(self.opener_rule.values()),
                               self.accept_only)

    # ---- block starts (SCAN) -----------------------------------------------------------

    @functools.cached_property
    def block_starts(self) -> BlockStarts:
        """The openers compiled for SCAN: one search, the arriving test, the fast
        path's characters. Without the anchored ones (`anchored_starts`)."""
        anchored = self.header.anchored
        return BlockStarts(tuple(s for s in self.openers if s.name not in anchored))

    @functools.cached_property
    def anchored_starts(self) -> BlockStarts | None:
        """The openers the header declares `anchored=` (SPEC 5.3 b), which open a block
        only at the start of the answer (`_stream/scan.py`); None without any."""
        anchored = self.header.anchored
        specs = tuple(spec for spec in self.openers if spec.name in anchored)
        return BlockStarts(specs) if specs else None

    @functools.cached_property
    def wholes(self) -> dict[int, dict[str, Whole]]:
        """Parser state -> {opening terminal: how to read a `json_call` there whole}
        (`whole.py`); empty when its calls are read token by token."""
        return whole_plans(self, self.json_reference)

    @functools.cached_property
    def whole_opens(self) -> frozenset[str]:
        """The terminals a `json_call` read whole opens with, in any state."""
        return frozenset(name for plan in self.wholes.values() for name in plan)

    # ---- inside a call (the engine's quiet path) ---------------------------------------

    @functools.cached_property
    def enders(self) -> frozenset[str]:
        """The terminals a block can end with (the last terminals of its start rules):
        only after one of them can the parser accept the end."""
        return block_ends(self.record.rules, set(self.opener_rule.values()), self.follows)

    @functools.cached_property
    def follows(self) -> dict[str, frozenset[str]]:
        """For each terminal that ends in a positive lookahead (Granite's
        `<function_call>(?=\\{)`), the terminals whose match can begin where its match
        ends: those that can begin with a character the lookahead admits. Only where no
        %ignore'd terminal could begin there (it would come first)."""
        found: dict[str, frozenset[str]] = {}
        for name, spec in self.terminals.items():
            chars = lookahead_chars(plain_pattern(spec)) if spec.has_lookahead else None
            if chars is None or any(_may_begin(self.terminals[n], chars) for n in self.ignored):
                continue
            found[name] = frozenset(n for n, other in self.terminals.items()
                                    if _may_begin(other, chars))
        return found

    @functools.cached_property
    def message_closers(self) -> Markers | None:
        """What ends a message this grammar's headers open (`reasoning_message`,
        `content_message`): the end marker of the reasoning format its header names
        (SPEC 11, harmony); None when it opens none (the loader checks the format)."""
        if not set(self.opener_rule.values()) & {"reasoning_message", "content_message"}:
            return None
        return Markers([resolve_format(self.header.reasoning or "").close])

    @functools.cached_property
    def gates(self) -> str:
        """The characters without which a chunk inside a started call cannot change
        what goes out (`gates.py`); "" when this grammar has none."""
        return gates_of(self)

    @functools.cached_property
    def late_closers(self) -> bool:
        """Whether a terminal a block ends with may be decided after its last character
        (`gates.late_closers`): then no chunk is kept while an atom is arriving."""
        return late_closers(self)

    @functools.cached_property
    def closers(self) -> Closers | None:
        """The closing tags a gate is tested against (`gates.py`); None: every gate
        lexes the text kept."""
        return closers_of(self)

    def event_gates(self, events: tuple[str, ...]) -> tuple[str, Closers | None]:
        """`gates` and `closers` for a stream with incremental events (`gates.py`):
        with those of the tags of the rules `events` names (`CALL_RULES` with tools,
        `EVENT_RULES` without) too; built once each."""
        found = self._event_gates.get(events)
        if found is None:
            found = self._event_gates[events] = (gates_of(self, events),
                                                 closers_of(self, events))
        return found

    # ---- broken spans (SKIP) -----------------------------------------------------------

    @functools.cached_property
    def span_search(self) -> re.Pattern[str]:
        """Where a broken-calls span ends (SPEC 3.2), outside a section: a block close
        or a block open; a section open is found too (it hides closes until its end)."""
        return re.compile(self.alternation(
            self.roles.block_closes | self.span_opens | self.roles.section_opens))

    @functools.cached_property
    def span_opens(self) -> frozenset[str]:
        """The block opens that end a broken-calls span: all but the anchored ones, which
        open a block only at the start of the answer (SPEC 5.3 b)."""
        return self.roles.block_opens - frozenset(self.header.anchored)

    @functools.cached_property
    def section_search(self) -> re.Pattern[str]:
        """Inside a section of a broken-calls span: a nested open or a close."""
        return re.compile(self.alternation(self.roles.section_opens | self.roles.section_closes))

    def span_arriving(self, in_section: bool
                      ) -> tuple[DFA | None, regex.Pattern[str], re.Pattern[str]]:
        """How to test that a span terminal is still arriving at a chunk end: the
        terminals' automaton (None when one has a lookahead), their partial matcher, and
        a search for the characters they can start with."""
        return _span_arriving(self, in_section)

    def alternation(self, names: frozenset[str]) -> str:
        """The terminals named, in lexer order, as one pattern with a named group each;
        their common first character, when they have one, leads the pattern, outside
        the groups (`leading_literal`: a search then skips to it at C speed)."""
        specs = sorted((self.terminals[n] for n in names), key=lambda t: t.sort_key)
        plain = [plain_pattern(spec) for spec in specs]
        found = leading_literal(plain)
        if found is not None:
            first, rests = found
            return re.escape(first) + "(?:" + "|".join(
                f"(?P<{spec.name}>{rest})" for spec, rest in zip(specs, rests)) + ")"
        return "|".join(f"(?P<{spec.name}>{pattern})"
                        for spec, pattern in zip(specs, plain)) or r"(?!)"


_LENIENT_TERMINAL = re.compile(r"^[ \t]*(_?LENIENT_[A-Z0-9_]+)(?:\.\d+)?[ \t]*:", re.M)
"""A terminal definition marked accept-only, at the start of a line."""


@functools.cache
def _span_arriving(grammar: Grammar, in_section: bool
                   ) -> tuple[DFA | None, regex.Pattern[str], re.Pattern[str]]:
    pattern = (grammar.section_search if in_section else grammar.span_search).pattern
    plain = re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(?:", pattern)
    chars = first_chars(plain)
    starts = (re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]")
              if chars else re.compile(r"(?s:.)"))
    return dfa_for(plain), partial_pattern(pattern), starts


def _may_begin(spec: TerminalSpec, chars: frozenset[str]) -> bool:
    """Whether a match of `spec` can begin with one of `chars`."""
    if spec.starts is not None:
        return not spec.starts.isdisjoint(chars)
    return any(can_start(spec, char) for char in chars)
