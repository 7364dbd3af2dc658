"""One input record in, one output record out: the `Scanner`.

A `Scanner` does once what every record would otherwise pay for (SPEC 10, issue 16):
the dialect is loaded and the tool policy checked when it is built, not per record; a
text in which the dialect's block-start search finds nothing is one `Text` without
running the engine (the engine searches with the same pattern, so it would give exactly
that); and a parse builds no `ParseResult` (the record needs only the events).

The output record is plain JSON data with every key always present (docs/scan.md,
"Record format"), identical whichever process or machine made it: call ids come from
an `id_factory` seeded by the record's line and text, never from a random source.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from toolparse._calls import CallPolicy, make_policy
from toolparse._dialect import Dialect, resolve_dialect
from toolparse._events import BlockFailure, Event, Reasoning, Text, ToolCall, ToolCallBlock
from toolparse._scan.compare import Lines, Markup, compare
from toolparse._scan.explain import code_calls, failed_tags, reasoning_calls
from toolparse._scan.fields import RecordError, answer_text, record_id, recorded_calls
from toolparse._scan.options import ScanOptions
from toolparse._stream import StreamParser
from toolparse._stream.options import regions_for

__all__ = ["Scanner", "TooLong", "error_record"]


@dataclass(frozen=True, slots=True)
class TooLong:
    """An input line longer than the reader's limit, skipped without being held."""

    size: int
    """Its length in bytes (at least the limit)."""
    limit: int


def error_record(source: str | None, line: int, reason: str, message: str,
                 ident: str | None = None) -> dict[str, Any]:
    """The record for an input that could not be scanned (never fatal)."""
    return {"source": source, "line": line, "id": ident,
            "error": {"reason": reason, "message": message}, "chars": 0, "calls": [],
            "failures": [], "truncated": False, "reasoning_chars": 0, "reasoning_calls": [],
            "recorded": None, "differences": None}


class Scanner:
    """Scans records with one set of options; build one per process."""

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self.field, self.recorded_path, self.id_path = options.paths()
        self.dialect: Dialect = (Dialect.from_file(options.grammar) if options.grammar
                                 else resolve_dialect(options.dialect))
        self.policy: CallPolicy | None = (make_policy(options.tools, None, None)
                                          if options.tools is not None else None)
        self.tool_names = frozenset(self.policy.schemas) if self.policy is not None else None
        self._new_parser = _parser_factory(self.dialect, self.policy, options)
        self._has_block_start = self.dialect._has_block_start
        regions = regions_for(self.dialect, options.reasoning, options.in_reasoning)
        self._may_think = (regions.may_open if regions is not None and not options.in_reasoning
                           else (_always if regions is not None else _never))

    def scan(self, item: Any, source: str | None, line: int) -> dict[str, Any]:
        """The output record for one input: a JSONL line (str or bytes), a decoded
        record (a mapping), or a `TooLong` marker."""
        try:
            record = _decode(item)
        except RecordError as error:
            return error_record(source, line, error.reason, error.message)
        ident = record_id(record, self.id_path)
        try:
            text, message = answer_text(record, self.field)
            recorded = (recorded_calls(record, self.recorded_path, self.field, message)
                        if self.options.compare_recorded is not None else None)
        except RecordError as error:
            return error_record(source, line, error.reason, error.message, ident)
        events = self._events(text, line)
        calls, failures, truncated = _findings(events)
        lines = Lines(text)
        thinking = sum(len(e.text) for e in events if isinstance(e, Reasoning))
        quoted = reasoning_calls(events, self.dialect) if thinking else []
        out: dict[str, Any] = {
            "source": source, "line": line, "id": ident, "error": None, "chars": len(text),
            "calls": [_call_record(call, n, block, lines) for n, (call, block) in enumerate(calls)],
            "failures": [_failure_record(failure, lines) for failure in failures],
            "truncated": truncated, "reasoning_chars": thinking,
            "reasoning_calls": [{"name": q.name, "arguments": _json_text(q.arguments),
                                 "start": q.start, "line": lines.of(q.start)} for q in quoted],
            "recorded": None, "differences": None}
        if recorded is not None:
            markup = Markup(code=lambda: code_calls(text, events, self.dialect),
                            failed=lambda: failed_tags(text, failures, self.dialect),
                            lines=lines, tool_names=self.tool_names, reasoning=quoted)
            out["recorded"] = len(recorded)
            out["differences"] = compare(recorded, [call for call, _ in calls], markup)
        return out

    def _events(self, text: str, line: int) -> list[Event]:
        if not self._has_block_start(text) and not self._may_think(text):
            # No block-start tag anywhere (the engine's SCAN mode searches with the same
            # pattern): the engine would give exactly this one Text.
            return [Text(text)] if text else []
        parser = self._new_parser(_call_ids(text, line))
        return parser.feed(text) + parser.close()


def _parser_factory(dialect: Dialect, policy: CallPolicy | None, options: ScanOptions,
                    ) -> Callable[[Callable[[], str]], StreamParser]:
    """How to make a record's parser. With tools, the policy checked once is handed to
    each parser (`tools=` takes a checked `CallPolicy` as it is)."""
    max_capture = options.max_capture

    def new_parser(new_id: Callable[[], str]) -> StreamParser:
        return StreamParser(dialect, max_capture=max_capture, tools=cast(Any, policy),
                            id_factory=new_id, reasoning=options.reasoning,
                            in_reasoning=options.in_reasoning)

    return new_parser


def _no_id() -> str:
    return ""


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (ValueError, RecursionError):  # G11 says this cannot happen; never fatal anyway
        return "null"


def _always(text: str) -> bool:
    return True


def _never(text: str) -> bool:
    return False


def _call_ids(text: str, line: int) -> Callable[[], str]:
    """Deterministic call ids for one record: `call_` and 24 hex digits, a hash of the
    record's line, the text and the call's number (hashed only if a call is made)."""
    state: list[Any] = [None, 0]

    def new_id() -> str:
        if state[0] is None:
            state[0] = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        number = state[1]
        state[1] = number + 1
        seed = state[0] + f":{line}:{number}".encode("ascii")
        return "call_" + hashlib.blake2b(seed, digest_size=12).hexdigest()
    return new_id


def _decode(item: Any) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    if isinstance(item, TooLong):
        raise RecordError("too_long", f"the line is {item.size} bytes, over the limit of "
                                      f"{item.limit}; it was skipped")
    if isinstance(item, (bytes, bytearray)):
        try:
            item = bytes(item).decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError("not_utf8", "the line is not UTF-8 text") from None
    elif isinstance(item, str):
        try:
            item.encode("utf-8")   # text read with errors="surrogateescape" (dask)
        except UnicodeEncodeError:
            raise RecordError("not_utf8", "the line is not UTF-8 text") from None
    else:
        raise RecordError("not_object", f"the input is a {type(item).__name__}, not a JSON "
                                        "line or a record")
    try:
        # Without its line ending, so that the message for a line cut short is the same
        # whoever split the lines (this reader, dask's, the caller's).
        value = json.loads(item.rstrip("\r\n"))
    except ValueError as error:
        raise RecordError("invalid_json", f"the line is not JSON ({error})") from None
    except RecursionError:
        raise RecordError("invalid_json", "the line is not JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise RecordError("not_object", "the line is JSON but not an object")
    return value


def _findings(events: list[Event]) -> tuple[list[tuple[ToolCall, int]], list[BlockFailure], bool]:
    calls: list[tuple[ToolCall, int]] = []
    failures: dict[BlockFailure, None] = {}
    block = 0
    for event in events:
        if isinstance(event, ToolCallBlock):
            calls.extend((call, block) for call in event.calls)
            block += 1
        elif isinstance(event, Text) and event.failure is not None:
            failures[event.failure] = None
    found = list(failures)
    return calls, found, any(failure.reason == "truncated" for failure in found)


def _call_record(call: ToolCall, index: int, block: int, lines: Lines) -> dict[str, Any]:
    try:
        arguments = call.arguments_json
    except (ValueError, RecursionError):  # G11 says this cannot happen; never fatal anyway
        arguments = "null"
    return {"index": index, "id": call.id, "name": call.name, "arguments": arguments,
            "status": call.status, "reason": call.reason, "start": call.start, "end": call.end,
            "line": lines.of(call.start), "block": block}


def _failure_record(failure: BlockFailure, lines: Lines) -> dict[str, Any]:
    return {"reason": failure.reason, "start": failure.start, "end": failure.end,
            "at": failure.at, "line": lines.of(failure.start),
            "expected": list(failure.expected)}
