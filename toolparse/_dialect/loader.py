"""Loading a grammar file into a `Dialect`, with the checks the engine needs.

Loading uses Lark's cache, so a grammar costs a few milliseconds after the first run;
bundled dialects are also memoised per process. A grammar that does not load is a
`GrammarError` naming the file, line and rule (Lark's full message is kept for
conflicts). A grammar that loads must be able to yield a call (SPEC 5): the mistakes
that would otherwise load silently and then give nothing but text are errors here:

- no `block` rule, no `invoke` rule, or a `block` that can hold no `invoke`;
- a call with no way to get a name (no `(?P<name>...)` group in its tags, no ATTRIBUTE
  terminal, no `name` rule, no JSON body) or an argument with no way to get a key;
- a block-start terminal that does not tell which characters it starts with;
- a run terminal that can swallow the first character of a tag in the same state
  (`/[^>]+/` before `</parameter>`);
- whitespace between a block's opening tag and its first call that no terminal takes
  (a missing `%ignore WS`);
- an atom that a longer match of itself can continue (`/[a-z][a-z_]*/`): it would end
  wherever a chunk ends (SPEC G2), unless a lookahead says where it stops.

`dialects()` lists the bundled dialects; `key_value_tokens()` reads a key/value
dialect's boundary tokens out of its `param` rule (GLM's, for repair).
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from pathlib import Path
from typing import Any

import lark
from lark.exceptions import LarkError
from lark.load_grammar import GrammarBuilder

from toolparse._dialect.build import CONTRACT_RULES, Builders
from toolparse._dialect.dialect import Dialect
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.header import Header, read_header
from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.roles import (
    BlockRoles, block_roles, own_name, reachable, reachable_children, tokens_around)
from toolparse._dialect.table import Table, read_table
from toolparse._errors import GrammarError, UnknownDialectError
from toolparse._syntax.dfa import DFA
from toolparse._syntax.files import cache_dir, cache_key, grammars_dir

__all__ = ["AUTO", "DEFAULT", "bundled_dialects", "dialects", "key_value_tokens",
           "load_bundled", "load_file", "resolve_dialect"]

AUTO = "auto"
"""The name of the dialect that reads every bundled dialect at once (SPEC 5.2)."""

DEFAULT = "deepseek"
"""The dialect `parse` and `StreamParser` read when none is named."""

START_RULES = ("block", "orphan_block", "attribute")
"""Start rules: `block` and the optional `orphan_block` are what the engine looks for;
the optional `attribute` keeps the ATTRIBUTE terminal in the grammar (no rule of a block
uses it: it reads attributes out of a tag's text)."""

_NOT_A_DIALECT = {"markdown"}
"""Grammar files in grammars/ that are not tool-call dialects."""


def load_file(path: Path, name: str | None = None) -> Dialect:
    """The dialect of a grammar file (`Dialect.from_file`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise GrammarError(f"cannot read grammar file: {e.strerror or e}", path=str(path)) from e
    except UnicodeDecodeError as e:
        raise GrammarError(f"not a grammar file: it is not UTF-8 text (byte {e.start})",
                           path=str(path)) from None
    grammar = load_grammar(text, path.resolve(), name or path.stem)
    return Dialect(grammar.name, grammar.path, (grammar,))


def load_bundled(name: str) -> Dialect:
    """A bundled dialect by name (`Dialect.bundled`), loaded once per process."""
    return _bundled(name)


def bundled_dialects() -> dict[str, Path]:
    """Name -> grammar file of every bundled dialect."""
    return {p.stem: p for p in sorted(grammars_dir().glob("*.lark"))
            if p.stem not in _NOT_A_DIALECT}


def dialects() -> tuple[str, ...]:
    """The names of the bundled dialects (`toolparse.dialects()`): the default first,
    then the others in alphabetical order. Each is a grammar file in `grammars/`;
    `"auto"`, which reads them all at once, is not one of them."""
    names = sorted(bundled_dialects())
    return tuple(sorted(names, key=lambda name: name != DEFAULT))


def key_value_tokens(name: str) -> tuple[str, str, str, str]:
    """The four literal tokens of a bundled dialect that writes arguments as key/value
    pairs (for `glm45`: its key open, key close, value open and value close). Its `param`
    rule opens with one terminal that holds the key, composed of the first three as
    string terminals (`KEY_OPEN /(?P<name>...)/ KEY_CLOSE /\\s*/ VALUE_OPEN`: one token
    for the whole head, SPEC 5.1), and closes with a string terminal after `value`.
    Repair reads GLM's boundary tokens here (SPEC 5.2), so Python spells none of them.

    Raises GrammarError when the grammar has no such rule or a token is not a string.
    """
    grammar = _bundled(name)._grammars[0]
    literals = {t.name: t.pattern.value for t in grammar.lark.terminals
                if isinstance(t.pattern, lark.lexer.PatternStr)}
    around = tokens_around(grammar.lark.rules, "param", "value")
    head = _string_pieces(grammar, around[0]) if around else []
    if around is None or len(head) != 3 or around[1] not in literals:
        raise GrammarError(
            "rule 'param' must be a head terminal made of three string terminals (key "
            "open, key close, value open), 'value', and a string terminal (value close): "
            "the boundary tokens repair reads", path=str(grammar.path),
            line=_definition_line(grammar.path.read_text(encoding="utf-8"), "param"),
            rule="param")
    return head[0], head[1], head[2], literals[around[1]]


def _string_pieces(grammar: Grammar, terminal: str) -> list[str]:
    """The plain strings a terminal's definition is composed of, in order. The
    definitions are read from the grammar's text (a cached Lark keeps only compiled
    patterns; in a definition, the terminals it names are inlined); a flagged string
    ("x"i) is not plain."""
    builder = GrammarBuilder(import_paths=[str(grammar.path.parent), str(grammars_dir())])
    builder.load_grammar(grammar.path.read_text(encoding="utf-8"), str(grammar.path))
    definition = next((tree for term, (tree, _) in builder.build().term_defs
                       if term == terminal), None)
    if definition is None:
        return []
    return [ast.literal_eval(token.value) for token in definition.scan_values(
        lambda v: isinstance(v, lark.Token) and v.type == "STRING")
        if token.value.endswith('"')]


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
    if name == AUTO:
        grammars = tuple(_bundled(other)._grammars[0] for other in dialects())
        return Dialect(AUTO, None, grammars, "every bundled dialect at once, decided per "
                       "block by its first tags")
    if name not in available:
        near = difflib.get_close_matches(name.lower(), [*available, AUTO], n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise UnknownDialectError(
            f"unknown dialect {name!r}{hint} Bundled dialects: "
            f"{', '.join([*available, AUTO]) or 'none'}")
    path = available[name]
    grammar = load_grammar(path.read_text(encoding="utf-8"), path, name)
    return Dialect(name, path, (grammar,))


def load_grammar(text: str, path: Path, name: str) -> Grammar:
    """Compile one grammar file; raises GrammarError for anything the engine cannot use."""
    header = read_header(text, str(path))
    if "%import" not in text and _definition_line(text, "block") is None:
        # Before Lark, whose message would not say what the rule is for.
        raise GrammarError("the grammar defines no rule 'block', the start rule the engine "
                           "looks for", path=str(path), rule="block")
    starts = [s for s in START_RULES if s == "block" or re.search(
        rf"^\s*[?!]?{s}\b", text, re.M) or "%import" in text]
    try:
        parser = lark.Lark(
            text, parser="lalr", lexer="contextual", strict=True, start=starts,
            cache=_lark_cache(text, starts), source_path=str(path),
            import_paths=[str(path.parent), str(grammars_dir())],
        )
    except LarkError as e:
        raise _grammar_error(e, text, path) from e
    except (OSError, ValueError) as e:
        raise GrammarError(str(e), path=str(path)) from e
    _check_rules(parser.rules, text, path)
    terminals = {
        t.name: TerminalSpec.compile(t.name, t.pattern.to_regexp(), t.pattern.flags,
                                     t.priority, t.pattern.max_width)
        for t in parser.lexer_conf.terminals
    }
    for spec in terminals.values():
        if spec.is_run and spec.full.match(""):
            raise GrammarError(f"terminal {spec.name} matches the empty string",
                               path=str(path), rule=spec.name)
    table = read_table(parser.parser.parser.parser.parse_table, parser.rules,
                       frozenset(terminals))
    built = {own_name(r.origin.name) for r in parser.rules} & set(CONTRACT_RULES)
    roles = block_roles(parser.rules, built)
    build = _builders(terminals, header, roles, parser.rules, text, path)
    openers, opener_rule = _openers(table, terminals, starts, text, path)
    grammar = Grammar(
        name=name, path=path, header=header, lark=parser, table=table, terminals=terminals,
        ignored=frozenset(n for n in parser.lexer_conf.ignore if n in terminals),
        openers=openers, opener_rule=opener_rule, roles=roles, build=build,
        builders=tuple(None if info.flatten else build.for_rule(info.origin)
                       for info in table.rules),
        name_at_tag=_name_at_tag(roles, terminals, build),
    )
    _check_states(grammar, text, path)
    return grammar


# ---- what the rules must have ------------------------------------------------------------

def _check_rules(rules: list[Any], text: str, path: Path) -> None:
    names = {own_name(r.origin.name) for r in rules}
    for rule in ("block", "invoke"):
        if rule not in names:
            raise GrammarError(f"the grammar defines no rule {rule!r}, which the engine "
                               "builds calls from", path=str(path), rule=rule)
    for start in ("block", "orphan_block"):
        if start in names and "invoke" not in reachable(rules, start):
            raise GrammarError(f"rule {start!r} can hold no call: it never reaches 'invoke'",
                               path=str(path), line=_definition_line(text, start), rule=start)


def _builders(terminals: dict[str, TerminalSpec], header: Header, roles: BlockRoles,
              rules: list[Any], text: str, path: Path) -> Builders:
    attribute_name = next((n for n in terminals if own_name(n) == "ATTRIBUTE"), None)
    # An attribute starts after whitespace: the lookbehind keeps finditer from trying
    # (and backtracking) at every position of a long tag name.
    attribute = (re.compile(r"(?<!\S)" + terminals[attribute_name].pattern)
                 if attribute_name else None)
    groups = {n: spec.full for n, spec in terminals.items() if spec.has_name}
    invoke = reachable_children(rules, "invoke", CONTRACT_RULES)
    if not (groups.keys() & invoke or attribute is not None or "name" in invoke
            or "json_body" in invoke):
        raise GrammarError(
            "a call has no way to get a name: give its opening tag a (?P<name>...) group "
            "or a name attribute (an ATTRIBUTE terminal), or add a 'name' rule or a "
            "'json_body' rule to 'invoke'", path=str(path),
            line=_definition_line(text, "invoke"), rule="invoke")
    param = reachable_children(rules, "param", CONTRACT_RULES)
    if param and not (groups.keys() & param or attribute is not None or "key" in param):
        raise GrammarError(
            "an argument has no way to get a name: give its opening tag a (?P<name>...) "
            "group or a name attribute, or add a 'key' rule to 'param'", path=str(path),
            line=_definition_line(text, "param"), rule="param")
    return Builders(name_groups=groups, attribute=attribute, value_edges=header.value_edges,
                    string_attribute=header.typing == "attribute")


def _name_at_tag(roles: BlockRoles, terminals: dict[str, TerminalSpec], build: Builders) -> bool:
    return bool(roles.call_starts) and all(
        terminals[n].has_name or build.attribute is not None for n in roles.call_starts)


def _openers(table: Table, terminals: dict[str, TerminalSpec], starts: list[str], text: str,
             path: Path) -> tuple[tuple[TerminalSpec, ...], dict[str, str]]:
    opener_rule: dict[str, str] = {}
    for start in starts:
        if start == "attribute":
            continue
        for term in table.actions[table.starts[start]]:
            if term in terminals:
                opener_rule.setdefault(term, start)
    openers = tuple(sorted((terminals[n] for n in opener_rule), key=lambda t: t.sort_key))
    for spec in openers:
        if not spec.starts:
            raise GrammarError(
                f"terminal {spec.name} can start a block but does not say which characters "
                "it starts with; the engine searches for block starts by their first "
                "characters", path=str(path), line=_definition_line(text, spec.name),
                rule=spec.name)
    return openers, opener_rule


def _check_atoms(grammar: Grammar, text: str, path: Path) -> None:
    """An atom that a complete match of it can be the start of a longer match of
    (`/[a-z][a-z_]*/`) would end where a chunk ends, so the events would depend on the
    chunking (SPEC G2): refused, unless it ends in a lookahead that says where it stops."""
    for spec in grammar.terminals.values():
        if spec.is_run or spec.has_lookahead or spec.name in grammar.ignored:
            continue
        dfa = spec.dfa
        if dfa is not None and _extends_a_match(dfa):
            raise GrammarError(
                f"terminal {spec.name} is not a run, and a match of it can go on to a longer "
                "match: where a chunk ends inside it, it would end there; make it a run "
                "(one character class repeated), or end it with a lookahead that says what "
                "follows it, such as (?=\\s*<)", path=str(path),
                line=_definition_line(text, spec.name), rule=spec.name)


def _extends_a_match(dfa: DFA) -> bool:
    """Whether a final state can reach a final state again by one or more characters."""
    successors = [set(row.values()) | {dfa.default[state]} for state, row in enumerate(dfa.table)]
    predecessors: dict[int, set[int]] = {}
    for state, targets in enumerate(successors):
        for target in targets:
            predecessors.setdefault(target, set()).add(state)
    live = {state for state, final in enumerate(dfa.final) if final}
    todo = list(live)
    while todo:  # backwards from the final states: those that can still reach one
        for state in predecessors.get(todo.pop(), ()):
            if state not in live:
                live.add(state)
                todo.append(state)
    return any(final and successors[state] & live for state, final in enumerate(dfa.final))


def _lark_cache(text: str, starts: list[str]) -> str | bool:
    """Where Lark caches this grammar's tables: a file in toolparse's private cache
    directory (Lark's own default is a predictable name in the shared temporary
    directory, and the file is a pickle), or no cache when there is no such directory."""
    directory = cache_dir()
    if directory is None:
        return False
    return str(directory / f"lark_{cache_key('lark', text, ','.join(starts))}.pickle")


def _check_states(grammar: Grammar, text: str, path: Path) -> None:
    """The state-by-state checks: runs that swallow tags, whitespace after the opener."""
    _check_atoms(grammar, text, path)
    # From each state's candidates, not its compiled lexer: a state's lexer is
    # compiled when a parse first reaches it (most never are), which keeps start-up short.
    for state in range(len(grammar.table.actions)):
        if not grammar.table.actions[state]:
            continue
        _check_swallow(grammar.candidates(state), text, path)
    for opener in grammar.openers:
        if grammar.opener_rule[opener.name] != "block":
            continue
        state = grammar.table.actions[grammar.table.starts["block"]][opener.name][1]
        if not any(spec.full.fullmatch(" ") or spec.full.fullmatch("\n")
                   for spec in grammar.candidates(state)):
            raise GrammarError(
                f"no terminal takes whitespace after {opener.name}: models put a newline "
                "there; add `%ignore WS` (with WS: /\\s+/)", path=str(path),
                line=_definition_line(text, opener.name), rule=opener.name)


def _check_swallow(candidates: list[TerminalSpec], text: str, path: Path) -> None:
    for run in candidates:
        if not run.is_run:
            continue
        for tag in candidates:
            if tag.is_run or not tag.starts or len(tag.starts) > 4:
                continue
            eaten = [c for c in tag.starts if run.full.fullmatch(c)]
            if eaten:
                raise GrammarError(
                    f"terminal {run.name} can swallow {eaten[0]!r}, the first character of "
                    f"{tag.name}, in the same place: exclude it from the run's class",
                    path=str(path), line=_definition_line(text, run.name), rule=run.name)


# ---- errors -------------------------------------------------------------------------------

def _definition_line(text: str, name: str) -> int | None:
    m = re.search(rf"^\s*[?!]?{re.escape(name)}\b(?:\.\d+)?\s*:", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _grammar_error(e: LarkError, text: str, path: Path) -> GrammarError:
    """A GrammarError naming the file, line and rule of a Lark failure; a conflict keeps
    Lark's whole message (the rules in conflict)."""
    message = str(e).strip()
    line = getattr(e, "line", None)
    if not isinstance(line, int) or line < 0:
        m = re.search(r"\bline (\d+)", message) or re.search(r":(\d+):", message)
        line = int(m.group(1)) if m else None
    rule = None
    for candidate in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", message):
        if candidate.lower() in {"line", "column", "rule", "terminal", "terminals", "between",
                                 "collision", "example", "and", "the", "of", "in", "at",
                                 "reduce", "shift", "conflict", "for", "state"}:
            continue
        found = _definition_line(text, candidate)
        if found is not None:
            rule = candidate
            if line is None:
                line = found
            break
    lines = message.splitlines() or [type(e).__name__]
    # A conflict or collision names the rules or terminals involved on later lines.
    keep = message if re.search(r"conflict|collision", message, re.I) else lines[0]
    return GrammarError(keep, path=str(path), line=line, rule=rule)
