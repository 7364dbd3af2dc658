"""deepseek_v31: DeepSeek V3.1's special tokens, kimi_k2's shape: NAME<｜tool▁sep｜>{...}."""

from __future__ import annotations

from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases, dumps
from writers.segments import Block, Call, Failed

BEGIN, END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL, SEP, CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"


def v31_call(name: str, written: str) -> str:
    return f"{CALL}{name}{SEP}{written}{CALL_END}"


def v31_calls(*calls: tuple[str, str, dict[str, Any]], section: bool = True) -> Block:
    """Calls (name, arguments as written, as meant) as the V3.1 template writes them:
    no whitespace anywhere; `section=False`: one call with no section tokens."""
    body = "".join(v31_call(name, written) for name, written, _ in calls)
    return Block(f"{BEGIN}{body}{END}" if section else body,
                 tuple(Call(n, json_body=w, json_value=m) for n, w, m in calls))


def deepseek_v31() -> None:
    g = d = "deepseek_v31"
    real = v31_calls(("read_file", '{"path": "README.md"}', {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{BEGIN}{v31_call('run_command', dumps({'command': 'make'}))} oops "
              f"{v31_call('run_command', dumps({'command': 'rm -rf build'}))}{END}")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=v31_calls(("write_file", dumps({"content": MARKDOWN_VALUE}),
                                     {"content": MARKDOWN_VALUE})),
                 typed=v31_calls(("read_file", '{"path": "a.py", "limit": 20, "follow": true}',
                                  {"path": "a.py", "limit": 20, "follow": True})))
    case(g, "two-calls-prose-around", "Two calls in one section, with the text before and "
         "after it kept (the serving engines drop the text after)", "Some prefix text",
         v31_calls(("foo", '{"x":1}', {"x": 1}), ("bar", '{"y":2}', {"y": 2})),
         " some suffix text", dialect=d)
    case(g, "call-without-section", "A call with no section tokens around it is a block of "
         "its own (leniency, SPEC 5.3)", "Calling:\n",
         v31_calls(("read_file", '{"path": "a.py"}', {"path": "a.py"}), section=False), "\n",
         dialect=d)
    case(g, "section-then-no-call", "A section cut off after a bare name: the section token "
         "fails as a mention, the name is text", "Let me look that up.", Failed(BEGIN),
         "get_weather", dialect=d)
    case(g, "no-call-tokens", "A section whose call has no call tokens: the section token "
         "is a failed mention, and the rest is text", Failed(BEGIN),
         f'foo{SEP}{{"x":1}}{END}', dialect=d)
    case(g, "call-end-missing", "A call whose end token is missing: the section end inside "
         "its arguments fails the block there (SPEC 3.2)",
         Failed(f'{BEGIN}{CALL}f{SEP}{{"a": 1}}{END}', at=END), "\n", dialect=d)
    case(g, "arguments-not-json", "Arguments that are not JSON reject their call, never the "
         "block (SPEC 3.1): the block is not accepted",
         v31_calls(("run_command", '{"command": "make",}', {})), "\n", dialect=d,
         status={0: "rejected"})


def _blocks(named: Named, nl: str) -> list[Block]:
    return [v31_calls(*((n, dumps(a), a) for n, a in named))]


def _quote(call: Call) -> Block:
    # Models quote one call, tokens and all, while they think.
    arguments = {p.name: p.value for p in call.params}
    return v31_calls((call.name, dumps(arguments), arguments), section=False)


register(DialectWriter(
    "deepseek_v31", _blocks, deepseek_v31, (BEGIN, CALL + "{name}" + SEP), quote=_quote,
    tag_names=r"<｜(tool▁calls▁begin|tool▁calls▁end|tool▁call▁begin|tool▁call▁end|tool▁sep)｜"))
