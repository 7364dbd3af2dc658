"""Loading a grammar file into a `Dialect`, with the checks the engine needs.

Loading uses Lark's cache, so a grammar costs a few milliseconds after the first run;
bundled dialects are also memoised per process. A grammar that does not load, or lacks
what the engine builds calls from, is a `GrammarError` naming the file, line and rule.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import lark
from lark.exceptions import LarkError

from toolparse._dialect.dialect import Dialect
from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.roles import block_roles
from toolparse._dialect.openers import literal_first_char, starts_pattern, with_lookahead
from toolparse._dialect.transform import BlockTransformer
from toolparse._errors import GrammarError, UnknownDialectError
from toolparse._syntax.files import grammars_dir

__all__ = ["bundled_dialects", "load_bundled", "load_file", "resolve_dialect"]

START_RULES = ("block", "orphan_block", "attribute")
"""Start rules the engine uses; `orphan_block` is optional."""

REQUIRED_RULES = ("block", "invoke", "param", "attribute")
"""Rules the Transformer builds calls from; a dialect grammar must define them."""

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
    return _load(text, path.resolve(), name or path.stem)


def load_bundled(name: str) -> Dialect:
    """A bundled dialect by name (`Dialect.bundled`), loaded once per process."""
    return _bundled(name)


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
        first = literal_first_char(spec.pattern)
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
        opener_pattern=with_lookahead(openers),
        opener_starts=starts_pattern(openers, chars),
        attribute=attribute, roles=block_roles(parser.rules), transformer=transformer,
    )


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
