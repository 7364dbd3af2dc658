"""Value syntaxes: how a dialect writes its values, one row per syntax, one module each.

The grammar header names two rows (SPEC 5.1):

    //! toolparse: typing=attribute|schema|json|pythonic  value_edges=xml|trim|newline|none

`typing=` says how values are typed: `attribute` (SPEC 3's reading and DSML's
`string=`), `schema` (a schema alone types a value), `json` (the arguments are one
JSON text) or `pythonic` (calls written as Python, their arguments built into one JSON
text). `value_edges=` says how a parameter's value text reads: `xml` (SPEC 3.1),
`trim` (the same without entities), `newline` (one leading and one trailing newline
dropped) or `none` (as written). Each name becomes its row once, at load (`named`); what
a row answers is `base.ValueSyntax`'s list.

A new syntax is a module here with one row, added to `VALUE_SYNTAXES`: its rules'
builders join the merged builders (`RULE_SYNTAXES`), and a grammar names it in its
header (docs/grammars.md, "Value syntaxes").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from toolparse._dialect.build import CONTRACT_RULES
from toolparse._dialect.syntaxes.attribute import ATTRIBUTE
from toolparse._dialect.syntaxes.gemma import GEMMA
from toolparse._dialect.syntaxes.base import TYPING, VALUE_EDGES, ValueSyntax
from toolparse._dialect.syntaxes.json import JSON
from toolparse._dialect.syntaxes.newline import NEWLINE
from toolparse._dialect.syntaxes.none import NONE
from toolparse._dialect.syntaxes.pythonic import PYTHONIC
from toolparse._dialect.syntaxes.schema import SCHEMA
from toolparse._dialect.syntaxes.trim import TRIM
from toolparse._dialect.syntaxes.xml import XML
from toolparse._errors import GrammarError

__all__ = ["DEFAULTS", "RULE_SYNTAXES", "TYPING", "VALUE_EDGES", "VALUE_SYNTAXES",
           "ValueSyntax", "named", "names"]

VALUE_SYNTAXES: Final = {row.name: row for row in (
    ATTRIBUTE, SCHEMA, JSON, PYTHONIC, GEMMA,   # typing=
    XML, TRIM, NEWLINE, NONE,       # value_edges=
)}
"""Name -> row, for every name a header can write (a row says which key names it)."""

DEFAULTS: Final = {TYPING: ATTRIBUTE, VALUE_EDGES: XML}
"""The row of a key the header leaves out: the deepseek family's."""


def _merged(rows: Iterable[ValueSyntax]) -> dict[str, ValueSyntax]:
    """Rule name -> the row that builds it. A rule is one syntax's, and none is a
    contract rule: the builders merge as grammars compose, by rule name."""
    found: dict[str, ValueSyntax] = {}
    for row in rows:
        for rule in row.builders:
            other = found.get(rule)
            if other is not None or rule in CONTRACT_RULES:
                builder = f"value syntax {other.name!r}" if other else "the contract"
                raise RuntimeError(f"value syntax {row.name!r} builds rule {rule!r}, which "
                                   f"{builder} builds")
            found[rule] = row
    return found


RULE_SYNTAXES: Final = _merged(VALUE_SYNTAXES.values())
"""Rule name -> the value syntax that builds it, merged with the contract builders
(`Builders.for_rule`) wherever a grammar writes the rule."""


def names(key: str) -> tuple[str, ...]:
    """The names header key `key` takes, in table order."""
    return tuple(name for name, row in VALUE_SYNTAXES.items() if row.key == key)


def named(key: str, name: str | None, path: str, line: int | None) -> ValueSyntax:
    """The row `key=name` names (None: the key's default); raises GrammarError naming
    the file and line for a name that is no row of that key."""
    if name is None:
        return DEFAULTS[key]
    row = VALUE_SYNTAXES.get(name)
    if row is None or row.key != key:
        raise GrammarError(f"{key}={name!r}: expected one of {', '.join(names(key))}",
                           path=path, line=line)
    return row
