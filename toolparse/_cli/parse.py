"""`toolparse parse`: stream a file through the parser and print the events.

Two formats. `pretty` writes the text exactly as it is and each block as a short frame
listing its calls, their status and, for a rejected call, the hint. `jsonl` writes one
JSON object per event, text merged (never a fragment per chunk):

    {"type": "text", "start": 0, "end": 14, "text": "Let me check.\n"}
    {"type": "text", "start": 14, "end": 40, "text": "<tool_calls>oops",
     "failure": {"reason": "unexpected_token", "start": 14, "end": 40, "at": 26,
                 "expected": ["INVOKE_OPEN"]}}
    {"type": "reasoning", "start": 0, "end": 24, "text": "the plan",
     "raw": "<think>the plan</think>"}
    {"type": "block", "start": 40, "end": 120, "accepted": true,
     "calls": [{"id": "call_...", "name": "read_file", "arguments": {"path": "a"},
                "status": "valid", "reason": null, "hint": null, "repair_rules": [],
                "json_errors": [], "start": 52, "end": 107}],
     "raw": "<tool_calls>..."}

Joining every record's `raw` (or, where it has none, its `text`) gives the input back.
A reasoning record (SPEC 11) holds the thinking, markers removed (`text`), and its
source (`raw`); `pretty` frames it apart from the answer. A text record is written
when its event is complete: when a block or a text with another failure follows, or at
the end of the input. `--id-prefix P` numbers the call ids `P1`, `P2`, ... instead of
drawing random ones, for output that is the same on every run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from toolparse._cli.common import (
    UsageError, add_dialect_options, add_reasoning_options, add_tool_options, chosen_dialect,
    positive_int, reasoning_options, tool_options,
)
from toolparse._dialect import resolve_dialect
from toolparse._errors import ConfigError, SchemaError
from toolparse._errors import UnknownDialectError
from toolparse._events import BlockFailure, Event, Reasoning, Text, ToolCall, ToolCallBlock
from toolparse._stream import StreamParser

__all__ = ["add_parser", "run"]

DEFAULT_CHUNK_SIZE = 4
"""`parse` feeds this many characters at a time by default: the size of a model delta."""

SHOWN_VALUE_CHARS = 160
"""`--format pretty` shortens an argument value longer than this (jsonl never does)."""


def add_parser(commands: Any) -> None:
    parse = commands.add_parser(
        "parse", help="stream a file through the parser and print the events",
        description="Stream a file (or standard input) through the parser, feeding it "
                    "--chunk-size characters at a time, and print each event as it comes.")
    parse.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="the model output to parse; - (the default) reads standard input")
    add_dialect_options(parse)
    add_reasoning_options(parse)
    add_tool_options(parse)
    parse.add_argument("--chunk-size", type=positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                       help=f"characters per feed() call (default {DEFAULT_CHUNK_SIZE})")
    parse.add_argument("--format", choices=("pretty", "jsonl"), default="pretty",
                       help="pretty: text as it is and each call as a short block; "
                            "jsonl: one JSON record per event, with offsets, statuses, "
                            "failures and ids (default pretty)")
    parse.add_argument("--id-prefix", metavar="PREFIX",
                       help="call ids PREFIX1, PREFIX2, ... instead of random ones")
    parse.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    dialect = chosen_dialect(args) or resolve_dialect("deepseek")
    options = tool_options(args)
    try:
        parser = StreamParser(dialect, id_factory=_numbered_ids(args.id_prefix), **options,
                              **reasoning_options(args))
    except SchemaError as error:
        raise UsageError(f"{args.tools}: {error}") from None
    except (UnknownDialectError, ConfigError) as error:
        raise UsageError(str(error)) from None
    # Standard input may be a live model stream: show each event as it is certain. A
    # file is read as fast as it goes; the output is flushed at the end.
    live = args.file == "-"
    printer = (_PrettyPrinter if args.format == "pretty" else _JsonlPrinter)(sys.stdout, live=live)
    with _input_text(args.file) as source:
        for chunk in _chunks(source, args.chunk_size):
            printer.show(parser.feed(chunk))
        printer.show(parser.close())
    printer.finish()
    return 0


def _numbered_ids(prefix: str | None) -> Callable[[], str] | None:
    if prefix is None:
        return None
    numbers = itertools.count(1)
    return lambda: f"{prefix}{next(numbers)}"


@contextlib.contextmanager
def _input_text(name: str) -> Iterator[TextIO]:
    """The input file (or standard input for `-`) as UTF-8 text with line endings kept
    as they are: a CRLF is two characters to the parser, as in the file."""
    if name == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream without bytes underneath (a test's StringIO)
            yield sys.stdin
            return
        stream = io.TextIOWrapper(buffer, encoding="utf-8", newline="")
        try:
            yield stream
        finally:
            stream.detach()  # leave sys.stdin's buffer open
        return
    try:
        file = open(name, encoding="utf-8", newline="")
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror or e}") from e
    with file:
        yield file


def _chunks(source: TextIO, size: int) -> Iterator[str]:
    try:
        while chunk := source.read(size):
            yield chunk
    except UnicodeDecodeError as e:
        raise UsageError(f"the input is not UTF-8 text ({e.reason} at byte {e.start} of a read)") from e


class _JsonlPrinter:
    """One JSON object per event (the module docstring shows them). Adjacent text with
    the same failure (or none) is one record, written once the next event shows it is
    complete."""

    def __init__(self, out: TextIO, *, live: bool) -> None:
        self.out = out
        self.live = live
        self.offset = 0
        """Stream offset of the next character."""
        self.text: list[str] = []
        """The pieces of the text record being gathered."""
        self.text_start = 0
        self.failure: BlockFailure | None = None
        """The failure of the text being gathered."""
        self.reasoning: list[Reasoning] = []
        """The pieces of the reasoning record being gathered, and where it starts."""
        self.reasoning_start = 0

    def show(self, events: list[Event]) -> None:
        written = False
        for event in events:
            if isinstance(event, Reasoning):
                written |= self._write_text()
                self._reasoning(event)
                continue
            written |= self._write_reasoning()
            if isinstance(event, Text):
                if not event.text:
                    continue
                if self.text and event.failure != self.failure:
                    written |= self._write_text()
                if not self.text:
                    self.text_start, self.failure = self.offset, event.failure
                self.text.append(event.text)
                self.offset += len(event.text)
            else:
                written |= self._write_text()
                self._write(block_record(event))
                self.offset = event.end
                written = True
        if self.live and written:
            self.out.flush()

    def finish(self) -> None:
        self._write_text()
        self._write_reasoning()
        self.out.flush()

    def _reasoning(self, event: Reasoning) -> None:
        if not self.reasoning:
            self.reasoning_start = self.offset
        self.reasoning.append(event)
        self.offset += len(event.raw)

    def _write_reasoning(self) -> bool:
        if not self.reasoning:
            return False
        text = "".join(piece.text for piece in self.reasoning)
        raw = "".join(piece.raw for piece in self.reasoning)
        self.reasoning = []
        self._write({"type": "reasoning", "start": self.reasoning_start,
                     "end": self.reasoning_start + len(raw), "text": text, "raw": raw})
        return True

    def _write_text(self) -> bool:
        if not self.text:
            return False
        text = "".join(self.text)
        self.text = []
        self._write(text_record(text, self.text_start, self.failure))
        return True

    def _write(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")


def text_record(text: str, start: int, failure: BlockFailure | None) -> dict[str, Any]:
    """The JSONL record of a text event at stream offset `start`."""
    record: dict[str, Any] = {"type": "text", "start": start, "end": start + len(text),
                              "text": text}
    if failure is not None:
        record["failure"] = {"reason": failure.reason, "start": failure.start,
                             "end": failure.end, "at": failure.at,
                             "expected": list(failure.expected)}
    return record


def block_record(block: ToolCallBlock) -> dict[str, Any]:
    """The JSONL record of a block: its span, whether it may run, its calls, its text."""
    return {"type": "block", "start": block.start, "end": block.end,
            "accepted": block.accepted, "calls": [call_record(c) for c in block.calls],
            "raw": block.raw}


def call_record(call: ToolCall) -> dict[str, Any]:
    """One call of a block record."""
    return {"id": call.id, "name": call.name, "arguments": call.arguments,
            "status": call.status, "reason": call.reason, "hint": call.hint,
            "repair_rules": list(call.repair.rules) if call.repair is not None else [],
            "json_errors": list(call.json_errors), "start": call.start, "end": call.end}


class _PrettyPrinter:
    """Text exactly as it is; each block as a short frame listing its calls, on lines
    of its own."""

    def __init__(self, out: TextIO, *, live: bool) -> None:
        self.out = out
        self.live = live
        self.at_line_start = True
        self.after_block = False
        """A frame was the last thing written; its last line is not ended yet, so that
        the line ending which followed the block in the text ends it."""
        self.in_thinking = False
        """A reasoning frame is open: its pieces are being written."""

    def show(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Reasoning):
                self._thinking(event.text)
                continue
            self._end_thinking()
            if isinstance(event, Text):
                if not event.text:
                    continue
                if self.after_block and not event.text.startswith(("\n", "\r")):
                    self.out.write("\n")
                self.out.write(event.text)
                self.at_line_start = event.text.endswith(("\n", "\r"))
                self.after_block = False
            else:
                if not self.at_line_start:
                    self.out.write("\n")
                self.out.write("\n".join(_block_lines(event)))
                self.at_line_start, self.after_block = False, True
        if self.live and events:
            self.out.flush()

    def finish(self) -> None:
        self._end_thinking()
        if self.after_block:
            self.out.write("\n")
        self.out.flush()

    def _thinking(self, text: str) -> None:
        """A piece of reasoning, framed apart from the answer: each of its lines behind
        `│ `, as it arrives."""
        if not self.in_thinking:
            if not self.at_line_start:
                self.out.write("\n")
            self.out.write("┌─ reasoning\n│ ")
            self.in_thinking = True
        self.out.write(text.replace("\r\n", "\n").replace("\n", "\n│ "))

    def _end_thinking(self) -> None:
        if self.in_thinking:
            self.out.write("\n└─\n")
            self.in_thinking = False
            self.at_line_start, self.after_block = True, False


def _block_lines(block: ToolCallBlock) -> Iterator[str]:
    count = len(block.calls)
    yield f"┌─ tool call block, characters {block.start}-{block.end}, {count} call{'s' * (count != 1)}"
    for call in block.calls:
        yield from _call_lines(call)
    yield "└─"


def _call_lines(call: ToolCall) -> Iterator[str]:
    status = "" if call.status == "unchecked" else f"  [{call.status}"
    if call.status == "rejected" and call.reason:
        status += f": {call.reason}"
    elif call.status == "repaired" and call.repair is not None and call.repair.rules:
        status += f": {', '.join(call.repair.rules)}"
    yield f"│ {call.name}" + (status + "]" if status else "")
    for key, value in call.arguments.items():
        yield f"│   {key} = {_short_json(value)}"
    if call.hint:
        yield f"│   hint: {call.hint}"


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= SHOWN_VALUE_CHARS:
        return text
    return f"{text[:SHOWN_VALUE_CHARS]}… ({len(text) - SHOWN_VALUE_CHARS} more characters)"
