"""deepseek_v3: DeepSeek V3 / R1's special tokens, the arguments in a ```json fence."""

from __future__ import annotations

from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases, dumps
from writers.segments import Block, Call, Code, Failed

V3_BEGIN, V3_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
V3_CALL, V3_SEP, V3_CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"


def v3_call(name: str, written: str) -> str:
    """One call as the DeepSeek-V3 / R1 templates write it: type, name, fenced JSON."""
    return f"{V3_CALL}function{V3_SEP}{name}\n```json\n{written}\n```{V3_CALL_END}"


def v3_calls(*calls: tuple[str, str, dict[str, Any]]) -> Block:
    """A section of calls (name, arguments as written, as meant), a newline between
    calls as the templates put one."""
    body = "\n".join(v3_call(name, written) for name, written, _ in calls)
    return Block(f"{V3_BEGIN}{body}{V3_END}",
                 tuple(Call(n, json_body=w, json_value=m) for n, w, m in calls))


def deepseek_v3() -> None:
    g = d = "deepseek_v3"
    real = v3_calls(("read_file", '{"path": "README.md"}', {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{V3_BEGIN}{v3_call('run_command', dumps({'command': 'make'}))}\noops\n"
              f"{v3_call('run_command', dumps({'command': 'rm -rf build'}))}{V3_END}")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=v3_calls(("write_file", dumps({"content": MARKDOWN_VALUE}),
                                    {"content": MARKDOWN_VALUE})),
                 typed=v3_calls(("read_file", '{"path": "a.py", "limit": 20, "follow": true}',
                                 {"path": "a.py", "limit": 20, "follow": True})))
    weather = ("get_weather", '{"city": "Tokyo", "unit": "celsius"}',
               {"city": "Tokyo", "unit": "celsius"})
    hotels = ("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}',
              {"location": "Tokyo", "check_in": "2025-01-15"})
    case(g, "two-calls", "Two calls in one section, a newline between them as the "
         "template writes them", "Let me check both.", v3_calls(weather, hotels), dialect=d)
    code = {"code": "```python\nprint(1)\n```", "note": "a `tick` and <b>"}
    case(g, "fence-in-a-value", "Backticks inside a JSON string, a fence among them, are the "
         "value's: the body ends only at the ``` that <｜tool▁call▁end｜> follows, and the "
         "block's own fence opens no Markdown code (SPEC G3a)",
         v3_calls(("run_python", dumps(code), code)), "\nThen `inline code` here.\n",
         dialect=d)
    case(g, "fence-not-closed", "A call whose fence is not closed before <｜tool▁calls▁end｜>"
         " breaks its block: the body never runs on into what follows (SPEC 3.2)",
         Failed(f"{V3_BEGIN}{V3_CALL}function{V3_SEP}get_weather\n```json\n"
                f'{{"city": "Tokyo"}}{V3_END}', at=V3_END), "\n", dialect=d)
    case(g, "no-call-token", "A section whose call has no <｜tool▁call▁begin｜> is a prose "
         "mention of the section token; the rest is text",
         Failed(V3_BEGIN), f"function{V3_SEP}get_weather\n", Code('```json\n{"city": "Tokyo"}\n'
                                                               f"```{V3_END}"), dialect=d)
    case(g, "stray-special-token", "A special token alone is text", f"The separator is "
         f"{V3_SEP} and a call ends with {V3_CALL_END}.\n", dialect=d)
    case(g, "arguments-not-json", "Arguments that are not JSON reject their call, never the "
         "block (SPEC 3.1): the block is not accepted",
         v3_calls(("run_command", '{"command": "make",}', {})), "\n", dialect=d,
         status={0: "rejected"})


def _blocks(named: Named, nl: str) -> list[Block]:
    return [v3_calls(*((n, dumps(a), a) for n, a in named))]


register(DialectWriter(
    "deepseek_v3", _blocks, deepseek_v3, (V3_BEGIN, V3_CALL + "function" + V3_SEP + "{name}"),
    tag_names=r"<｜(tool▁calls▁begin|tool▁calls▁end|tool▁call▁begin|tool▁call▁end|tool▁sep)｜"))
