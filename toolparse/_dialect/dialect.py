"""A dialect: one tool-call grammar file, loaded and compiled for the stream engine.

Everything the engine knows about a dialect's syntax comes from its grammar
(grammars/<name>.lark): the terminals (compiled for streaming by `lexer`), the parse
table (which terminals may come next in each parser state), the start rules `block` and
`orphan_block` (which tags open a capture) and the ATTRIBUTE terminal (how to read
attributes out of a tag). Python spells no tag. `loader` builds a Dialect from a file.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lark
import regex

from toolparse._dialect.lexer import StateLexer, TerminalSpec
from toolparse._dialect.roles import BlockRoles
from toolparse._dialect.transform import BlockTransformer
from toolparse._syntax.dfa import DFA, dfa_for
from toolparse._syntax.regexp import first_chars, partial_pattern

__all__ = ["Dialect"]


@dataclass(eq=False)
class Dialect:
    """A loaded tool-call grammar, ready for streaming."""

    name: str
    """The dialect's name: the grammar file's stem, unless given."""

    path: Path
    """The grammar file."""

    lark: lark.Lark = field(repr=False)
    """The Lark LALR parser, with the block Transformer inline."""

    terminals: dict[str, TerminalSpec] = field(repr=False)
    """Every terminal, compiled for streaming."""

    ignored: tuple[TerminalSpec, ...] = field(repr=False)
    """The %ignore terminals, tried in every parser state."""

    ignored_names: frozenset[str] = field(repr=False)
    """Their names."""

    openers: tuple[TerminalSpec, ...] = field(repr=False)
    """Terminals that can start a block, in lexer order."""

    opener_rule: dict[str, str] = field(repr=False)
    """For each opener terminal, the start rule it opens."""

    opener_chars: str = field(repr=False)
    """The characters an opener can start with (for the fast search)."""

    opener_pattern: str = field(repr=False)
    """All openers in one pattern (an alternation, in lexer order), behind a lookahead
    on their first two characters when those are known, so that a `<` no opener can
    continue fails at once."""

    opener_starts: str = field(repr=False)
    """Where a block start could begin: an opener's first character followed by one
    that can come second, or by the end of the text (for the partial check)."""

    @functools.cached_property
    def opener_search(self) -> re.Pattern[str]:
        """`opener_pattern` in `re`: finds the next complete block start at C speed."""
        return _compiled(self.opener_pattern)

    @functools.cached_property
    def opener_start_search(self) -> re.Pattern[str]:
        """`opener_starts` in `re`."""
        return _compiled(self.opener_starts)

    @functools.cached_property
    def opener_dfa(self) -> DFA | None:
        """The openers' automaton (see `_dfa`), for stepping a tag that is arriving."""
        return dfa_for("|".join(f"(?:{spec.full.pattern})" for spec in self.openers))

    @functools.cached_property
    def opener_probe(self) -> regex.Pattern[str]:
        """`opener_pattern` in `regex`: can the end of a chunk still become a block start?"""
        return partial_pattern(self.opener_pattern)

    attribute: re.Pattern[str] = field(repr=False)
    """The ATTRIBUTE terminal: group 1 the name, a later group the value."""

    roles: BlockRoles = field(repr=False)
    """Which terminals start a call, open or close a block, open or close a section."""

    transformer: BlockTransformer = field(repr=False)
    """The Transformer Lark runs inline (it also checks a call tag's name up front)."""

    @functools.cached_property
    def span_search(self) -> re.Pattern[str]:
        """Where a broken-calls span ends (SPEC 3.2), outside a section: a block close
        or a block open; a section open is found too (it hides closes until its end)."""
        return _compiled(self._alternation(
            self.roles.block_closes | self.roles.block_opens | self.roles.section_opens))

    @functools.cached_property
    def section_search(self) -> re.Pattern[str]:
        """Inside a section of a broken-calls span: a nested open or a close."""
        return _compiled(self._alternation(self.roles.section_opens | self.roles.section_closes))

    def span_arriving(self, in_section: bool
                      ) -> tuple[DFA | None, regex.Pattern[str], re.Pattern[str]]:
        """How to test that a span terminal is still arriving at a chunk end: the
        terminals' automaton (None when one has a lookahead), their partial matcher, and
        a search for the characters they can start with."""
        return _span_arriving(self, in_section)

    def _alternation(self, names: frozenset[str]) -> str:
        specs = sorted((self.terminals[n] for n in names), key=lambda t: t.sort_key)
        return "|".join(f"(?P<{spec.name}>{spec.full.pattern})" for spec in specs) or r"(?!)"

    state_lexers: dict[int, StateLexer] = field(default_factory=dict, repr=False)
    """Parser state -> its StateLexer, filled as states are met (see `lexer_for`)."""

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> Dialect:
        """Load a dialect from a grammar file (a copy of a bundled one, edited, say).

        Raises GrammarError naming the file, line and rule when the grammar does not load
        or lacks what the engine needs.
        """
        from toolparse._dialect.loader import load_file  # the loader builds Dialects

        return load_file(Path(path), name)

    @classmethod
    def bundled(cls, name: str) -> Dialect:
        """A bundled dialect by name (`deepseek`)."""
        from toolparse._dialect.loader import load_bundled

        return load_bundled(name)

    def lexer_for(self, state: int, accepts: dict[str, Any]) -> StateLexer:
        """The terminals to try in parser state `state` (whose actions are `accepts`):
        those the parser accepts there and the %ignore ones, in Lark's lexer order."""
        found = self.state_lexers.get(state)
        if found is None:
            names = {n for n in accepts if n.isupper() and n in self.terminals}
            specs = [self.terminals[n] for n in names] + [
                t for t in self.ignored if t.name not in names]
            found = StateLexer.build(sorted(specs, key=lambda t: t.sort_key))
            self.state_lexers[state] = found
        return found




@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.cache
def _span_arriving(dialect: Dialect, in_section: bool
                   ) -> tuple[DFA | None, regex.Pattern[str], re.Pattern[str]]:
    pattern = (dialect.section_search if in_section else dialect.span_search).pattern
    chars = first_chars(pattern)
    starts = (_compiled("[" + "".join(re.escape(c) for c in sorted(chars)) + "]")
              if chars else _compiled(r"(?s:.)"))
    return dfa_for(pattern), partial_pattern(pattern), starts
