"""Dialects: a tool-call grammar file, loaded and compiled for the stream engine.

A dialect is one Lark grammar (grammars/<name>.lark). Everything the engine knows about
its syntax comes from the loaded grammar: the terminals (compiled for streaming by
`_lexer`), the parse table (which terminals may come next in each parser state), the
start rules `block` and `orphan_block` (which tags open a capture) and the ATTRIBUTE
terminal (how to read attributes out of a tag). Python spells no tag.

Loading uses Lark's cache, so a grammar costs a few milliseconds after the first run;
`Dialect.bundled(name)` is also memoised per process.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lark
import regex
from lark.exceptions import LarkError

from toolparse._dfa import DFA, dfa_for
from toolparse._errors import GrammarError, UnknownDialectError
from toolparse._lexer import StateLexer, TerminalSpec, partial_pattern, second_chars
from toolparse._resources import grammars_dir
from toolparse._transform import BlockTransformer

__all__ = ["Dialect", "bundled_dialects", "resolve_dialect"]

START_RULES = ("block", "orphan_block", "attribute")
"""Start rules the engine uses; `orphan_block` is optional."""

REQUIRED_RULES = ("block", "invoke", "param", "attribute")
"""Rules the Transformer builds calls from; a dialect grammar must define them."""

_NOT_A_DIALECT = {"markdown"}
"""Grammar files in grammars/ that are not tool-call dialects."""


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

    state_lexers: dict[int, StateLexer] = field(default_factory=dict, repr=False)
    """Parser state -> its StateLexer, filled as states are met (see `lexer_for`)."""

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> Dialect:
        """Load a dialect from a grammar file (a copy of a bundled one, edited, say).

        Raises GrammarError naming the file, line and rule when the grammar does not load
        or lacks what the engine needs.
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise GrammarError(f"cannot read grammar file: {e.strerror or e}", path=str(path)) from e
        return _load(text, path.resolve(), name or path.stem)

    @classmethod
    def bundled(cls, name: str) -> Dialect:
        """A bundled dialect by name (`deepseek`)."""
        return _bundled(name)

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


def bundled_dialects() -> dict[str, Path]:
    """Name -> grammar file of every bundled dialect."""
    return {p.stem: p for p in sorted(grammars_dir().glob("*.lark"))
            if p.stem not in _NOT_A_DIALECT}


def resolve_dialect(dialect: str | Dialect) -> Dialect:
    """The Dialect for a `dialect=` argument: a bundled name or a Dialect."""
    if isinstance(dialect, Dialect):
        return dialect
    if isinstance(dialect, str):
        return _bundled(dialect)
    raise UnknownDialectError(
        f"dialect must be a bundled dialect name or a toolparse.Dialect, not {type(dialect).__name__}")


@functools.cache
def _bundled(name: str) -> Dialect:
    available = bundled_dialects()
    if name not in available:
        raise UnknownDialectError(
            f"unknown dialect {name!r}; bundled dialects: {', '.join(available) or 'none'}")
    path = available[name]
    return _load(path.read_text(encoding="utf-8"), path, name)


def _load(text: str, path: Path, name: str) -> Dialect:
    starts = list(START_RULES)
    if not re.search(r"^\s*[?!]?orphan_block\b", text, re.M) and "%import" not in text:
        starts.remove("orphan_block")
    transformer = BlockTransformer()
    try:
        parser = lark.Lark(
            text, parser="lalr", lexer="contextual", strict=True, start=starts,
            transformer=transformer, cache=True, source_path=str(path),
            import_paths=[str(path.parent), str(grammars_dir())],
        )
    except LarkError as e:
        raise _grammar_error(e, text, path) from e
    except (OSError, ValueError) as e:
        raise GrammarError(str(e), path=str(path)) from e

    rules = {r.origin.name.rsplit("__", 1)[-1] for r in parser.rules}
    for rule in REQUIRED_RULES:
        if rule not in rules:
            raise GrammarError(f"the grammar defines no rule {rule!r}, which the engine needs",
                               path=str(path), rule=rule)

    terminals = {
        t.name: TerminalSpec.compile(t.name, t.pattern.to_regexp(), t.pattern.flags,
                                     t.priority, t.pattern.max_width)
        for t in parser.lexer_conf.terminals
    }
    attribute_name = next((n for n in terminals if n.rsplit("__", 1)[-1] == "ATTRIBUTE"), None)
    if attribute_name is None:
        raise GrammarError("the grammar defines no ATTRIBUTE terminal, which the engine needs",
                           path=str(path), rule="attribute")
    ignored = tuple(terminals[n] for n in parser.lexer_conf.ignore if n in terminals)
    attribute = re.compile(terminals[attribute_name].pattern)
    transformer.attribute_pattern = attribute

    opener_rule: dict[str, str] = {}
    for start in ("block", "orphan_block"):
        if start not in starts:
            continue
        for term in parser.parse_interactive(start=start).choices():  # type: ignore[no-untyped-call]
            if term.isupper() and term in terminals:
                opener_rule.setdefault(term, start)
    openers = tuple(sorted((terminals[n] for n in opener_rule), key=lambda t: t.sort_key))
    chars = []
    for spec in openers:
        first = _literal_first_char(spec.pattern)
        if first is None:
            raise GrammarError(
                f"terminal {spec.name} can start a block but does not begin with a literal "
                "character; the engine searches for block starts by their first character",
                path=str(path), line=_definition_line(text, spec.name), rule=spec.name)
        chars.append(first)
    for spec in terminals.values():
        if spec.is_run and spec.full.match(""):
            raise GrammarError(f"terminal {spec.name} matches the empty string",
                               path=str(path), rule=spec.name)

    return Dialect(
        name=name, path=path, lark=parser, terminals=terminals, ignored=ignored,
        ignored_names=frozenset(t.name for t in ignored),
        openers=openers, opener_rule=opener_rule, opener_chars="".join(sorted(set(chars))),
        opener_pattern=_with_lookahead(openers),
        opener_starts=_starts_pattern(openers, chars),
        attribute=attribute,
    )


def _second_chars(openers: tuple[TerminalSpec, ...]) -> dict[str, set[str]] | None:
    """First character -> the characters that can follow it, over all openers; None
    when some opener's second character is not known."""
    table: dict[str, set[str]] = {}
    for spec in openers:
        found = second_chars(spec.full.pattern)
        if found is None:
            return None
        table.setdefault(found[0], set()).update(found[1])
    return table


def _char_class(chars: set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def _with_lookahead(openers: tuple[TerminalSpec, ...]) -> str:
    alternation = "|".join(f"(?:{spec.full.pattern})" for spec in openers)
    table = _second_chars(openers)
    if not table:
        return alternation
    heads = "|".join(re.escape(first) + _char_class(rest) for first, rest in table.items())
    return f"(?=(?:{heads}))(?:{alternation})"


def _starts_pattern(openers: tuple[TerminalSpec, ...], firsts: list[str]) -> str:
    table = _second_chars(openers)
    if not table:
        return _char_class(set(firsts))
    return "|".join(re.escape(first) + "(?:" + _char_class(rest) + r"|\Z)"
                    for first, rest in table.items())


def _literal_first_char(pattern: str) -> str | None:
    """The first character every match of `pattern` starts with, when it is a literal."""
    while pattern.startswith("(?:"):
        pattern = pattern[3:]
    if not pattern:
        return None
    if pattern[0] == "\\" and len(pattern) > 1 and not pattern[1].isalnum():
        return pattern[1]
    if pattern[0] in "\\[](){}|.*+?^$":
        return None
    if len(pattern) > 1 and pattern[1] in "*?{|":
        return None
    return pattern[0]


def _definition_line(text: str, name: str) -> int | None:
    m = re.search(rf"^\s*[?!]?{re.escape(name)}\b(?:\.\d+)?\s*:", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _grammar_error(e: LarkError, text: str, path: Path) -> GrammarError:
    """A GrammarError naming the file, line and rule of a Lark failure."""
    message = str(e).strip()
    line = getattr(e, "line", None)
    if not isinstance(line, int) or line < 0:
        m = re.search(r"\bline (\d+)", message) or re.search(r":(\d+):", message)
        line = int(m.group(1)) if m else None
    rule = None
    for candidate in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", message):
        if candidate.lower() in {"line", "column", "rule", "terminal", "terminals", "between",
                                 "collision", "example", "and", "the", "of", "in", "at"}:
            continue
        found = _definition_line(text, candidate)
        if found is not None:
            rule = candidate
            if line is None:
                line = found
            break
    first = message.splitlines()[0] if message else type(e).__name__
    return GrammarError(first, path=str(path), line=line, rule=rule)
