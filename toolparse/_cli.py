"""The command line: a thin loop around the sans-I/O parser.

    toolparse parse [FILE|-] [--chunk-size N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from toolparse._errors import ToolparseError
from toolparse._events import Text, ToolCallBlock
from toolparse._stream import StreamParser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolparse", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    parse = commands.add_parser("parse", help="stream a file through the parser and print the events")
    parse.add_argument("file", nargs="?", default="-")
    parse.add_argument("--chunk-size", type=int, default=4)
    args = parser.parse_args(argv)
    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    except OSError as e:
        print(f"toolparse: {e}", file=sys.stderr)
        return 2
    try:
        stream = StreamParser()
        size = max(1, args.chunk_size)
        events = [e for i in range(0, len(text), size) for e in stream.feed(text[i:i + size])]
        events += stream.close()
    except ToolparseError as e:
        print(f"toolparse: {e}", file=sys.stderr)
        return 2
    for event in events:
        if isinstance(event, Text):
            print(json.dumps({"text": event.text}, ensure_ascii=False))
        elif isinstance(event, ToolCallBlock):
            print(json.dumps({"calls": [{"name": c.name, "arguments": c.arguments} for c in event.calls],
                              "raw": event.raw}, ensure_ascii=False))
    return 0
