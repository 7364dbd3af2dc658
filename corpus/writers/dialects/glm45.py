"""glm45: `<tool_call>N<arg_key>K</arg_key><arg_value>v</arg_value></tool_call>`."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, args_call, written


def glm_block(name: str, args: dict[str, Arg], *, one_line: bool = False) -> Block:
    """GLM-4.5's layout (a line per tag), or GLM-4.7's (`one_line`: no newlines)."""
    nl = "" if one_line else "\n"
    pairs = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{written(v)}</arg_value>{nl}"
                    for k, v in args.items())
    return Block(f"<tool_call>{name}{nl}{pairs}</tool_call>", (args_call(name, args),))




def glm45() -> None:
    g = d = "glm45"
    real = glm_block("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ("<tool_call>run_command\n<arg_key>command</arg_key>\n<arg_value>make</arg_value>\n"
              "oops\n</tool_call>")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\n",
                    glm_block("run_command", {"command": "ls"}), "\n"],
                 markdown=glm_block("write_file", {"path": "README.md", "content": MARKDOWN_VALUE}),
                 typed=glm_block("read_file", {"path": "a.py", "limit": ("20", 20),
                                          "follow": ("true", True)}))
    case(g, "glm47-one-line", "GLM-4.7 writes the same call without newlines (SPEC 5.2)",
         glm_block("read_file", {"path": "README.md", "limit": "20"}, one_line=True), "\n",
         dialect=d)
    case(g, "no-arguments", "A call with no arguments, in both layouts",
         glm_block("list_files", {}), "\n", glm_block("list_files", {}, one_line=True), "\n",
         dialect=d)
    case(g, "value-as-written", "A value is exactly the text between <arg_value> and "
         "</arg_value>: the indentation and spaces of code sent to an edit tool stay (SPEC 5.2)",
         glm_block("edit_file", {"old": "    return x  ", "new": "\n        return y\n"}), "\n",
         dialect=d)
    edit = {"type": "function", "function": {"name": "edit_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "note": {"type": ["string", "null"]},
                                         "title": {"anyOf": [{"type": "string"},
                                                             {"type": "null"}]},
                                         "tag": {"type": "string"}}}}}
    case(g, "null-for-nullable", "With tools, the exact text null is null for a property that "
         "admits null, and stays the string for one that admits only strings (SPEC 6)",
         glm_block("edit_file", {"path": "a.py", "note": ("null", None), "title": ("null", None),
                                 "tag": "null"}), "\n",
         dialect=d, tools=[edit], status={0: "valid"})


def _blocks(named: Named, nl: str) -> list[Block]:
    # GLM's template writes every value bare (value_edges=none).
    return [glm_block(n, a) for n, a in schema_args(named, nl, edges=False)]


register(DialectWriter("glm45", _blocks, glm45, ("<tool_call>", "<tool_call>{name}"), rank=3))
