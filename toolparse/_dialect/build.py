"""From parsed markup to calls: what each rule of a tool-call grammar builds.

The LALR driver (`table.Driver`) calls one builder per reduction of a rule the engine
knows by name, with the rule's children in order: `Tag`s (the tokens that open or close
a rule, with their offsets), text pieces (`str`), and what the child rules built. Calls
are found by rule name, never by position in the tree (SPEC 5.1):

    block, orphan_block   the calls of a block, in order
    invoke                one call; its name from, in this order: a `(?P<name>...)`
                          group in one of its tags, the `name` attribute of its opening
                          tag, a child `name` rule's text, its `Body` (the `name` member
                          of a JSON body: then the arguments are its `arguments` or
                          `parameters`)
    param                 one argument; its key from a `(?P<name>...)` group or the
                          `name` attribute of its opening tag, or a child `key` rule's
                          text; its value from its text pieces, or a child `value` rule,
                          read by the dialect's value syntax (`Builders.values`), or
                          its `member`s
    member                an element inside a value, named by its key as a `param` is
                          (MiniMax-M3's `<city>...</city>` inside `<shipping>`): a value
                          that holds members is their tuple, which typing makes a JSON
                          object, or an array where the schema says so; whitespace may
                          stand between them, other text may not
    cdata, nested_cdata   a verbatim section (the nested one keeps its markers)
    comment               nothing
    name, key, value      the text of their pieces

The value syntaxes (`syntaxes/`) bring the builders of their own rules, merged with
these at load (`for_rule`): `json_body`, a call's arguments as one JSON text (SPEC
3.1), is the `json` syntax's, and builds a `Body`.

A builder raises `BlockRejected` for what the grammar cannot state (a call without a
name, a repeated attribute): the block then fails at the token being fed (SPEC 3.2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from toolparse._json import MAX_JSON_DEPTH
from toolparse._dialect.table import Tag
from toolparse._dialect.table import flat as _flat
from toolparse._dialect.values import Cdata, decode_entities

if TYPE_CHECKING:  # the syntaxes import this module: they are handed in at load
    from toolparse._dialect.syntaxes.base import Builder, ValueSyntax

__all__ = ["BlockRejected", "Body", "Builders", "RawCall", "RawParam", "CONTRACT_RULES",
           "joined", "name_text"]

CONTRACT_RULES = ("block", "orphan_block", "invoke", "param", "member", "cdata",
                  "nested_cdata", "comment", "name", "key", "value")
"""The rules the contract builders build. The value syntaxes build their own
(`syntaxes.RULE_SYNTAXES`); every other rule inlines into its parent."""


NAME_ATTRIBUTE: Final = "name"
"""The tag attribute that holds a call's name or an argument's key (`<invoke name=...>`)."""
_KEPT: Final = 512
_KEPT_LENGTH: Final = 256
"""How many tags' attributes a dialect keeps, and how long a tag it keeps (the store is
bounded whatever the stream holds)."""


class BlockRejected(Exception):
    """The block parsed but is not a valid block: `reason` is the failure's stable code
    (`invalid_name`, `repeated_attribute`); the message says why, for debugging."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


# A block's calls live until its wrapper closes (SPEC G4). They are plain tuples of
# strings, numbers and such tuples, not records: the cyclic collector stops tracking
# such a tuple once a collection finds its items untracked (one level of nesting a
# collection at worst), so a block holds no tracked object per call.
# As records, a wrapper of thousands of calls kept tens of thousands of tracked objects
# alive across chunks; each promotion counted toward the collector's full collections,
# which walk the whole process's heap (docs/performance.md, "Growth and the
# collector").

RawParam = tuple[str, "str | tuple[RawParam, ...]", "bool | None", bool]
"""A parameter as written, before typing: its name, its value text (or, for a value
written as elements, its members, each a `RawParam`), its `string` attribute (True,
False, or None when absent or neither) and whether the value was written as exactly one
CDATA section; as `type_arguments` takes it."""

RawCall = tuple[str, tuple[RawParam, ...], "str | None", int, int]
"""A call as written: its name, its parameters, its JSON arguments text as written
(surrounding whitespace aside; like OpenAI's `function.arguments`, SPEC 3.1; None for
parameters), and its start and end offsets."""


def _is_param(value: Any) -> bool:
    """A child that `param` built: the one tuple of four, led by a name, that a rule's
    children can hold."""
    return type(value) is tuple and len(value) == 4 and type(value[0]) is str


def _is_call(value: Any) -> bool:
    """A child that `invoke` built: the one tuple of five, led by a name, that a rule's
    children can hold (a block's tuple of calls is led by a call)."""
    return type(value) is tuple and len(value) == 5 and type(value[0]) is str


# The records below are plain classes with `__slots__`, not frozen dataclasses: one is
# made per section or named piece, and a frozen dataclass's `__init__` sets each field
# through `object.__setattr__` in interpreted code (compiled: 860 ns an instance against
# 100 for a plain class). Their fields are `Final`: mypy keeps them read-only, as
# `frozen` did.

class Body:
    """A call's arguments written as one text (a JSON body), as the value syntax that
    reads it built it. A call whose tags give no name asks its body (`call`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text: Final = text
        """The arguments text as written, surrounding whitespace aside (SPEC 3.1)."""

    def call(self, start: int, end: int) -> RawCall:
        """The call the body is, name and all, spanning `start` to `end`; raises
        `BlockRejected` when it names none (as this base does)."""
        raise BlockRejected("invalid_name", "a call has no name")


class _Named:
    __slots__ = ("kind", "pieces")

    def __init__(self, kind: str, pieces: tuple[Any, ...]) -> None:
        self.kind: Final = kind
        """`name`, `key` or `value`."""
        self.pieces: Final = pieces


class Builders:
    """The builders of one dialect: how its tags carry names, how its values read."""

    def __init__(self, *, name_groups: dict[str, re.Pattern[str]],
                 attribute: re.Pattern[str] | None, values: ValueSyntax,
                 body: ValueSyntax, string_attribute: bool,
                 syntaxes: Mapping[str, ValueSyntax], call_shape: Any = None,
                 members: bool = False, type_attribute: str | None = None) -> None:
        self.name_groups = name_groups
        """Terminal -> its pattern, for the terminals with a `(?P<name>...)` group."""
        self.attribute = attribute
        """The ATTRIBUTE terminal (group 1 the name, a later group the value), if any."""
        self.values = values
        """The value syntax that reads a parameter's value (the header's `value_edges=`,
        as its `typing=` reads values)."""
        self.body = body
        """The value syntax that reads a call's arguments body (`json_body`)."""
        self.string_attribute = string_attribute
        """Read an argument's `string="true|false"` attribute (the typing `guesses`:
        `typing=attribute`, DSML); under any other typing it means nothing (SPEC 5.1)."""
        self.syntaxes = syntaxes
        """Rule name -> the value syntax that builds it (`syntaxes.RULE_SYNTAXES`)."""
        self.call_shape = call_shape
        """What the header declares of a call's JSON members (`json_calls.CallShape`)."""
        self.members = members
        """The grammar has a `member` rule: a value's pieces may hold members."""
        self.type_attribute = type_attribute
        """An argument's attribute that gives its JSON type (the header's
        `type_attribute=`): `string` reads as `string="true"`, any other type as
        `string="false"`."""
        self._attributes: dict[str, dict[str, str]] = {}
        """Tag text -> its attributes (`attributes`)."""
        self._heads: dict[str, tuple[str, str | None, bool | None]] = {}
        """A parameter's opening tag text -> its terminal, key and `string` (`_tag_head`)."""

    def for_rule(self, origin: str) -> Builder | None:
        """The builder of a rule, by its own name (without a `%import` namespace): a
        contract builder's, or that of the value syntax that brings the rule."""
        own = origin.rsplit("__", 1)[-1] if not origin.startswith("__") else origin
        if own in ("name", "key", "value"):
            return lambda children: _Named(own, tuple(_flat(children)))
        if own in CONTRACT_RULES:
            found: Builder = getattr(self, own)
            return found
        syntax = self.syntaxes.get(own)
        return syntax.builder(own, self.call_shape) if syntax is not None else None

    # ---- tags ------------------------------------------------------------------------

    def attributes(self, tag: str) -> Mapping[str, str]:
        """The attributes of tag text `tag`, names to decoded values; raises for a
        repeated attribute. Read once per distinct tag text and kept (a stream repeats
        its tags, `<parameter name="path">` say, and a call reads its tags' attributes
        several times): the dict is shared, so callers only read it. Kept: at most
        `_KEPT` tags of at most `_KEPT_LENGTH` characters, then the store starts over."""
        found = self._attributes.get(tag)
        if found is None:
            found = self._read_attributes(tag)
            if len(tag) <= _KEPT_LENGTH:
                if len(self._attributes) >= _KEPT:
                    self._attributes.clear()
                self._attributes[tag] = found
        return found

    def _read_attributes(self, tag: str) -> dict[str, str]:
        found: dict[str, str] = {}
        if self.attribute is None:
            return found
        for m in self.attribute.finditer(tag):
            key = m.group(1)
            if key in found:
                raise BlockRejected("repeated_attribute", f"attribute {key!r} repeated in a tag")
            value = next((g for g in m.groups()[1:] if g is not None), "")
            found[key] = decode_entities(value).strip()
        return found

    def tag_name(self, tag: Tag) -> str | None:
        """The name a tag carries (its `name` group, else its `name` attribute), or None
        when it carries none; raises for a repeated attribute."""
        group = self.name_groups.get(tag.term)
        if group is not None:
            m = group.match(tag.text)
            return _clean(m.group("name")) if m is not None and m.group("name") else None
        attrs = self.attributes(tag.text)
        return attrs.get(NAME_ATTRIBUTE) or None

    def check_call_tag(self, tag: Tag) -> None:
        """Refuse a call's opening tag that has no name as it arrives: no call starts."""
        if not self.tag_name(tag):
            raise BlockRejected("invalid_name", "a call tag has no name")

    # ---- rules -----------------------------------------------------------------------

    def block(self, children: list[Any]) -> tuple[RawCall, ...]:
        return tuple(child for child in _flat(children) if _is_call(child))

    def orphan_block(self, children: list[Any]) -> tuple[RawCall, ...]:
        return self.block(children)

    def invoke(self, children: list[Any]) -> RawCall:
        children = _flat(children)
        tags = [child for child in children if isinstance(child, Tag)]
        start, end = tags[0].start, tags[-1].end
        body = next((child for child in children if isinstance(child, Body)), None)
        name = self._call_name(tags, children)
        if name is None and body is not None:
            return body.call(start, end)
        if not name:
            raise BlockRejected("invalid_name", "a call has no name")
        params = tuple(child for child in children if _is_param(child))
        return (name, params, body.text if body is not None else None, start, end)

    def param(self, children: list[Any]) -> RawParam:
        if self.members:
            found = self._element(children)
            if type(found[1]) is tuple and _too_deep(found[1]):
                raise BlockRejected("too_deep", f"argument {found[0]!r} nests elements "
                                    f"deeper than {MAX_JSON_DEPTH} levels")
            return found
        # The common shapes: [open tag, [pieces...], close tag], [open, close], [empty tag].
        if len(children) == 3 and type(children[1]) is list and type(children[0]) is Tag:
            # The first, read as below reads it: the key and `string` from the tag.
            key, string_attr = self._tag_head(children[0])
            if key and type(children[2]) is Tag:
                text, cdata_only = self.values.value_text(children[1])
                return (key, text, string_attr, cdata_only)
        key, string_attr = self._param_head(children)
        pieces: Any = ()
        for child in children:
            if isinstance(child, list):
                pieces = child if not pieces else [*pieces, *child]
            elif isinstance(child, (str, Cdata)):
                pieces = [*pieces, child]
            elif isinstance(child, _Named) and child.kind == "value":
                pieces = _flat(list(child.pieces))
        if not key:
            raise BlockRejected("invalid_name", "an argument has no name")
        text, cdata_only = self.values.value_text(pieces)
        return (key, text, string_attr, cdata_only)

    def _element(self, children: list[Any]) -> RawParam:
        """An argument or a member of a grammar with members: its value is text, or the
        members it holds."""
        key, string_attr = self._param_head(children)
        pieces: list[Any] = []
        for child in children:
            if isinstance(child, list):
                pieces.extend(child)
            elif isinstance(child, (str, Cdata)) or _is_param(child):
                pieces.append(child)
            elif isinstance(child, _Named) and child.kind == "value":
                pieces.extend(_flat(list(child.pieces)))
        if not key:
            raise BlockRejected("invalid_name", "an argument has no name")
        self._check_close(key, children)
        members = _members(pieces)
        if members is not None:
            return (key, members, string_attr, False)
        text, cdata_only = self.values.value_text(pieces)
        return (key, text, string_attr, cdata_only)

    def member(self, children: list[Any]) -> RawParam:
        return self._element(children)

    def _check_close(self, key: str, children: list[Any]) -> None:
        """An element's closing tag that carries a name must carry its key (elements
        nest, so `<a><b>x</a></b>` is refused, not read as `b` inside `a`)."""
        close = children[-1]
        if isinstance(close, Tag) and close is not children[0] \
                and close.term in self.name_groups and self.tag_name(close) != key:
            raise BlockRejected("mismatched_close",
                                f"element {key!r} closed by another element's tag")

    def string_of(self, term: str, text: str) -> bool | None:
        """The `string` attribute of an argument's opening tag (terminal `term`, text
        `text`), as `param` reads it; raises `BlockRejected` for a repeated attribute."""
        return self._tag_head(Tag(term, text, 0))[1]

    def param_head(self, opened: list[Any]) -> tuple[str, bool | None] | None:
        """For a parameter still being written (`opened`: what the parser holds of it
        so far, from its first token on): its key and `string` attribute, as `param`
        will read them; None while its key is not known (it may never be)."""
        try:
            key, string_attr = self._param_head(opened)
        except BlockRejected:
            return None
        return (key, string_attr) if key else None

    def _param_head(self, children: list[Any]) -> tuple[str | None, bool | None]:
        """A parameter's key (from its opening tag, else a child `key` rule) and its
        `string="true|false"` attribute (None when absent or neither)."""
        first = children[0]
        key: str | None = None
        string: bool | None = None
        if isinstance(first, Tag):
            key, string = self._tag_head(first)
        for child in children:
            if isinstance(child, _Named) and child.kind == "key":
                key = _clean(joined(child.pieces))
        return key, string

    def _tag_head(self, tag: Tag) -> tuple[str | None, bool | None]:
        """What a parameter's opening tag says: its key (None: none) and its `string`
        attribute. Read once per distinct tag text, like `attributes`."""
        found = self._heads.get(tag.text)
        if found is not None and found[0] == tag.term:
            return found[1], found[2]
        key: str | None = None
        attrs: Mapping[str, str] = {}
        if tag.term in self.name_groups:
            key = self.tag_name(tag)
        elif self.attribute is not None:
            attrs = self.attributes(tag.text)
            key = attrs.get(NAME_ATTRIBUTE) or None
        said = attrs.get("string", "").lower() if attrs and self.string_attribute else ""
        string = True if said == "true" else False if said == "false" else None
        if self.type_attribute is not None and self.attribute is not None:
            kind = self.attributes(tag.text).get(self.type_attribute)
            if kind is not None:
                string = kind == "string"
        if len(tag.text) <= _KEPT_LENGTH:
            if len(self._heads) >= _KEPT:
                self._heads.clear()
            self._heads[tag.text] = (tag.term, key, string)
        return key, string

    def cdata(self, children: list[Any]) -> Cdata:
        if len(children) == 3:  # the common shape: [open, [one piece], close]
            middle = children[1]
            if type(middle) is list and len(middle) == 1 and type(middle[0]) is str:
                return Cdata(middle[0])
        return Cdata(joined(_flat(children[1:-1])))

    def nested_cdata(self, children: list[Any]) -> str:
        # Inside an outer section, a nested one is content, markers included.
        return joined(_flat(children))

    def comment(self, children: list[Any]) -> None:
        return None

    def _call_name(self, tags: list[Tag], children: list[Any]) -> str | None:
        for tag in tags:
            if tag.term in self.name_groups:
                name = self.tag_name(tag)
                if name:
                    return name
        if self.attribute is not None:
            name = self.attributes(tags[0].text).get(NAME_ATTRIBUTE)
            if name:
                return name
        for child in children:
            name = name_text(child)
            if name is not None:
                return name
        return None


def _members(pieces: Any) -> tuple[RawParam, ...] | None:
    """A value's members, when its pieces hold any (None: a text value); text beside
    them other than whitespace is refused."""
    members = tuple(piece for piece in pieces if _is_param(piece))
    if not members:
        return None
    if any(not _is_param(piece) and (not isinstance(piece, str) or piece.strip())
           for piece in pieces):
        raise BlockRejected("mixed_value", "a value holds both elements and text")
    return members


def _too_deep(members: tuple[RawParam, ...]) -> bool:
    """Whether the arguments nest deeper than JSON is read (`MAX_JSON_DEPTH`, the call's
    arguments object counting 1, this argument's value 2), as a JSON body may not.
    Iterative, once per argument: typing recurses only into what passed."""
    stack = [(members, 2)]
    while stack:
        found, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        stack.extend((m[1], depth + 1) for m in found if type(m[1]) is tuple)
    return False


def name_text(value: Any) -> str | None:
    """The name a `name` rule built (as `invoke` reads it), or None for anything else."""
    if isinstance(value, _Named) and value.kind == "name":
        return _clean(joined(value.pieces))
    return None


def joined(pieces: Any) -> str:
    """The text of pieces as written: tags and CDATA sections as their text."""
    return "".join(piece.text if isinstance(piece, (Tag, Cdata)) else str(piece)
                   for piece in pieces if piece is not None)


def _clean(name: str) -> str:
    return decode_entities(name).strip()
