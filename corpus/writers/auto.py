"""`dialect="auto"` over the bundled dialects."""

from __future__ import annotations

from writers.cases import case
from writers.deepseek_calls import READ_REAL
from writers.dialects.common import PROSE_INTRO
from writers.dialects.glm45 import glm_block
from writers.dialects.hermes import hermes_call
from writers.dialects.kimi_k2 import kimi_calls
from writers.dialects.qwen3_coder import qwen_block
from writers.dialects.xml import xml_block
from writers.segments import Failed, block


def auto() -> None:
    """`dialect="auto"` (SPEC 5.2): every bundled grammar at once, per block."""
    g = d = "auto"
    case(g, "one-answer-every-dialect", "One answer calling in every dialect: each block "
         "is read by the grammar that opens it, and the three that open <tool_call> are "
         "told apart by the tag after it",
         "Reading it.\n",
         block(READ_REAL), "\n",
         qwen_block(("read_file", {"path": "a.py"})), "\n",
         glm_block("read_file", {"path": "b.py"}), "\n",
         hermes_call("read_file", {"path": "c.py"}), "\n",
         kimi_calls(("read_file", '{"path": "d.py"}', {"path": "d.py"})), "\n",
         xml_block("minimax:tool_call", ("read_file", {"path": "e.py"})), "\n",
         xml_block("function_calls", ("read_file", {"path": "f.py"})), "\nDone.\n",
         dialect=d)
    case(g, "examples-in-code", "Examples in code are text in every dialect; the real "
         "call after them runs",
         "Qwen writes `<tool_call><function=f></function></tool_call>`, Hermes:\n\n"
         "```\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n```\n\n",
         glm_block("list_files", {}), "\n", dialect=d)
    case(g, "broken-shared-tag", "A <tool_call> block every grammar refuses fails as the "
         "one that read furthest (Hermes, at the stray text); none of it runs",
         "Running it.\n",
         Failed('<tool_call>\n{"name": "run_command", "arguments": {"command": "make"}} oops\n'
                "</tool_call>", "invalid_call", at="</tool_call>"),
         "\n", hermes_call("run_command", {"command": "ls"}), "\n", dialect=d)
    case(g, "truncated-shared-tag", "A <tool_call> block cut off by the end of the stream "
         "fails with reason truncated, whichever grammar was reading it",
         PROSE_INTRO, Failed("<tool_call>\n<function=read_file>\n<parameter=path>\nREA",
                             "truncated"), dialect=d)


