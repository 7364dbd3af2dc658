"""qwen3_coder: `<tool_call><function=N><parameter=K>`."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, args_call, written


def qwen_block(*calls: tuple[str, dict[str, Arg]], wrapper: str | None = "tool_call") -> Block:
    """Qwen3-Coder's template layout: every tag and value on its own line."""
    body = "\n".join(f"<function={name}>\n" + "".join(
        f"<parameter={k}>\n{written(v)}\n</parameter>\n" for k, v in args.items()) + "</function>"
        for name, args in calls)
    raw = body if wrapper is None else f"<{wrapper}>\n{body}\n</{wrapper}>"
    return Block(raw, tuple(args_call(n, a) for n, a in calls))




def qwen3_coder() -> None:
    g = d = "qwen3_coder"
    real = qwen_block(("read_file", {"path": "README.md"}))
    run = ("run_command", {"command": "pytest -q"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ("<tool_call>\n<function=run_command>\n<parameter=command>\nmake\n</parameter>\n"
              "oops\n</function>\n<function=run_command>\n<parameter=command>\nrm -rf build\n"
              "</parameter>\n</function>\n</tool_call>")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=qwen_block(("write_file", {"path": "README.md", "content": MARKDOWN_VALUE})),
                 typed=qwen_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                            "follow": ("true", True)})))
    case(g, "missing-parameter-close", "A value whose </parameter> is missing ends at the next "
         "<parameter= or at </function> (leniency, SPEC 5.2)",
         Block("<tool_call>\n<function=edit>\n<parameter=path>\na.py\n<parameter=line>\n3\n"
               "</function>\n</tool_call>", (args_call("edit", {"path": "a.py", "line": "3"}),)),
         "\n", dialect=d)
    case(g, "bare-function", "A <function=...> with no wrapper is a block of its own "
         "(leniency, SPEC 5.2)", "Sure:\n", qwen_block(run, wrapper=None), "\n",
         qwen_block(("read_file", {"path": "log.txt"}), wrapper=None), "\n", dialect=d)
    case(g, "seed-oss", "Seed-OSS writes the same calls in <seed:tool_call> (SPEC 5.2)",
         qwen_block(run, wrapper="seed:tool_call"), "\n", dialect=d)
    case(g, "template-newlines", "One leading and one trailing newline are the template's; "
         "more are the value's", Block("<tool_call>\n<function=write_file>\n<parameter=content>"
                                        "\n\n  indented\n\n</parameter>\n</function>\n</tool_call>",
                                        (args_call("write_file", {"content": "\n  indented\n"}),)),
         "\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # Qwen's newlines around a value are the template's own (qwen_block).
    return [qwen_block(*schema_args(named, nl, edges=False))]


register(DialectWriter("qwen3_coder", _blocks, qwen3_coder, ("<tool_call>", "<function={name}>"),
                       rank=0))
