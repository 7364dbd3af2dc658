"""llama3_json: `<|python_tag|>{"name": ..., "parameters": {...}}`, several joined by `;`,
or a message that is only such JSON (anchored: SPEC 5.3 b); nothing closes a call (5.3 a).

The acceptance texts of vLLM's Llama 3 JSON parser tests and SGLang's Llama 3.2 detector
tests are cases here too, each read as SPEC 5.3 says (docs/dialects.md says where that
differs from those parsers)."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, READ_TOOL, common_cases
from writers.segments import Block, Call, Failed, Thinking

D = "llama3_json"
TAG = "<|python_tag|>"


def call_json(name: str, arguments: dict[str, Any], key: str = "parameters") -> str:
    return json.dumps({"name": name, key: arguments}, ensure_ascii=False)


def calls_block(named: Named, *, tag: bool = True, sep: str = "; ",
                key: str = "parameters") -> Block:
    """Calls joined by `sep`, after `<|python_tag|>` or bare."""
    body = sep.join(call_json(n, a, key) for n, a in named)
    calls = tuple(Call(n, json_body=json.dumps(a, ensure_ascii=False), json_value=a)
                  for n, a in named)
    return Block((TAG if tag else "") + body, calls)


def written(text: str, name: str, arguments: dict[str, Any]) -> Block:
    """One call as written (its arguments' text taken from `arguments`, compact or not)."""
    return Block(text, (Call(name, json_body=json.dumps(arguments, ensure_ascii=False),
                             json_value=arguments),))


def llama3_json() -> None:
    g = D
    real = calls_block([("read_file", {"path": "README.md"})])
    cut = real.raw[:real.raw.index("README") + 3]
    broken = TAG + '{"name": "run_command", "parameters": {"command": make}}'
    common_cases(g, D, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken + "\n", at="make}"),
                         calls_block([("run_command", {"command": "ls"})]), "\n"],
                 markdown=calls_block([("write_file", {"path": "README.md",
                                                       "content": MARKDOWN_VALUE})]),
                 typed=calls_block([("read_file", {"path": "a.py", "limit": 20,
                                                   "follow": True})]))
    _anchored(g)
    _joined(g)
    _peers(g)


def _anchored(g: str) -> None:
    weather = ("get_weather", {"city": "Paris"})
    case(g, "bare-message", "A message that is only the JSON is a call (anchored, SPEC 5.3 b)",
         calls_block([weather], tag=False), dialect=D)
    case(g, "bare-after-whitespace", "Whitespace before the bare JSON keeps the anchor",
         "\n  ", calls_block([weather], tag=False), "\n", dialect=D)
    case(g, "bare-after-reasoning", "After a reasoning region the answer starts anew: the "
         "bare JSON after it is a call; the one quoted while thinking is reasoning",
         Thinking(call_json("get_time", {}) + " first?",
                  "<think>" + call_json("get_time", {}) + " first?</think>"), "\n",
         calls_block([weather], tag=False), dialect=D)
    case(g, "json-in-an-answer-is-text", "JSON after prose, even a call's shape, is text: "
         "only the start of the answer is anchored", "Here is the result: ",
         call_json("get_weather", {"city": "Paris"}), " Would you like to know more?\n",
         dialect=D)
    case(g, "other-json-is-text", "A message that is JSON of another shape (an answer, a "
         "schema) is text: the first member must be one a call writes",
         '{"answer": 42, "type": "object"}\n', dialect=D)
    case(g, "type-function", "A \"type\": \"function\" member may come with the call "
         "(Meta's generated docs, Llama 4)",
         written('{"type": "function", "name": "get_time", "parameters": {"tz": "UTC"}}',
                 "get_time", {"tz": "UTC"}), dialect=D)
    case(g, "tag-after-prose", "<|python_tag|> opens a call anywhere",
         "Let me check. ", calls_block([weather]), dialect=D)


def _joined(g: str) -> None:
    named = [("search", {"query": "test1"}), ("get_incidents", {}),
             ("search", {"query": "test2"})]
    case(g, "joined-by-semicolons", "Calls joined by `;` are one block (SPEC 5.3 a: the "
         "block goes on after an object when a `;` follows)",
         calls_block(named, tag=False), dialect=D)
    case(g, "joined-with-spaces", "Spaces around the `;`", calls_block(named, sep=" ; "),
         "\n", dialect=D)
    case(g, "joined-by-newlines", "Calls on lines of their own, no `;`",
         calls_block(named[:2], tag=False, sep="\n"), dialect=D)
    case(g, "dangling-semicolon", "A `;` promises another call: the stream ending after "
         "it leaves the block truncated, no call (SPEC G4)",
         Failed(calls_block(named[:1], tag=False).raw + "; ", "truncated"), dialect=D)
    case(g, "text-after-calls", "What follows the last object that is no `;` or call is "
         "text, a brace or JSON of another shape included",
         calls_block(named[:1], tag=False), ' I used {search} for this. The arguments were '
         '{"query": "test1"}\n', dialect=D)


def _peers(g: str) -> None:
    case(g, "vllm-arguments-member", "\"arguments\" instead of \"parameters\", as vLLM's "
         "and SGLang's tests write it", calls_block([("search", {"query": "test"})],
                                                    tag=False, key="arguments"), dialect=D)
    case(g, "vllm-deeply-nested", "Five levels of nesting, brackets and escaped quotes in "
         "strings end nothing",
         calls_block([("complex_tool", {"level1": {"level2": {"level3": {"level4": {
             "value": "deep {x} [y]"}}}}}),
             ("parser_tool", {"text": 'He said "Hello {world}"'})], tag=False), dialect=D)
    case(g, "sglang-arguments-first", "The arguments before the name, as SGLang's test "
         "writes them", written('{"arguments": {"city": "Tokyo"}, "name": "get_weather"}',
                                "get_weather", {"city": "Tokyo"}), dialect=D)
    case(g, "sglang-tagged-then-joined", "<|python_tag|>, two calls joined by a bare `;`",
         calls_block([("get_weather", {"city": "Beijing"}),
                      ("search", {"query": "restaurants"})], sep=";", key="arguments"),
         dialect=D)
    case(g, "invalid-json-fails", "An object that is no JSON fails its block: its span "
         "runs to the next block opener or the end, and its text is kept (SPEC 3.2)",
         Failed('{"name": "invalid_tool", "parameters": {invalid json}\n', at="invalid json"),
         dialect=D)
    case(g, "typed-by-schema-rejected", "With tools, a number written as a string rejects "
         "the call (its arguments are then `{}`)",
         written('{"name": "read_file", "parameters": {"path": "a.py", "limit": "20"}}',
                 "read_file", {}),
         dialect=D, tools=[READ_TOOL], status={0: "rejected"})


def _blocks(named: Named, nl: str) -> list[Block]:
    return [calls_block(named)]


register(DialectWriter(D, _blocks, llama3_json, (TAG, TAG + '{{"name": "{name}"'),
                       tag_names=r'(?:<\||\{)(python_tag|"(?:name|type|arguments)")'))
