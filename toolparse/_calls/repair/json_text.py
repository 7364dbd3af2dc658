"""Rules 1 and 2 of SPEC 6: strict parse, GLM key/value pairs, JSON syntax repair."""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolparse._json import NOT_JSON, DuplicateKey, TooDeep, loads_strict, strict_json
from toolparse._calls.repair.base import (
    MAX_DEPTH, MAX_JSON_REPAIR_CHARS, Call, Reason, Reject, glm_tokens, has_glm_token,
    member_pointer, too_deep,
)
from toolparse._calls.values import too_deep_names, type_arguments

if TYPE_CHECKING:
    from toolparse._dialect.build import RawParam

# --- Rule 1: strict parse ---------------------------------------------------------------

def strict_parse(text: str) -> Any:
    """Precondition: `text` is the raw argument text. Returns its JSON value, or NOT_JSON.

    Strict JSON: NaN, Infinity and numbers too large for a float (`1e999`) are not JSON
    (NOT_JSON, so syntax repair sees them and refuses); a duplicate key rejects the call
    at once (`duplicate_key`): no rule may pick which of two values the model meant;
    nesting deeper than `MAX_DEPTH` rejects it as `too_deep`.
    """
    try:
        return loads_strict(text)
    except DuplicateKey:
        raise Reject("duplicate_key", (("", "duplicate_key",
                                         "an object repeats a property name"),)) from None
    except TooDeep:
        raise too_deep() from None


# --- Rule 2a: GLM key/value pairs -------------------------------------------------------

_GLM_WS = " \t\r\n"


@functools.cache
def _glm_pair() -> re.Pattern[str]:
    """One complete key/value pair and the whitespace after it (the grammar's tokens)."""
    key_open, key_close, value_open, value_close = glm_tokens()
    return re.compile(
        re.escape(key_open) + r"(.*?)" + re.escape(key_close) + r"[ \t\r\n]*"
        + re.escape(value_open) + r"(.*?)" + re.escape(value_close) + r"[ \t\r\n]*",
        re.DOTALL)


def _glm_truncated(rest: str) -> bool:
    """Whether `rest` is a proper prefix of one more complete GLM pair."""
    key_open, key_close, value_open, _ = glm_tokens()
    if key_open.startswith(rest):
        return True
    if not rest.startswith(key_open):
        return False
    body = rest[len(key_open):]
    end = body.find(key_close)
    if end < 0:
        return not has_glm_token(body)
    if has_glm_token(body[:end]):
        return False
    after = body[end + len(key_close):].lstrip(_GLM_WS)
    if value_open.startswith(after):
        return True
    if not after.startswith(value_open):
        return False
    return not has_glm_token(after[len(value_open):])


def decode_glm_pairs(text: str, call: Call) -> dict[str, Any] | None:
    """Precondition: `text` did not parse as JSON. Returns None when not applicable.

    Applies only on a configured model route, to text that is entirely complete
    `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs (whitespace between and around).
    Keys are taken exactly; values are typed by the property schema as XML parameters
    are (a string property keeps the text, trailing newline included). A pair that is
    cut off is `truncated`; any other shape, a token inside a key or value, or a
    repeated key is refused.
    """
    stripped = text.lstrip(_GLM_WS)
    if not stripped.startswith(glm_tokens().key_open):
        return None
    if not call.leak_route:
        raise Reject("grammar_leak", (("", "grammar_leak",
                                        "the arguments are GLM key/value pairs, not JSON"),))
    pos, end = len(text) - len(stripped), len(text)
    pairs: list[RawParam] = []
    seen: set[str] = set()
    pair = _glm_pair()
    while pos < end:
        match = pair.match(text, pos)
        if match is None or has_glm_token(match.group(1)) or has_glm_token(match.group(2)):
            if match is None and _glm_truncated(text[pos:]):
                raise Reject("truncated", (("", "truncated",
                                             "the last key/value pair is cut off"),))
            raise Reject("grammar_leak", (("", "grammar_leak",
                                            "the key/value pairs are malformed"),))
        key = match.group(1)
        if key in seen:
            raise Reject("duplicate_key", (("", "duplicate_key",
                                             "a key/value pair repeats a key"),))
        seen.add(key)
        pairs.append((key, match.group(2), None, False))
        pos = match.end()
    deep = too_deep_names(pairs, call.schema)
    if deep:
        raise too_deep(member_pointer(call, "", deep[0]))
    arguments, _ = type_arguments(pairs, call.schema)
    return arguments


# --- Rule 2b: JSON syntax repair --------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<dq>"[^"\\]*(?:\\.[^"\\]*)*")
  | (?P<sq>'[^'\\]*(?:\\.[^'\\]*)*')
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<punct>[{}\[\],:])
  | (?P<bare>(?:[^ \t\r\n{}\[\],:"'/]|/(?![/*]))+)
""", re.VERBOSE | re.DOTALL)
_NON_JSON_WORDS = frozenset({"NaN", "Infinity", "-Infinity", "+Infinity"})
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t", "'": "'"}
_ESCAPE = re.compile(r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                     r"|u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "u" and len(code) > 1:
        if len(code) == 11:  # a surrogate pair
            high, low = int(code[1:5], 16), int(code[7:11], 16)
            return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        return chr(int(code[1:], 16))
    # An escape JSON does not define keeps its backslash; json-repair must agree or the
    # token check refuses the repair.
    return _SIMPLE_ESCAPES.get(code, "\\" + code)


def _decode_quoted(token: str) -> str:
    if token[0] == '"':
        try:
            value = json.loads(token, strict=False)
            if isinstance(value, str):
                return value
        except ValueError:
            pass
    return _ESCAPE.sub(_unescape, token[1:-1])


@dataclass(slots=True)
class JsonScan:
    """The lenient tokenisation of argument text (for the balanced and token checks)."""

    problem: Reason | None = None
    detail: str = ""
    tokens: list[tuple[str, Any]] = field(default_factory=list)
    """Structure and scalars in order: ("{",), ("key", str), ("str", str), ("bare", str)."""
    removable: list[tuple[int, int]] = field(default_factory=list)
    """Spans a lossless fix removes: comments and trailing commas."""


class _Unbalanced(Exception):
    """The scan stops: the text is not balanced (the reason and a detail)."""

    def __init__(self, problem: Reason, detail: str) -> None:
        super().__init__(detail)
        self.problem: Reason = problem
        self.detail = detail


_Lexeme = tuple[str, str, int, int]   # kind, text, start, end
_CLOSERS = {"}": "{", "]": "["}


def scan_json_text(text: str) -> JsonScan:
    """Tokenise `text` leniently and decide whether it is balanced.

    Balanced: a string-aware scan (double- and single-quoted strings, comments) of two
    bracket kinds in which every closer matches its opener, the root is an object, and
    the root closes exactly at the end (whitespace aside). Ending inside a string,
    comment or open bracket is `truncated`; anything else unbalanced is `invalid_json`.
    Also finds duplicate keys and the NaN/Infinity words. Linear in `len(text)`.
    """
    scan = JsonScan()
    try:
        lexemes = _lexemes(text, scan)
        if not lexemes or lexemes[0][1] != "{":
            raise _Unbalanced("invalid_json", "the arguments are not one JSON object")
        _walk(lexemes, scan)
    except _Unbalanced as stop:
        scan.problem, scan.detail = stop.problem, stop.detail
    return scan


def _lexemes(text: str, scan: JsonScan) -> list[_Lexeme]:
    """The lexemes of `text`, whitespace and comments left out (comments are noted as
    removable); adjacent bare words join into one (`ls -la` unquoted)."""
    lexemes: list[_Lexeme] = []
    pos, end = 0, len(text)
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            # Only an unclosed string or block comment fails to lex.
            raise _Unbalanced("truncated", "a string or comment is not closed")
        kind = match.lastgroup or ""
        if kind == "bare" and lexemes and lexemes[-1][0] == "bare":
            # `ls -la` unquoted is one bare token; the whitespace inside it counts.
            _, _, start, _ = lexemes[-1]
            lexemes[-1] = ("bare", text[start:match.end()], start, match.end())
        elif kind == "comment":
            scan.removable.append((match.start(), match.end()))
        elif kind != "ws":
            lexemes.append((kind, match.group(), match.start(), match.end()))
        pos = match.end()
    return lexemes


def _walk(lexemes: list[_Lexeme], scan: JsonScan) -> None:
    """Check the brackets and keys of `lexemes`, recording the tokens in `scan`."""
    stack: list[tuple[str, set[str]]] = []
    for index, (kind, lexeme, start, stop) in enumerate(lexemes):
        following = lexemes[index + 1][1] if index + 1 < len(lexemes) else ""
        if kind == "punct":
            _punctuation(lexeme, following, stack, scan, (start, stop))
            if not stack and lexeme in "}]" and index + 1 < len(lexemes):
                raise _Unbalanced("invalid_json", "text follows the root object")
            continue
        if kind == "bare" and lexeme in _NON_JSON_WORDS:
            raise _Unbalanced("invalid_json", "NaN and Infinity are not JSON")
        if kind == "bare" and _JSON_NUMBER.fullmatch(lexeme) and math.isinf(float(lexeme)):
            raise _Unbalanced("invalid_json", "a number is too large to be a finite number")
        value = _decode_quoted(lexeme) if kind in ("dq", "sq") else lexeme
        if following == ":" and stack and stack[-1][0] == "{":
            if value in stack[-1][1]:
                raise _Unbalanced("duplicate_key", "an object repeats a property name")
            stack[-1][1].add(value)
            scan.tokens.append(("key", value))
        else:
            scan.tokens.append(("str" if kind in ("dq", "sq") else "bare", value))
    if stack:
        raise _Unbalanced("truncated", "an object or array is not closed")


def _punctuation(lexeme: str, following: str, stack: list[tuple[str, set[str]]],
                 scan: JsonScan, span: tuple[int, int]) -> None:
    if lexeme in "{[":
        if len(stack) >= MAX_DEPTH:
            raise _Unbalanced("too_deep", f"nested deeper than {MAX_DEPTH} levels")
        stack.append((lexeme, set()))
        scan.tokens.append((lexeme, None))
    elif lexeme in "}]":
        if not stack or stack[-1][0] != _CLOSERS[lexeme]:
            raise _Unbalanced("invalid_json", "a closing bracket does not match")
        stack.pop()
        scan.tokens.append((lexeme, None))
    elif lexeme == "," and following in ("}", "]"):
        scan.removable.append(span)


def _output_tokens(value: Any, out: list[tuple[str, Any]], depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise RecursionError
    if isinstance(value, dict):
        out.append(("{", None))
        for key, item in value.items():
            out.append(("key", key))
            _output_tokens(item, out, depth + 1)
        out.append(("}", None))
    elif isinstance(value, list):
        out.append(("[", None))
        for item in value:
            _output_tokens(item, out, depth + 1)
        out.append(("]", None))
    else:
        out.append(("value", value))


def _same_scalar(kind: str, written: Any, value: Any) -> bool:
    if kind == "str":
        return type(value) is str and value == written
    literal = {"true": True, "false": False, "null": None}
    if written in literal:
        return value is literal[written]
    number = strict_json(written)
    if isinstance(number, (int, float)) and not isinstance(number, bool):
        return type(value) is type(number) and value == number
    return type(value) is str and value == written  # an unquoted word, as written


def tokens_survive(scan: JsonScan, value: Any) -> bool:
    """The token-preservation check: `value` has exactly the input's keys, values and
    brackets, in order, each as written (no dropped member, no invented value, no
    closed-off string, no altered escape)."""
    out: list[tuple[str, Any]] = []
    try:
        _output_tokens(value, out)
    except RecursionError:
        return False
    if len(out) != len(scan.tokens):
        return False
    for (kind, written), (out_kind, produced) in zip(scan.tokens, out):
        if kind in ("{", "}", "[", "]", "key"):
            if out_kind != kind or (kind == "key" and produced != written):
                return False
        elif out_kind != "value" or not _same_scalar(kind, written, produced):
            return False
    return True


def _remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    pieces, pos = [], 0
    for start, stop in sorted(spans):
        pieces.append(text[pos:start])
        pos = stop
    pieces.append(text[pos:])
    return "".join(pieces)


def repair_json_syntax(text: str, call: Call) -> dict[str, Any]:
    """Precondition: `text` did not parse as strict JSON and is not GLM pairs.

    Refuses unless the text is balanced (`scan_json_text`). Then, lossless fixes first
    (remove trailing commas and comments, allow raw control characters in strings);
    then json-repair (never its schema mode); then the token-preservation check. Any
    shortfall rejects: json-repair alone would close truncated strings, invent empty
    values, drop members and corrupt escaped quotes.
    """
    scan = scan_json_text(text)
    if scan.problem is not None:
        raise Reject(scan.problem, (("", scan.problem, scan.detail),))
    if not call.config.repair_json_syntax:
        raise Reject("invalid_json", (("", "invalid_json", "the arguments are not valid JSON"),))
    fixed = _remove_spans(text, scan.removable)
    try:
        value = loads_strict(fixed, control_characters=True)
    except DuplicateKey:
        raise Reject("duplicate_key", (("", "duplicate_key",
                                         "an object repeats a property name"),)) from None
    except TooDeep:
        raise too_deep() from None
    if value is NOT_JSON:
        if len(fixed) > MAX_JSON_REPAIR_CHARS:
            raise Reject("invalid_json", (("", "invalid_json", "the arguments are not valid "
                                            "JSON and too large to repair"),)) from None
        import json_repair

        try:
            value = json_repair.repair_json(fixed, return_objects=True, skip_json_loads=True)
        except Exception:  # json-repair is third-party code on hostile input
            value = NOT_JSON
    if not isinstance(value, dict) or not tokens_survive(scan, value):
        raise Reject("invalid_json", (("", "invalid_json", "the JSON cannot be repaired without "
                                        "changing a key or value"),))
    return value
