"""What the engine asks of a value syntax: one row of `VALUE_SYNTAXES`.

A row is a `ValueSyntax`, one module each; the grammar header's `typing=` and
`value_edges=` each name one, and the loader turns the names into the rows once (the
header keeps the objects: nothing downstream compares a name). A row answers:

- `builders`: the builders of its own rules (rule name -> builder), merged with the
  contract builders of `build.py` at load, as the grammar merges the rules it imports;
- `value_text(pieces)`: a value's text from its pieces (text tokens, CDATA sections,
  what its own builders built), and whether it was exactly one CDATA section;
- `stream()`: a reader of the certain prefix of a value still arriving (SPEC 7), one
  per value;
- `guesses` and `schema_types`: how a value is typed, for a row `typing=` names;
- `value_reader(edges)`: which row reads a parameter's value under this typing.

The base answers for a value read as written, typed by nobody: a row overrides what
it reads differently. A native class, not a `Protocol`: the compiled build reads its
fields and calls its methods directly (a `Protocol`-typed value goes through generic
attribute look-up there, 2.5x slower).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from toolparse._dialect.value_stream import ValueStream
from toolparse._dialect.values import as_written

__all__ = ["TYPING", "VALUE_EDGES", "Builder", "ValueSyntax"]

TYPING: Final = "typing"
"""The header key that names how values are typed (`attribute`, `schema`, `json`)."""

VALUE_EDGES: Final = "value_edges"
"""The header key that names how a parameter's value text reads (`xml`, `trim`, ...)."""

Builder = Callable[[list[Any]], Any]
"""A rule's builder: the rule's children in order -> what the rule builds."""


class ValueSyntax:
    """One way values are written, and what the engine asks of it (see the module)."""

    __slots__ = ("name", "key", "guesses", "schema_types", "builders")

    def __init__(self, name: str, key: str, *, guesses: bool = False,
                 schema_types: bool = False,
                 builders: Mapping[str, Builder] | None = None) -> None:
        self.name: Final = name
        """The row's name, as the header writes it."""
        self.key: Final = key
        """The header key that names it (`TYPING` or `VALUE_EDGES`)."""
        self.guesses: Final = guesses
        """Values are typed by reading their text (SPEC 3: a JSON number or literal is
        that value) and by DSML's `string="true|false"` attribute."""
        self.schema_types: Final = schema_types
        """A schema alone types a value: without tools it is its text, a string, and
        so it streams as one (SPEC 5.1, 7)."""
        self.builders: Final[dict[str, Builder]] = dict(builders or {})
        """The builders of the rules this syntax brings (rule name -> builder)."""

    def builder(self, rule: str, shape: Any) -> Builder:
        """The builder of `rule` (one of `builders`) for one dialect: `shape` is what its
        header declares of its calls' JSON members (`json_calls.CallShape`). The base:
        the builder as it is."""
        return self.builders[rule]

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        """A value from its pieces: its text, and whether it was written as exactly one
        CDATA section. The base: the pieces as written."""
        return as_written(pieces), False

    def stream(self) -> ValueStream:
        """A new reader of the certain prefix of one value (`value_stream.py`): what it
        gives out always begins `value_text` of the whole value. The base: every piece
        at once."""
        return ValueStream()

    def value_reader(self, edges: ValueSyntax) -> ValueSyntax:
        """The row that reads a parameter's value under this typing, `edges` being the
        row the header's `value_edges=` names: that one, for a typing of text values.
        A syntax that writes its values in its own notation (Python literals, Gemma's
        values) returns itself."""
        return edges

    def __repr__(self) -> str:
        return f"<value syntax {self.key}={self.name}>"
