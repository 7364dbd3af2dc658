"""The pieces a case is made of (prose, code, failed spans, blocks, reasoning regions),
the values written in them, and the DeepSeek block renderer."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

# ---- segments ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Prose:
    """Text with no call in it; any tag in it is outside code and fails to parse."""

    text: str


@dataclass(frozen=True)
class Failed:
    """The text of a block that fails (SPEC 3.2): its reason, and where in `text` the
    failing token is (`at`; the default: right after the text)."""

    text: str
    reason: str = "unexpected_token"
    at: int | str | None = None
    """An offset into `text`, or a substring whose first occurrence is the failing token."""

    def offset(self) -> int:
        if self.at is None:
            return len(self.text)
        if isinstance(self.at, str):
            assert self.at in self.text, (self.at, self.text)
            return self.text.index(self.at)
        return self.at


@dataclass(frozen=True)
class Thinking:
    """A reasoning region (SPEC 11): `raw` with its markers, `text` without. Not
    Markdown: the check against markdown-it-py leaves it out, and the answer after it
    is a fresh document."""

    text: str
    raw: str


@dataclass(frozen=True)
class Framing:
    """Markup that frames messages (SPEC 11, harmony: a header, an end token): in the
    events' `raw`, never in their text. A message boundary: the text after it is a fresh
    Markdown document."""

    raw: str
    text: str = ""


@dataclass(frozen=True)
class Code:
    """Text whose tag openings a CommonMark renderer places inside code."""

    text: str


@dataclass(frozen=True)
class Param:
    """One parameter: its markup (between the tags) and the value SPEC 3 gives it."""

    name: str
    xml: str
    value: Any
    attrs: str = ""
    """Extra attributes, written after the name (` string="true"`)."""


@dataclass(frozen=True)
class Call:
    name: str
    params: tuple[Param, ...] = ()
    json_body: str | None = None
    """When set, the invoke body is this JSON object text instead of parameters."""
    json_value: dict[str, Any] | None = None
    self_closing: bool = False

    def arguments(self) -> dict[str, Any]:
        if self.json_body is not None:
            assert self.json_value is not None
            return self.json_value
        arguments: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for p in self.params:
            counts[p.name] = counts.get(p.name, 0) + 1
        for p in self.params:
            if counts[p.name] > 1:
                arguments.setdefault(p.name, []).append(p.value)
            else:
                arguments[p.name] = p.value
        return arguments


@dataclass(frozen=True)
class Block:
    """A real tool-call block: its exact text and its calls."""

    raw: str
    calls: tuple[Call, ...]


Segment = Prose | Code | Failed | Block | Thinking | Framing


# ---- parameters ----------------------------------------------------------------------------

def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(name: str, value: str) -> Param:
    """A one-line string value written as escaped text. SPEC 3 trims such a value and
    types JSON-looking text, so the value must be neither padded nor JSON-looking."""
    assert "\n" not in value and "\r" not in value and value == value.strip(), value
    assert not _is_json_non_string(value), value
    return Param(name, escape(value), value)


def cdata(name: str, value: str) -> Param:
    """A string value written as one CDATA section: verbatim (SPEC 3)."""
    assert "]]>" not in value, value
    return Param(name, f"<![CDATA[{value}]]>", value)


def number(name: str, value: int | float) -> Param:
    return Param(name, json.dumps(value), value)


def json_value(name: str, value: Any) -> Param:
    """A JSON number, boolean, null, array or object written as escaped JSON text."""
    assert not isinstance(value, str)
    return Param(name, escape(json.dumps(value, ensure_ascii=False)), value)


def block_text(name: str, value: str, indent: str) -> Param:
    """A multi-line string written as text on lines of its own: SPEC 3 removes the
    newline after the opening tag and the newline plus `indent` before the closing tag;
    the value keeps its own indentation."""
    assert "\n" in value and not _is_json_non_string(value.strip())
    return Param(name, "\n" + escape(value) + "\n" + indent, value)


def _is_json_non_string(value: str) -> bool:
    try:
        return not isinstance(json.loads(value), str)
    except ValueError:
        return False


# ---- block rendering -----------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    """How the tags of a block are spelled: the prefix of each tag name and the wrapper."""

    wrapper_open: str = "tool_calls"
    wrapper_close: str = "tool_calls"
    invoke: str = "invoke"
    parameter: str = "parameter"


CANONICAL = Spelling()
DSML_FULL = Spelling("｜DSML｜tool_calls", "｜DSML｜tool_calls", "｜DSML｜invoke", "｜DSML｜parameter")
DSML_ASCII = Spelling("|DSML|tool_calls", "|DSML|tool_calls", "|DSML|invoke", "|DSML|parameter")


def dsml(bar: str, wrapper: str = "tool_calls") -> Spelling:
    prefix = f"{bar}DSML{bar}"
    return Spelling(prefix + wrapper, prefix + wrapper, prefix + "invoke", prefix + "parameter")


def render_call(call: Call, spelling: Spelling, indent: str, step: str, nl: str) -> str:
    inv, par = spelling.invoke, spelling.parameter
    head = f'<{inv} name="{escape(call.name)}"'
    if call.self_closing:
        return f"{indent}{head}/>"
    if call.json_body is not None:
        return f"{indent}{head}>{nl}{indent}{step}{call.json_body}{nl}{indent}</{inv}>"
    lines = [f"{indent}{head}>"]
    for p in call.params:
        lines.append(f'{indent}{step}<{par} name="{p.name}"{p.attrs}>{p.xml}</{par}>')
    lines.append(f"{indent}</{inv}>")
    return nl.join(lines)


def block(*calls: Call, spelling: Spelling = CANONICAL, compact: bool = False,
          nl: str = "\n", missing_wrapper: bool = False) -> Block:
    """A block in the layout models write: each tag on its own line, indented by two
    spaces (`compact`: no whitespace at all between tags)."""
    if nl == "\r\n":
        calls = tuple(crlf_values(c) for c in calls)
    if compact:
        body = "".join(render_call(c, spelling, "", "", "") for c in calls)
    else:
        step = "  "
        inner_indent = "" if missing_wrapper else step
        body = nl.join(render_call(c, spelling, inner_indent, step, nl) for c in calls)
        body = body if missing_wrapper else nl + body + nl
    head = "" if missing_wrapper else f"<{spelling.wrapper_open}>"
    if missing_wrapper and not compact:
        body += nl
    raw = f"{head}{body}</{spelling.wrapper_close}>"
    return Block(raw, calls)


def crlf_values(call: Call) -> Call:
    """The same call rendered with CRLF line endings: a string value written across
    lines has CRLF in it too."""
    params = tuple(
        replace(p, xml=p.xml.replace("\n", "\r\n"), value=p.value.replace("\n", "\r\n"))
        if isinstance(p.value, str) and "\n" in p.xml else p
        for p in call.params)
    return replace(call, params=params)



# ==== the other bundled dialects (SPEC 5.2, docs/dialects.md) ===================================
#
# One group per dialect, named after it. A block is written here as the dialect writes
# it, next to the calls it means: `Arg` values are (as written, as meant) when the two
# differ. Without tools every dialect but deepseek reads values as strings (typing=schema)
# or as the JSON says (typing=json).

Arg = Any
"""A value: the string it is written as and means, or (written, meant)."""


def written(value: Arg) -> str:
    return value[0] if isinstance(value, tuple) else value


def meant(value: Arg) -> Any:
    return value[1] if isinstance(value, tuple) else value


def args_call(name: str, args: dict[str, Arg]) -> Call:
    return Call(name, tuple(Param(k, written(v), meant(v)) for k, v in args.items()))

def indent(text_: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text_.split("\n"))
