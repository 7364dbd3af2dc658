"""toolparse inside vLLM: a tool-call parser and a reasoning parser (docs/vllm.md).

    pip install 'toolparse[vllm]'
    vllm serve MODEL --enable-auto-tool-choice --tool-call-parser toolparse_qwen3_coder \\
        --reasoning-parser toolparse

The `vllm` extra registers this package through vLLM's `vllm.general_plugins` entry
point, so no plugin path is needed. It also loads the two ways vLLM loads a plugin by
hand, `--tool-parser-plugin` / `--reasoning-parser-plugin` given the module name
`toolparse.vllm_plugin` or this file's path: importing it registers the parsers. (A
package, not a module called `vllm.py`: vLLM imports a plugin file under its base name,
and a `vllm` module would replace vLLM's own.)

Registered: tool parsers `toolparse` (dialect `auto`) and `toolparse_<dialect>` for each
bundled dialect; reasoning parsers `toolparse` (every bundled format) and
`toolparse_<format>` for each bundled reasoning format (SPEC 11).
"""

# Absolute imports only: vLLM may run this file as a module of its own (`__init__`).
from toolparse.vllm_plugin._common import StreamContractError
from toolparse.vllm_plugin._reasoning import ToolparseReasoningParser
from toolparse.vllm_plugin._registry import (
    reasoning_parser_classes,
    register,
    tool_parser_classes,
)
from toolparse.vllm_plugin._tools import ToolparseToolParser

__all__ = ["StreamContractError", "ToolparseReasoningParser", "ToolparseToolParser",
           "reasoning_parser_classes", "register", "tool_parser_classes"]

register()
