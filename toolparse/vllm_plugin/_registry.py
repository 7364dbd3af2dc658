"""The parsers' names in vLLM's registries, made from the bundled dialects and reasoning
formats (`toolparse.dialects()`, `toolparse.reasoning_formats()`): a dialect or format
added to `grammars/` gets its parser with no change here.

    tool parsers        toolparse (dialect `auto`), toolparse_<dialect>
    reasoning parsers   toolparse (every bundled format), toolparse_<format>
"""

from __future__ import annotations

from typing import Final

from toolparse._dialect import dialects
from toolparse.vllm_plugin._reasoning import ToolparseReasoningParser, marker_formats
from toolparse.vllm_plugin._tools import ToolparseToolParser
from toolparse.vllm_plugin._vllm import ReasoningParserManager, ToolParserManager

__all__ = ["PREFIX", "reasoning_parser_classes", "register", "tool_parser_classes"]

PREFIX: Final = "toolparse"


def tool_parser_classes() -> dict[str, type[ToolparseToolParser]]:
    """Name -> tool parser class: `toolparse` and one per bundled dialect."""
    classes: dict[str, type[ToolparseToolParser]] = {PREFIX: ToolparseToolParser}
    for name in dialects():
        classes[f"{PREFIX}_{name}"] = type(
            f"Toolparse{_camel(name)}ToolParser", (ToolparseToolParser,),
            {"dialect_name": name, "__module__": ToolparseToolParser.__module__,
             # vLLM asks a parser with a model for a structural tag (the instance drops
             # it where the dialect does not export: `_tools.py`).
             "structural_tag_model": f"{PREFIX}_{name}",
             "__doc__": f"vLLM's `ToolParser` reading the dialect `{name}` with toolparse."})
    return classes


def reasoning_parser_classes() -> dict[str, type[ToolparseReasoningParser]]:
    """Name -> reasoning parser class: `toolparse` and one per bundled format of markers
    (`marker_formats`: not harmony, which its dialect's tool parser reads)."""
    classes: dict[str, type[ToolparseReasoningParser]] = {PREFIX: ToolparseReasoningParser}
    for name in marker_formats():
        classes[f"{PREFIX}_{name}"] = type(
            f"Toolparse{_camel(name)}ReasoningParser", (ToolparseReasoningParser,),
            {"format_name": name, "__module__": ToolparseReasoningParser.__module__,
             "__doc__": f"vLLM's `ReasoningParser` reading the format `{name}` with toolparse."})
    return classes


def register() -> None:
    """Register every parser with vLLM (idempotent: the same names, the same classes'
    kind, registered again)."""
    for name, tool_class in tool_parser_classes().items():
        ToolParserManager.register_module(name=name, force=True, module=tool_class)
    for name, reasoning_class in reasoning_parser_classes().items():
        ReasoningParserManager.register_module(name=name, force=True, module=reasoning_class)


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
