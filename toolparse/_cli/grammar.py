"""`toolparse grammar export`: a dialect's grammar for a constrained-decoding engine
(SPEC 12, docs/export.md), written to standard output."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from toolparse._cli.common import UsageError, add_dialect_options, chosen_dialect, tool_options
from toolparse._export import MODES, TARGETS, export_grammar

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    grammar = commands.add_parser("grammar", help="grammars for constrained decoding")
    actions = grammar.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = actions.add_parser(
        "export", help="the grammar that makes a model write a dialect's calls to the tools")
    add_dialect_options(export, default_help="none: required")
    export.add_argument("--tools", metavar="FILE", required=True,
                        help='tool definitions (a JSON array, or a request body with a '
                             '"tools" array)')
    export.add_argument("--target", choices=TARGETS, default=TARGETS[0],
                        help=f"the engine's grammar format; default: {TARGETS[0]}")
    export.add_argument("--mode", choices=MODES, default="auto",
                        help="auto: free text, then blocks; required: one block")
    export.set_defaults(run=run, model=None, repair=None)


def run(args: argparse.Namespace) -> int:
    dialect = chosen_dialect(args)
    if dialect is None:
        raise UsageError("grammar export needs --dialect NAME or --grammar PATH")
    tools = tool_options(args)["tools"]
    sys.stdout.write(export_grammar(dialect, tools, target=args.target, mode=args.mode))
    return 0
