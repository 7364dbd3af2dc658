"""Failure and rejection reasons in words: what the model wrote wrong, where, in the
model's own terms (SPEC 9: "reason in words").

A `BlockFailure` says why a block failed with a stable code and the grammar's terminal
names (`unexpected_token`, expected `PARAMETER_CLOSE`), which mean nothing to someone
reading a gateway's log. `failure_message` turns one into a sentence:

    `</parameter>` missing before `</invoke>` at line 3

Every tag in it is spelled by the grammar that failed the block: a terminal written as
a string in the grammar file is that string; any other is its pattern's shortest
spelling (optional parts left out, a name shown as `…`: `<function=…>`), and a run of
characters (`/[^<]+/`) is "text". The token the model wrote where the block failed is
quoted from the failed text itself, as the grammar's terminals match it. Python spells
no tag here (SPEC 5).

`rejection_message` does the same for a call the schema or the policy rejected, from
its reason code and the repair outcome's errors (JSON pointers and schema messages,
never argument values).

Both are pure functions of their arguments: no I/O, no state, no logging. The sentences
for every code are listed in docs/semantics.md ("Reasons in words").
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from toolparse._dialect import Dialect
from toolparse._dialect.loader import resolve_dialect
from toolparse._events import register_views

if TYPE_CHECKING:
    from toolparse._dialect.grammar import Grammar
    from toolparse._events import BlockFailure, ToolCall

try:  # the standard library's parser of regex syntax (private; absent: names are shown)
    import re._parser as _sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    _sre_parse = None

__all__ = ["FAILURE_REASONS", "REJECTION_REASONS", "failure_message", "failure_sentence",
           "quoted", "rejection_message", "spelling"]

FAILURE_REASONS: Final = ("unexpected_token", "truncated", "max_capture", "invalid_name",
                          "repeated_attribute", "invalid_call", "diverged", "not_literal",
                          "mixed_value", "mismatched_close", "too_deep")
"""The `BlockFailure.reason` codes the engine gives, each with its own sentence."""

_ELEMENT_SENTENCES: Final = {
    "mixed_value": "holds both text and elements, which is no value",
    "mismatched_close": "closes an element with another element's tag",
    "too_deep": "nests elements deeper than JSON is read (64 levels)",
}
"""The failures of a value written as elements (the `member` rule: docs/grammars.md)."""

REJECTION_REASONS: Final = ("unknown_tool", "truncated", "invalid_json", "not_object",
                            "too_deep", "duplicate_key", "missing_required", "unknown_field",
                            "alias_conflict", "grammar_leak", "schema", "not_a_call")
"""The `ToolCall.reason` codes of a rejected call (docs/repair.md), each with its own
sentence."""

_QUOTED_MAX: Final = 60
"""The most characters of the model's own text quoted in a message."""

_ERRORS_SHOWN: Final = 3
"""The most schema errors a rejection message lists."""

_NAME: Final = "…"
"""Stands for a name, a value or any other text the model chooses in a spelled tag."""


# ---- block failures ------------------------------------------------------------------------

def failure_message(failure: BlockFailure, text: str, dialect: str | Dialect, *,
                    first_line: int = 1) -> str:
    """One sentence saying what the model wrote wrong in a failed block, and where.

    Args:
        failure: The block's failure (`Text.failure`).
        text: The failed block's text, from its first character (stream offset
            `failure.start`): the `Text` event's text, or more of the answer from there
            (then the token that failed a prose mention, which lies just past the
            failed text, is quoted too). What lies past its end is not quoted.
        dialect: The dialect that read the block (a name or a `Dialect`; under `auto`
            the grammar is found from the block's opening tag).
        first_line: The line number of the text's first character in the answer
            (lines counted from 1), so that the sentence points into the answer.
    """
    grammar = _grammar_for(resolve_dialect(dialect), text, failure.expected)
    return failure_sentence(failure, text, grammar, first_line=first_line)


def failure_sentence(failure: BlockFailure, text: str, grammar: Grammar, *,
                     first_line: int = 1) -> str:
    """`failure_message` with the grammar that read the block (the engine's, for the
    event's own `message`)."""
    at = min(max(failure.at - failure.start, 0), len(text))
    line = first_line + text.count("\n", 0, at)
    opener = _token_at(grammar, text, 0)
    opened = f"the block opened with `{quoted(opener)}` at line {first_line}" if opener \
        else f"the block at line {first_line}"
    wanted = _expected(grammar, failure.expected)
    found = _token_at(grammar, text, at) if at < len(text) else None
    reason = failure.reason
    if reason == "unexpected_token":
        where = f"before `{quoted(found)}` at line {line}" if found else f"at line {line}"
        sentence = f"{_missing(wanted)} {where}" if wanted else \
            f"the grammar takes nothing {where}"
        if failure.end <= failure.at and opener:   # a mention: no call had started
            return f"`{quoted(opener)}` at line {first_line} starts no call: {sentence}"
        return sentence
    if reason == "truncated":
        tail = f": {_missing(wanted)} at the end (line {line})" if wanted else ""
        return f"the answer ended inside {opened}{tail}"
    if reason == "max_capture":
        size = failure.at - failure.start
        tail = f" ({_missing(wanted)} at line {line})" if wanted else ""
        return f"{opened} was still open after {size} characters, the capture limit{tail}"
    if reason == "invalid_name":
        if found and not _is_run(grammar, found):
            return f"`{quoted(found)}` at line {line} has no name"
        return f"the call at line {line} has no name"
    if reason == "repeated_attribute":
        tag = f"`{quoted(found)}`" if found else "a tag"
        return f"{tag} at line {line} names an attribute twice"
    if reason == "invalid_call":
        return (f"the call at line {line} is not one JSON object holding a name and its "
                "arguments")
    if reason == "not_literal":
        return (f"the call at line {line} has a positional argument or a value that is no "
                "Python literal (a name, an attribute, a call); nothing of it is evaluated")
    if reason in _ELEMENT_SENTENCES:
        return f"an argument of the call at line {line} {_ELEMENT_SENTENCES[reason]}"
    if reason == "diverged":
        return ("the call's streamed arguments turned out other than its final ones (a "
                "name written twice, a body that is not one object); it is withdrawn")
    return f"{opened} failed at line {line} ({reason})"


def spelling(dialect: str | Dialect, terminal: str) -> str:
    """How a grammar terminal is written, for a person: the string itself, the
    pattern's shortest spelling with `…` for a name (`<function=…>`), or `text` /
    `whitespace` for a run of characters. Under `auto`, the first grammar that has
    the terminal."""
    grammars = resolve_dialect(dialect)._grammars
    for grammar in grammars:
        if terminal in grammar.terminals:
            return _spelled(grammar, terminal)
    return terminal


def _grammar_for(dialect: Dialect, text: str, expected: Sequence[str]) -> Grammar:
    """The grammar that read the block: the one grammar of a dialect; under `auto`, one
    whose opener matches the block's start and that has every expected terminal."""
    grammars = dialect._grammars
    if len(grammars) == 1:
        return grammars[0]
    opening = [g for g in grammars if g.block_starts.search.match(text) is not None]
    for grammar in opening or grammars:
        if all(name in grammar.terminals for name in expected):
            return grammar
    return (opening or list(grammars))[0]


def _token_at(grammar: Grammar, text: str, at: int) -> str | None:
    """What the model wrote at `at`, as the grammar cuts it: the longest markup
    terminal (not a run of characters) that matches there (a tag); else the word there,
    up to whitespace or markup; None at the end of the text."""
    if at >= len(text):
        return None
    markup = _markup_length(grammar, text, at)
    if markup:
        return text[at:at + markup]
    end = at + 1
    limit = min(len(text), at + _QUOTED_MAX)
    while end < limit and not text[end].isspace() and _markup_length(grammar, text, end) < 2:
        end += 1
    return text[at:end]


def _markup_length(grammar: Grammar, text: str, at: int) -> int:
    """The length of the longest markup terminal matching at `at` (0: none)."""
    best = 0
    for spec in grammar.terminals.values():
        if spec.is_run or spec.name in grammar.ignored:
            continue
        match = spec.full.match(text, at)
        if match is not None:
            best = max(best, match.end() - at)
    return best


def quoted(token: str | None) -> str:
    """The model's own text as a message quotes it: one line, at most 60 characters."""
    token = (token or "").replace("\n", "\\n").replace("`", "'")
    return token if len(token) <= _QUOTED_MAX else token[:_QUOTED_MAX - 1] + _NAME


def _is_run(grammar: Grammar, token: str) -> bool:
    return not any(not spec.is_run and spec.full.fullmatch(token)
                   for spec in grammar.terminals.values())


def _expected(grammar: Grammar, names: Iterable[str]) -> list[str]:
    """The expected terminals spelled, tags first (in the grammar's lexer order) and
    words last, each once."""
    specs = sorted((grammar.terminals[name] for name in names
                    if name in grammar.terminals and name not in grammar.ignored),
                   key=lambda spec: (spec.is_run, spec.sort_key))
    spelled = list(dict.fromkeys(_spelled(grammar, spec.name) for spec in specs))
    # Where markup may come (a closing tag), a value's characters may too: the
    # markup is what is missing, not more text.
    markup = [item for item in spelled if item.startswith("`") and len(item) > 3]
    return markup or spelled


def _missing(wanted: list[str]) -> str:
    if len(wanted) == 1:
        return f"{wanted[0]} missing"
    return f"expected {', '.join(wanted[:-1])} or {wanted[-1]}"


def _spelled(grammar: Grammar, terminal: str) -> str:
    """A terminal as a message writes it: in backticks when it is markup, else a word."""
    for record in grammar.record.terminals:
        if record.name == terminal and record.literal is not None:
            return f"`{record.literal}`"
    spec = grammar.terminals[terminal]
    found = _pattern_spelling(spec.pattern)
    if found is None:
        return terminal
    kind, written = found
    return written if kind == "word" else f"`{written}`"


# ---- spelling a pattern ----------------------------------------------------------------------

@functools.lru_cache(maxsize=512)
def _pattern_spelling(pattern: str) -> tuple[str, str] | None:
    """("word", "text" or "whitespace") for a run of one character class; ("markup",
    its shortest spelling) for anything else; None when the pattern cannot be read."""
    if _sre_parse is None:  # pragma: no cover
        return None
    try:
        items = [(str(op), arg) for op, arg in _sre_parse.parse(pattern)]
    except Exception:
        return None
    items = [(op, arg) for op, arg in items if op not in _ZERO_WIDTH]
    if len(items) == 1 and items[0][0] in _REPEATS:
        low, _high, inner = items[0][1]
        inner_items = [(str(op), arg) for op, arg in inner]
        if low >= 1 and len(inner_items) == 1 and inner_items[0][0] in ("IN", "NOT_LITERAL"):
            return "word", "whitespace" if _is_space(inner_items[0]) else "text"
    written = _render(items)
    if written is None or not written[0].strip(_NAME):
        return None
    return "markup", written[0]


_REPEATS: Final = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})
_ZERO_WIDTH: Final = frozenset({"AT", "ASSERT", "ASSERT_NOT"})


def _is_space(item: tuple[str, Any]) -> bool:
    op, arg = item
    return op == "IN" and all(str(kind) == "CATEGORY" and "SPACE" in str(value)
                              and "NOT" not in str(value) for kind, value in arg)


def _render(items: Iterable[tuple[Any, Any]]) -> tuple[str, int] | None:
    """The shortest spelling of a parsed pattern, and how many choices it made (each
    `…` and each character class is one): a repeat that may be absent is left out, a
    capturing group (a name, a value) is `…`, a character class is its first member
    (`…` when negated), an alternation its branch with the fewest choices, then the
    shortest. None for syntax it does not know."""
    out: list[str] = []
    choices = 0
    for op, arg in items:
        piece = _render_item(str(op), arg)
        if piece is None:
            return None
        out.append(piece[0])
        choices += piece[1]
    return "".join(out), choices


def _render_item(op: str, arg: Any) -> tuple[str, int] | None:
    if op == "LITERAL":
        return chr(arg), 0
    if op in _ZERO_WIDTH:
        return "", 0
    if op in ("NOT_LITERAL", "ANY"):
        return _NAME, 1
    if op == "IN":
        return _class_member(arg), 1
    if op in _REPEATS:
        low, _high, inner = arg
        if low == 0:
            return "", 0
        once = _render(inner)
        if once is None or once[0] == _NAME:
            return once
        return once[0] * min(low, 4), once[1]
    if op == "SUBPATTERN":
        group, _add, _delete, inner = arg
        return (_NAME, 1) if group is not None else _render(inner)
    if op == "ATOMIC_GROUP":
        return _render(arg)
    if op == "BRANCH":
        options = [_render(branch) for branch in arg[1]]
        known = [option for option in options if option is not None]
        return min(known, key=lambda option: (option[1], len(option[0]))) if known else None
    return None


def _class_member(members: Any) -> str:
    """A character class as one character a match may hold (`…` for a negated class)."""
    for kind, value in members:
        kind = str(kind)
        if kind == "NEGATE":
            return _NAME
        if kind == "LITERAL":
            return chr(value)
        if kind == "RANGE":
            return chr(value[0])
        if kind == "CATEGORY":
            name = str(value)
            if "NOT" in name:
                return _NAME
            if "DIGIT" in name:
                return "0"
            if "SPACE" in name:
                return " "
            return _NAME
    return _NAME


# ---- rejected calls --------------------------------------------------------------------------

_REJECTED: Final = {
    "truncated": "are cut off: the JSON ends inside a string, object or array",
    "invalid_json": "are not one JSON object, and no safe repair makes them one",
    "not_object": "are JSON but not an object",
    "too_deep": "nest deeper than 64 levels",
    "duplicate_key": "name a key twice",
    "missing_required": "leave out a required property",
    "unknown_field": "hold a property the tool's schema does not define",
    "alias_conflict": "give a property under its name and under an alias",
    "grammar_leak": "hold GLM argument markup that cannot be removed safely",
    "schema": "do not match the tool's schema",
}
"""What a rejected call's arguments did wrong, by reason (after "the arguments of `f`")."""


def rejection_message(call: ToolCall, *, line: int | None = None) -> str:
    """One sentence saying why a call was rejected: its tool, what its arguments did
    wrong (from the repair outcome's errors: JSON pointers and the schema's words,
    never a value), and where (`line`: the line of the call in the answer, if known).
    A call that was not rejected gets a sentence saying so."""
    where = f" at line {line}" if line is not None else ""
    name = quoted(call.name)
    reason = call.reason
    if call.status != "rejected":
        return f"the call to `{name}`{where} was not rejected ({call.status})"
    if reason == "unknown_tool":
        return f"`{name}`{where} is not one of the request's tools"
    if reason == "not_a_call":
        return (f"the JSON value{where} where a call goes is no call: it holds no tool name and "
                "arguments as the format writes them")
    what = _REJECTED.get(reason or "", f"were rejected ({reason})")
    errors = call.repair.errors if call.repair is not None else ()
    details = [f"{pointer or 'the arguments'} {message}" if pointer else message
               for pointer, _keyword, message in errors[:_ERRORS_SHOWN]]
    more = f" (and {len(errors) - _ERRORS_SHOWN} more)" if len(errors) > _ERRORS_SHOWN else ""
    detail = f": {'; '.join(details)}{more}" if details else ""
    return f"the arguments of `{name}`{where} {what}{detail}"


def _event_message(failure: BlockFailure) -> str:
    """`BlockFailure.message`: from the failed text and grammar the parser kept in its
    `context` (a failure built by hand has none: the code alone)."""
    context = failure.context
    if context is None:
        return f"the block failed ({failure.reason})"
    text, grammar = context
    return failure_sentence(failure, text, grammar)


register_views(failure_message=_event_message, rejection_message=rejection_message)
