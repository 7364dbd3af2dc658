#!/usr/bin/env python3
"""Write the generated corpus cases (the hand-written ones are committed as written).

    .venv/bin/python corpus/generate.py          # rewrite the generated cases
    .venv/bin/python corpus/generate.py --list   # print their names and descriptions
    .venv/bin/python corpus/generate.py --out D  # write them under D instead (to compare)

A case is built from segments whose meaning the generator knows, and its expected
events are written from those segments, never from the parser:

* `Prose`: text with no call in it: prose, markup that fails to parse (SPEC G4).
* `Code`: text holding tags that a CommonMark renderer places inside code (SPEC G3).
* `Block`: a real tool-call block, rendered from calls whose arguments are stated next
  to the markup that writes them (SPEC 3), so a value's expected form is never derived
  by code that could share the parser's mistakes.

markdown-it-py (the CommonMark reference port, in the test extra) checks every case as
it is written: each tag opening in a `Code` segment must lie inside code, and each
`Block` must start outside code. A block is opaque to Markdown (SPEC G3a); the check
stands in its first line, with the tag names swapped for same-shaped stand-ins, so
that backticks inside a block's later lines change nothing. A case whose segments
disagree with markdown-it-py is not written: the generator stops and names it.

The other bundled dialects (SPEC 5.2) have a group each, named after the dialect, and
realistic answers in `realistic/` named after it too: their blocks are written by one
small writer per dialect, next to the calls they mean, and their `.meta.json` names
the dialect the case runs with.

Cases this script wrote carry no marker; it rewrites exactly the cases it defines and
leaves every other file alone. Renaming a case here leaves the old files behind:
delete them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent

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


Segment = Prose | Code | Failed | Block | Thinking


# ---- parameters ----------------------------------------------------------------------------

def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(name: str, value: str) -> Param:
    """A one-line string value written as escaped text. SPEC 3 trims such a value and
    types JSON-looking text, so the value must be neither padded nor JSON-looking."""
    assert "\n" not in value and "\r" not in value and value == value.strip(), value
    assert not _is_json_non_string(value), value
    return Param(name, _escape(value), value)


def cdata(name: str, value: str) -> Param:
    """A string value written as one CDATA section: verbatim (SPEC 3)."""
    assert "]]>" not in value, value
    return Param(name, f"<![CDATA[{value}]]>", value)


def number(name: str, value: int | float) -> Param:
    return Param(name, json.dumps(value), value)


def json_value(name: str, value: Any) -> Param:
    """A JSON number, boolean, null, array or object written as escaped JSON text."""
    assert not isinstance(value, str)
    return Param(name, _escape(json.dumps(value, ensure_ascii=False)), value)


def block_text(name: str, value: str, indent: str) -> Param:
    """A multi-line string written as text on lines of its own: SPEC 3 removes the
    newline after the opening tag and the newline plus `indent` before the closing tag;
    the value keeps its own indentation."""
    assert "\n" in value and not _is_json_non_string(value.strip())
    return Param(name, "\n" + _escape(value) + "\n" + indent, value)


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
    head = f'<{inv} name="{_escape(call.name)}"'
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
        calls = tuple(_crlf_values(c) for c in calls)
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


def _crlf_values(call: Call) -> Call:
    """The same call rendered with CRLF line endings: a string value written across
    lines has CRLF in it too."""
    params = tuple(
        replace(p, xml=p.xml.replace("\n", "\r\n"), value=p.value.replace("\n", "\r\n"))
        if isinstance(p.value, str) and "\n" in p.xml else p
        for p in call.params)
    return replace(call, params=params)


# ---- cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    group: str
    name: str
    description: str
    segments: list[Segment]
    tools: list[Any] | None = None
    status: dict[int, str] = field(default_factory=dict)
    """Expected status per call index (document order), for cases with tools."""
    dialect: str = "deepseek"
    reasoning: str | None = "auto"
    in_reasoning: bool = False

    @property
    def text(self) -> str:
        return "".join(s.raw if isinstance(s, (Block, Thinking)) else s.text
                       for s in self.segments)

    def expected(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        index = 0
        offset = 0
        for segment in self.segments:
            start = offset
            offset += len(segment.raw if isinstance(segment, (Block, Thinking)) else segment.text)
            if isinstance(segment, Thinking):
                records.append({"reasoning": segment.text, "raw": segment.raw})
            elif isinstance(segment, Failed):
                records.append({"text": segment.text, "failure": segment.reason,
                                "at": start + segment.offset()})
            elif isinstance(segment, Block):
                calls = []
                for call in segment.calls:
                    entry: dict[str, Any] = {"name": call.name, "arguments": call.arguments()}
                    if index in self.status:
                        entry["status"] = self.status[index]
                    calls.append(entry)
                    index += 1
                records.append({"calls": calls, "raw": segment.raw})
            elif segment.text:
                if records and "text" in records[-1] and "failure" not in records[-1]:
                    records[-1]["text"] += segment.text
                else:
                    records.append({"text": segment.text})
        return records


CASES: list[Case] = []


def case(group: str, name: str, description: str, *segments: Segment | str,
         tools: list[Any] | None = None, status: dict[int, str] | None = None,
         dialect: str = "deepseek", reasoning: str | None = "auto",
         in_reasoning: bool = False) -> None:
    """Define a case; a bare string segment is Prose."""
    CASES.append(Case(group, name, description,
                      [Prose(s) if isinstance(s, str) else s for s in segments],
                      tools=tools, status=status or {}, dialect=dialect, reasoning=reasoning,
                      in_reasoning=in_reasoning))


def crlf(*segments: Segment | str) -> list[Segment]:
    """The segments with LF line endings turned into CRLF (blocks must be built with
    nl="\\r\\n" already)."""
    out: list[Segment] = []
    for s in segments:
        if isinstance(s, str):
            out.append(Prose(s.replace("\n", "\r\n")))
        elif isinstance(s, Prose):
            out.append(Prose(s.text.replace("\n", "\r\n")))
        elif isinstance(s, Code):
            out.append(Code(s.text.replace("\n", "\r\n")))
        elif isinstance(s, Failed):
            assert not isinstance(s.at, int) or "\n" not in s.text[:s.at]
            out.append(replace(s, text=s.text.replace("\n", "\r\n")))
        else:
            assert "\n" not in s.raw.replace("\r\n", ""), "build CRLF blocks with nl='\\r\\n'"
            out.append(s)
    return out


# ---- the CommonMark check -------------------------------------------------------------------

_TAG_NAME = re.compile(
    r"</?((?:[|｜]{0,2}[Dd][Ss][Mm][Ll][|｜]{0,2}|[|｜]{1,2})[ _]?)?"
    r"(tool_calls|tool-calls|toolcalls|function_calls|calls|invoke|parameter)(?=[\s/>])")
# The other bundled dialects' tag names (docs/dialects.md), after the DeepSeek ones are
# swapped: `<tool_call>`, `<function=`, `<|tool_call_begin|>`, `<arg_key>`, ...
_OTHER_TAG_NAME = re.compile(
    r"</?\|?(tool_calls_section_begin|tool_calls_section_end|tool_call_argument_begin|"
    r"tool_call_begin|tool_call_end|minimax:tool_call|seed:tool_call|tool_call|function|"
    r"parameter|arg_key|arg_value)(?=[\s/>=|])")
_CODE_TOKENS = {"fence", "code_block", "code_inline"}


class _StandIns:
    """Same-shaped, unique stand-ins for tag names: letters stay letters, `_` and `-`
    stay, so HTML-tag validity and line layout do not change."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, name: str) -> str:
        self.count += 1
        n, letters = self.count, []
        for _ in range(sum(c.isalpha() for c in name) - 2):
            letters.append(chr(ord("a") + n % 26))
            n //= 26
        assert n == 0, "too many tags in one case for the stand-in scheme"
        pool = iter("zq" + "".join(reversed(letters)))
        return "".join(next(pool) if c.isalpha() else c for c in name)


def _mark(text: str, stand_in: _StandIns, found: list[str]) -> str:
    def swapper(group: int) -> Any:
        def swap(m: re.Match[str]) -> str:
            marker = stand_in(m.group(group))
            found.append(marker)
            return m.group(0)[:m.start(group) - m.start(0)] + marker
        return swap
    return _OTHER_TAG_NAME.sub(swapper(1), _TAG_NAME.sub(swapper(2), text))


def commonmark_disagreements(c: Case) -> list[str]:
    """Where the case's segments disagree with markdown-it-py about code."""
    from markdown_it import MarkdownIt

    stand_in = _StandIns()
    in_code: list[str] = []
    outside: list[str] = []
    pieces = []
    for s in c.segments:
        if isinstance(s, Code):
            found: list[str] = []
            pieces.append(_mark(s.text, stand_in, found))
            assert found, f"{c.group}/{c.name}: a Code segment without a tag"
            in_code += found
        elif isinstance(s, Thinking):
            assert not "".join(pieces).strip(), "a region opens only at the start (SPEC 11)"
            pieces = []   # the whitespace before it is no Markdown: a fresh document after
        elif isinstance(s, Block):
            first_line = re.split(r"\r\n|\r|\n", s.raw, maxsplit=1)[0]
            found = []
            pieces.append(_mark(first_line, stand_in, found))
            outside.append(found[0])
        else:
            pieces.append(s.text)
    marked = "".join(pieces)
    kinds: dict[str, set[str]] = {m: set() for m in in_code + outside}

    def visit(token: Any) -> None:
        kind = "code" if token.type in _CODE_TOKENS else "text"
        if token.type not in ("inline", "image"):
            for m in kinds:
                if m in token.content or (token.type == "fence" and m in token.info):
                    kinds[m].add(kind)
        for value in (token.attrs or {}).values():
            for m in kinds:
                if isinstance(value, str) and m in value:
                    kinds[m].add("text")
        for child in token.children or []:
            visit(child)

    for token in MarkdownIt("commonmark").parse(marked):
        visit(token)
    problems = []
    for m in in_code:
        if kinds[m] != {"code"}:
            problems.append(f"a tag in a Code segment is not in code ({sorted(kinds[m]) or 'missing'})")
    for m in outside:
        if kinds[m] != {"text"}:
            problems.append(f"a Block starts inside code ({sorted(kinds[m]) or 'missing'})")
    return problems


# ---- writing -------------------------------------------------------------------------------

def write(cases: Sequence[Case], out: Path) -> None:
    names = [f"{c.group}/{c.name}" for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"generate.py: duplicate case names: {sorted(duplicates)}")
    problems = [f"{c.group}/{c.name}: {p}" for c in cases for p in commonmark_disagreements(c)]
    if problems:
        sys.exit("generate.py: cases that disagree with markdown-it-py:\n  " + "\n  ".join(problems))
    for c in cases:
        directory = out / c.group
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / c.name
        Path(f"{stem}.txt").write_bytes(c.text.encode("utf-8"))
        expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in c.expected())
        Path(f"{stem}.expected.jsonl").write_bytes(expected.encode("utf-8"))
        meta: dict[str, Any] = {"dialect": c.dialect, "description": c.description}
        if c.reasoning != "auto":
            meta["reasoning"] = c.reasoning
        if c.in_reasoning:
            meta["in_reasoning"] = True
        Path(f"{stem}.meta.json").write_bytes(
            (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
        if c.tools is not None:
            Path(f"{stem}.tools.json").write_bytes(
                (json.dumps(c.tools, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the cases; write nothing")
    parser.add_argument("--out", type=Path, default=CORPUS,
                        help="write the cases under this directory (default: the corpus)")
    args = parser.parse_args(argv)
    define_cases()
    if args.list:
        for c in CASES:
            print(f"{c.group}/{c.name}: {c.description}")
        return 0
    write(CASES, args.out)
    groups: dict[str, int] = {}
    for c in CASES:
        groups[c.group] = groups.get(c.group, 0) + 1
    print(f"wrote {len(CASES)} cases: " + ", ".join(f"{g} {n}" for g, n in sorted(groups.items())))
    return 0


def define_cases() -> None:
    """Every generated case, group by group (the definitions follow)."""
    for define in (prose, canonical, dsml_cases, multiple, missing_wrapper, fences,
                   inline_code, stray_backticks, malformed, failures, values, unicode,
                   adversarial, schemas, realistic, realistic_dialects, qwen3_coder,
                   minimax_m2, anthropic, glm45, hermes, kimi_k2, auto, reasoning):
        define()


# ==== the cases ==============================================================================

READ_EXAMPLE = Call("read_file", (cdata("path", "example.txt"),))
READ_REAL = Call("read_file", (cdata("path", "README.md"), number("limit", 200)))
SEARCH = Call("web_search", (text("query", "CommonMark code spans"), number("max_results", 5)))
SHELL = Call("run_shell", (cdata("command", "ls -la src/"),))
WEATHER = Call("get_weather", (text("city", "Berlin"), text("unit", "celsius")))
PING = Call("ping", self_closing=True)
PING_BLOCK = Block('<tool_calls><invoke name="ping"/></tool_calls>', (PING,))
PING_ORPHAN = Block('<invoke name="ping"/></tool_calls>', (PING,))


def ex_block(spelling: Spelling = CANONICAL, nl: str = "\n") -> str:
    """The example block models show before the real call."""
    return block(READ_EXAMPLE, spelling=spelling, nl=nl).raw


def indent(text_: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text_.split("\n"))


# ---- plain prose ---------------------------------------------------------------------------

def prose() -> None:
    g = "prose"
    case(g, "paragraphs", "Plain paragraphs: one text event, nothing held back",
         "The capital of France is Paris. It has been the capital since the 10th century.\n\n"
         "Paris is also the largest city in France, with about 2.1 million residents.\n")
    case(g, "empty", "An empty output gives no events")
    case(g, "whitespace-only", "Only spaces, tabs and blank lines", "  \n\n\t\n   \n")
    case(g, "comparisons", "Less-than signs in prose and formulas are text",
         "If a < b and b < c, then a < c. In code: `x<y`, but also x<y and 1<2 in plain text.\n"
         "The price went from <$5 to >$10; a<b<c.\n")
    case(g, "html-tags", "Ordinary HTML tags are text",
         '<div class="note">Remember to <b>save</b> your work.</div>\n<br/>\n<img src="a.png" alt="A">\n')
    case(g, "generics", "Generic types with angle brackets",
         "Use `List<String>` or, without code formatting, List<String>, Map<K, V> and "
         "Vec<Option<T>>.\nIn C++: std::vector<std::pair<int, int>> v;\n")
    case(g, "arrows-and-operators", "Arrows, shifts and comparison operators",
         "x <- 5 in R; a <= b; a <=> b; 1 << 3; <-> and <--> arrows; << and <<< runs.\n")
    case(g, "near-miss-tag-names", "Names that only start like a tag name are text (SPEC 3)",
         "Open the <toolbox>, not <tool_call> or <tool_calls_x> or <tool_callsx>; "
         "the <invoked> and <invoker> elements; <parameters> and <parameter_list>; "
         "<tool_calls-extra> too.\n")
    case(g, "closing-tags-alone", "Closing tags without an opening one are text",
         "The block ends with </tool_calls>, each call with </invoke>, each value with "
         "</parameter>.\n")
    case(g, "bare-mention", "A wrapper mentioned in prose fails at the next word, its text marked "
         "failed; an invoke tag then starts a call that breaks, and its span runs to the end "
         "(SPEC 3.2)",
         "Use ", Failed("<tool_calls> "), "to wrap your calls and ",
         Failed('<invoke name="f"> for each one; I will not call anything now.\n', at="for"))
    case(g, "self-closing-wrapper", "A self-closing wrapper is no tag; an empty wrapper fails "
         "at its close",
         "An empty block would be <tool_calls/> or ", Failed("<tool_calls>"),
         "</tool_calls>, which mean nothing.\n")
    case(g, "words-without-brackets", "Tag names as plain words",
         "The tool_calls wrapper holds invoke elements, each with parameter children. "
         "DSML is DeepSeek's markup language.\n")
    case(g, "markdown-document", "Headings, lists, a table, emphasis and links, no calls",
         "# Release notes\n\n## Added\n\n- *Streaming* output\n- **Faster** start-up\n\n"
         "| Version | Date |\n|---|---|\n| 1.2 | 2024-05-01 |\n\n"
         "See [the changelog](https://example.com/changelog) for details.\n\n---\n\n"
         "> Quoted text, with a footnote.[^1]\n\n[^1]: A footnote.\n")
    case(g, "autolinks", "Autolinks and e-mail links in angle brackets",
         "Write to <support@example.com> or visit <https://example.com/docs?a=1&b=2>.\n")
    case(g, "long-line", "One long line without a newline",
         ("lorem ipsum dolor sit amet " * 80).strip())
    case(g, "lt-at-the-end", "A lone `<` or `</` at the very end is text when the stream closes",
         "The last character is a less-than sign: <")
    case(g, "partial-tag-at-the-end", "A tag cut off by the end of the stream is text",
         "And the answer is <tool_ca")
    case(g, "cjk-prose", "Chinese prose without calls",
         "巴黎是法国的首都，也是法国最大的城市。\n\n它位于塞纳河畔，人口约为两百一十万。\n")


# ---- canonical calls -----------------------------------------------------------------------

def canonical() -> None:
    g = "canonical"
    case(g, "one-parameter", "One call with one CDATA parameter",
         "Let me read the file.\n\n", block(Call("read_file", (cdata("path", "README.md"),))), "\n")
    case(g, "two-parameters", "A string and a number", block(READ_REAL), "\n")
    case(g, "self-closing-invoke", "A self-closing invoke is a call with {}",
         "Listing the tools.\n", block(Call("list_tools", self_closing=True)))
    case(g, "empty-invoke-body", "An invoke with an empty body is a call with {}",
         block(Call("ping")), "\n")
    case(g, "json-body", "A JSON object as the invoke body is the arguments",
         block(Call("create_issue", json_body='{"title": "Crash on start", "labels": ["bug", "p1"], "assignee": null}',
                    json_value={"title": "Crash on start", "labels": ["bug", "p1"], "assignee": None})),
         "\n")
    case(g, "single-quoted-attributes", "Attributes in single quotes",
         Block("<tool_calls><invoke name='search'><parameter name='q'>cats</parameter></invoke></tool_calls>",
               (Call("search", (text("q", "cats"),)),)), "\n")
    case(g, "attribute-whitespace", "Whitespace around `=` and before `>`",
         Block('<tool_calls ><invoke  name = "search" ><parameter name= "q" >dogs</parameter ></invoke ></tool_calls >',
               (Call("search", (text("q", "dogs"),)),)))
    case(g, "unknown-attributes", "Unknown attributes are ignored on every tag",
         Block('<tool_calls id="call_1" version="2">\n  <invoke name="search" id="7">\n'
               '    <parameter name="q" type="string">birds</parameter>\n  </invoke>\n</tool_calls>',
               (Call("search", (text("q", "birds"),)),)), "\n")
    case(g, "comments-between-tags", "XML comments between tags are ignored",
         Block('<tool_calls>\n  <!-- first call -->\n  <invoke name="search"><!-- query follows -->\n'
               '    <parameter name="q">fish</parameter>\n  <!----></invoke>\n<!-- done --></tool_calls>',
               (Call("search", (text("q", "fish"),)),)), "\n")
    case(g, "block-only", "The whole output is one block, no newline at the end", block(SEARCH))
    case(g, "block-mid-line", "A compact block in the middle of a line",
         "Calling it now: ", block(WEATHER, compact=True), " and then I will report back.\n")
    case(g, "tab-indentation", "Tags indented with tabs",
         Block('<tool_calls>\n\t<invoke name="get_weather">\n\t\t<parameter name="city">Oslo</parameter>\n'
               '\t</invoke>\n</tool_calls>', (Call("get_weather", (text("city", "Oslo"),)),)), "\n")
    case(g, "entity-in-tool-name", "Attribute values are entity-decoded (SPEC 3.1)",
         Block('<tool_calls><invoke name="get&amp;set"><parameter name="key">a</parameter></invoke></tool_calls>',
               (Call("get&set", (text("key", "a"),)),)))
    case(g, "tool-name-trimmed", "Attribute values are trimmed",
         Block('<tool_calls><invoke name="  read_file "><parameter name=" path ">a.md</parameter>'
               "</invoke></tool_calls>",
               (Call("read_file", (text("path", "a.md"),)),)))
    case(g, "gt-in-quoted-attribute", "A `>` inside quotes does not end the tag",
         Block('<tool_calls><invoke name="compare" note="a>b"><parameter name="op" hint=\'x > y\'>gt</parameter>'
               '</invoke></tool_calls>', (Call("compare", (text("op", "gt"),)),)))
    case(g, "text-after-block", "Prose after the block is text",
         "I'll look that up.\n\n", block(SEARCH), "\n\nI'll summarise the results once they arrive.\n")
    case(g, "unknown-tool-name", "An unknown tool name is parsed (policy is section 6's)",
         block(Call("definitely_not_a_tool", (text("x", "y"),))), "\n")


# ---- DSML ----------------------------------------------------------------------------------

def dsml_cases() -> None:
    g = "dsml"
    for bar, bar_name in (("｜", "fullwidth"), ("|", "ascii")):
        for alias in ("tool_calls", "tool-calls", "toolcalls", "function_calls", "calls"):
            case(g, f"wrapper-{alias}-{bar_name}",
                 f"DSML wrapper alias {alias} with {bar_name} bars",
                 "Fetching the weather.\n\n", block(WEATHER, spelling=dsml(bar, alias)), "\n")
    prefixes = [
        ("DSML｜", "dsml-then-bar"), ("DSML", "dsml-no-bars"), ("dsml|", "lowercase-dsml"),
        ("DsMl|", "mixed-case-dsml"), ("｜｜DSML｜｜", "double-bars"), ("｜DSML｜_", "underscore-after"),
        ("｜｜DSML｜｜ ", "space-after"), ("｜", "one-bar-only"), ("｜｜", "two-bars-only"),
        ("dsml_", "dsml-underscore"), ("||DSML|| ", "ascii-double-bars-space"), ("|", "one-ascii-bar"),
        ("|｜DSML｜|", "mixed-bars"),
    ]
    for prefix, slug in prefixes:
        spelling = Spelling(prefix + "tool_calls", prefix + "tool_calls", prefix + "invoke", prefix + "parameter")
        case(g, f"prefix-{slug}", f"DSML prefix {prefix!r} on every tag (SPEC 3)",
             block(SHELL, spelling=spelling), "\n")
    case(g, "bar-prefix-alias", "A bar-only prefix allows the wrapper aliases too",
         block(SEARCH, spelling=Spelling("｜function_calls", "｜function_calls", "｜invoke", "｜parameter")))
    case(g, "mixed-prefixes", "Opening and closing tags may differ in prefix",
         Block('<｜DSML｜tool_calls>\n<|DSML|invoke name="get_weather">\n'
               '<dsml_parameter name="city">Lima</｜parameter>\n</DSMLinvoke>\n</tool_calls>',
               (Call("get_weather", (text("city", "Lima"),)),)), "\n")
    case(g, "mixed-aliases", "Opening and closing wrappers may use different aliases",
         Block('<｜DSML｜function_calls><｜DSML｜invoke name="ping"/></|DSML|tool-calls>', (Call("ping"),)))
    case(g, "deepseek-v3-style", "The DSML layout DeepSeek models write, with string attributes",
         "I'll run the tests.\n\n",
         Block('<｜DSML｜function_calls>\n<｜DSML｜invoke name="run_shell">\n'
               '<｜DSML｜parameter name="command" string="true">pytest -q tests/</｜DSML｜parameter>\n'
               '<｜DSML｜parameter name="timeout" string="false">120</｜DSML｜parameter>\n'
               '</｜DSML｜invoke>\n</｜DSML｜function_calls>',
               (Call("run_shell", (Param("command", "pytest -q tests/", "pytest -q tests/", ' string="true"'),
                                   Param("timeout", "120", 120, ' string="false"'))),)))
    for alias in ("function_calls", "calls", "toolcalls"):
        case(g, f"alias-{alias.replace('_', '-')}-needs-prefix",
             f"The wrapper alias {alias} without a prefix is no wrapper: the invoke starts a "
             "call that breaks at the close, and its span runs to the end (SPEC 3, 3.2)",
             f"<{alias}>", Failed(f'<invoke name="ping"/></{alias}>\n', at=f"</{alias}>"))
    case(g, "bad-prefix-hyphen", "`DSML-` is not a prefix: the wrapper fails there, the rest is text",
         Failed("<tool_calls>"), '<DSML-invoke name="ping"/></tool_calls>\n')
    case(g, "bad-prefix-three-bars", "Three bars are not a prefix",
         '<｜｜｜tool_calls><｜｜｜invoke name="ping"/></｜｜｜tool_calls>\n')
    case(g, "bad-prefix-two-spaces", "Only one space may follow a prefix",
         '<｜DSML｜  tool_calls><｜DSML｜  invoke name="ping"/></｜DSML｜  tool_calls>\n')
    case(g, "tag-names-are-case-sensitive", "Tag names are case-sensitive",
         '<TOOL_CALLS><Invoke name="ping"/></TOOL_CALLS> and <｜DSML｜Tool_Calls>\n')


# ---- several calls and blocks --------------------------------------------------------------

def multiple() -> None:
    g = "multiple"
    case(g, "two-invokes", "Two calls in one block", block(READ_REAL, SEARCH), "\n")
    case(g, "three-invokes", "Three calls of different tools",
         "I'll gather everything at once.\n\n", block(WEATHER, SEARCH, SHELL), "\n")
    case(g, "two-blocks-with-prose", "Two blocks separated by prose are independent",
         "First the weather:\n\n", block(WEATHER), "\n\nThen the news:\n\n", block(SEARCH), "\n")
    case(g, "back-to-back", "Two blocks with nothing between them",
         block(WEATHER, compact=True), block(SEARCH, compact=True))
    case(g, "newline-between", "Two blocks separated by one newline",
         block(WEATHER), "\n", block(SHELL), "\n")
    case(g, "good-bad-good", "A failed block between two good ones: its text is marked failed",
         block(WEATHER), "\n\n", Failed("<tool_calls>\n"),
         "I changed my mind about this one.\n</tool_calls>\n\n", block(SEARCH), "\n")
    steps = [Call("run_shell", (cdata("command", f"step {i}"),)) for i in range(1, 6)]
    case(g, "five-blocks", "Five blocks, one per step",
         *[part for i, c in enumerate(steps, 1) for part in (f"Step {i}:\n", block(c), "\n\n")])
    case(g, "same-tool-twice", "The same tool called twice in one block",
         block(Call("read_file", (cdata("path", "a.py"),)), Call("read_file", (cdata("path", "b.py"),))), "\n")
    case(g, "comments-between-invokes", "Comments between invokes",
         Block('<tool_calls><invoke name="a"/><!-- and --><invoke name="b"/><!-- end --></tool_calls>',
               (Call("a", self_closing=True), Call("b", self_closing=True))))
    case(g, "canonical-then-dsml", "A canonical block, then a DSML one",
         block(WEATHER), "\n\n", block(SEARCH, spelling=DSML_FULL), "\n")
    case(g, "block-then-missing-wrapper", "A block, then invokes closed by a wrapper close alone",
         block(WEATHER), "\n\nOne more:\n", block(SEARCH, missing_wrapper=True), "\n")
    case(g, "blank-lines-between-invokes", "Blank lines between invokes are whitespace",
         Block('<tool_calls>\n\n<invoke name="a"/>\n\n\n<invoke name="b"/>\n\n</tool_calls>',
               (Call("a", self_closing=True), Call("b", self_closing=True))), "\n")


# ---- missing opening wrapper ---------------------------------------------------------------

def missing_wrapper() -> None:
    g = "missing-wrapper"
    case(g, "one-invoke", "An invoke followed by a wrapper close is a block (SPEC 3)",
         "Sure.\n", block(READ_REAL, missing_wrapper=True), "\nDone.\n")
    case(g, "two-invokes", "Two invokes and a wrapper close",
         block(WEATHER, SEARCH, missing_wrapper=True), "\n")
    case(g, "dsml", "DSML invokes closed by a DSML wrapper close",
         "好的。\n", block(SHELL, spelling=DSML_FULL, missing_wrapper=True), "\n")
    case(g, "dsml-alias-close", "A wrapper close in an alias spelling ends the block",
         Block('<｜DSML｜invoke name="ping"/>\n</｜DSML｜function_calls>', (Call("ping", self_closing=True),)))
    case(g, "prose-between", "Prose between an invoke and the close: the calls broke, the span "
         "runs to the close (SPEC 3.2)",
         Failed('<invoke name="ping"/> and then </tool_calls>', at="and"), "\n")
    case(g, "no-close", "Invokes with no following wrapper close: the calls broke at the prose, "
         "the span runs to the end (SPEC 3.2)",
         Failed('<invoke name="a"><parameter name="p">1</parameter></invoke>\n<invoke name="b"/>\nDone.\n',
                at="Done"))
    case(g, "after-prose-in-wrapper", "A wrapper failing at prose; the invoke and close after it form a block",
         Failed("<tool_calls>"), "here is the call: ", PING_ORPHAN, "\n")
    case(g, "compact-mid-line", "A compact orphan block after text on the same line",
         "Calling: ", block(WEATHER, compact=True, missing_wrapper=True), " ok\n")
    case(g, "comment-before-close", "A comment between the invoke and the close",
         Block('<invoke name="ping"/>\n<!-- that is all -->\n</tool_calls>', (Call("ping", self_closing=True),)), "\n")
    case(g, "close-alone", "A wrapper close alone is text", "Nothing to call.\n</tool_calls>\n")
    case(g, "invoke-open-not-closed", "An unclosed invoke then a wrapper close: a failed span "
         "that the close ends (SPEC 3.2)",
         Failed('<invoke name="a"><parameter name="p">1</parameter>\n</tool_calls>', at="</tool_calls>"),
         "\n")


# ---- fenced code ---------------------------------------------------------------------------

def fences() -> None:
    g = "fences"
    ex = ex_block()
    real = block(READ_REAL)

    def shape(name: str, description: str, fenced: str, *, after: str = "\n\nNow the real call:\n\n") -> None:
        case(g, name, description, "Here is the format:\n\n", Code(fenced), after, real, "\n")

    shape("backticks-xml", "An example in a ```xml fence is text; the real call after it is a call",
          f"```xml\n{ex}\n```")
    shape("backticks-no-info", "A ``` fence without an info string", f"```\n{ex}\n```")
    shape("tildes", "A ~~~ fence", f"~~~\n{ex}\n~~~")
    shape("tildes-xml", "A ~~~xml fence", f"~~~xml\n{ex}\n~~~")
    shape("four-backticks", "A ```` fence", f"````xml\n{ex}\n````")
    shape("nested-backticks", "A ````` fence holding a ``` fence",
          f"`````markdown\nThe model writes:\n\n```xml\n{ex}\n```\n`````")
    shape("tildes-around-backticks", "A ~~~ fence holding a ``` fence", f"~~~markdown\n```xml\n{ex}\n```\n~~~")
    shape("backticks-around-tildes", "A ``` fence holding ~~~ lines", f"```\n~~~\n{ex}\n~~~\n```")
    for spaces in (1, 2, 3):
        pad = " " * spaces
        shape(f"indented-{spaces}", f"A fence indented by {spaces} space(s)",
              f"{pad}```xml\n{indent(ex, pad)}\n{pad}```")
    shape("indented-code-block", "Four spaces after a blank line: an indented code block", indent(ex, "    "))
    shape("tab-indented-code-block", "A tab after a blank line: an indented code block", indent(ex, "\t"))
    shape("longer-closing-fence", "A longer closing run closes the fence", f"```xml\n{ex}\n`````")
    shape("closing-fence-trailing-spaces", "Spaces after the closing run", f"```xml\n{ex}\n```   ")
    shape("shorter-run-does-not-close", "A shorter run inside a ```` fence is content",
          f"````\n{ex}\n```\n\nNow the real call:\n\n{ex}\n````")
    shape("closing-with-info-does-not-close", "A run with text after it does not close a fence",
          f"```xml\n{ex}\n``` xml\n{ex}\n```")
    shape("tilde-does-not-close-backticks", "A ~~~ line does not close a ``` fence",
          f"```\n{ex}\n~~~\n{ex}\n```")
    shape("not-at-line-start-does-not-close", "A run after text on the line does not close a fence",
          f"```xml\n{ex}\nthat was it ```\n```")
    case(g, "interrupts-paragraph", "A fence may interrupt a paragraph",
         "Here is the format:\n", Code(f"```xml\n{ex}\n```"), "\nAnd the real call:\n\n", real, "\n")
    case(g, "unclosed-at-end", "An unclosed fence runs to the end of the stream",
         "Here is the format:\n\n", Code(f"```xml\n{ex}\n"))
    case(g, "unclosed-swallows-later-block", "A block after an unclosed fence is still in code",
         "Example:\n\n", Code(f"```xml\n{ex}\n\nAnd for real:\n\n{ex}\n"))
    case(g, "in-list-item", "A fence inside a list item",
         "1. Write the wrapper:\n\n", Code(f"   ```xml\n{indent(ex, '   ')}\n   ```"),
         "\n\n2. Then send it.\n\n", real, "\n")
    case(g, "in-block-quote", "A fence inside a block quote",
         "> The format:\n>\n", Code(f"> ```xml\n{indent(ex, '> ')}\n> ```"), "\n\n", real, "\n")
    case(g, "backtick-in-info-is-not-a-fence",
         "A backtick in the info string: no fence, so the example is a call; the bare ``` "
         "line after it opens a fence that holds the rest",
         "Here is the format:\n\n``` a`b\n", block(READ_EXAMPLE),
         Code(f"\n```\n\nNow the real call:\n\n{real.raw}\n"))
    shape("tilde-info-may-hold-backticks", "A ~~~ fence's info string may contain backticks",
          f"~~~ a`b\n{ex}\n~~~")
    shape("blank-lines-inside", "Blank lines inside a fence", f"```xml\n\n{ex}\n\n\n```")
    case(g, "two-fences", "Two examples in two fences, then the real call",
         "Canonical:\n\n", Code(f"```xml\n{ex}\n```"), "\n\nDSML:\n\n",
         Code(f"```xml\n{ex_block(DSML_FULL)}\n```"), "\n\nNow:\n\n", real, "\n")
    case(g, "dsml-example-and-call", "A DSML example in a fence, then a DSML call",
         "格式如下：\n\n", Code(f"```xml\n{ex_block(DSML_FULL)}\n```"), "\n\n现在调用：\n\n",
         block(READ_REAL, spelling=DSML_FULL), "\n")
    case(g, "call-before-fence", "The real call first, then an example in a fence",
         real, "\n\nFor reference, the format is:\n\n", Code(f"```xml\n{ex}\n```"), "\n")
    case(g, "call-between-fences", "A real call between two fenced examples",
         Code(f"```xml\n{ex}\n```"), "\n\n", real, "\n\n", Code(f"~~~\n{ex}\n~~~"), "\n")
    case(g, "crlf", "A fence with CRLF line endings",
         *crlf("Here is the format:\n\n", Code(f"```xml\n{ex}\n```"), "\n\nNow the real call:\n\n"),
         block(READ_REAL, nl="\r\n"), "\r\n")
    case(g, "html-comment-is-not-code", "An HTML comment is not code: a block inside it is a call (SPEC 3)",
         "<!--\n", real, "\n-->\n")


# ---- inline code ---------------------------------------------------------------------------

def inline_code() -> None:
    g = "inline-code"
    real = block(READ_REAL)
    compact_ex = block(READ_EXAMPLE, compact=True).raw
    case(g, "tag-names", "Tag names in code spans are text; the real call after them is a call",
         "Wrap calls in ", Code("`<tool_calls>`"), " and put each one in ",
         Code('`<invoke name="...">`'), ".\n\n", real, "\n")
    case(g, "whole-block", "A whole block in a code span is text",
         "The shortest form is ", Code(f"`{compact_ex}`"), ".\n\n", real, "\n")
    case(g, "double-backticks", "Double-backtick spans",
         "The tags are ", Code("``<tool_calls>``"), " and ", Code('``<invoke name="f"/>``'), ".\n\n", real, "\n")
    case(g, "span-across-lines", "A code span may run over lines of one paragraph",
         "For example ", Code('`<tool_calls>\n<invoke name="x"/>\n</tool_calls>`'), " is one call.\n\n", real, "\n")
    case(g, "missing-wrapper-shape", "An invoke and a close, each in code: text",
         Code('`<invoke name="ping"/>`'), " followed by ", Code("`</tool_calls>`"), " makes a call.\n\n", real, "\n")
    case(g, "table-cells", "Code spans in table cells",
         "| Tag | Meaning |\n|---|---|\n| ", Code("`<tool_calls>`"), " | the wrapper |\n| ",
         Code('`<invoke name="f">`'), " | one call |\n\n", real, "\n")
    case(g, "list-items", "Code spans in list items",
         "- ", Code("`<tool_calls>` wraps"), "\n- ", Code("`<invoke>` calls"), "\n\n", real, "\n")
    case(g, "heading", "A code span in a heading", "## The ", Code("`<tool_calls>`"), " tag\n\n", real, "\n")
    case(g, "triple-backticks-mid-line", "``` in the middle of a line opens a code span, not a fence",
         "Use ", Code(f"```{compact_ex}```"), " inline.\n\n", real, "\n")
    case(g, "block-quote", "A code span in a block quote",
         "> Write ", Code("`<tool_calls>`"), " first.\n\n", real, "\n")
    case(g, "then-call-same-paragraph", "A closed span, then a real call in the same paragraph",
         "Wrap with ", Code("`<tool_calls>`"), ": ", block(READ_REAL, compact=True), "\n")
    case(g, "in-link-text", "A code span inside link text",
         "[", Code("`<tool_calls>`"), "](https://example.com/spec) explains it.\n\n", real, "\n")
    case(g, "cjk", "Code spans in Chinese prose",
         "用 ", Code("`<tool_calls>`"), " 包裹调用，每个调用用 ", Code('`<invoke name="工具">`'), "。\n\n", real, "\n")
    case(g, "dsml-in-span", "DSML tags in code spans",
         "DeepSeek writes ", Code("`<｜DSML｜function_calls>`"), " and ", Code("`<｜DSML｜invoke name=\"f\">`"),
         ".\n\n", block(READ_REAL, spelling=DSML_FULL), "\n")


def stray_backticks() -> None:
    g = "stray-backticks"
    compact = block(READ_REAL, compact=True)
    case(g, "unmatched-run-then-call", "An unmatched backtick before a call at the end: the call counts (SPEC 4.3)",
         "Press the ` key, then: ", compact)
    case(g, "unmatched-run-in-earlier-paragraph", "A stray backtick in an earlier paragraph",
         "The ` key is next to 1.\n\n", block(READ_REAL), "\n")
    case(g, "run-matched-after-block", "A backtick run matched after the block: the block was code (SPEC 4.3)",
         "See ", Code(f"` {compact.raw} `"), " for the format.\n\n", block(SEARCH), "\n")
    case(g, "escaped-backtick", "An escaped backtick opens no span",
         "Type \\` then: ", compact, " and a lone ` later.\n")
    case(g, "length-mismatch", "A run of two is not closed by a run of one",
         "Use `` then ", compact, " and ` here.\n")
    case(g, "backtick-in-value", "Backticks inside a block do not close an earlier run (SPEC G3a)",
         "The ` is a quote; now: ",
         block(Call("run_shell", (cdata("command", "echo `date` `"),))), " done.\n")
    case(g, "single-backtick-in-value", "A lone backtick inside a block closes nothing (SPEC G3a)",
         "Run `git log` first. A stray ` and then ",
         block(Call("run_shell", (text("command", "echo a`b"),))), " end.\n")
    case(g, "storm-then-call", "A storm of unmatched runs, then a call in a new paragraph",
         "```` `` ` ``` ````` ` `` ```\n\n", block(READ_REAL), "\n")
    case(g, "unmatched-then-heading", "A heading ends the paragraph of an unmatched run",
         "A stray ` here\n# Heading\n", compact, "\n")
    case(g, "unmatched-then-more-paragraphs", "An unmatched run; later code spans are in other paragraphs",
         "Note: ` is literal. ", compact, " And more text.\n\nNew paragraph with `code`.\n")
    case(g, "matched-lines-later", "A run matched two lines later in the same paragraph: code",
         Code(f"Start ` \n{compact.raw}\nmore text\nend ` here."), "\n\n", block(SEARCH), "\n")


# ---- malformed and truncated ---------------------------------------------------------------

def malformed() -> None:
    g = "malformed"
    full = block(READ_REAL).raw
    cuts = [
        ("after-wrapper-name", full.index(">")),
        ("after-wrapper", full.index(">") + 2),
        ("inside-invoke-tag", full.index("name=") + 7),
        ("after-invoke-tag", full.index('">', full.index("<invoke")) + 3),
        ("inside-cdata", full.index("README") + 3),
        ("after-parameter", full.index("</parameter>") + len("</parameter>")),
        ("inside-second-value", full.index(">200") + 2),
        ("after-invoke-close", full.index("</invoke>") + len("</invoke>")),
        ("inside-wrapper-close", len(full) - 4),
    ]
    for slug, cut in cuts:
        truncated = full[:cut]
        # Cut inside a tag before a call started: the wrapper alone failed, the rest is
        # text; once a call started, everything to the end is the failed span.
        if slug == "after-wrapper-name":  # no tag yet: plain text
            segments: list[Segment | str] = [truncated]
        elif slug == "inside-invoke-tag":
            head = truncated[:truncated.index("<invoke")]
            segments = [Failed(head, "truncated", at=len(truncated)),
                        truncated[len(head):]]
        else:
            segments = [Failed(truncated, "truncated")]
        case(g, f"truncated-{slug}", "A block cut off by the end of the stream fails with reason "
             "truncated (SPEC 3.2, G4)", "Let me read it.\n\n", *segments)
    case(g, "truncated-dsml", "A DSML block cut off fails with reason truncated",
         "好的。\n\n", Failed(block(SHELL, spelling=DSML_FULL).raw[:-12], "truncated"))
    case(g, "prose-in-wrapper", "A wrapper holding prose fails at the prose (a prose mention)",
         Failed("<tool_calls>\n"), "I will now call the tool.\n</tool_calls>\n")
    case(g, "empty-wrapper", "An empty wrapper is not a block: it fails at the close",
         Failed("<tool_calls>\n\n"), "</tool_calls>\n")
    case(g, "invoke-without-name", "An invoke without a name is refused as it arrives: the "
         "wrapper fails there, and the nameless tag starts no call",
         Failed("<tool_calls>", "invalid_name"), Failed("<invoke>", "invalid_name", at=0),
         '<parameter name="p">1</parameter></invoke></tool_calls>\n')
    case(g, "empty-name", "An empty name is no name: refused as it arrives",
         Failed("<tool_calls>", "invalid_name"), Failed('<invoke name=""/>', "invalid_name", at=0),
         "</tool_calls>\n")
    case(g, "parameter-without-name", "A parameter without a name fails the block after its call "
         "started: the span runs to the wrapper close",
         Failed('<tool_calls><invoke name="a"><parameter>1</parameter></invoke></tool_calls>',
                "invalid_name", at="</parameter>"), "\n")
    case(g, "unquoted-attributes", "Unquoted values are not attributes: no invoke tag, the wrapper fails",
         Failed("<tool_calls>"),
         "<invoke name=search><parameter name=q>cats</parameter></invoke></tool_calls>\n")
    case(g, "missing-invoke-close", "A wrapper close where an invoke close belongs: the span ends there",
         Failed('<tool_calls><invoke name="a"><parameter name="p">1</parameter></tool_calls>',
                at="</tool_calls>"), "\n")
    case(g, "json-body-trailing-comma", "A JSON body that is not strict JSON: without tools "
         "the call is rejected (invalid_json), the block stays a block (SPEC 3.1)",
         Block('<tool_calls><invoke name="a">{"x": 1,}</invoke></tool_calls>',
               (Call("a", json_body='{"x": 1,}', json_value={}),)), "\n", status={0: "rejected"})
    case(g, "json-body-array", "A JSON body that parses but is not an object: the call is "
         "rejected (not_object), the block stays a block (SPEC 3.1)",
         Block('<tool_calls><invoke name="a">[1, 2]</invoke></tool_calls>',
               (Call("a", json_body="[1, 2]", json_value={}),)), "\n", status={0: "rejected"})
    case(g, "text-in-invoke-body", "Other text in an invoke body: the calls broke, the span runs "
         "to the wrapper close (SPEC 3.2)",
         Failed('<tool_calls><invoke name="a">stray<parameter name="p">1</parameter></invoke></tool_calls>',
                at="stray"), "\n")
    case(g, "repeated-attribute", "A repeated attribute is refused as the tag arrives: no call started",
         Failed("<tool_calls>", "repeated_attribute"),
         Failed('<invoke name="a" name="b"/>', "repeated_attribute", at=0), "</tool_calls>\n")
    case(g, "unclosed-cdata", "A value with an unclosed CDATA section never ends (SPEC 3): truncated",
         Failed('<tool_calls><invoke name="a"><parameter name="p"><![CDATA[never closed</parameter>'
                "</invoke></tool_calls>\n", "truncated"))
    case(g, "text-after-cdata", "A `]]>` followed by text is content, so the section never ends "
         "(SPEC 3): truncated",
         Failed('<tool_calls><invoke name="a"><parameter name="p"><![CDATA[x]]> y</parameter>'
                "</invoke></tool_calls>\n", "truncated"))
    case(g, "second-parameter-close", "A second parameter close: the calls broke, the span runs "
         "to the wrapper close",
         Failed('<tool_calls><invoke name="a"><parameter name="p">x<parameter name="q">y</parameter>z'
                "</parameter></invoke></tool_calls>", at="z</parameter>"), "\n")
    case(g, "stray-parameter-close", "A parameter close where a parameter belongs: the span runs "
         "to the wrapper close",
         Failed('<tool_calls><invoke name="a"></parameter></invoke></tool_calls>', at="</parameter>"),
         "\n")
    case(g, "lt-in-attribute-value", "A `<` inside an attribute value: not a tag, so the wrapper fails",
         Failed("<tool_calls>"), '<invoke name="a<b"/></tool_calls>\n')
    case(g, "nested-wrapper", "Scanning resumes at the failing token: the inner block is found (SPEC 3)",
         Failed("<tool_calls>"), PING_BLOCK, "\n")
    case(g, "tag-without-gt", "A `<` before the `>`: the first tag was text, the rest a block",
         "<｜DSML｜tool_calls\n",
         Block('<｜DSML｜invoke name="ping"></｜DSML｜invoke>\n</｜DSML｜tool_calls>', (Call("ping"),)), "\n")
    case(g, "released-text-opens-fence", "A failed block's text is Markdown: a fence in it opens (SPEC 3)",
         Failed("<tool_calls>\n"), "I'll explain:\n", Code(f"```xml\n{block(READ_EXAMPLE).raw}\n```"), "\n\n",
         block(READ_REAL), "\n")


# ---- failures: no partial execution (SPEC 3.2, G4) ------------------------------------------

def failures() -> None:
    g = "failures"
    step = '<invoke name="run"><parameter name="command">pytest -q</parameter></invoke>'
    tail = '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>'
    broken = '<invoke name="run"><parameter name="command">make</parameter>stray text</invoke>'
    case(g, "second-of-three-broken", "Three invokes, the second broken by stray text: the whole "
         "block is one failed span; the third (`rm -rf build`) never runs",
         "Running the steps.\n", Failed(f"<tool_calls>\n{step}\n{broken}\n{tail}\n</tool_calls>",
                                       at="stray"), "\nDone.\n")
    case(g, "broken-then-new-wrapper", "A new wrapper open ends the failed span, not included: "
         "the fresh block after it is a call",
         Failed(f"<tool_calls>\n{step}\n{broken}\n", at="stray"),
         block(Call("run", (text("command", "make"),))), "\n")
    case(g, "close-in-cdata-after-the-break", "A wrapper close inside a CDATA section of the "
         "failed span does not end it",
         Failed(f"<tool_calls>\n{step} oops <parameter name=\"x\"><![CDATA[</tool_calls>\n{tail}]]>"
                "</parameter>\n</tool_calls>", at="oops"), "\nafter\n")
    case(g, "missing-wrapper-broken-in-the-middle", "Invokes without a wrapper, the second "
         "broken: no missing-wrapper block starts inside the span, so the third does not run",
         "Sure.\n", Failed(f"{step}\n{broken}\n{tail}\n</tool_calls>", at="stray"), "\n")
    case(g, "broken-in-inline-code-is-code", "A call tag in inline code that breaks: code, so "
         "plain text, and the text after it is not held",
         'Write `<invoke name="run">` and then a parameter.\n')
    case(g, "broken-after-a-literal-backtick", "A stray backtick, then a block that breaks: the "
         "run is never matched, so the tag was outside code and the span is failed",
         "A stray ` here: ", Failed(f"<tool_calls>{step} oops {tail}</tool_calls>", at="oops"),
         " end\n\nNext paragraph.\n")
    case(g, "bad-json-body-in-the-middle", "A JSON body that is not valid JSON rejects its call; "
         "the block stays a block, with a rejected call, so a gateway that runs accepted "
         "blocks runs none of it (SPEC 3.1)",
         Block(f'<tool_calls>{step}<invoke name="run">{{"command": "make",}}</invoke>{tail}</tool_calls>',
               (Call("run", (text("command", "pytest -q"),)),
                Call("run", json_body='{"command": "make",}', json_value={}),
                Call("run", (text("command", "rm -rf build"),)))), "\n",
         status={0: "unchecked", 1: "rejected", 2: "unchecked"})


# ---- values --------------------------------------------------------------------------------

def values() -> None:
    g = "values"

    def one(name: str, description: str, *params: Param, tool: str = "set") -> None:
        case(g, name, description, block(Call(tool, tuple(params))), "\n")

    one("cdata-verbatim", "CDATA is verbatim: no decoding, no trimming",
        Param("v", "<![CDATA[  42 &amp; <x> ]]>", "  42 &amp; <x> "))
    one("cdata-end-inside", "A `]]>` not followed by `<` is content",
        Param("v", "<![CDATA[a ]]> b ]]]]>", "a ]]> b ]]"))
    one("cdata-end-before-whitespace", "Whitespace between `]]>` and the closing tag",
        Param("v", "<![CDATA[x]]>  \n  ", "x"))
    heredoc = ('cat <<EOF\n```xml\n<tool_calls><invoke name="x"><parameter name="p"><![CDATA[hi]]>'
               "</parameter></invoke></tool_calls>\n```\nEOF")
    one("nested-cdata", "A CDATA section holding an example with its own CDATA comes through whole",
        Param("command", f"<![CDATA[{heredoc}]]>", heredoc), tool="run_shell")
    code = "\ndef area(r):\n    return 3.14159 * r * r\n"
    one("cdata-code-keeps-edges", "A CDATA value keeps its leading and trailing newlines",
        Param("content", f"<![CDATA[{code}]]>", code), tool="write_file")
    one("entities", "The five entities and numeric references are decoded once (SPEC 3.1)",
        Param("v", "&lt;a&gt; &amp;lt; &#65;&#x42; &quot;&apos; &nbsp; &copy;", "<a> &lt; AB \"' &nbsp; &copy;"))
    one("invalid-numeric-references", "References to no character stay as written",
        Param("v", "&#1114112; &#x110000; &#x; &#; &#12a;", "&#1114112; &#x110000; &#x; &#; &#12a;"))
    one("entities-in-cdata", "Entities inside CDATA stay", Param("v", "<![CDATA[&amp; &lt;]]>", "&amp; &lt;"))
    case(g, "entities-in-names", "Names are entity-decoded too",
         Block('<tool_calls><invoke name="r&amp;w"><parameter name="p&#x41;">1</parameter></invoke></tool_calls>',
               (Call("r&w", (Param("pA", "1", 1),)),)), "\n")
    one("trimmed", "A one-line text value is trimmed", Param("path", "   a.md  ", "a.md"))
    one("edge-newlines", "One newline after the opening tag and one before the closing tag go",
        Param("path", "\n  a.md \n", "a.md"))
    one("only-one-edge-newline", "Only one newline goes at each edge", Param("v", "\n\nx\n\n", "\nx\n"))
    one("code-keeps-indentation", "A multi-line text value keeps its first-line indentation",
        block_text("code", "    def f():\n        return 1", "    "), tool="write_file")
    one("crlf-edges", "CRLF edges are removed like LF ones",
        Param("code", "\r\n  x\r\n  y\r\n", "  x\r\n  y"), tool="write_file")
    one("json-typing", "Exactly-JSON values are typed (SPEC 3)",
        number("int", 42), number("float", -1500.0), Param("exp", "-1.5e3", -1500.0),
        json_value("yes", True), json_value("no", False), json_value("nothing", None),
        json_value("list", [1, "a"]), json_value("object", {"a": {"b": 1}}), Param("padded", " 7 ", 7))
    one("json-lookalikes", "Text that is not exactly a JSON non-string stays a string",
        Param("quoted", '"quoted"', '"quoted"'), Param("suffix", "42abc", "42abc"),
        Param("nan", "NaN", "NaN"), Param("hex", "0x10", "0x10"), Param("plus", "+1", "+1"),
        Param("leading_zero", "01", "01"), Param("duplicate_keys", '{"a": 1, "a": 2}', '{"a": 1, "a": 2}'),
        Param("single_quotes", "{'a': 1}", "{'a': 1}"), Param("word", "True", "True"))
    one("cdata-number-is-string", "A value that is exactly one CDATA section is a string",
        Param("n", "<![CDATA[42]]>", "42"), Param("b", "<![CDATA[true]]>", "true"))
    one("string-true", 'string="true" keeps the text',
        Param("n", "42", "42", ' string="true"'), Param("l", "[1]", "[1]", ' string="TRUE"'))
    one("string-false", 'string="false" gives the JSON value, from CDATA or not',
        Param("s", '"s"', "s", ' string="false"'), Param("l", "<![CDATA[[1, 2]]]>", [1, 2], ' string="false"'),
        Param("n", "42", 42, ' string="false"'))
    one("string-false-not-json", 'string="false" with text that is not JSON: the string',
        Param("v", "not json", "not json", ' string="false"'))
    one("repeated-names", "A repeated parameter name gives a list, in order",
        Param("f", "a", "a"), Param("g", "1", 1), Param("f", "2", 2), Param("f", "<![CDATA[3]]>", "3"))
    case(g, "self-closing-parameter", "A self-closing parameter is the empty string",
         Block('<tool_calls><invoke name="w"><parameter name="a"/><parameter name="b"></parameter>'
               "</invoke></tool_calls>",
               (Call("w", (Param("a", "", ""), Param("b", "", ""))),)), "\n")
    one("whitespace-only", "A value of spaces is the empty string", Param("v", "   ", ""))
    one("lt-in-value", "A `<` in a value that starts no closing tag is text",
        Param("v", "a < b <b>bold</b> </para", "a < b <b>bold</b> </para"))
    one("parameter-tag-in-value", "A `<parameter` inside a value is text",
        Param("p", 'x <parameter name="q">y', 'x <parameter name="q">y'))
    one("comment-in-value", "A comment inside a value is content", Param("v", "x<!-- c -->y", "x<!-- c -->y"))
    one("text-and-cdata", "A text run and a CDATA section join; the edges are trimmed",
        Param("v", "  a &amp; <![CDATA[<b> &amp;]]>  ", "a & <b> &amp;"))
    case(g, "json-body-with-lt", "A JSON body may contain `<`",
         block(Call("calc", json_body='{"expr": "a < b", "n": [1, 2]}',
                    json_value={"expr": "a < b", "n": [1, 2]})), "\n")
    one("json-unicode-escapes", "JSON escapes decode", Param("v", '["\\u00e9", "\\n"]', ["é", "\n"]))
    big = "\n".join(f"line {i}: {'x' * (i % 50)}" for i in range(300))
    one("long-multiline-cdata", "A 300-line CDATA value", Param("content", f"<![CDATA[{big}]]>", big),
        tool="write_file")
    fence_value = "```python\nprint('hello')\n"
    case(g, "fence-in-value", "An unclosed fence inside a value opens no code (SPEC G3a)",
         "Writing the notes:\n\n",
         block(Call("write_file", (cdata("path", "notes.md"), cdata("content", fence_value)))),
         "\n\nAnd then:\n\n", block(SEARCH), "\n")
    case(g, "backtick-in-value-then-span", "A backtick inside a value does not pair with one after the block",
         block(Call("run_shell", (text("command", "echo `a"),))), "\n\nThen `b` is code, and this is a call:\n\n",
         block(SEARCH), "\n")


# ---- unicode, CJK, CRLF --------------------------------------------------------------------

def unicode() -> None:
    g = "unicode"
    case(g, "cjk-answer", "A Chinese answer with a call whose values are Chinese",
         "好的，我来帮你查一下北京明天的天气。\n\n",
         block(Call("get_weather", (text("city", "北京"), text("date", "明天")))), "\n")
    case(g, "cjk-names", "Tool and parameter names in Chinese",
         Block('<tool_calls><invoke name="搜索"><parameter name="关键词">人工智能</parameter></invoke></tool_calls>',
               (Call("搜索", (text("关键词", "人工智能"),)),)), "\n")
    case(g, "emoji", "Emoji and supplementary-plane characters in prose and values",
         "Sending it 🚀👩‍💻 now 𝔘𝔫𝔦𝔠𝔬𝔡𝔢:\n", block(Call("send_message", (cdata("text", "Done ✅ 🎉 👨‍👩‍👧"),))), "\n")
    case(g, "crlf-answer", "A whole answer with CRLF line endings, values included",
         *crlf("I'll write the file.\n\n"),
         block(Call("write_file", (cdata("path", "a.txt"), block_text("content", "line one\nline two", "    "))),
               nl="\r\n"), "\r\n")
    case(g, "crlf-cdata", "CRLF inside CDATA stays",
         Block("<tool_calls>\r\n<invoke name=\"w\">\r\n<parameter name=\"c\"><![CDATA[a\r\nb]]></parameter>\r\n"
               "</invoke>\r\n</tool_calls>", (Call("w", (Param("c", "<![CDATA[a\r\nb]]>", "a\r\nb"),)),)), "\r\n")
    case(g, "cr-line-endings", "Old Mac line endings in the prose",
         "First line.\rSecond line.\r", block(WEATHER, compact=True), "\r")
    case(g, "byte-order-mark", "A byte-order mark at the start is text",
         "\ufeffHello.\n", block(WEATHER), "\n")
    case(g, "full-width-brackets", "Full-width angle brackets are not tags",
         "请使用＜tool_calls＞和＜invoke name=\"x\"＞标签。\n")
    case(g, "rtl", "Right-to-left text around a call",
         "مرحبا! سأبحث عن ذلك.\n", block(Call("web_search", (text("query", "الطقس في القاهرة"),))), "\nשלום\n")
    case(g, "combining-characters", "Combining characters in values stay as written",
         block(Call("lookup", (text("word", "cafe\u0301"), text("other", "n\u0303o")))), "\n")
    case(g, "zero-width-space-in-wrapper", "A zero-width space is not whitespace: the wrapper fails there",
         Failed("<tool_calls>"), "\u200b", PING_ORPHAN, "\n")
    case(g, "zero-width-space-in-tag", "A zero-width space inside a tag name: text",
         '<\u200btool_calls><\u200binvoke name="ping"/></tool_calls>\n')
    case(g, "dsml-chinese-answer", "A DeepSeek-style Chinese answer with DSML tags",
         "我先读取配置文件，然后再决定下一步。\n\n", block(Call("read_file", (cdata("path", "config/设置.yaml"),)),
                                           spelling=DSML_FULL), "\n")


# ---- adversarial shapes --------------------------------------------------------------------

def adversarial() -> None:
    g = "adversarial"
    real = block(READ_REAL)
    case(g, "many-lt", "Two thousand `<` then a block", "<" * 2000, real, "\n")
    case(g, "open-wrapper-then-long-prose", "An open wrapper, a long run of whitespace, then prose",
         Failed("<tool_calls>" + " \n" * 3000), ("Some prose follows. " * 400) + "\n\n", real, "\n")
    storm = "".join("`" * (1 + (i * 7) % 5) + " x " for i in range(800))
    case(g, "backtick-storm", "Eight hundred backtick runs, then a block in a new paragraph",
         storm + "\n\n", real, "\n")
    case(g, "repeated-wrapper-opens", "Five hundred wrapper opens: each fails at the next, the last holds the block",
         *[Failed("<tool_calls>")] * 499, PING_BLOCK, "\n")
    case(g, "repeated-unclosed-invokes", "Three hundred unclosed invokes: the first call broke at "
         "the second, and its span runs to the end (SPEC 3.2)",
         Failed('<invoke name="x">' * 300 + " the end\n", at=len('<invoke name="x">')))
    case(g, "cdata-markers-in-prose", "CDATA and comment markers outside a block are text",
         "Raw: <![CDATA[ not a block ]]> and ]]> and <!-- a comment --> and <!-- unclosed\n")
    case(g, "partial-tag-storm", "Thousands of tag beginnings that never complete",
         "".join(("<tool_", "<｜DSML", "<｜", "</tool_calls", "<inv", "<!", "<![CDA", "<｜｜DSML｜")[i % 8] + " "
                 for i in range(2000)) + "\n")
    big = "x" * 60_000
    case(g, "huge-value", "A 60,000-character value", block(Call("write_file", (cdata("content", big),))), "\n")
    # Each inner `]]>` is followed by `<`, so it closes the section opened inside (SPEC 3).
    nested = "<![CDATA[" * 50 + "core" + "]]><br>" * 50
    case(g, "deeply-nested-cdata", "Fifty nested CDATA sections are one value",
         block(Call("w", (Param("v", f"<![CDATA[{nested}]]>", nested),))), "\n")
    case(g, "near-miss-storm", "A hundred tag names that run on", "<tool_calls_" * 100 + "\n")
    blocks: list[Segment | str] = []
    for i in range(300):
        blocks += [block(Call("tick", (number("i", i),)), compact=True), "\n"]
    case(g, "three-hundred-blocks", "Three hundred small blocks", *blocks)
    case(g, "long-line-then-block", "Fifty thousand characters with no `<`, then a block",
         "a" * 50_000, block(WEATHER, compact=True))
    case(g, "bar-storm", "Thousands of bars, then over-long prefixes", "｜" * 1000 + "<｜｜｜｜invoke name=\"x\"/> "
         + "|" * 1000 + "<|||DSML|||tool_calls>\n")
    case(g, "lt-runs-inside-value", "Runs of `<` inside a value",
         block(Call("w", (Param("v", "<<<<< <<</ <</para", "<<<<< <<</ <</para"),))), "\n")


# ---- schemas (typing and repair, SPEC 6) ---------------------------------------------------

def schemas() -> None:
    g = "schemas"

    def tool(name: str, properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": properties, "required": list(required)}}}

    read = tool("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"}}, ["path"])
    case(g, "valid-typed-by-schema", "With tools, an integer property is decoded and the call is valid",
         block(Call("read_file", (text("path", "README.md"), Param("limit", "200", 200)))), "\n",
         tools=[read], status={0: "valid"})
    note = tool("add_note", {"text": {"type": "string"}, "priority": {"type": "integer"}}, ["text"])
    case(g, "string-property-keeps-text", "A string-typed property keeps numeric-looking text",
         block(Call("add_note", (Param("text", "42", "42"), Param("priority", "1", 1)))), "\n",
         tools=[note], status={0: "valid"})
    flags = tool("configure", {"verbose": {"type": "boolean"}, "ids": {"type": "array", "items": {"type": "integer"}}})
    case(g, "boolean-and-array", "Boolean and array properties are decoded",
         block(Call("configure", (Param("verbose", "true", True), Param("ids", "[1, 2]", [1, 2])))), "\n",
         tools=[flags], status={0: "valid"})
    case(g, "unknown-tool-rejected", "A call to a tool not given is rejected, never dropped",
         block(Call("delete_everything", (text("scope", "all"),))), "\n",
         tools=[read], status={0: "rejected"})
    case(g, "missing-required-rejected", "A missing required value is never invented: rejected",
         block(Call("read_file", (Param("limit", "10", 10),))), "\n",
         tools=[read], status={0: "rejected"})
    optional = tool("search", {"q": {"type": "string"}, "lang": {"type": "string"}}, ["q"])
    case(g, "optional-null-dropped", "An optional null the schema rejects is dropped: repaired",
         block(Call("search", json_body='{"q": "cats", "lang": null}', json_value={"q": "cats"})), "\n",
         tools=[optional], status={0: "repaired"})


# ---- realistic answers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    slug: str
    language: str
    intro: str
    steps: tuple[str, str, str]
    real: tuple[Call, ...]
    example: Call
    follow_up: Call
    outro: str = ""


SCENARIOS = [
    Scenario("read-config", "en",
             "To see why the service fails on start, I need the settings it loads.",
             ("Read `config/settings.yaml`.", "Compare the port with the one in the logs.",
              "Suggest a fix."),
             (Call("read_file", (cdata("path", "config/settings.yaml"),)),),
             Call("read_file", (cdata("path", "path/to/file"),)),
             Call("read_file", (cdata("path", "logs/service.log"), number("limit", 100))),
             "I'll look at the port setting as soon as the file comes back."),
    Scenario("run-tests", "en",
             "Let's find out which tests fail before changing anything.",
             ("Run the test suite.", "Read the first failure.", "Fix the code it points to."),
             (Call("run_shell", (cdata("command", "python -m pytest -x -q"), number("timeout", 300))),),
             Call("run_shell", (cdata("command", "<your command>"),)),
             Call("run_shell", (cdata("command", "git diff --stat"),))),
    Scenario("web-search", "en",
             "I don't have reliable information about that release, so I'll search for it.",
             ("Search for the release notes.", "Open the official announcement.", "Summarise the changes."),
             (Call("web_search", (text("query", "Python 3.13 release notes free-threading"), number("max_results", 5))),),
             Call("web_search", (text("query", "your query here"),)),
             Call("fetch_url", (text("url", "https://docs.python.org/3.13/whatsnew/3.13.html"),)),
             "Once I have the results I'll give you a short summary."),
    Scenario("write-module", "en",
             "Here is the helper module you asked for; I'll write it to disk.",
             ("Create `utils/geometry.py`.", "Add the `area` function.", "Run a quick check."),
             (Call("write_file", (cdata("path", "utils/geometry.py"),
                                  cdata("content", 'import math\n\n\ndef area(radius: float) -> float:\n'
                                                   '    """The area of a circle."""\n    return math.pi * radius ** 2\n'))),),
             Call("write_file", (cdata("path", "file.py"), cdata("content", "..."))),
             Call("run_shell", (cdata("command", "python -c 'from utils.geometry import area; print(area(2))'"),))),
    Scenario("weather", "en",
             "Sure! Let me check the forecast for Lisbon.",
             ("Get tomorrow's forecast.", "Check the chance of rain.", "Recommend what to pack."),
             (Call("get_weather", (text("city", "Lisbon"), text("unit", "celsius"), text("day", "tomorrow"))),),
             Call("get_weather", (text("city", "CITY"),)),
             Call("get_weather", (text("city", "Porto"), text("unit", "celsius"))),
             "I'll tell you what to pack when the forecast arrives."),
    Scenario("sql", "en",
             "The report needs last month's orders above 100 euros, so I'll query the database.",
             ("Query the orders table.", "Group the totals by customer.", "Format a table."),
             (Call("sql_query", (cdata("query", "SELECT customer_id, SUM(total) AS spent\nFROM orders\n"
                                                "WHERE total > 100 AND created_at >= date('now', '-1 month')\n"
                                                "GROUP BY customer_id\nHAVING spent < 10000;"),
                                 text("database", "shop"))),),
             Call("sql_query", (cdata("query", "SELECT ..."),)),
             Call("sql_query", (cdata("query", "SELECT COUNT(*) FROM customers;"), text("database", "shop")))),
    Scenario("calendar", "en",
             "I'll put the design review on the calendar for Thursday.",
             ("Create the event.", "Invite the team.", "Send a reminder the day before."),
             (Call("create_event", (text("title", "Design review"), text("start", "2024-06-13T14:00:00+02:00"),
                                    number("duration_minutes", 45),
                                    json_value("attendees", ["ana@example.com", "li@example.com"]),
                                    json_value("video_call", True))),),
             Call("create_event", (text("title", "TITLE"), text("start", "ISO-8601 time"))),
             Call("set_reminder", (text("event", "Design review"), text("when", "1 day before")))),
    Scenario("email", "en",
             "I'll send the summary to Marta now.",
             ("Draft the e-mail.", "Attach the figures.", "Send it."),
             (Call("send_email", (text("to", "marta@example.com"), text("subject", "Q2 numbers & next steps"),
                                  block_text("body", "Hi Marta,\n\nRevenue is up 12% (Q1: 1.2M, Q2: 1.34M).\n"
                                                     "Costs < budget for the first time.\n\nBest,\nSam", "    "))),),
             Call("send_email", (text("to", "someone@example.com"), text("subject", "Subject"))),
             Call("send_email", (text("to", "team@example.com"), text("subject", "FYI: Q2 numbers")))),
    Scenario("edit-code", "en",
             "The bug is an off-by-one in the loop bound; I'll fix it in place.",
             ("Open `src/pager.py`.", "Change `range(n + 1)` to `range(n)`.", "Re-run the pager tests."),
             (Call("edit_file", (cdata("path", "src/pager.py"),
                                 cdata("old", "    for i in range(n + 1):\n        yield page(i)"),
                                 cdata("new", "    for i in range(n):\n        yield page(i)"))),),
             Call("edit_file", (cdata("path", "FILE"), cdata("old", "OLD"), cdata("new", "NEW"))),
             Call("run_shell", (cdata("command", "pytest tests/test_pager.py -q"),)),
             "That should stop the last page from repeating."),
    Scenario("list-dir", "en",
             "First I need to see how the project is laid out.",
             ("List the top-level directory.", "Find the entry point.", "Read it."),
             (Call("list_directory", (text("path", "."), json_value("recursive", False))),),
             Call("list_directory", (text("path", "DIR"),)),
             Call("read_file", (cdata("path", "pyproject.toml"),))),
    Scenario("fetch-url", "en",
             "I'll fetch the API page so I can quote the exact limits.",
             ("Fetch the rate-limit page.", "Find the per-minute limit.", "Compare it with your traffic."),
             (Call("fetch_url", (text("url", "https://api.example.com/docs/limits?section=rate&format=html"),)),),
             Call("fetch_url", (text("url", "https://example.com"),)),
             Call("fetch_url", (text("url", "https://status.example.com/history?days=7"),))),
    Scenario("python-exec", "en",
             "Let me compute that exactly rather than estimate it.",
             ("Write a short script.", "Run it.", "Report the number."),
             (Call("python", (block_text("code", "total = 0\nfor n in range(1, 1001):\n    if n % 3 == 0 or n % 5 == 0:\n"
                                                "        total += n\nprint(total)", "    "),)),),
             Call("python", (cdata("code", "print('hello')"),)),
             Call("python", (cdata("code", "print(sum(range(1001)))"),))),
    Scenario("git-commit", "en",
             "All tests pass, so I'll commit the change.",
             ("Stage the files.", "Commit with a clear message.", "Push the branch."),
             (Call("git_commit", (cdata("message", "Fix pager off-by-one\n\nThe last page was yielded twice when n\n"
                                                   "was a multiple of the page size."),
                                  json_value("files", ["src/pager.py", "tests/test_pager.py"]))),),
             Call("git_commit", (cdata("message", "MESSAGE"),)),
             Call("run_shell", (cdata("command", "git push origin HEAD"),))),
    Scenario("translate-zh", "zh",
             "好的，我先把这段说明翻译成英文。",
             ("翻译原文。", "检查术语是否一致。", "给出最终版本。"),
             (Call("translate", (text("text", "请在提交前运行所有测试。"), text("target", "en"))),),
             Call("translate", (text("text", "原文"), text("target", "目标语言"))),
             Call("translate", (text("text", "测试通过后再合并。"), text("target", "en"))),
             "翻译结果返回后，我会再检查一遍术语。"),
    Scenario("search-zh", "zh",
             "这个问题需要最新的数据，我来搜索一下。",
             ("搜索相关新闻。", "阅读最权威的来源。", "总结要点。"),
             (Call("web_search", (text("query", "2024年 中国 新能源汽车 销量"), number("max_results", 8))),),
             Call("web_search", (text("query", "关键词"),)),
             Call("fetch_url", (text("url", "https://example.cn/news/ev-2024"),))),
    Scenario("files-zh", "zh",
             "我需要先看看日志文件里的错误信息。",
             ("读取日志文件。", "找出第一条错误。", "分析原因。"),
             (Call("read_file", (cdata("path", "logs/错误.log"), number("limit", 50))),),
             Call("read_file", (cdata("path", "文件路径"),)),
             Call("run_shell", (cdata("command", "grep -n ERROR logs/错误.log | head"),)),
             "拿到日志后我会告诉你问题出在哪里。"),
    Scenario("compare-cities", "en",
             "I'll get both forecasts at once so we can compare the two cities.",
             ("Get the Madrid forecast.", "Get the Rome forecast.", "Compare temperatures and rain."),
             (Call("get_weather", (text("city", "Madrid"), text("unit", "celsius"))),
              Call("get_weather", (text("city", "Rome"), text("unit", "celsius")))),
             Call("get_weather", (text("city", "CITY"),)),
             Call("get_weather", (text("city", "Athens"), text("unit", "celsius"))),
             "Then I'll tell you which city looks better for the weekend."),
    Scenario("container-logs", "en",
             "The container keeps restarting; its last log lines should say why.",
             ("Fetch the last 50 log lines.", "Look for the exit reason.", "Check the memory limit."),
             (Call("run_shell", (cdata("command", "docker logs --tail 50 api-server 2>&1"),)),),
             Call("run_shell", (cdata("command", "docker logs <container>"),)),
             Call("run_shell", (cdata("command", "docker inspect --format '{{.HostConfig.Memory}}' api-server"),))),
    Scenario("issue-json", "en",
             "I'll file the bug with the details we collected.",
             ("Create the issue.", "Label it.", "Link the failing test."),
             (Call("create_issue", json_body='{"title": "Pager repeats the last page", "labels": ["bug"], "priority": 2}',
                   json_value={"title": "Pager repeats the last page", "labels": ["bug"], "priority": 2}),),
             Call("create_issue", json_body='{"title": "..."}', json_value={"title": "..."}),
             Call("add_comment", (text("issue", "#142"), text("body", "Failing test: tests/test_pager.py::test_last_page")))),
    Scenario("docs-lookup", "en",
             "Let me check what the documentation says about ownership in C++ & Rust.",
             ("Search the docs.", "Read the best match.", "Explain the difference."),
             (Call("search_docs", (text("query", "C++ & Rust: unique_ptr<T> vs Box<T>"), text("scope", "language-guides"))),),
             Call("search_docs", (text("query", "QUERY"),)),
             Call("read_doc", (text("id", "rust-book/ch15-01-box"),)),
             "I'll explain the difference once I've read the relevant pages."),
]

PHRASES = {
    "en": {
        "format": "The call format looks like this:",
        "inline": "A call is wrapped in {wrapper} and each tool is named with {invoke}.",
        "now": "That was only an example. Now the real call:",
        "call": "Here is the call:",
        "plan": "Here's the plan:",
        "start": "Starting with step 1:",
        "after": "For reference, the general shape of such a call is:",
        "first": "First call:",
        "then": "Once that is done, the follow-up:",
        "quote": "Format reference:",
        "attempt": "my call",
        "retry": "Sorry, that call was malformed. Let me try again:",
        "mention": "I'll wrap the call in {wrapper} as usual.",
    },
    "zh": {
        "format": "调用格式如下：",
        "inline": "调用需要用 {wrapper} 包裹，并用 {invoke} 指定工具。",
        "now": "上面只是示例。现在正式调用：",
        "call": "现在调用：",
        "plan": "计划如下：",
        "start": "先执行第一步：",
        "after": "供参考，这类调用的一般形式是：",
        "first": "第一步调用：",
        "then": "完成之后，再执行：",
        "quote": "格式参考：",
        "attempt": "调用工具",
        "retry": "抱歉，上面的调用格式不对。我重新调用：",
        "mention": "我会像往常一样用 {wrapper} 包裹调用。",
    },
}

RECIPES: list[tuple[str, str, str, bool, bool]] = [
    # (template, where the example is, spelling, compact real block, CRLF)
    ("explain", "fence", "canonical", False, False),
    ("steps", "list-fence", "canonical", False, False),
    ("explain", "inline", "dsml", False, False),
    ("call-first", "tilde-fence", "canonical", False, False),
    ("explain", "indented", "dsml-ascii", False, False),
    ("steps", "none", "dsml", False, False),
    ("explain", "quote-fence", "canonical", True, False),
    ("two-blocks", "fence", "canonical", False, False),
    ("explain", "nested-fence", "dsml-function-calls", False, False),
    ("explain", "fence", "canonical", False, True),
    ("steps", "inline", "canonical", True, False),
    ("two-blocks", "tilde-fence", "dsml", False, True),
    ("retry", "none", "canonical", False, False),
    ("mention", "none", "dsml", False, False),
    ("explain", "fence", "dsml-ascii", True, False),
    ("steps", "tilde-fence", "canonical", False, True),
]

SPELLINGS = {"canonical": CANONICAL, "dsml": DSML_FULL, "dsml-ascii": DSML_ASCII,
             "dsml-function-calls": dsml("｜", "function_calls")}


VARIANTS_PER_SCENARIO = 6


def realistic() -> None:
    for i, scenario in enumerate(SCENARIOS):
        for j in range(VARIANTS_PER_SCENARIO):
            recipe = RECIPES[(i * VARIANTS_PER_SCENARIO + j + i // 3) % len(RECIPES)]
            name, description, segments = compose(scenario, *recipe)
            case("realistic", name, description, *segments)


def compose(s: Scenario, template: str, where: str, spelling_name: str, compact: bool,
            use_crlf: bool) -> tuple[str, str, list[Segment | str]]:
    """One answer as a model writes it: prose, maybe an example of the format (in code,
    so text), and the real call(s)."""
    words = PHRASES[s.language]
    spelling = SPELLINGS[spelling_name]
    nl = "\r\n" if use_crlf else "\n"
    real = block(*s.real, spelling=spelling, compact=compact, nl=nl)
    ex = block(s.example, spelling=spelling).raw
    wrapper = f"`<{spelling.wrapper_open}>`"
    invoke_tag = f'`<{spelling.invoke} name="{s.example.name}">`'

    def shown(lead: str) -> list[Segment | str]:
        """The example, introduced by `lead`, as its own paragraph(s)."""
        if where == "inline":
            head, tail = words["inline"].split("{wrapper}")
            middle, end = tail.split("{invoke}")
            return [head, Code(wrapper), middle, Code(invoke_tag), end + "\n\n"]
        if where == "none":
            return []
        if where == "quote-fence":
            return [f"> {words['quote']}\n>\n", Code(f"> ```xml\n{indent(ex, '> ')}\n> ```"), "\n\n"]
        fenced = {
            "fence": f"```xml\n{ex}\n```",
            "list-fence": f"```xml\n{ex}\n```",
            "tilde-fence": f"~~~xml\n{ex}\n~~~",
            "indented": indent(ex, "    "),
            "nested-fence": f"````markdown\n```xml\n{ex}\n```\n````",
        }[where]
        return [lead + "\n\n", Code(fenced), "\n\n"]

    outro: list[Segment | str] = ["\n\n" + s.outro + "\n"] if s.outro else ["\n"]
    segments: list[Segment | str]
    if template == "explain":
        transition = words["call"] if where in ("inline", "none") else words["now"]
        segments = [s.intro + "\n\n", *shown(words["format"]), transition + "\n\n", real, *outro]
    elif template == "steps":
        steps = [f"{n}. {step}" for n, step in enumerate(s.steps, 1)]
        if where == "list-fence":
            plan: list[Segment | str] = [
                f"{s.intro}\n\n{words['plan']}\n\n{steps[0]} {words['format']}\n\n",
                Code(indent(f"```xml\n{ex}\n```", "   ")), "\n\n" + "\n".join(steps[1:]) + "\n\n"]
        else:
            plan = [f"{s.intro}\n\n{words['plan']}\n\n" + "\n".join(steps) + "\n\n", *shown(words["format"])]
        segments = [*plan, words["start"] + "\n\n", real, *outro]
    elif template == "call-first":
        segments = [s.intro + "\n\n", real, "\n\n", *shown(words["after"]),
                    (s.outro or words["then"].rstrip(":：")) + "\n"]
    elif template == "retry":
        # The attempt is a prose mention: the wrapper fails at its first word.
        attempt = f"{words['attempt']} {s.real[0].name}\n</{spelling.wrapper_close}>"
        segments = [s.intro + "\n\n", Failed(f"<{spelling.wrapper_open}>\n"), attempt + "\n\n",
                    words["retry"] + "\n\n", real, *outro]
    elif template == "mention":
        before, after = words["mention"].split("{wrapper}")
        segments = [s.intro + " " + before, Failed(f"<{spelling.wrapper_open}> "),
                    after.lstrip(" ") + "\n\n", real, *outro]
    else:  # two-blocks
        follow = block(s.follow_up, spelling=spelling, compact=compact, nl=nl)
        segments = [s.intro + "\n\n", *shown(words["format"]), words["first"] + "\n\n", real,
                    "\n\n" + words["then"] + "\n\n", follow, "\n"]
    if use_crlf:
        segments = list(crlf(*segments))
    parts = [template, where, spelling_name] + (["compact"] if compact else []) + (["crlf"] if use_crlf else [])
    description = (f"A realistic {'Chinese ' if s.language == 'zh' else ''}answer ({s.slug}): "
                   f"{template}, example: {where}, {spelling_name} tags"
                   + (", compact block" if compact else "") + (", CRLF" if use_crlf else ""))
    return f"{s.slug}-{'-'.join(parts)}", description, segments


# ==== the other bundled dialects (SPEC 5.2, docs/dialects.md) ===================================
#
# One group per dialect, named after it. A block is written here as the dialect writes
# it, next to the calls it means: `Arg` values are (as written, as meant) when the two
# differ. Without tools every dialect but deepseek reads values as strings (typing=schema)
# or as the JSON says (typing=json).

Arg = Any
"""A value: the string it is written as and means, or (written, meant)."""


def _written(value: Arg) -> str:
    return value[0] if isinstance(value, tuple) else value


def _meant(value: Arg) -> Any:
    return value[1] if isinstance(value, tuple) else value


def _call(name: str, args: dict[str, Arg]) -> Call:
    return Call(name, tuple(Param(k, _written(v), _meant(v)) for k, v in args.items()))


def qwen_block(*calls: tuple[str, dict[str, Arg]], wrapper: str | None = "tool_call") -> Block:
    """Qwen3-Coder's template layout: every tag and value on its own line."""
    body = "\n".join(f"<function={name}>\n" + "".join(
        f"<parameter={k}>\n{_written(v)}\n</parameter>\n" for k, v in args.items()) + "</function>"
        for name, args in calls)
    raw = body if wrapper is None else f"<{wrapper}>\n{body}\n</{wrapper}>"
    return Block(raw, tuple(_call(n, a) for n, a in calls))


def xml_block(wrapper: str, *calls: tuple[str, dict[str, Arg]]) -> Block:
    """MiniMax-M2's and the Anthropic-style layout: a tag per line, values inline."""
    body = "\n".join(f'<invoke name="{name}">\n' + "".join(
        f'<parameter name="{k}">{_written(v)}</parameter>\n' for k, v in args.items()) + "</invoke>"
        for name, args in calls)
    return Block(f"<{wrapper}>\n{body}\n</{wrapper}>", tuple(_call(n, a) for n, a in calls))


def glm_block(name: str, args: dict[str, Arg], *, one_line: bool = False) -> Block:
    """GLM-4.5's layout (a line per tag), or GLM-4.7's (`one_line`: no newlines)."""
    nl = "" if one_line else "\n"
    pairs = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{_written(v)}</arg_value>{nl}"
                    for k, v in args.items())
    return Block(f"<tool_call>{name}{nl}{pairs}</tool_call>", (_call(name, args),))


def hermes_block(body: str, name: str, arguments: dict[str, Any]) -> Block:
    return Block(f"<tool_call>\n{body}\n</tool_call>",
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def hermes_call(name: str, arguments: dict[str, Any]) -> Block:
    return hermes_block(json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False),
                        name, arguments)


KIMI_BEGIN, KIMI_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def kimi_calls(*calls: tuple[str, str, dict[str, Any]], section: bool = True) -> Block:
    """Kimi-K2's sections: each call (name, arguments as written, as meant)."""
    body = "\n".join(f"<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>"
                     f"{written}<|tool_call_end|>" for i, (name, written, _) in enumerate(calls))
    raw = f"{KIMI_BEGIN}\n{body}\n{KIMI_END}" if section else f"{body}\n{KIMI_END}"
    return Block(raw, tuple(Call(n, json_body=w, json_value=m) for n, w, m in calls))


def _tool(name: str, properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties, "required": list(required)}}}


READ_TOOL = _tool("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"},
                                "follow": {"type": "boolean"}}, ["path"])
MARKDOWN_VALUE = ("## Usage\n\n```python\nif a < b:\n    print(\"<done>\")\n```\n\n"
                  "- **bold** and `code` <br/>")
PROSE_INTRO = "Let me read the file first.\n\n"


def _common(g: str, dialect: str, *, truncated: Failed, broken: list[Segment | str],
            markdown: Block, typed: Block) -> None:
    """The group cases every dialect has (its answers in prose, with examples in code and
    several calls, are in `realistic`): a truncated call, a broken one, a value holding
    Markdown and `<`, typing with tools."""
    def c(name: str, description: str, *segments: Segment | str, **kw: Any) -> None:
        case(g, name, description, *segments, dialect=dialect, **kw)

    c("truncated", "A call cut off by the end of the stream fails with reason truncated "
      "(SPEC 3.2)", PROSE_INTRO, truncated)
    c("broken-call", "A call that does not parse is one failed span, released as its exact "
      "text; none of it runs (SPEC 3.2, G4)", *broken)
    c("value-with-markdown-and-lt", "A value holding Markdown, a fence and `<` comes through "
      "whole: inside a block nothing is Markdown (SPEC G3a)", "Writing the README:\n\n",
      markdown, "\n")
    c("typed-by-schema", "With tools, values are typed by the tool's schema and checked",
      typed, "\n", tools=[READ_TOOL], status={0: "valid"})


def qwen3_coder() -> None:
    g = d = "qwen3_coder"
    real = qwen_block(("read_file", {"path": "README.md"}))
    run = ("run_command", {"command": "pytest -q"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ("<tool_call>\n<function=run_command>\n<parameter=command>\nmake\n</parameter>\n"
              "oops\n</function>\n<function=run_command>\n<parameter=command>\nrm -rf build\n"
              "</parameter>\n</function>\n</tool_call>")
    _common(g, d, truncated=Failed(cut, "truncated"),
            broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
            markdown=qwen_block(("write_file", {"path": "README.md", "content": MARKDOWN_VALUE})),
            typed=qwen_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                            "follow": ("true", True)})))
    case(g, "missing-parameter-close", "A value whose </parameter> is missing ends at the next "
         "<parameter= or at </function> (leniency, SPEC 5.2)",
         Block("<tool_call>\n<function=edit>\n<parameter=path>\na.py\n<parameter=line>\n3\n"
               "</function>\n</tool_call>", (_call("edit", {"path": "a.py", "line": "3"}),)),
         "\n", dialect=d)
    case(g, "bare-function", "A <function=...> with no wrapper is a block of its own "
         "(leniency, SPEC 5.2)", "Sure:\n", qwen_block(run, wrapper=None), "\n",
         qwen_block(("read_file", {"path": "log.txt"}), wrapper=None), "\n", dialect=d)
    case(g, "seed-oss", "Seed-OSS writes the same calls in <seed:tool_call> (SPEC 5.2)",
         qwen_block(run, wrapper="seed:tool_call"), "\n", dialect=d)
    case(g, "template-newlines", "One leading and one trailing newline are the template's; "
         "more are the value's", Block("<tool_call>\n<function=write_file>\n<parameter=content>"
                                        "\n\n  indented\n\n</parameter>\n</function>\n</tool_call>",
                                        (_call("write_file", {"content": "\n  indented\n"}),)),
         "\n", dialect=d)


def _xml_dialect(g: str, wrapper: str) -> None:
    d = g
    real = xml_block(wrapper, ("read_file", {"path": "README.md"}))
    run = ("run_command", {"command": "pytest -q"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f'<{wrapper}>\n<invoke name="run_command">\n<parameter name="command">make'
              '</parameter>\noops\n</invoke>\n<invoke name="run_command">\n'
              f'<parameter name="command">rm -rf build</parameter>\n</invoke>\n</{wrapper}>')
    _common(g, d, truncated=Failed(cut, "truncated"),
            broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
            markdown=xml_block(wrapper, ("write_file", {"path": "README.md",
                                                        "content": MARKDOWN_VALUE})),
            typed=xml_block(wrapper, ("read_file", {"path": "a.py", "limit": ("20", 20),
                                                    "follow": ("true", True)})))
    case(g, "values-as-written", "Values are as written: entities stay, a one-line value is "
         "trimmed, a multi-line one keeps its indentation",
         xml_block(wrapper, ("write_file", {"path": (" a.html ", "a.html"),
                                            "content": "  <p>&amp; a < b</p>\n  done"})),
         "\n", dialect=d)
    case(g, "no-missing-wrapper", "An invoke without the wrapper is text: this dialect has no "
         "missing-wrapper form", '<invoke name="run_command"><parameter name="command">ls'
         f"</parameter></invoke>\n</{wrapper}>\n", dialect=d)


def minimax_m2() -> None:
    _xml_dialect("minimax_m2", "minimax:tool_call")


def anthropic() -> None:
    _xml_dialect("anthropic", "function_calls")


def glm45() -> None:
    g = d = "glm45"
    real = glm_block("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ("<tool_call>run_command\n<arg_key>command</arg_key>\n<arg_value>make</arg_value>\n"
              "oops\n</tool_call>")
    _common(g, d, truncated=Failed(cut, "truncated"),
            broken=["Running it.\n", Failed(broken, at="oops"), "\n",
                    glm_block("run_command", {"command": "ls"}), "\n"],
            markdown=glm_block("write_file", {"path": "README.md", "content": MARKDOWN_VALUE}),
            typed=glm_block("read_file", {"path": "a.py", "limit": ("20", 20),
                                          "follow": ("true", True)}))
    case(g, "glm47-one-line", "GLM-4.7 writes the same call without newlines (SPEC 5.2)",
         glm_block("read_file", {"path": "README.md", "limit": "20"}, one_line=True), "\n",
         dialect=d)
    case(g, "no-arguments", "A call with no arguments, in both layouts",
         glm_block("list_files", {}), "\n", glm_block("list_files", {}, one_line=True), "\n",
         dialect=d)
    case(g, "value-as-written", "A value is exactly the text between <arg_value> and "
         "</arg_value>: the indentation and spaces of code sent to an edit tool stay (SPEC 5.2)",
         glm_block("edit_file", {"old": "    return x  ", "new": "\n        return y\n"}), "\n",
         dialect=d)
    edit = {"type": "function", "function": {"name": "edit_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "note": {"type": ["string", "null"]},
                                         "title": {"anyOf": [{"type": "string"},
                                                             {"type": "null"}]},
                                         "tag": {"type": "string"}}}}}
    case(g, "null-for-nullable", "With tools, the exact text null is null for a property that "
         "admits null, and stays the string for one that admits only strings (SPEC 6)",
         glm_block("edit_file", {"path": "a.py", "note": ("null", None), "title": ("null", None),
                                 "tag": "null"}), "\n",
         dialect=d, tools=[edit], status={0: "valid"})


def hermes() -> None:
    g = d = "hermes"
    real = hermes_call("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = '<tool_call>\n{"name": "run_command", "arguments": {"command": "make"}} oops\n</tool_call>'
    _common(g, d, truncated=Failed(cut, "truncated"),
            broken=["Running it.\n", Failed(broken, "invalid_call", at="</tool_call>"), "\n",
                    hermes_call("run_command", {"command": "ls"}), "\n"],
            markdown=hermes_call("write_file", {"path": "README.md", "content": MARKDOWN_VALUE}),
            typed=hermes_call("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    case(g, "reversed-keys", "The arguments before the name (leniency, SPEC 5.2)",
         hermes_block('{"arguments": {"path": "a.py"}, "name": "read_file"}', "read_file",
                      {"path": "a.py"}), "\n", dialect=d)
    case(g, "parameters-member", "\"parameters\" instead of \"arguments\" (SPEC 5.2)",
         hermes_block('{"name": "read_file", "parameters": {"path": "a.py"}}', "read_file",
                      {"path": "a.py"}), "\n", dialect=d)
    case(g, "arguments-as-a-string", "The arguments as a JSON text in a string, as OpenAI "
         "writes them", hermes_block('{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}',
                                     "read_file", {"path": "a.py"}), "\n", dialect=d)


def kimi_k2() -> None:
    g = d = "kimi_k2"
    real = kimi_calls(("read_file", '{"path": "README.md"}', {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{KIMI_BEGIN}\n<|tool_call_begin|>functions.run_command:0"
              '<|tool_call_argument_begin|>{"command": "make"}<|tool_call_end|>\noops\n'
              "<|tool_call_begin|>functions.run_command:1<|tool_call_argument_begin|>"
              f'{{"command": "rm -rf build"}}<|tool_call_end|>\n{KIMI_END}')
    _common(g, d, truncated=Failed(cut, "truncated"),
            broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
            markdown=kimi_calls(("write_file", json.dumps({"content": MARKDOWN_VALUE}),
                                 {"content": MARKDOWN_VALUE})),
            typed=kimi_calls(("read_file", '{"path": "a.py", "limit": 20, "follow": true}',
                              {"path": "a.py", "limit": 20, "follow": True})))
    case(g, "missing-section-begin", "Calls followed by a section end, without the section "
         "begin: a block from the first call (leniency, SPEC 5.2)", "Calling:\n",
         kimi_calls(("read_file", '{"path": "a.py"}', {"path": "a.py"}), section=False), "\n",
         dialect=d)
    case(g, "no-section-end", "Calls with no section end after them are text (a failure: "
         "the calls broke at the prose)", "Calling:\n",
         Failed('<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>'
                '{"path": "a.py"}<|tool_call_end|>\nand that is all.\n', at="and"),
         dialect=d)
    case(g, "arguments-not-json", "Arguments that are not JSON reject their call, never the "
         "block (SPEC 3.1): the block is not accepted",
         kimi_calls(("run_command", '{"command": "make",}', {})), "\n", dialect=d,
         status={0: "rejected"})



# ---- realistic answers in the other dialects -----------------------------------------------
#
# The scenarios of `realistic`, written in each dialect: its own markup for the example
# and the real calls, and the same prose. Values are meant as each dialect reads them
# without tools: strings for typing=schema (a number is its text), the JSON's values for
# typing=json.

DIALECT_MENTIONS = {
    # dialect: (the opening tag a model names in prose, the call's tag in inline code)
    "qwen3_coder": ("<tool_call>", "<function={name}>"),
    "minimax_m2": ("<minimax:tool_call>", '<invoke name="{name}">'),
    "anthropic": ("<function_calls>", '<invoke name="{name}">'),
    "glm45": ("<tool_call>", "<tool_call>{name}"),
    "hermes": ("<tool_call>", "</tool_call>"),
    "kimi_k2": ("<|tool_calls_section_begin|>", "<|tool_call_begin|>functions.{name}:0"),
}

DIALECT_RECIPES: list[tuple[str, str, bool]] = [
    # (template, where the example is, CRLF)
    ("explain", "fence", False), ("steps", "list-fence", False), ("explain", "inline", False),
    ("call-first", "tilde-fence", False), ("two-blocks", "indented", True),
    ("mention", "none", False),
]


def _scenario_args(call: Call) -> dict[str, Any]:
    if call.json_value is not None:
        return dict(call.json_value)
    return {p.name: p.value for p in call.params}


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def dialect_blocks(dialect: str, calls: Sequence[Call], nl: str = "\n") -> list[Segment | str]:
    """`calls` written in `dialect`: one block, or one block per call (GLM, Hermes)."""
    named = [(c.name, _scenario_args(c)) for c in calls]
    if dialect == "hermes":
        blocks = [hermes_call(n, a) for n, a in named]
    elif dialect == "kimi_k2":
        blocks = [kimi_calls(*((n, json.dumps(a, ensure_ascii=False), a) for n, a in named))]
    else:
        # typing=schema: each value is its text; with value_edges=trim a multi-line value
        # sits on lines of its own (the layout's newlines go, the value's stay); GLM's
        # template writes every value bare (value_edges=none), and Qwen's newlines are
        # the template's own (qwen_block).
        def arg(value: Any) -> tuple[str, str]:
            # Written with LF (the whole block turns CRLF below); meant as it then reads.
            text_ = _as_text(value)
            edges = "\n" in text_ and dialect not in ("qwen3_coder", "glm45")
            return ("\n" + text_ + "\n" if edges else text_), text_.replace("\n", nl)
        args = [(n, {k: arg(v) for k, v in a.items()}) for n, a in named]
        if dialect == "qwen3_coder":
            blocks = [qwen_block(*args)]
        elif dialect == "glm45":
            blocks = [glm_block(n, a) for n, a in args]
        else:
            blocks = [xml_block(XML_WRAPPERS[dialect], *args)]
    if nl != "\n":
        blocks = [replace(b, raw=b.raw.replace("\n", nl)) for b in blocks]
    out: list[Segment | str] = []
    for b in blocks:
        out += [nl, b] if out else [b]
    return out


XML_WRAPPERS = {"minimax_m2": "minimax:tool_call", "anthropic": "function_calls"}


def _shown(dialect: str, s: Scenario, where: str, lead: str) -> list[Segment | str]:
    """The example call of scenario `s`, in code, introduced by `lead`."""
    words = PHRASES[s.language]
    ex = "\n".join(b.raw if isinstance(b, Block) else b
                   for b in dialect_blocks(dialect, (s.example,)) if isinstance(b, Block))
    if where == "inline":
        wrapper, call_tag = DIALECT_MENTIONS[dialect]
        head, tail = words["inline"].split("{wrapper}")
        middle, end = tail.split("{invoke}")
        return [head, Code(f"`{wrapper}`"), middle, Code(f"`{call_tag.format(name=s.example.name)}`"),
                end + "\n\n"]
    if where == "none":
        return []
    if where == "quote-fence":
        return [f"> {words['quote']}\n>\n", Code(f"> ```\n{indent(ex, '> ')}\n> ```"), "\n\n"]
    fenced = {"fence": f"```\n{ex}\n```", "list-fence": f"```\n{ex}\n```",
              "tilde-fence": f"~~~\n{ex}\n~~~", "indented": indent(ex, "    ")}[where]
    return [lead + "\n\n", Code(fenced), "\n\n"]


def compose_dialect(dialect: str, s: Scenario, template: str, where: str,
                    use_crlf: bool) -> tuple[str, str, list[Segment | str]]:
    """One answer of scenario `s` in `dialect`, as `compose` writes a deepseek one."""
    words = PHRASES[s.language]
    nl = "\r\n" if use_crlf else "\n"
    real = dialect_blocks(dialect, s.real, nl)
    outro: list[Segment | str] = ["\n\n" + s.outro + "\n"] if s.outro else ["\n"]
    shown = _shown(dialect, s, where, words["format"])
    if template == "explain":
        transition = words["call"] if where in ("inline", "none") else words["now"]
        segments: list[Segment | str] = [s.intro + "\n\n", *shown, transition + "\n\n", *real, *outro]
    elif template == "steps":
        steps = [f"{n}. {step}" for n, step in enumerate(s.steps, 1)]
        ex = "\n".join(b.raw for b in dialect_blocks(dialect, (s.example,)) if isinstance(b, Block))
        segments = [f"{s.intro}\n\n{words['plan']}\n\n{steps[0]} {words['format']}\n\n",
                    Code(indent(f"```\n{ex}\n```", "   ")), "\n\n" + "\n".join(steps[1:]) + "\n\n",
                    words["start"] + "\n\n", *real, *outro]
    elif template == "call-first":
        segments = [s.intro + "\n\n", *real, "\n\n", *_shown(dialect, s, where, words["after"]),
                    (s.outro or words["then"].rstrip(":：")) + "\n"]
    elif template == "mention":
        before, after = words["mention"].split("{wrapper}")
        segments = [s.intro + " " + before, Failed(DIALECT_MENTIONS[dialect][0] + " "),
                    after.lstrip(" ") + "\n\n", *real, *outro]
    else:  # two-blocks
        segments = [s.intro + "\n\n", *shown, words["first"] + "\n\n", *real,
                    "\n\n" + words["then"] + "\n\n", *dialect_blocks(dialect, (s.follow_up,), nl), "\n"]
    if use_crlf:
        segments = list(crlf(*segments))
    description = (f"A realistic {'Chinese ' if s.language == 'zh' else ''}answer in {dialect} "
                   f"markup ({s.slug}): {template}, example: {where}" + (", CRLF" if use_crlf else ""))
    name = "-".join([dialect, s.slug, template, where] + (["crlf"] if use_crlf else []))
    return name, description, segments


def realistic_dialects() -> None:
    for k, dialect in enumerate(DIALECT_MENTIONS):
        for j, recipe in enumerate(DIALECT_RECIPES):
            scenario = SCENARIOS[(k * 5 + j * 3) % len(SCENARIOS)]
            name, description, segments = compose_dialect(dialect, scenario, *recipe)
            case("realistic", name, description, *segments, dialect=dialect)


def auto() -> None:
    """`dialect="auto"` (SPEC 5.2): every bundled grammar at once, per block."""
    g = d = "auto"
    case(g, "one-answer-every-dialect", "One answer calling in every dialect: each block "
         "is read by the grammar that opens it, and the three that open <tool_call> are "
         "told apart by the tag after it",
         "Reading it.\n",
         block(READ_REAL), "\n",
         qwen_block(("read_file", {"path": "a.py"})), "\n",
         glm_block("read_file", {"path": "b.py"}), "\n",
         hermes_call("read_file", {"path": "c.py"}), "\n",
         kimi_calls(("read_file", '{"path": "d.py"}', {"path": "d.py"})), "\n",
         xml_block("minimax:tool_call", ("read_file", {"path": "e.py"})), "\n",
         xml_block("function_calls", ("read_file", {"path": "f.py"})), "\nDone.\n",
         dialect=d)
    case(g, "examples-in-code", "Examples in code are text in every dialect; the real "
         "call after them runs",
         "Qwen writes `<tool_call><function=f></function></tool_call>`, Hermes:\n\n"
         "```\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n```\n\n",
         glm_block("list_files", {}), "\n", dialect=d)
    case(g, "broken-shared-tag", "A <tool_call> block every grammar refuses fails as the "
         "one that read furthest (Hermes, at the stray text); none of it runs",
         "Running it.\n",
         Failed('<tool_call>\n{"name": "run_command", "arguments": {"command": "make"}} oops\n'
                "</tool_call>", "invalid_call", at="</tool_call>"),
         "\n", hermes_call("run_command", {"command": "ls"}), "\n", dialect=d)
    case(g, "truncated-shared-tag", "A <tool_call> block cut off by the end of the stream "
         "fails with reason truncated, whichever grammar was reading it",
         PROSE_INTRO, Failed("<tool_call>\n<function=read_file>\n<parameter=path>\nREA",
                             "truncated"), dialect=d)


# ---- reasoning regions (SPEC 11, G3b) ----------------------------------------------------------
#
# Every dialect with a default reasoning format, and every bundled format: a call quoted
# while the model thinks is reasoning, never a call; the real call after the region is one.
# The markers are read from the grammar files, through toolparse, never spelled here.

def _markers(fmt: str) -> tuple[str, str]:
    import toolparse

    spelled = toolparse.ReasoningFormat.bundled(fmt)
    return spelled.spelled("OPEN"), spelled.spelled("CLOSE")


def _thinking(fmt: str, body: str, *, opened: bool = True, closed: bool = True) -> Thinking:
    opener, closer = _markers(fmt)
    return Thinking(body, (opener if opened else "") + body + (closer if closed else ""))


def _real_block(dialect: str, call: Call) -> Block:
    if dialect == "deepseek":
        return block(call)
    (real,) = [b for b in dialect_blocks(dialect, (call,)) if isinstance(b, Block)]
    return real


REASONING_DIALECTS = ("deepseek", "qwen3_coder", "minimax_m2", "glm45", "hermes", "kimi_k2")


def reasoning() -> None:
    g = "reasoning"
    shell = Call("run_shell", (text("command", "rm -rf build"),))
    for d in REASONING_DIALECTS:
        # Kimi's section opener ends a region (SPEC G3b): the model quotes a call alone.
        quoted = (kimi_calls(("run_shell", '{"command": "rm -rf build"}', {}), section=False).raw
                  if d == "kimi_k2" else _real_block(d, shell).raw)
        real = _real_block(d, WEATHER)
        case(g, f"{d}-quoted-call-then-real-call",
             "A call quoted while thinking is reasoning, never a call (SPEC G3b); the real "
             "call after the region is one",
             _thinking("think", f"The format is {quoted}, but first I should ask.\n"),
             "\n\nI'll check the weather.\n", real, "\n", dialect=d)
        case(g, f"{d}-in-reasoning", "The prompt opened the region (in_reasoning): the "
             "stream starts inside it, with no opener",
             _thinking("think", f"Plan: {quoted}\n", opened=False), "\nChecking.\n", real,
             "\n", dialect=d, in_reasoning=True)
        case(g, f"{d}-never-closed", "A region that never closes is reasoning to the end, "
             "not a failure: nothing in it runs",
             _thinking("think", f"Maybe {quoted} or", closed=False), dialect=d)
    opener, closer = _markers("think")
    case(g, "mid-answer-marker", "A marker anywhere but the start is text: the call after "
         "it is a call", f"Wrap your thoughts in {opener} and {closer} tags.\n\n",
         block(WEATHER), "\n")
    case(g, "stray-closer", "A closer with no opener is text, unless the stream started "
         "inside a region", f"Done thinking{closer} here it is.\n", block(WEATHER), "\n")
    case(g, "fence-in-thinking", "A fence opened while thinking opens no code after the "
         "region: the answer is a fresh Markdown document",
         _thinking("think", "```python\nprint('unclosed')\n"), "\n", block(WEATHER), "\n")
    case(g, "nested-openers", "Nested openers: the first closer ends the region",
         _thinking("think", f"a {opener} b"), f" c{closer}\n", block(WEATHER), "\n")
    case(g, "whitespace-before-opener", "Whitespace before the opener is text, out at once, "
         "but not Markdown: four spaces before the region make no indented code after it",
         "    \n", _thinking("think", "x"), "\n", block(WEATHER), "\n")
    section = kimi_calls(("get_weather", '{"city": "Berlin"}', {"city": "Berlin"}))
    case(g, "kimi-section-inside-thinking", "Kimi-K2.5 opens its tool section before it "
         "closes its thinking: the section ends the region and is a call (SPEC G3b)",
         _thinking("think", "I will call it.", closed=False), section, "\n",
         dialect="kimi_k2")
    for fmt in ("seed_think", "mistral_think", "mm_think", "kimi_think", "command",
                "apertus", "gemma4"):
        quoted = block(SHELL).raw
        case(g, f"format-{fmt}", f"The {fmt} format's region: a quoted call is reasoning, "
             "the real call after it runs",
             _thinking(fmt, f"Let me not run {quoted} yet.\n"), "\n", block(WEATHER), "\n",
             reasoning=fmt)


if __name__ == "__main__":
    sys.exit(main())


