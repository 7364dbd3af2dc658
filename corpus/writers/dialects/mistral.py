"""mistral: `[TOOL_CALLS]NAME[ARGS]{...}`, one block per call, and the older
`[TOOL_CALLS][{"name": ..., "arguments": {...}}]`; nothing closes a call (SPEC 5.3 a).

The blocks are written as mistral-common renders an assistant's calls (the tests check
the rendering against the library itself: tests/test_mistral_common.py).
"""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, READ_TOOL, common_cases
from writers.segments import Block, Call, Failed

D = "mistral"
TOOL_CALLS, ARGS, CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"


def call_block(name: str, arguments: dict[str, Any], *, call_id: str | None = None,
               written: str | None = None) -> Block:
    """One call as tokenizer v13 writes it (v11 with `call_id`)."""
    text = written if written is not None else json.dumps(arguments, ensure_ascii=False)
    head = TOOL_CALLS + name + (CALL_ID + call_id if call_id is not None else "") + ARGS
    return Block(head + text, (Call(name, json_body=text, json_value=arguments),))


def list_block(named: Named, ids: bool = True) -> Block:
    """Calls as tokenizers v3 to v7 write them: one JSON list after [TOOL_CALLS]."""
    items = [{"name": n, "arguments": a, **({"id": f"c{i}a2b3c4d"} if ids else {})}
             for i, (n, a) in enumerate(named)]
    calls = tuple(Call(n, json_body=json.dumps(a, ensure_ascii=False), json_value=a)
                  for n, a in named)
    return Block(TOOL_CALLS + json.dumps(items, ensure_ascii=False), calls)


def _blocks(named: Named, nl: str) -> list[Block]:
    return [call_block(n, a) for n, a in named]


def mistral() -> None:
    g = D
    real = call_block("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = call_block("run_command", {}, written='{"command": make}').raw
    common_cases(g, D, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken + "\n", at="make}"),
                         call_block("run_command", {"command": "ls"}), "\n"],
                 markdown=call_block("write_file", {"path": "README.md",
                                                    "content": MARKDOWN_VALUE}),
                 typed=call_block("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    _forms(g)
    _ends(g)


def _forms(g: str) -> None:
    weather, time = ("get_weather", {"city": "Paris"}), ("get_time", {})
    case(g, "several-in-a-row", "Calls in a row, nothing between them: each is a block of "
         "its own, ending where its object closes", call_block(*weather), call_block(*time),
         dialect=D)
    case(g, "call-id-v11", "Tokenizer v11 writes the call's id before [ARGS]",
         call_block(*weather, call_id="a1B2c3D4e"), call_block(*time, call_id="Z9y8X7w6v"),
         dialect=D)
    case(g, "list-v7", "Tokenizers v3 to v7 write one JSON list of calls with their ids "
         "(the id may be missing): one block",
         list_block([weather, ("read_file", {"path": "a.py", "n": [1, {"x": "}"}]})]),
         "\n", list_block([time], ids=False), dialect=D)
    case(g, "unicode", "Unicode values and a brace and the call token inside strings end "
         "nothing", call_block("write_file", {"path": "東京.md", "content": "} ] [TOOL_CALLS] 🌸"}),
         dialect=D)
    case(g, "typed-by-schema-rejected", "With tools, the arguments are checked like an "
         "OpenAI arguments string: a number written as a string rejects the call",
         call_block("read_file", {}, written='{"path": "a.py", "limit": "20"}'),
         dialect=D, tools=[READ_TOOL], status={0: "rejected"})


def _ends(g: str) -> None:
    case(g, "text-after-call", "Nothing closes a call: the text after its object is "
         "content (SPEC 5.3 a)", call_block("read_file", {"path": "a.py"}),
         "\n\nI am reading the file now.", dialect=D)
    case(g, "token-in-prose", "[TOOL_CALLS] followed by prose, or as a Markdown link, is "
         "text", "The [TOOL_CALLS] token starts calls; see [TOOL_CALLS](docs.md).\n",
         dialect=D)
    case(g, "head-without-object", "A head followed by no object is a prose mention: its "
         "call had not started", "Write ", Failed(TOOL_CALLS + "f" + ARGS + " "), "then the JSON.\n", dialect=D)


register(DialectWriter(D, _blocks, mistral, (TOOL_CALLS, TOOL_CALLS + "{name}" + ARGS),
                       tag_names=r"\[(TOOL_CALLS|ARGS|CALL_ID)\]", reasoning="mistral_think",
                       mention_fails=False))
