"""gpt_oss: harmony messages; a message to `functions.N` is a call (SPEC 5.3, 11).

The blocks are written as openai-harmony renders an assistant's call (the tests check
the rendering against the library itself: tests/test_harmony.py). A call ends where
its JSON object closes: the `<|call|>` after it, when a case has one, is framing.
"""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, PROSE_INTRO, READ_TOOL, common_cases
from writers.segments import Block, Call, Code, Failed, Framing, Segment, Thinking

D = "gpt_oss"
START = "<|start|>assistant"
ANALYSIS = "<|channel|>analysis<|message|>"
FINAL = f"{START}<|channel|>final<|message|>"
END, RETURN, CALL = "<|end|>", "<|return|>", "<|call|>"


def header(name: str, *, start: bool = True, channel: str = "commentary",
           constrain: str = " <|constrain|>json") -> str:
    """A call's header, recipient after the channel (the form openai-harmony renders)."""
    role = START if start else ""
    return f"{role}<|channel|>{channel} to=functions.{name}{constrain}<|message|>"


def call_message(name: str, arguments: dict[str, Any], *, head: str | None = None,
                 written: str | None = None) -> Block:
    """A call message without its end token (`<|call|>`, which servers strip): its
    header and its arguments, one JSON object (`written`, when not the default)."""
    text = written if written is not None else json.dumps(arguments, ensure_ascii=False)
    raw = (head if head is not None else header(name)) + text
    return Block(raw, (Call(name, json_body=text, json_value=arguments),))


def analysis(body: str, opened: bool = True, closed: bool = True) -> Thinking:
    """An analysis message: reasoning, its header and end token in `raw`."""
    return Thinking(body, (ANALYSIS if opened else "") + body + (END if closed else ""))


def final(text: str, end: str = RETURN) -> list[Framing | str]:
    """A final message: its text is content, its header and end token framing."""
    return [Framing(FINAL), text, Framing(end)]


def _blocks(named: Named, nl: str) -> list[Block]:
    return [call_message(n, a) for n, a in named]


def answer(segments: list[Segment | str]) -> list[Segment | str]:
    """An answer as gpt-oss sends it: the text before the calls in a commentary message (a
    preamble), each call a message ended by <|call|>, the text after them the final
    message. Inside a message a header is text: a mention is no failed block there."""
    out: list[Segment | str] = []
    text: list[Segment | str] = []

    def message(head: str, end: str) -> None:
        if "".join(s if isinstance(s, str) else getattr(s, "text", "") for s in text).strip():
            out.extend([Framing(head), *text, Framing(end)])
        text.clear()

    for s in segments:
        if isinstance(s, Block):
            message(f"{START}<|channel|>commentary<|message|>", END)
            out.extend([s, Framing(CALL)])
        else:
            text.append(s.text if isinstance(s, Failed) else s)
    message(FINAL, RETURN)
    return out


def gpt_oss() -> None:
    g = D
    real = call_message("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = header("run_command") + '{"command": make}'
    common_cases(g, D, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="make"), Framing(CALL),
                         "\nDone.\n"],
                 markdown=call_message("write_file", {"path": "README.md",
                                                      "content": MARKDOWN_VALUE}),
                 typed=call_message("read_file", {"path": "a.py", "limit": 20,
                                                  "follow": True}))
    _messages(g)
    _headers(g)
    _boundaries(g)


def _messages(g: str) -> None:
    weather = call_message("get_weather", {"city": "Paris"})
    case(g, "analysis-then-call", "An analysis message is reasoning; the message to "
         "functions.get_weather is a call; <|call|> is framing (SPEC 11)",
         analysis("The user wants the weather in Paris."), weather, Framing(CALL), dialect=D)
    case(g, "analysis-then-final", "The final message's text is the content; headers and "
         "end tokens are framing, never content",
         analysis("Simple greeting."), *final("Hello! **How** can I help?"), dialect=D)
    case("realistic", "gpt_oss-preamble-then-call", "A commentary message with no recipient is content (a "
         "preamble), then the call",
         Framing("<|channel|>commentary<|message|>"), "Let me check that.", Framing(END),
         weather, Framing(CALL), dialect=D)
    case("realistic", "gpt_oss-call-then-answer", "After the tool's result the model answers: the whole turn "
         "as a conversation renders it; the user's and the tool's messages are content, "
         "never calls",
         analysis("Need weather."), weather, Framing(CALL),
         Framing("<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"),
         '{"sunny": true}', Framing(END),
         Framing("<|start|>user<|message|>"), "Thanks!", Framing(END),
         *final("It is sunny in Paris."), dialect=D)
    case(g, "reasoning-off", "With reasoning=None an analysis message is content, and its "
         "header and end token are still framing",
         Framing(ANALYSIS), "Thinking aloud.", Framing(END), *final("Done."), dialect=D,
         reasoning=None)


def _headers(g: str) -> None:
    args = {"path": "a.py"}
    case(g, "recipient-after-role", "The recipient may follow the role, and the content "
         "type may be a bare word: `<|start|>assistant to=functions.N<|channel|>commentary "
         "json<|message|>`",
         analysis("Reading it."),
         call_message("read_file", args, head=f"{START} to=functions.read_file"
                                               "<|channel|>commentary json<|message|>"),
         Framing(CALL), dialect=D)
    case(g, "constrain-without-space", "<|constrain|> may follow the recipient with no "
         "space, and the header may come without its role",
         call_message("read_file", args, head=header("read_file", start=False,
                                                     constrain="<|constrain|>json")),
         Framing(CALL), dialect=D)
    case(g, "call-on-analysis", "The recipient decides: a message to functions.N on the "
         "analysis channel is a call",
         call_message("read_file", args, head=header("read_file", start=False,
                                                     channel="analysis", constrain="")),
         Framing(CALL), dialect=D)
    case(g, "builtin-recipient", "A message to a built-in tool (to=python) is no call: its "
         "text is content", Framing("<|channel|>commentary to=python<|message|>"),
         "print(1 + 1)", Framing(CALL), dialect=D)
    case(g, "unicode", "Unicode names' arguments and text",
         analysis("用户想知道天气。"), call_message("get_weather", {"city": "東京 🌸"}),
         Framing(CALL), dialect=D)
    case(g, "typed-by-schema-rejected", "With tools, the arguments are checked like an "
         "OpenAI arguments string: a number written as a string rejects the call (repair "
         "is asked for with repair=)",
         call_message("read_file", {}, written='{"path": "a.py", "limit": "20"}'),
         Framing(CALL), dialect=D, tools=[READ_TOOL], status={0: "rejected"})


def _boundaries(g: str) -> None:
    quoted = header("run_shell") + '{"command": "rm -rf build"}' + CALL
    case(g, "header-quoted-in-final", "A message ends only at its end token: a call the "
         "model writes inside its final message is text, never a call",
         Framing(FINAL), f"Call it like this: {quoted[len(START):-len(CALL)]}", Framing(RETURN),
         dialect=D)
    case(g, "no-call-token", "Servers strip <|call|> as a stop token: a call whose object "
         "is complete is a call without it, and the next header ends it",
         call_message("read_file", {"path": "a.py"}), *final("Reading."), dialect=D)
    case(g, "incomplete-at-next-header", "An object not complete when the next header "
         "comes is a failed block: none of it runs",
         Failed(header("run_shell") + '{"command": "rm -rf'),
         *final("Never mind."), dialect=D)
    case(g, "text-outside-messages", "Text outside any message is content, never dropped",
         call_message("read_file", {"path": "a.py"}), Framing(CALL),
         "stray words\n", *final("ok"), dialect=D)
    case(g, "call-in-code-outside-messages", "Outside messages the text is Markdown: a "
         "header in fenced code is text (SPEC G3)", PROSE_INTRO,
         Code(f"```\n{header('read_file')}{{}}\n```"), "\n", dialect=D)


register(DialectWriter(D, _blocks, gpt_oss, (header("x"), "<|channel|>commentary "
                                                         "to=functions.{name}"),
                       tag_names=r"<\|(start|channel|message|constrain|end|call|return)\|>",
                       reasoning="harmony", thinking=analysis, answer=answer))
