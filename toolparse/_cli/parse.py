"""`toolparse parse`: stream a file through the parser and print the events."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO
import argparse

from toolparse import corpus
from toolparse._cli.common import UsageError, add_dialect_options, chosen_dialect, positive_int
from toolparse._dialect import resolve_dialect
from toolparse._events import Event, Text, ToolCall, ToolCallBlock
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
    parse.add_argument("--chunk-size", type=positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                       help=f"characters per feed() call (default {DEFAULT_CHUNK_SIZE})")
    parse.add_argument("--format", choices=("pretty", "jsonl"), default="pretty",
                       help="pretty: text as it is and each call as a short block; "
                            "jsonl: one event per line, in the corpus format (default pretty)")
    parse.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    dialect = chosen_dialect(args) or resolve_dialect("deepseek")
    parser = StreamParser(dialect)
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
    """One JSON object per event, in the corpus's expected-file format. Text is merged
    within one feed() call's events, not across calls (that would delay it)."""

    def __init__(self, out: TextIO, *, live: bool) -> None:
        self.out = out
        self.live = live

    def show(self, events: list[Event]) -> None:
        for record in corpus.event_records(events):
            self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        if self.live and events:
            self.out.flush()

    def finish(self) -> None:
        self.out.flush()


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

    def show(self, events: list[Event]) -> None:
        for event in events:
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
        if self.after_block:
            self.out.write("\n")
        self.out.flush()


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
    yield f"│ {call.name}" + (status + "]" if status else "")
    for key, value in call.arguments.items():
        yield f"│   {key} = {_short_json(value)}"


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= SHOWN_VALUE_CHARS:
        return text
    return f"{text[:SHOWN_VALUE_CHARS]}… ({len(text) - SHOWN_VALUE_CHARS} more characters)"
