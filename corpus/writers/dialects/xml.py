"""minimax_m2 and anthropic: `<invoke name="N"><parameter name="K">` in a wrapper."""

from __future__ import annotations

from collections.abc import Callable

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, args_call, written


def xml_block(wrapper: str, *calls: tuple[str, dict[str, Arg]]) -> Block:
    """MiniMax-M2's and the Anthropic-style layout: a tag per line, values inline."""
    body = "\n".join(f'<invoke name="{name}">\n' + "".join(
        f'<parameter name="{k}">{written(v)}</parameter>\n' for k, v in args.items()) + "</invoke>"
        for name, args in calls)
    return Block(f"<{wrapper}>\n{body}\n</{wrapper}>", tuple(args_call(n, a) for n, a in calls))




def _xml_dialect(g: str, wrapper: str) -> None:
    d = g
    real = xml_block(wrapper, ("read_file", {"path": "README.md"}))
    run = ("run_command", {"command": "pytest -q"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f'<{wrapper}>\n<invoke name="run_command">\n<parameter name="command">make'
              '</parameter>\noops\n</invoke>\n<invoke name="run_command">\n'
              f'<parameter name="command">rm -rf build</parameter>\n</invoke>\n</{wrapper}>')
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=xml_block(wrapper, ("write_file", {"path": "README.md",
                                                        "content": MARKDOWN_VALUE})),
                 typed=xml_block(wrapper, ("read_file", {"path": "a.py", "limit": ("20", 20),
                                                    "follow": ("true", True)})))
    case(g, "values-as-written", "Values are as written: entities stay, a one-line value is "
         "trimmed, a multi-line one keeps its indentation",
         xml_block(wrapper, ("write_file", {"path": (" a.html ", "a.html"),
                                            "content": "  <p>&amp; a < b</p>\n  done"})),
         "\n", dialect=d)
    case(g, "no-missing-wrapper", "An invoke without the wrapper is text: this dialect has no "
         "missing-wrapper form", '<invoke name="run_command"><parameter name="command">ls'
         f"</parameter></invoke>\n</{wrapper}>\n", dialect=d)


def minimax_m2() -> None:
    _xml_dialect("minimax_m2", "minimax:tool_call")


def anthropic() -> None:
    _xml_dialect("anthropic", "function_calls")


XML_WRAPPERS = {"minimax_m2": "minimax:tool_call", "anthropic": "function_calls"}


def _writer(dialect: str, define: Callable[[], None], rank: int,
            reasoning: str | None) -> DialectWriter:
    wrapper = XML_WRAPPERS[dialect]

    def blocks(named: Named, nl: str) -> list[Block]:
        return [xml_block(wrapper, *schema_args(named, nl, edges=True))]
    return DialectWriter(dialect, blocks, define, (f"<{wrapper}>", '<invoke name="{name}">'),
                         reasoning=reasoning, rank=rank)


register(_writer("minimax_m2", minimax_m2, 1, "think"))
register(_writer("anthropic", anthropic, 2, None))
