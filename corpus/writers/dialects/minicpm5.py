"""minicpm5: `<function name="N"><param name="K">v</param></function>`, one block per call."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, args_call, written


def cpm_block(name: str, args: dict[str, Arg], *, space: str = " ") -> Block:
    """MiniCPM 5's layout: one line, no whitespace between tags; `space` is what stands
    between a tag name and `name=` (the engines see `Ġ` or nothing in detokenised text)."""
    params = "".join(f'<param{space}name="{k}">{written(v)}</param>' for k, v in args.items())
    return Block(f'<function{space}name="{name}">{params}</function>', (args_call(name, args),))


def minicpm5() -> None:
    g = d = "minicpm5"
    real = cpm_block("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = '<function name="run_command"><param name="command">make</param>oops</function>'
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\n",
                         cpm_block("run_command", {"command": "ls"}), "\n"],
                 markdown=cpm_block("write_file", {"path": "README.md", "content": MARKDOWN_VALUE}),
                 typed=cpm_block("read_file", {"path": "a.py", "limit": ("20", 20),
                                               "follow": ("true", True)}))
    # The serving engines' test texts (facts of the format).
    weather = {"city": "上海", "date": "2024-06-27"}
    case(g, "calls-between-text", "Each call is a block of its own, the text around and "
         "between them kept", "Head\n", cpm_block("get_weather", {"city": "北京"}), "\nTXT\n",
         cpm_block("sum_values", {"nums": "[7,8,9]", "exact": "false"}), "\nTail\n", dialect=d)
    case(g, "cdata-value", "A CDATA section is read as its text",
         Block('<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param>'
               '<param name="date">2024-06-27</param></function>',
               (args_call("get_weather", {"city": "北\n京", "date": "2024-06-27"}),)), "\n",
         dialect=d)
    case(g, "tokenizer-space-marker", "The space before name= as the tokenizer's `Ġ`, or "
         "missing (leniency: the engines read detokenised text)",
         cpm_block("get_weather", weather, space="\u0120"), "\n",
         cpm_block("get_weather", weather, space=""), "\n", dialect=d)
    case(g, "no-arguments", "A call with no arguments", cpm_block("noop", {}), "\n", dialect=d)
    case(g, "param-without-name", "An argument with no name: the call's tag fails as a "
         "mention, the rest is text, and no call runs", Failed('<function name="get_weather">'),
         '<param>北京</param><param name="date">2024-06-27</param></function>\n', dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # Whitespace around a value is the layout's (value_edges=trim).
    return [cpm_block(n, a) for n, a in schema_args(named, nl, edges=True)]


register(DialectWriter("minicpm5", _blocks, minicpm5, ('<function name="x">',
                                                        '<function name="{name}">')))
