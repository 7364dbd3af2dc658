"""Loading a grammar file into a `Dialect`, with the checks the engine needs.

What Lark compiles from a grammar file (terminals, rules, LALR table: `records.py`) is
cached per file, so after the first run loading a grammar never imports Lark (its import
and load cost tens of milliseconds); on a miss Lark compiles it (`from_lark.py`).
Bundled dialects are also memoised per process. A grammar that does not load is a
`GrammarError` naming the file, line and rule (Lark's full message is kept for
conflicts). A grammar that loads must be able to yield a call (SPEC 5). These mistakes,
which would otherwise load silently and then give nothing but text, are errors here, on
every load (from the cache or not):

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

import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from toolparse._dialect.bounds import check_costs, check_loops, check_sizes
from toolparse._dialect.build import CONTRACT_RULES, Builders
from toolparse._dialect.dialect import Dialect
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.header import Header, read_header
from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.records import FORMAT, GrammarRecord, RuleRecord
from toolparse._dialect.roles import (
    MESSAGE_RULES,
    BlockRoles,
    block_roles,
    own_name,
    reachable,
    reachable_children,
    tokens_around,
)
from toolparse._dialect.syntaxes import RULE_SYNTAXES
from toolparse._dialect.table import Table, read_table
from toolparse._errors import DialectTypeError, GrammarError, UnknownDialectError
from toolparse._reasoning.formats import resolve_format
from toolparse._syntax.dfa import DFA
from toolparse._syntax.files import cached_json, grammars_dir, import_paths

__all__ = ["AUTO", "DEFAULT", "MESSAGE_RULES", "bundled_dialects", "dialects",
           "key_value_tokens", "load_bundled", "load_file", "resolve_dialect"]

AUTO = "auto"
"""The name of the dialect that reads every bundled dialect at once (SPEC 5.2)."""

DEFAULT = "deepseek"
"""The dialect `parse` and `StreamParser` read when none is named."""

START_RULES = ("block", "orphan_block", "attribute", *MESSAGE_RULES)
"""Start rules: `block` and the optional `orphan_block` are what the engine looks for;
the optional `attribute` keeps the ATTRIBUTE terminal in the grammar (no rule of a block
uses it: it reads attributes out of a tag's text); the optional `MESSAGE_RULES`."""

BUILT_RULES = (*CONTRACT_RULES, *RULE_SYNTAXES)
"""The rules that build something: the contract's and the value syntaxes' (merged)."""


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
    if not isinstance(name, str):
        raise DialectTypeError(f"Dialect.bundled: name must be a bundled dialect name (a str), "
                               f"not {type(name).__name__}")
    return _bundled(name)


def bundled_dialects() -> dict[str, Path]:
    """Name -> grammar file of every bundled dialect: the files of `grammars/dialects/`."""
    return {p.stem: p for p in sorted((grammars_dir() / "dialects").glob("*.lark"))}


def dialects() -> tuple[str, ...]:
    """The names of the bundled dialects (`toolparse.dialects()`): the default first,
    then the others in alphabetical order. Each is a grammar file in `grammars/dialects/`;
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
    literals = {t.name: t.literal for t in grammar.record.terminals if t.literal is not None}
    around = tokens_around(grammar.record.rules, "param", "value")
    head = _string_pieces(grammar, around[0]) if around else []
    if around is None or len(head) != 3 or around[1] not in literals:
        raise GrammarError(
            "rule 'param' must be a head terminal made of three string terminals (key "
            "open, key close, value open), 'value', and a string terminal (value close): "
            "the boundary tokens repair reads", path=str(grammar.path),
            line=_definition_line(grammar.source, "param"), rule="param")
    return head[0], head[1], head[2], literals[around[1]]


def _string_pieces(grammar: Grammar, terminal: str) -> list[str]:
    """The plain strings a terminal's definition is composed of, in order (Lark reads
    the definition; cached with the grammar's other data)."""
    def build() -> list[str]:
        from toolparse._dialect.from_lark import string_pieces  # noqa: PLC0415

        return string_pieces(grammar.source, grammar.path, terminal)

    def read(data: Any) -> list[str]:
        if not isinstance(data, list) or not all(isinstance(piece, str) for piece in data):
            raise TypeError("string pieces are a list of strings")
        return data

    source = _cache_source(grammar.source, grammar.path, grammar.starts)
    return cached_json("pieces", f"{source}\0{terminal}", build, read)


def resolve_dialect(dialect: str | Dialect) -> Dialect:
    """The Dialect for a `dialect=` argument: a bundled name or a Dialect."""
    if isinstance(dialect, Dialect):
        return dialect
    if isinstance(dialect, str):
        return _bundled(dialect)
    raise DialectTypeError(
        f"dialect must be a bundled dialect name or a toolparse.Dialect, not {type(dialect).__name__}")


@functools.cache
def _bundled(name: str) -> Dialect:
    available = bundled_dialects()
    if name == AUTO:
        grammars = tuple(_bundled(other)._grammars[0] for other in dialects())
        return Dialect(AUTO, None, grammars, "every bundled dialect at once, decided per "
                       "block by its first tags")
    if name not in available:
        import difflib  # noqa: PLC0415  (only for a name that is not there)

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
    try:
        return _load_grammar(text, path, name)
    except RecursionError:
        # Lark, interegular and the standard library's regex parser all recurse on
        # nesting: a grammar nested thousands deep exhausts the stack in any of them.
        depth, line = _deepest(text)
        raise GrammarError(f"nested too deeply to compile ({depth} levels of brackets); "
                           "flatten it", path=str(path), line=line) from None


def _deepest(text: str) -> tuple[int, int]:
    """The deepest nesting of brackets in `text` and the line where it is reached."""
    depth = deepest = 0
    line = where = 1
    for char in text:
        if char == "\n":
            line += 1
        elif char in "([{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, line
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return deepest, where


def _load_grammar(text: str, path: Path, name: str) -> Grammar:
    header = read_header(text, str(path))
    if "%import" not in text and _definition_line(text, "block") is None:
        # Before Lark, whose message would not say what the rule is for.
        raise GrammarError("the grammar defines no rule 'block', the start rule the engine "
                           "looks for", path=str(path), rule="block")
    starts = tuple(s for s in START_RULES if s == "block" or re.search(
        rf"^\s*[?!]?{s}\b", text, re.M) or _imports(text, s))
    record = _compiled(text, path, starts)
    _check_rules(record.rules, text, path)
    terminals = {
        t.name: TerminalSpec.compile(t.name, t.regexp, t.flags, t.priority, t.max_width)
        for t in record.terminals
    }
    for spec in terminals.values():
        if spec.is_run and spec.full.match(""):
            raise GrammarError(f"terminal {spec.name} matches the empty string",
                               path=str(path), rule=spec.name)
    costs = check_costs(terminals.values(), _refuser(text, path))
    table = read_table(record.table, record.rules, frozenset(terminals))
    built = {own_name(r.origin) for r in record.rules} & set(BUILT_RULES)
    roles = block_roles(record.rules, built)
    build = _builders(terminals, header, roles, record.rules, text, path)
    openers, opener_rule = _openers(table, terminals, starts, text, path)
    for ender in header.ends_reasoning:
        if ender not in opener_rule or terminals[ender].dfa is None:
            raise GrammarError(
                f"ends_reasoning={ender}: a terminal that ends a reasoning region must open "
                "a block (and be a plain pattern)", path=str(path),
                line=_definition_line(text, ender), rule=ender)
    for anchored in header.anchored:
        if anchored not in opener_rule:
            raise GrammarError(
                f"anchored={anchored}: an anchored terminal must open a block",
                path=str(path), line=_definition_line(text, anchored), rule=anchored)
    if header.anchored and set(header.anchored) >= set(opener_rule):
        raise GrammarError("anchored= names every block opener: at least one must open "
                           "a block anywhere", path=str(path))
    grammar = Grammar(
        name=name, path=path, header=header, source=text, starts=starts, record=record,
        table=table, terminals=terminals,
        ignored=frozenset(n for n in record.ignore if n in terminals),
        openers=openers, opener_rule=opener_rule, roles=roles, build=build,
        builders=tuple(None if info.flatten else build.for_rule(info.origin)
                       for info in table.rules),
        name_at_tag=_name_at_tag(roles, terminals, build),
        json_reference=_json_reference() if _imports(text, "json_call") else None,
    )
    # (an anchored opener is tried once, at the start: no loop reads on over it)
    check_loops(grammar.terminals.values(), costs, grammar.block_starts.openers,
                _tried_often(grammar), _refuser(text, path))
    _check_states(grammar, text, path)
    _check_messages(grammar, text, path)
    return grammar


def _check_messages(grammar: Grammar, text: str, path: Path) -> None:
    """A grammar whose headers open messages (`MESSAGE_RULES`) names a channels
    reasoning format in its header: its end marker ends the messages (SPEC 11)."""
    rules = set(grammar.opener_rule.values()) & {"reasoning_message", "content_message"}
    if not rules:
        return
    name = grammar.header.reasoning
    if name is None or not resolve_format(name).channels:
        rule = min(rules)
        raise GrammarError(f"rule {rule!r} opens messages: the header must name a channels "
                           "reasoning format (reasoning=harmony), whose end marker ends them",
                           path=str(path), line=_definition_line(text, rule), rule=rule)


def _tried_often(grammar: Grammar) -> set[str]:
    """The terminals tried wherever they can start: those SCAN and a broken span search
    for, and the candidates of a state that loops over a value's pieces."""
    roles = grammar.roles
    found = {spec.name for spec in grammar.openers}
    found |= roles.block_opens | roles.block_closes | roles.section_opens | roles.section_closes
    for state, loops in enumerate(grammar.table.loops):
        if loops:
            found |= {spec.name for spec in grammar.candidates(state)}
    return found


def _refuser(text: str, path: Path) -> Callable[[str, str], GrammarError]:
    """A GrammarError naming the file, the terminal and its line, for `bounds.py`."""
    def refuse(name: str, message: str) -> GrammarError:
        return GrammarError(message, path=str(path), line=_definition_line(text, name),
                            rule=name)
    return refuse


# ---- what Lark compiles, cached -----------------------------------------------------------

def _compiled(text: str, path: Path, starts: tuple[str, ...]) -> GrammarRecord:
    """What Lark compiles from the grammar: read from the cache, or (on a miss) from
    Lark, which only then is imported. Both ways the record is read from the same plain
    data (`GrammarRecord.from_data`)."""
    def build() -> list[Any]:
        from toolparse._dialect import from_lark  # noqa: PLC0415  (Lark: only on a miss)

        try:
            # Sizes first: Lark's strict checks take a minute on 5,000 alternatives.
            check_sizes(from_lark.terminal_patterns(text, path, starts), _refuser(text, path))
            return from_lark.grammar_record(from_lark.lark_parser(text, path, starts)).to_data()
        except GrammarError:
            raise
        except from_lark.LarkError as e:
            raise _grammar_error(e, text, path) from e
        except (OSError, ValueError) as e:
            raise GrammarError(str(e), path=str(path)) from e

    return cached_json("grammar", _cache_source(text, path, starts), build,
                       GrammarRecord.from_data)


_JSON_REFERENCE: Final = "%import common.json (json_call)\nblock: json_call\n"
"""A grammar of `common/json.lark`'s `json_call` alone (`whole.py` compares with it)."""


@functools.cache
def _json_reference() -> GrammarRecord:
    """`_JSON_REFERENCE` compiled (cached like any grammar), as if it were bundled."""
    return _compiled(_JSON_REFERENCE, grammars_dir() / "dialects" / "json_call.lark", ("block",))


def _cache_source(text: str, path: Path, starts: Sequence[str]) -> str:
    """What the compiled grammar depends on besides the installed Lark (which
    `cache_key` stamps): the layout of the records, the start rules, the text, and the
    text of every file an `%import` may read."""
    roots = tuple(import_paths(path.parent))
    imported = _imported_texts(text, path.parent, roots, set()) if "%import" in text else []
    return "\0".join((f"records {FORMAT}", ",".join(starts), text, *imported))


def _imports(text: str, rule: str) -> bool:
    """Whether an `%import` of `text` brings in `rule` (by name in its list, or as the
    last part of its module path)."""
    for m in re.finditer(r"^[ \t]*%import[ \t]+\.?([\w.]+)[ \t]*(?:\(([^)]*)\))?", text, re.M):
        names = [n.strip().split("->")[0].strip() for n in (m.group(2) or "").split(",")]
        if rule in names or (m.group(2) is None and m.group(1).split(".")[-1] == rule):
            return True
    return False


_IMPORT = r"^[ \t]*%import[ \t]+\.?([A-Za-z_][\w.]*)"
"""An `%import` statement's module path (compiled only for a grammar that has one)."""


def _imported_texts(text: str, base: Path, roots: tuple[Path, ...], seen: set[Path]
                    ) -> list[str]:
    """The path and text of each grammar file `text` may `%import`, and of those they
    import. Lark looks for `%import a.b` (module `a.b`, or `a` when `b` is the name
    imported) as `a/b.lark` under its import paths (`roots`: the grammar's directory
    and the bundled grammars'), then, for a relative `.a.b`, under the importing file's
    directory (`base`). Every such file that exists is read, so that a change to any of
    them makes a new key; a module found in none (Lark's own `common`) is covered by
    Lark's version."""
    found: list[str] = []
    for m in re.finditer(_IMPORT, text, re.M):
        parts = m.group(1).split(".")
        for module in sorted({tuple(parts), tuple(parts[:-1])} - {()}):
            for place in sorted({*roots, base}):
                candidate = (place.joinpath(*module[:-1]) / f"{module[-1]}.lark").resolve()
                if candidate in seen or not candidate.is_file():
                    continue
                seen.add(candidate)
                try:
                    imported = candidate.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                found += [str(candidate), imported,
                          *_imported_texts(imported, candidate.parent, roots, seen)]
    return found


# ---- what the rules must have ------------------------------------------------------------

def _check_rules(rules: Sequence[RuleRecord], text: str, path: Path) -> None:
    names = {own_name(r.origin) for r in rules}
    for rule in ("block", "invoke"):
        if rule not in names:
            raise GrammarError(f"the grammar defines no rule {rule!r}, which the engine "
                               "builds calls from", path=str(path), rule=rule)
    for start in ("block", "orphan_block"):
        if start in names and "invoke" not in reachable(rules, start):
            raise GrammarError(f"rule {start!r} can hold no call: it never reaches 'invoke'",
                               path=str(path), line=_definition_line(text, start), rule=start)


_TRAILING_LOOKAHEAD = re.compile(r"\(\?=[^()]*\)(?=\)*\Z)")


def _tag_only(spec: TerminalSpec) -> re.Pattern[str]:
    """The tag's pattern for reading its name group from the tag's own text: without a
    trailing lookahead (`(?=\\{)`), which reads what follows the tag, not the tag."""
    pattern = spec.full.pattern
    trimmed = _TRAILING_LOOKAHEAD.sub("", pattern)
    return spec.full if trimmed == pattern else re.compile(trimmed, spec.full.flags)


def _builders(terminals: dict[str, TerminalSpec], header: Header, roles: BlockRoles,
              rules: Sequence[RuleRecord], text: str, path: Path) -> Builders:
    attribute_name = next((n for n in terminals if own_name(n) == "ATTRIBUTE"), None)
    # An attribute starts after whitespace: the lookbehind keeps finditer from trying
    # (and backtracking) at every position of a long tag name.
    attribute = (re.compile(r"(?<!\S)" + terminals[attribute_name].pattern)
                 if attribute_name else None)
    groups = {n: _tag_only(spec) for n, spec in terminals.items() if spec.has_name}
    invoke = reachable_children(rules, "invoke", BUILT_RULES)
    if not (groups.keys() & invoke or attribute is not None or "name" in invoke
            or "json_body" in invoke or "json_call" in invoke):
        raise GrammarError(
            "a call has no way to get a name: give its opening tag a (?P<name>...) group "
            "or a name attribute (an ATTRIBUTE terminal), or add a 'name' rule or a "
            "'json_body' or 'json_call' rule to 'invoke'", path=str(path),
            line=_definition_line(text, "invoke"), rule="invoke")
    param = reachable_children(rules, "param", BUILT_RULES)
    if param and not (groups.keys() & param or attribute is not None or "key" in param):
        raise GrammarError(
            "an argument has no way to get a name: give its opening tag a (?P<name>...) "
            "group or a name attribute, or add a 'key' rule to 'param'", path=str(path),
            line=_definition_line(text, "param"), rule="param")
    typing = header.typing
    if header.type_attribute is not None and attribute is None:
        raise GrammarError(
            f"type_attribute={header.type_attribute} is read with the ATTRIBUTE terminal: "
            "add `attribute: ATTRIBUTE` and define it", path=str(path),
            line=text.count("\n", 0, text.find("type_attribute=")) + 1)
    return Builders(name_groups=groups, attribute=attribute,
                    values=typing.value_reader(header.value_edges),
                    body=RULE_SYNTAXES["json_body"], string_attribute=typing.guesses,
                    syntaxes=RULE_SYNTAXES, call_shape=header.call_shape,
                    members=any(own_name(rule.origin) == "member" for rule in rules),
                    type_attribute=header.type_attribute)


def _name_at_tag(roles: BlockRoles, terminals: dict[str, TerminalSpec], build: Builders) -> bool:
    return bool(roles.call_starts) and all(
        terminals[n].has_name or build.attribute is not None for n in roles.call_starts)


def _openers(table: Table, terminals: dict[str, TerminalSpec], starts: Sequence[str], text: str,
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


def _check_states(grammar: Grammar, text: str, path: Path) -> None:
    """The state-by-state checks: runs that swallow tags, whitespace after the opener."""
    _check_atoms(grammar, text, path)
    # From each state's candidates, not its compiled lexer: a state's lexer is
    # compiled when a parse first reaches it (most never are), which keeps start-up short.
    # (an anchored opener is read by a lexer of its own, before whitespace goes out: no
    # run competes with it, and it may begin with whitespace: gpt_oss's ` to=`)
    anchored = grammar.header.anchored
    for state in range(len(grammar.table.actions)):
        if not grammar.table.actions[state]:
            continue
        _check_swallow([spec for spec in grammar.candidates(state) if spec.name not in anchored],
                       text, path)
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


def _grammar_error(e: Exception, text: str, path: Path) -> GrammarError:
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
