"""The command line: thin loops around the sans-I/O parser and `toolparse.corpus`.

    toolparse parse [FILE|-] [--dialect NAME | --grammar PATH] [--chunk-size N]
                    [--format pretty|jsonl]
    toolparse corpus [PATH ...] [--update | --check] [--dialect NAME | --grammar PATH]
    toolparse dialects
    toolparse bench [--grammar PATH] [--quick] [--json PATH] ...

Exit status: 0 on success, 1 when corpus cases fail (or `--check` finds expected files
out of date), 2 for bad use (a missing file, an unknown dialect, a grammar that does
not load), with a message on standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from toolparse import corpus
from toolparse._dialect import Dialect, bundled_dialects, resolve_dialect
from toolparse._errors import ToolparseError
from toolparse._events import Event, Text, ToolCall, ToolCallBlock
from toolparse._stream import StreamParser

__all__ = ["main"]

DEFAULT_CHUNK_SIZE = 4
"""`parse` feeds this many characters at a time by default: the size of a model delta."""

SHOWN_VALUE_CHARS = 160
"""`--format pretty` shortens an argument value longer than this (jsonl never does)."""


class UsageError(Exception):
    """Bad use of the command line: reported on standard error with exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`); return the exit status."""
    parser = _argument_parser()
    try:
        # Unknown arguments are the benchmark's own options; anywhere else they are errors.
        args, unknown = parser.parse_known_args(argv)
        if unknown and args.command != "bench":
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        args.forwarded = unknown
    except SystemExit as e:  # argparse reports bad use itself (status 2) and --help (0)
        return e.code if isinstance(e.code, int) else 2
    try:
        status: int = args.run(args)
        return status
    except (UsageError, ToolparseError) as e:
        print(f"toolparse: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `toolparse parse big.txt | head`: the reader left. Stop quietly, and point
        # stdout at /dev/null so the interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolparse", description="Find tool calls in streaming LLM output.",
        epilog="Exit status: 0 success, 1 failing corpus cases, 2 bad use.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    parse = commands.add_parser(
        "parse", help="stream a file through the parser and print the events",
        description="Stream a file (or standard input) through the parser, feeding it "
                    "--chunk-size characters at a time, and print each event as it comes.")
    parse.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="the model output to parse; - (the default) reads standard input")
    _add_dialect_options(parse)
    parse.add_argument("--chunk-size", type=_positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                       help=f"characters per feed() call (default {DEFAULT_CHUNK_SIZE})")
    parse.add_argument("--format", choices=("pretty", "jsonl"), default="pretty",
                       help="pretty: text as it is and each call as a short block; "
                            "jsonl: one event per line, in the corpus format (default pretty)")
    parse.set_defaults(run=_run_parse)

    run_corpus = commands.add_parser(
        "corpus", help="run the corpus regression suite",
        description="Run corpus cases (the bundled corpus by default) whole, one character "
                    "at a time and at three seeded random chunkings; print the diffs of "
                    "failures and a summary table. Exit status 1 on any failure.")
    run_corpus.add_argument("paths", nargs="*", metavar="PATH",
                            help="corpus directories, group directories or .txt case files")
    mode = run_corpus.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true",
                      help="write the expected files from the current behaviour; print what changed")
    mode.add_argument("--check", action="store_true",
                      help="fail (status 1) if --update would change any expected file")
    _add_dialect_options(run_corpus, default_help="each case's own dialect (meta.json)")
    run_corpus.set_defaults(run=_run_corpus)

    dialects = commands.add_parser("dialects", help="list the bundled dialects and their grammar files")
    dialects.set_defaults(run=_run_dialects)

    # The benchmarks own their options (`toolparse bench --help` lists them): every
    # argument after `bench` goes to toolparse._bench.main unchanged.
    bench = commands.add_parser(
        "bench", add_help=False, help="run the benchmarks (toolparse._bench)",
        usage="toolparse bench [--grammar PATH] [--quick] [--json PATH] ...")
    bench.set_defaults(run=_run_bench)
    return parser


def _add_dialect_options(parser: argparse.ArgumentParser, default_help: str = "deepseek") -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dialect", metavar="NAME",
                       help=f"a bundled dialect (`toolparse dialects`); default: {default_help}")
    group.add_argument("--grammar", metavar="PATH", help="a grammar file, such as an edited copy")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _chosen_dialect(args: argparse.Namespace) -> Dialect | None:
    """The dialect `--dialect` or `--grammar` names, loaded (errors say file, line, rule)."""
    if args.grammar is not None:
        return Dialect.from_file(args.grammar)
    if args.dialect is not None:
        return resolve_dialect(args.dialect)
    return None


# ---- parse -----------------------------------------------------------------------------

def _run_parse(args: argparse.Namespace) -> int:
    dialect = _chosen_dialect(args) or resolve_dialect("deepseek")
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


# ---- corpus ----------------------------------------------------------------------------

def _run_corpus(args: argparse.Namespace) -> int:
    dialect = _chosen_dialect(args)
    cases = corpus.find_cases(*args.paths)
    if not cases:
        raise UsageError("no corpus cases (*.txt) found in " + (", ".join(args.paths) or "the bundled corpus"))
    if args.update or args.check:
        return _update_corpus(cases, dialect, write=args.update)
    results = [corpus.run_case(case, dialect) for case in cases]
    failures = [r for r in results if not r.passed]
    for result in failures:
        print(result.report(), end="\n\n")
    print(corpus.summary_table(results))
    return 1 if failures else 0


def _update_corpus(cases: list[corpus.Case], dialect: Dialect | None, *, write: bool) -> int:
    updates = [corpus.update_case(case, dialect, write=write) for case in cases]
    changed = [u for u in updates if u.changed]
    unstable = [u for u in updates if u.unstable]
    for update in changed:
        print(update.diff, end="\n\n")
    for update in unstable:
        print(f"{update.case.id}: chunkings {', '.join(update.unstable)} give other events "
              "than the whole text (SPEC G2); the expected file records the whole-text parse")
    verb = "updated" if write else "out of date"
    print(f"{len(cases)} cases, {len(changed)} expected files {verb}"
          + (f", {len(unstable)} with chunking-dependent events" if unstable else ""))
    if write:
        return 1 if unstable else 0
    return 1 if changed or unstable else 0


# ---- dialects and bench ----------------------------------------------------------------

def _run_dialects(args: argparse.Namespace) -> int:
    available = bundled_dialects()
    width = max((len(name) for name in available), default=0)
    for name, path in available.items():
        print(f"{name:<{width}}  {path}")
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    try:
        bench = importlib.import_module("toolparse._bench")
    except ModuleNotFoundError as e:
        if e.name != "toolparse._bench":
            raise
        raise UsageError("the benchmarks are not available in this installation "
                         "(no module toolparse._bench)") from None
    run = getattr(bench, "main", None)
    if run is None:
        raise UsageError("toolparse._bench has no main(); the benchmarks are not ready")
    status: int = run(list(args.forwarded))
    return status
