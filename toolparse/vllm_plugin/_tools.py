"""`ToolparseToolParser`: toolparse as vLLM's tool-call parser (`--tool-call-parser`).

One class per bundled dialect (`_registry.py` makes them: `toolparse` reads `auto`,
`toolparse_<dialect>` one dialect). An instance reads one request's answer, the way
the OpenAI adapter reads one choice (SPEC 8): the text goes to a `StreamParser`, its
events to the adapter's `ChoiceRewriter`, which decides what goes out as content and
what as `tool_calls` entries, and those pieces become vLLM's `DeltaMessage`s. So a call
goes out whole, when its block has parsed and every call of the block is accepted by
the request's tools (SPEC 6; `on_rejected="content"`): a failed block and a block with
a rejected call go out as the model's text, and a log line says why.

- Streaming declares `engine_based_streaming`: vLLM then calls `finish_streaming()` at
  the end of the answer, and the text toolparse held back (a possible partial tag, an
  open block) goes out then; the classic method has no end.
- Calls go out only where vLLM keeps them (the request has tools and `tool_choice` is
  `auto`, or `required` or a named tool where vLLM hands those to the parser);
  otherwise every block is content, so that nothing the model wrote is lost.
- Constrained decoding (`get_structural_tag`, `_structural.py`): a dialect that the
  export writes (SPEC 12) declares a `structural_tag_model`, so that vLLM asks it for a
  structural tag and, with strict tool calling on (vLLM's default), reads `required`
  and named tool choices through this parser rather than its JSON path. A dialect that
  does not export, and `auto`, keep vLLM's defaults: no tag, the JSON path.
- With no reasoning parser configured, vLLM sets `skip_reasoning_parsing`: a reasoning
  region at the start (the dialect's format, SPEC 11) is then content, its raw text,
  and still no call comes from inside it (SPEC G3b). With one, the parser reads only
  what that parser leaves, and reads no region.
- `adjust_request` checks the request's tool schemas (SPEC 6.1: a bad one is vLLM's
  400, `VLLMValidationError`) and keeps special tokens in the text where the dialect's
  markup is special tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from toolparse._dialect import Dialect
from toolparse._errors import ToolparseError
from toolparse.openai._choice import ChoiceRewriter, Pieces
from toolparse.openai._parsers import make_parser, settings_from
from toolparse.vllm_plugin._common import (
    ObservedParser,
    StreamText,
    delta_message,
    dialect_terminals,
    keep_special_tokens,
    tool_dicts,
)
from toolparse.vllm_plugin._structural import exportable, structural_tag
from toolparse.vllm_plugin._vllm import (
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
    ToolParser,
    VLLMValidationError,
    envs,
)

__all__ = ["ToolparseToolParser"]


class ToolparseToolParser(ToolParser):  # type: ignore[misc, unused-ignore]  # vLLM's class (Any where vLLM is absent)
    """vLLM's `ToolParser` reading the dialect `dialect_name` with toolparse."""

    dialect_name: ClassVar[str] = "auto"
    """The dialect this class reads (a bundled name; `auto`: all of them)."""
    engine_based_streaming = True
    structural_tag_model: str | None = None
    """Set on each single-dialect class (`_registry.py`): vLLM asks a parser with one for
    a structural tag; None where the dialect does not export (see `__init__`)."""
    supports_required_and_named = True
    """vLLM's JSON path for `required` and named choices; vLLM turns it off for a class
    with a `structural_tag_model` under strict tool calling."""
    skip_reasoning_parsing = False
    """Set by vLLM when no reasoning parser is configured: regions are then content."""

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._dialect = Dialect.bundled(self.dialect_name)
        if self.structural_tag_model is not None and not exportable(self.dialect_name):
            # No tag to give: vLLM's defaults for a parser without one.
            self.structural_tag_model = None
            self.supports_required_and_named = True
        self._stream: tuple[StreamText, ChoiceRewriter] | None = None
        """The stream being read: its text, and the adapter's choice."""

    # ---- requests -----------------------------------------------------------------------

    def get_structural_tag(self, request: Any, *, reasoning: bool = False,
                           strict_level: Any = None) -> Any:
        """xgrammar's structural tag for the request's tools and `tool_choice` (SPEC 12),
        or None: vLLM's default (no tag) for a dialect or request the export cannot
        write, the reason logged. The tag constrains the arguments to each tool's schema
        whatever `strict` says (a call outside it would be rejected, SPEC 6)."""
        del reasoning, strict_level  # (vLLM 0.33 asks for the answer only)
        if self.structural_tag_model is None or not envs.VLLM_ENFORCE_STRICT_TOOL_CALLING:
            return None
        return structural_tag(self._dialect, request)

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if self._calls_wanted(request):
            try:
                self._choice(request)
            except ToolparseError as e:
                raise VLLMValidationError(f"toolparse cannot read the request's tools: {e}",
                                          parameter="tools") from e
        return keep_special_tokens(request, self.model_tokenizer,
                                   dialect_terminals(self._dialect))

    # ---- whole answers ------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """The calls of a whole answer, and its content (text outside forwarded calls)."""
        choice = self._choice(request)
        out = Pieces()
        choice.feed(model_output, out)
        choice.close(out)
        content = "".join(piece for piece in out.items if isinstance(piece, str))
        calls = [ToolCall(id=entry["id"], type="function",
                          function=FunctionCall(id=entry["id"], name=entry["function"]["name"],
                                                arguments=entry["function"]["arguments"]))
                 for piece in out.items if isinstance(piece, list) for entry in piece]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls,
                                            content=content or None)

    # ---- streams ------------------------------------------------------------------------

    def extract_tool_calls_streaming(self, previous_text: str, current_text: str,
                                     delta_text: str, previous_token_ids: Sequence[int],
                                     current_token_ids: Sequence[int],
                                     delta_token_ids: Sequence[int], request: Any) -> Any:
        """The delta to send for `delta_text` (None: nothing yet)."""
        if self._stream is None:
            self._stream = (StreamText(), self._choice(request))
        text, choice = self._stream
        out = Pieces()
        choice.feed(text.take(previous_text, current_text, delta_text), out)
        return delta_message(out)

    def finish_streaming(self) -> Any:
        """The end of the answer: what was held back goes out (None: nothing was). The
        instance can then read another stream."""
        if self._stream is None:
            return None
        _text, choice = self._stream
        self._stream = None
        out = Pieces()
        choice.close(out)
        return delta_message(out)

    # ---- parts --------------------------------------------------------------------------

    def _choice(self, request: Any) -> ChoiceRewriter:
        """A fresh reader for one answer to `request` (raises `SchemaError` for tools
        toolparse refuses, SPEC G9, G10)."""
        calls = self._calls_wanted(request)
        reasoning = "auto" if self.skip_reasoning_parsing else None
        settings = settings_from(
            tools=tool_dicts(getattr(request, "tools", None)) if calls else None,
            dialect=self._dialect, stream_arguments=False, on_rejected="content",
            id_factory=None, parser_options={"reasoning": reasoning},
            reasoning_field="reasoning")
        parser = ObservedParser(make_parser(settings), calls=calls,
                                regions_as_text=reasoning is not None)
        return ChoiceRewriter(parser, settings)

    def _calls_wanted(self, request: Any) -> bool:
        """Whether vLLM sends this request's calls as `tool_calls` from this parser:
        tools given, and `tool_choice` auto, or required or a named tool where vLLM
        hands those to the parser (`supports_required_and_named` false)."""
        if not getattr(request, "tools", None):
            return False
        choice = getattr(request, "tool_choice", None)
        return choice == "auto" or (not self.supports_required_and_named
                                    and choice not in ("none", None))
