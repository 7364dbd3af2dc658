"""The command line: thin loops around the sans-I/O parser and `toolparse.corpus`.

    toolparse --version
    toolparse parse [FILE|-] [--dialect NAME | --grammar PATH] [--chunk-size N]
                    [--tools FILE [--model ROUTE] [--repair FILE]]
                    [--format pretty|jsonl] [--id-prefix PREFIX]
    toolparse corpus [PATH ...] [--update | --check] [--dialect NAME | --grammar PATH]
    toolparse dialects
    toolparse bench [--grammar PATH] [--quick] [--json PATH] ...
    toolparse grammar export (--dialect NAME | --grammar PATH) --tools FILE
                    [--target llguidance|structural_tag] [--mode auto|required]

Exit status (docs/cli.md lists each command's): 0 on success; 1 when corpus cases fail
(or `--check` finds expected files out of date) or a benchmark check fails; 2 for bad
use (an unknown option, a flag's value out of range, a missing file, an unknown
dialect, a grammar that does not load, a tools file that is not a list of valid
definitions, a scan output that is one of its inputs), with one line on standard
error; 3 when `serve` cannot start listening (uvicorn's status); 130 when interrupted
(Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import toolparse
from toolparse._cli import bench, corpus, dialects, grammar, parse, scan, serve
from toolparse._cli.common import UsageError
from toolparse._errors import ToolparseError

__all__ = ["main"]

COMMANDS = (parse, corpus, dialects, bench, serve, scan, grammar)
"""The subcommands, in the order `--help` lists them: each module adds its parser."""

FORWARDS_UNKNOWN = {"bench"}
"""Commands whose unknown arguments are their own options (the benchmark's)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`); return the exit status."""
    parser = _argument_parser()
    try:
        # Unknown arguments are the benchmark's own options; anywhere else they are errors.
        args, unknown = parser.parse_known_args(argv)
        if unknown and args.command not in FORWARDS_UNKNOWN:
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
    except KeyboardInterrupt:
        print("toolparse: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `toolparse parse big.txt | head`: the reader left. Stop quietly, and point
        # stdout at /dev/null so the interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolparse", description="Find tool calls in streaming LLM output.",
        epilog="Exit status: 0 success, 1 failing corpus cases or benchmark checks, 2 bad "
               "use, 3 serve could not listen, 130 interrupted (docs/cli.md).")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


class _Version(argparse.Action):
    """`--version`: the installed version and build, as `toolparse.build_info()` says
    them in one line. Found when asked, so that other commands do not look."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help="show the installed version, its build (compiled or pure) and "
                              "its Python, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        print(toolparse.build_info())
        parser.exit()
