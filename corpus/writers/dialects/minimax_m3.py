"""minimax_m3: `]<]minimax[>[` before every tag; `<invoke name="N">`, one element per argument."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases, tool
from writers.segments import Arg, Block, Failed, args_call, written

NS = "]<]minimax[>["


def m3_invoke(name: str, args: dict[str, Arg]) -> str:
    return (f'{NS}<invoke name="{name}">'
            + "".join(f"{NS}<{k}>{written(v)}{NS}</{k}>" for k, v in args.items())
            + f"{NS}</invoke>")


def m3_block(*calls: tuple[str, dict[str, Arg]]) -> Block:
    """MiniMax-M3's layout: the wrapper's tags on lines of their own, an invoke a line."""
    body = "\n".join(m3_invoke(n, a) for n, a in calls)
    return Block(f"{NS}<tool_call>\n{body}\n{NS}</tool_call>",
                 tuple(args_call(n, a) for n, a in calls))


def minimax_m3() -> None:
    g = d = "minimax_m3"
    real = m3_block(("read_file", {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{NS}<tool_call>\n{m3_invoke('run_command', {'command': 'make'})} oops\n"
              f"{m3_invoke('run_command', {'command': 'rm -rf build'})}\n{NS}</tool_call>")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=m3_block(("write_file", {"path": "README.md", "content": MARKDOWN_VALUE})),
                 typed=m3_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                               "follow": ("true", True)})))
    # The serving engines' test texts (facts of the format).
    order = tool("create_order", {"user_id": {"type": "integer"}, "urgent": {"type": "boolean"},
                                  "note": {"type": "string"}})
    case(g, "typed-arguments", "Each argument an element named by its key; the schema types "
         "them", "I will create it.\n",
         m3_block(("create_order", {"user_id": ("42", 42), "urgent": ("true", True),
                                    "note": "Please leave at front desk."})), "\n",
         dialect=d, tools=[order], status={0: "valid"})
    case(g, "two-invokes", "Two invokes in one wrapper",
         m3_block(("create_order", {"user_id": "1"}), ("create_order", {"user_id": "2"})), "\n",
         dialect=d)
    nested = (f'{NS}<tool_call>\n{NS}<invoke name="create_order">{NS}<user_id>42{NS}</user_id>'
              f"{NS}<shipping>{NS}<city>Singapore{NS}</city>{NS}</shipping>{NS}</invoke>\n"
              f"{NS}</tool_call>")
    case(g, "nested-value-not-read", "An argument whose value is elements (an object) is not "
         "read: the block fails where the outer element closes, and nothing runs",
         Failed(nested, at=f"{NS}</shipping>"), "\n", dialect=d)
    case(g, "cut-opener-is-text", "An opener cut off by the end of the stream is text",
         f"plain {NS}<tool_ca", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # MiniMax-M3 writes every value bare (value_edges=none).
    return [m3_block(*schema_args(named, nl, edges=False))]


register(DialectWriter("minimax_m3", _blocks, minimax_m3, (f"{NS}<tool_call>", f'{NS}<invoke name="{{name}}">'),
                       reasoning="mm_think",
                       tag_names=r"\]<\]minimax\[>\[</?(tool_call|invoke)(?=[\s>])"))
