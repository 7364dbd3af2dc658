"""kimi_k3: Kimi K3's XTML messages; a tools message holds typed `call`s (SPEC 5.3, 11).

A call is `<|open|>call tool="N" index="I"<|sep|>`, its arguments
`<|open|>argument key="K" type="T"<|sep|>value<|close|>argument<|sep|>`, and
`<|close|>call<|sep|>`; the calls stand in `<|open|>tools<|sep|>` ... `<|close|>tools<|sep|>`.
A `string` value is written raw; any other is its JSON. The answer's text is a response
message, the thinking a think message, and `<|close|>message<|sep|>` ends the turn: all
framing, never content.
"""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, PROSE_INTRO, READ_TOOL, common_cases, tool
from writers.segments import Block, Call, Code, Failed, Framing, Param, Segment, Thinking

D = "kimi_k3"
O, C, S = "<|open|>", "<|close|>", "<|sep|>"
TOOLS_OPEN, TOOLS_CLOSE = f"{O}tools{S}", f"{C}tools{S}"
RESPONSE_OPEN, RESPONSE_CLOSE = f"{O}response{S}", f"{C}response{S}"
THINK_OPEN, THINK_CLOSE = f"{O}think{S}", f"{C}think{S}"
MESSAGE_CLOSE = f"{C}message{S}"
_TYPES = {bool: "boolean", int: "integer", float: "number", dict: "object", list: "array",
          type(None): "null"}


def attr(text: str) -> str:
    """An attribute value as the template escapes it."""
    return text.replace("&", "&amp;").replace('"', "&quot;")


def argument(key: str, value: Any, kind: str | None = None, written: str | None = None) -> str:
    kind = kind or ("string" if isinstance(value, str) else _TYPES[type(value)])
    text = written if written is not None else (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return f'{O}argument key="{attr(key)}" type="{kind}"{S}{text}{C}argument{S}'


def call_text(name: str, index: int, body: str) -> str:
    return f'{O}call tool="{attr(name)}" index="{index}"{S}{body}{C}call{S}'


def tools_block(*calls: tuple[str, dict[str, Any]], nl: str = "\n") -> Block:
    """A tools message of calls, each value typed by its `type` attribute."""
    written = nl.join(call_text(name, i, "".join(argument(k, v) for k, v in args.items()))
                      for i, (name, args) in enumerate(calls, start=1))
    return Block(TOOLS_OPEN + written + TOOLS_CLOSE,
                 tuple(Call(name, tuple(Param(k, "", v) for k, v in args.items()))
                       for name, args in calls))


def _blocks(named: Named, nl: str) -> list[Block]:
    return [tools_block(*((n, {k: v.replace("\n", nl) if isinstance(v, str) else v
                               for k, v in a.items()}) for n, a in named))]


def thinking(body: str, opened: bool = True, closed: bool = True) -> Thinking:
    """A think message: reasoning, its header and close marker in `raw`."""
    return Thinking(body, (THINK_OPEN if opened else "") + body + (THINK_CLOSE if closed else ""))


def answer(segments: list[Segment | str]) -> list[Segment | str]:
    """An answer as Kimi K3 sends it: its text in response messages, each run of calls a
    tools message between them, the turn closed. Inside a message a tag is text: a
    mention is no failed block there."""
    out: list[Segment | str] = []
    text: list[Segment | str] = []

    def message() -> None:
        if "".join(s if isinstance(s, str) else getattr(s, "text", "") for s in text).strip():
            out.extend([Framing(RESPONSE_OPEN), *text, Framing(RESPONSE_CLOSE)])
        text.clear()

    for s in segments:
        if isinstance(s, Block):
            message()
            out.append(s)
        else:
            text.append(s.text if isinstance(s, Failed) else s)
    message()
    return [*out, Framing(MESSAGE_CLOSE)]


def kimi_k3() -> None:
    g = D
    real = tools_block(("read_file", {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (TOOLS_OPEN + call_text("run_command", 1, argument("command", "make"))
              + f"{O}argument{S}oops" + TOOLS_CLOSE)
    common_cases(g, D, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at=f"{O}argument{S}"), "\nDone.\n"],
                 markdown=tools_block(("write_file", {"path": "README.md",
                                                      "content": MARKDOWN_VALUE})),
                 typed=tools_block(("read_file", {"path": "a.py", "limit": 20,
                                                  "follow": True})))
    _engine_texts(g)
    _messages(g)


def _engine_texts(g: str) -> None:
    """The serving engines' test texts (vLLM's and SGLang's kimi_k3 tests), as facts of
    the format."""
    python = tools_block(("python", {"code": "print(1)", "opts": {"a": 1}}))
    case(g, "response-then-tools", "The response message is content, the tools message "
         "the call; a non-string argument is its JSON", Framing(RESPONSE_OPEN),
         "Let me run it.", Framing(RESPONSE_CLOSE), python, Framing(MESSAGE_CLOSE), dialect=D)
    case(g, "response-only", "A turn with no tools message: the response is the content",
         Framing(RESPONSE_OPEN), "hi there", Framing(RESPONSE_CLOSE), Framing(MESSAGE_CLOSE),
         dialect=D)
    case(g, "response-opened-by-the-prompt", "The prompt may end with the response header: "
         "the text is content, its close marker and the turn's are framing",
         "Hello", Framing(MESSAGE_CLOSE), dialect=D)
    case(g, "two-calls", "Two calls in one tools message",
         tools_block(("python", {"code": "a"}), ("python", {"code": "b"}), nl=""), dialect=D)
    entities = (TOOLS_OPEN + call_text("a&b", 1, argument("q", "say &quot;hi&quot;"))
                + TOOLS_CLOSE)
    case(g, "escaped-attributes-raw-strings", "Attribute values are entity-escaped and read "
         "decoded; a string value is raw, nothing in it unescaped",
         Block(entities, (Call("a&b", (Param("q", "", "say &quot;hi&quot;"),)),)), dialect=D)
    typed = (TOOLS_OPEN + call_text("python", 1, argument("n", 42, "number")
                                    + argument("flag", True) + argument("bad", "{not json",
                                                                        "object"))
             + TOOLS_CLOSE)
    case(g, "typed-values", "The type attribute types each value: JSON for number, boolean "
         "and object; a JSON type over text that is no JSON keeps the text",
         Block(typed, (Call("python", (Param("n", "", 42), Param("flag", "", True),
                                       Param("bad", "", "{not json"))),)), dialect=D)
    order = tool("create_order", {"user_id": {"type": "integer"}, "note": {"type": "string"},
                                  "items": {"type": "array"}})
    case(g, "typed-by-type-and-schema", "With tools the schema checks what the type "
         "attribute typed; a string-typed `42` stays a string for a string property",
         tools_block(("create_order", {"user_id": 7, "note": "42",
                                                   "items": ["a", "b"]})),
         Framing(MESSAGE_CLOSE), dialect=D, tools=[order], status={0: "valid"})
    case(g, "unclosed-tools-message", "A tools message the stream cuts off is truncated: "
         "none of it runs (the engines run its complete calls)",
         Failed(TOOLS_OPEN + call_text("python", 1, argument("code", "x")), "truncated"),
         dialect=D)


def _messages(g: str) -> None:
    quoted = tools_block(("run_shell", {"command": "rm -rf build"}), nl="")
    case(g, "think-then-response-then-tools", "A think message is reasoning; a call written "
         "there is reasoning too, the real one comes in the tools message (SPEC G3b)",
         thinking(f"I could write {quoted.raw} but first I answer."),
         Framing(RESPONSE_OPEN), "Cleaning up.", Framing(RESPONSE_CLOSE), quoted,
         Framing(MESSAGE_CLOSE), dialect=D)
    case(g, "tools-in-the-response-are-text", "A message ends only at a close marker: a "
         "tools message the model writes inside its response is text",
         Framing(RESPONSE_OPEN), f"Write {quoted.raw} to call it.", Framing(RESPONSE_CLOSE),
         Framing(MESSAGE_CLOSE), dialect=D)
    case(g, "reasoning-off", "With reasoning=None a think message is content, and its "
         "header and close marker are still framing", Framing(THINK_OPEN), "Thinking aloud.",
         Framing(THINK_CLOSE), Framing(RESPONSE_OPEN), "Done.", Framing(RESPONSE_CLOSE),
         dialect=D, reasoning=None)
    case(g, "unicode", "Unicode keys, values and names", thinking("用户想知道天气。"),
         tools_block(("get_weather", {"city": "東京 🌸", "天気": "晴れ"})), dialect=D)
    case(g, "tools-in-code-outside-messages", "Outside messages the text is Markdown: a "
         "tools message in fenced code is text (SPEC G3)", PROSE_INTRO,
         Code(f"```\n{quoted.raw}\n```"), "\n", dialect=D)
    case(g, "typed-read", "Typing with tools, as every dialect", tools_block(
        ("read_file", {"path": "a.py", "limit": 20})), dialect=D, tools=[READ_TOOL],
        status={0: "valid"})


register(DialectWriter(D, _blocks, kimi_k3, (TOOLS_OPEN, f'{O}call tool="{{name}}" index="1"{S}'),
                       tag_names=(r"<\|(?:open|close)\|>"
                                  r"(tools|call|argument|think|response|message)(?=[\s<])"),
                       reasoning="kimi_k3", thinking=thinking, answer=answer))
