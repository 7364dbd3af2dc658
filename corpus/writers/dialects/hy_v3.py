"""hy_v3: `<tool_calls><tool_call>N<tool_sep><arg_key>K</arg_key><arg_value>v</arg_value>`."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, args_call, written


def hy_block(*calls: tuple[str, dict[str, Arg]], nl: str = "\n", suffix: str = "",
             sep: bool = True) -> Block:
    """HY v3's layout (a newline before each tag; `nl=""`: none), or HY v4's (`suffix`
    on every tag, no `<tool_sep>`)."""
    def tag(name: str) -> str:
        return f"<{name}{suffix}>"
    body = "".join(
        f"{nl}{tag('tool_call')}{name}" + (tag("tool_sep") if sep else "") + "".join(
            f"{nl}{tag('arg_key')}{k}{tag('/arg_key')}{nl}{tag('arg_value')}{written(v)}"
            f"{tag('/arg_value')}" for k, v in args.items()) + f"{nl}{tag('/tool_call')}"
        for name, args in calls)
    return Block(f"{tag('tool_calls')}{body}{nl}{tag('/tool_calls')}",
                 tuple(args_call(n, a) for n, a in calls))


def hy_v3() -> None:
    g = d = "hy_v3"
    real = hy_block(("read_file", {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ("<tool_calls>\n<tool_call>run_command<tool_sep>\n<arg_key>command</arg_key>\n"
              "<arg_value>make</arg_value>\noops\n</tool_call>\n<tool_call>run_command<tool_sep>"
              "\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>\n"
              "</tool_calls>")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=hy_block(("write_file", {"path": "README.md", "content": MARKDOWN_VALUE})),
                 typed=hy_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                               "follow": ("true", True)})))
    # The serving engines' test texts (facts of the format).
    weather = ("get_weather", {"city": "Beijing", "date": "2026-03-30"})
    case(g, "two-calls-text-before", "Two calls in one wrapper, the text before kept",
         "Checking.", hy_block(weather, ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"})),
         dialect=d)
    case(g, "no-arguments-inline", "A call with no arguments, on one line and with newlines",
         hy_block(("get_current_date", {}), nl=""), "\n", hy_block(("get_current_date", {})),
         dialect=d)
    case(g, "hy-v4-suffixed-tokens", "HY v4: the tokens carry a suffix and no <tool_sep>",
         "sure!", hy_block(("get_weather", {"city": "Beijing", "days": "3"}),
                           ("get_current_date", {}), nl="", suffix=":opensource", sep=False),
         dialect=d)
    case(g, "junk-after-argument", "Text between an argument and </tool_call> fails the block",
         Failed("<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>X"
                "</arg_value>JUNK</tool_call></tool_calls>", at="JUNK"), "\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # HY writes every value bare (value_edges=none).
    return [hy_block(*schema_args(named, nl, edges=False))]


register(DialectWriter("hy_v3", _blocks, hy_v3, ("<tool_calls>", "<tool_call>{name}<tool_sep>"),
                       tag_names=r"</?(tool_calls|tool_call|tool_sep|arg_key|arg_value)(?::[^\s<>]+)?>"))
