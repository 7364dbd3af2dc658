"""The names the plugin takes from vLLM, imported in one place.

vLLM is an optional dependency (the `vllm` extra): in an environment without it this
module raises an ImportError that says how to install it, and the type checker, which
runs where vLLM may be absent, is told once per import that the module may be missing
(`unused-ignore`: where vLLM is installed, its own annotations are checked instead).
"""

from __future__ import annotations

try:
    from vllm.entrypoints.generate.base.protocol import (  # type: ignore[import-not-found, unused-ignore]
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
    from vllm.entrypoints.openai.chat_completion.protocol import (  # type: ignore[import-not-found, unused-ignore]
        ChatCompletionRequest,
    )
    from vllm.entrypoints.openai.responses.protocol import (  # type: ignore[import-not-found, unused-ignore]
        ResponsesRequest,
    )
    from vllm import envs  # type: ignore[import-not-found, unused-ignore]
    from vllm.exceptions import VLLMValidationError  # type: ignore[import-not-found, unused-ignore]
    from vllm.reasoning.abs_reasoning_parsers import (  # type: ignore[import-not-found, unused-ignore]
        ReasoningParser,
        ReasoningParserManager,
    )
    from vllm.tokenizers import TokenizerLike  # type: ignore[import-not-found, unused-ignore]
    from vllm.tool_parsers.abstract_tool_parser import (  # type: ignore[import-not-found, unused-ignore]
        ToolParser,
        ToolParserManager,
    )
    from xgrammar import StructuralTag  # type: ignore[import-not-found, unused-ignore]  # vLLM's dependency
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "toolparse.vllm_plugin needs vLLM (0.33 or 0.34): pip install 'toolparse[vllm]' "
        f"({e})") from e

__all__ = ["ChatCompletionRequest", "DeltaFunctionCall", "DeltaMessage", "DeltaToolCall",
           "ExtractedToolCallInformation", "FunctionCall", "ReasoningParser",
           "ReasoningParserManager", "ResponsesRequest", "StructuralTag", "TokenizerLike",
           "ToolCall", "ToolParser", "ToolParserManager", "VLLMValidationError", "envs"]
