"""step3: `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="N">...`."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases, tool
from writers.segments import Arg, Block, Failed, args_call, written

BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
CALL, CALL_END, SEP = "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"


def step_invoke(name: str, args: dict[str, Arg]) -> str:
    return (f'<steptml:invoke name="{name}">' + "".join(
        f'<steptml:parameter name="{k}">{written(v)}</steptml:parameter>'
        for k, v in args.items()) + "</steptml:invoke>")


def step_block(*calls: tuple[str, dict[str, Arg]], head: str = f"function{SEP}",
               between: str = "") -> Block:
    """Step-3's layout: no whitespace; `head` before each invoke (the engines' tests also
    write none, or the name and a newline after it), `between` two calls."""
    body = between.join(f"{CALL}{head.format(name=n)}{step_invoke(n, a)}{CALL_END}"
                        for n, a in calls)
    return Block(f"{BEGIN}{body}{END}", tuple(args_call(n, a) for n, a in calls))


def step3() -> None:
    g = d = "step3"
    real = step_block(("read_file", {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{BEGIN}{CALL}function{SEP}{step_invoke('run_command', {'command': 'make'})} oops "
              f"{CALL_END}{CALL}function{SEP}{step_invoke('run_command', {'command': 'rm -rf build'})}"
              f"{CALL_END}{END}")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=step_block(("write_file", {"path": "README.md",
                                                     "content": MARKDOWN_VALUE})),
                 typed=step_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                                 "follow": ("true", True)})))
    # The serving engines' test texts (facts of the format).
    case(g, "two-calls-tool-sep-between", "Two calls with <｜tool_sep｜> between them and no "
         "head, the text around kept", "Let me check the weather for you.\n\n",
         step_block(("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"}),
                    head="", between=SEP), "\n\nI'll get that information.", dialect=d)
    case(g, "no-arguments", "An invoke with no parameters",
         step_block(("refresh", {}), head=""), "\n", dialect=d)
    edit = tool("edit_file", {"old_string": {"type": "string"}, "indent": {"type": "integer"},
                              "enabled": {"type": "boolean"}})
    case(g, "whitespace-kept", "A head with the name and a newline; a string value keeps its "
         "whitespace, the schema types the others",
         step_block(("edit_file", {"old_string": "    if x:\n        return 1\n",
                                   "indent": (" 4 ", 4), "enabled": (" true ", True)}),
                    head=f"function{SEP}{{name}}\n"), "\n", dialect=d, tools=[edit],
         status={0: "valid"})
    case(g, "call-without-section", "A call with no section tokens is text",
         f'{CALL}<steptml:invoke name="func"></steptml:invoke>{CALL_END}\n', dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # Step-3 writes every value bare (value_edges=none).
    return [step_block(*schema_args(named, nl, edges=False))]


register(DialectWriter(
    "step3", _blocks, step3, (BEGIN, '<steptml:invoke name="{name}">'),
    tag_names=r"(?:<｜|</?)(tool_calls_begin|tool_calls_end|tool_call_begin|tool_call_end|tool_sep|"
              r"steptml:invoke|steptml:parameter)(?=[｜\s/>])"))
