"""The structural tag a `toolparse_<dialect>` parser gives vLLM (docs/vllm.md).

vLLM asks a tool parser for a structural tag (`get_structural_tag`) when the request
has tools and its `tool_choice` calls for constraint (`required`, a named tool, or
`auto` under a strict level), and hands the tag to xgrammar, so that the model writes
only what the parser reads. The tag is SPEC 12's export for the request's tools
(`toolparse._export.structural_tag`): `required` and a named tool (the one tool) are
`mode="required"`, `auto` is `mode="auto"`. Where the export cannot express the request
(a schema it cannot keep safe, a tool name the dialect's tag cannot hold), the answer is
no tag, vLLM's behaviour for a parser without one, and a warning says why.
"""

from __future__ import annotations

import functools
from typing import Any

from toolparse._dialect import Dialect
from toolparse._errors import ExportError, ToolparseError
from toolparse.vllm_plugin._common import LOG, tool_dicts
from toolparse.vllm_plugin._vllm import StructuralTag

__all__ = ["exportable", "structural_tag"]

_PROBE = [{"name": "probe", "parameters": {"type": "object", "properties": {
    "text": {"type": "string"}}, "required": ["text"]}}]
"""A tool every exportable dialect can write: whether a dialect exports at all."""


@functools.cache
def exportable(dialect: str) -> bool:
    """Whether the bundled dialect's grammar exports as a structural tag (SPEC 12;
    docs/export.md lists those that do not); logged once per dialect when it does not."""
    from toolparse._export import export_grammar  # noqa: PLC0415 (jsonschema: on first use)

    try:
        export_grammar(dialect, _PROBE, target="structural_tag", mode="required")
    except ExportError as e:
        LOG.info("toolparse_%s gives vLLM no structural tag: %s", dialect, e)
        return False
    return True


def _mode_and_tools(request: Any) -> tuple[str, list[dict[str, Any]]] | None:
    """The export's mode and tools for the request's `tool_choice` (None: no calls)."""
    tools = tool_dicts(getattr(request, "tools", None)) or []
    choice = getattr(request, "tool_choice", None)
    if choice in ("auto", None):
        return "auto", tools
    if choice == "required":
        return "required", tools
    name = getattr(getattr(choice, "function", None), "name", None) or getattr(choice, "name", None)
    if not isinstance(name, str):
        return None
    return "required", [t for t in tools if t.get("function", t).get("name") == name]


def structural_tag(dialect: Dialect, request: Any) -> Any:
    """xgrammar's `StructuralTag` for the request, or None (with the reason logged)."""
    from toolparse._export import export_grammar  # noqa: PLC0415

    found = _mode_and_tools(request)
    if found is None or not found[1]:
        return None
    mode, tools = found
    try:
        text = export_grammar(dialect, tools, target="structural_tag", mode=mode)
    except ToolparseError as e:
        LOG.warning("toolparse_%s: no structural tag for this request (vLLM's default "
                    "applies): %s", dialect.name, e)
        return None
    return StructuralTag.model_validate_json(text)
