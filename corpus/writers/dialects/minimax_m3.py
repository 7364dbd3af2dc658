"""minimax_m3: `]<]minimax[>[` before every tag; `<invoke name="N">`, one element per argument."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases, tool
from writers.segments import Arg, Block, Failed, args_call, written

NS = "]<]minimax[>["


def el(key: str, *inner: str) -> str:
    """An element named by its key: an argument, or a member of one's value."""
    return f"{NS}<{key}>" + "".join(inner) + f"{NS}</{key}>"


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
    nested_tools = [tool("create_order", {
        "user_id": {"type": "integer"},
        "shipping": {"type": "object", "properties": {"city": {"type": "string"},
                                                      "zip": {"type": "integer"}}},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}}}},
        "tags": {"type": "array", "items": {"type": "string"}}})]
    items = el("item", el("sku", "book-001"), el("qty", "2")) + el("item", el("sku", "pen-007"),
                                                                   el("qty", "5"))
    case(g, "nested-object-and-array", "Objects and arrays as elements named by their keys; "
         "the schema makes `items` an array and types every member",
         "I will create it.\n",
         m3_block(("create_order", {
             "user_id": ("42", 42),
             "shipping": (el("city", "Singapore") + el("zip", "18956"),
                          {"city": "Singapore", "zip": 18956}),
             "items": (items, [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}]),
             "tags": (el("tag", "gift") + el("tag", "<fragile>"), ["gift", "<fragile>"])})),
         "\n", dialect=d, tools=nested_tools, status={0: "valid"})
    case(g, "nested-untyped", "Without tools, members are an object of texts and a "
         "repeated member a list (vLLM's duplicate_demo)",
         m3_block(("tag", {"labels": (el("tag", "a") + "\n" + el("tag", "b"),
                                      {"tag": ["a", "b"]}),
                           "meta": (el("source", "mobile"), {"source": "mobile"})})), "\n",
         dialect=d)
    mixed = (f'{NS}<tool_call>\n{NS}<invoke name="create_order">{NS}<shipping>to {el("city", "x")}'
             f"{NS}</shipping>{NS}</invoke>\n{NS}</tool_call>")
    case(g, "nested-with-text-fails", "A value holding both text and elements is no value: "
         "the block fails, its text kept, and nothing runs",
         Failed(mixed, reason="mixed_value", at=f"{NS}</shipping>"), "\n", dialect=d)
    case(g, "cut-opener-is-text", "An opener cut off by the end of the stream is text",
         f"plain {NS}<tool_ca", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # MiniMax-M3 writes every value bare (value_edges=none).
    return [m3_block(*schema_args(named, nl, edges=False))]


register(DialectWriter("minimax_m3", _blocks, minimax_m3, (f"{NS}<tool_call>", f'{NS}<invoke name="{{name}}">'),
                       reasoning="mm_think",
                       tag_names=r"\]<\]minimax\[>\[</?(tool_call|invoke)(?=[\s>])"))
