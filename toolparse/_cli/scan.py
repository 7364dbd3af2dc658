"""`toolparse scan`: audit transcript archives (SPEC 10; docs/scan.md).

Inputs are read in bounded batches, scanned in `--jobs` worker processes, and written
in input order as they come back (`toolparse._scan.pool`): one output record per input
record, JSONL or Parquet. The summary table goes to standard error at the end; a
progress bar too, while it runs, when standard error is a terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from toolparse._cli.common import (
    MAX_PROCESSES, UsageError, add_reasoning_options, positive_int, processes, reasoning_options)
from toolparse._errors import ConfigError, SchemaError, UnknownDialectError
from toolparse._scan import pool
from toolparse._scan.arrow import ParquetSink, require_pyarrow
from toolparse._scan.fields import AUTO
from toolparse._scan.inputs import MAX_RECORD_BYTES, PARQUET_SUFFIXES, Input, open_inputs
from toolparse._scan.options import ScanOptions, load_tools
from toolparse._scan.output import check_not_an_input, replacing
from toolparse._scan.progress import Progress
from toolparse._scan.record import Scanner
from toolparse._scan.summary import Summary
from toolparse._scan.work import OutputFormat

__all__ = ["add_parser", "run"]

def add_parser(commands: Any) -> None:
    scan = commands.add_parser(
        "scan", help="audit transcript archives: calls, failures, differences from recorded calls",
        description="Parse the answer text of every record of JSONL or Parquet transcript "
                    "archives and write one record per input: the calls found with their "
                    "status, the failed blocks with their reasons, and with --compare-recorded "
                    "how the recorded tool calls differ, each with a reason. docs/scan.md "
                    "defines the record format.")
    scan.add_argument("inputs", nargs="+", metavar="INPUT",
                      help="JSONL or Parquet files; - reads JSONL from standard input")
    scan.add_argument("--field", metavar="PATH",
                      help="dotted path to the answer text (default: the assistant message's "
                           "content, found in the common shapes)")
    scan.add_argument("--compare-recorded", metavar="PATH",
                      help="dotted path to the recorded tool calls (OpenAI tool_calls shape); "
                           f"'{AUTO}': the tool_calls beside the answer text")
    scan.add_argument("--id-field", metavar="PATH", default="id",
                      help="dotted path to each record's own id (default: id)")
    dialect = scan.add_mutually_exclusive_group()
    dialect.add_argument("--dialect", metavar="NAME", default="deepseek",
                         help="a bundled dialect (default: deepseek)")
    dialect.add_argument("--grammar", metavar="PATH", help="a grammar file, such as an edited copy")
    add_reasoning_options(scan)
    scan.add_argument("--tools", metavar="FILE",
                      help="a JSON list of OpenAI-style tool definitions to check calls against")
    scan.add_argument("--jobs", type=processes, default=_cores(), metavar="N",
                      help=f"worker processes, 1 to {MAX_PROCESSES} (default: every core, "
                           f"here {_cores()})")
    scan.add_argument("--format", choices=("jsonl", "parquet"),
                      help="output format (default: parquet when OUT ends in .parquet, else jsonl)")
    scan.add_argument("-o", "--output", metavar="OUT", default="-",
                      help="output file (default: standard output, JSONL only)")
    scan.add_argument("--max-record-bytes", type=positive_int, default=MAX_RECORD_BYTES,
                      metavar="N", help="a longer JSONL line is a too_long error record "
                                        f"(default {MAX_RECORD_BYTES})")
    scan.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    scan.add_argument("-q", "--quiet", action="store_true", help="no summary table")
    scan.set_defaults(run=run)


def _cores() -> int:
    """The cores this process may use (at most `MAX_PROCESSES`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        cores = os.cpu_count() or 1
    return min(cores, MAX_PROCESSES)


def run(args: argparse.Namespace) -> int:
    check_not_an_input(args.output, args.inputs)   # before anything is opened
    options = _options(args)
    try:
        Scanner(options)           # bad options fail here, before any worker starts
    except SchemaError as error:
        raise UsageError(f"{args.tools}: {error}") from None
    except (UnknownDialectError, ConfigError) as error:
        raise UsageError(str(error)) from None
    output_format = _output_format(args)
    inputs = open_inputs(args.inputs)
    if sum(source.path is None for source in inputs) > 1:
        raise UsageError("standard input (-) can be read only once")
    started = time.perf_counter()
    summary = Summary()
    known = [source.size for source in inputs]
    progress = Progress(None if None in known else sum(s or 0 for s in known),
                        enabled=not args.no_progress)
    try:
        with _sink(args.output, output_format) as write:
            batches = (batch for source in inputs for batch in source.batches(args.max_record_bytes))
            for result in pool.scan_batches(batches, options, output_format, args.jobs):
                write(result.output)
                summary.merge(result.summary)
                progress.advance(result.size, result.summary.records)
    finally:
        progress.close()
    if not args.quiet:
        _print_summary(summary, inputs, args.jobs, time.perf_counter() - started)
    return 0


def _options(args: argparse.Namespace) -> ScanOptions:
    tools = load_tools(args.tools) if args.tools is not None else None
    return ScanOptions(field=args.field, compare_recorded=args.compare_recorded,
                       id_field=args.id_field or None, dialect=args.dialect,
                       grammar=args.grammar, tools=tools, **reasoning_options(args))


def _output_format(args: argparse.Namespace) -> OutputFormat:
    chosen: OutputFormat
    if args.format is not None:
        chosen = args.format
    else:
        chosen = "parquet" if args.output.lower().endswith(PARQUET_SUFFIXES) else "jsonl"
    if chosen == "parquet":
        if args.output == "-":
            raise UsageError("--format parquet needs -o FILE (Parquet is not written to a pipe)")
        require_pyarrow()
    return chosen


@contextlib.contextmanager
def _sink(name: str, output_format: OutputFormat) -> Iterator[Any]:
    """A function that writes one batch's output, in the chosen format. A file is
    written under a temporary name and renamed into place at the end (`replacing`)."""
    if name == "-":
        yield sys.stdout.buffer.write
        sys.stdout.buffer.flush()
        return
    with _new_output(name) as temporary:
        if output_format == "parquet":
            sink = ParquetSink(temporary)
            try:
                yield sink.write
            finally:
                sink.close()
            return
        with open(temporary, "wb") as stream:
            yield stream.write


@contextlib.contextmanager
def _new_output(name: str) -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        try:
            temporary = stack.enter_context(replacing(name))
        except OSError as error:
            raise UsageError(f"cannot write {name}: {error.strerror or error}") from None
        yield temporary


def _print_summary(summary: Summary, inputs: list[Input], jobs: int, seconds: float) -> None:
    rate = summary.records / seconds if seconds > 0 else 0.0
    count = len(inputs)
    print(f"toolparse scan: {summary.records:,} records from {count} input{'s' * (count != 1)} "
          f"in {seconds:.2f} s ({rate:,.0f} records/s, {jobs} job{'s' * (jobs != 1)})",
          file=sys.stderr)
    print(summary.table(), file=sys.stderr)
