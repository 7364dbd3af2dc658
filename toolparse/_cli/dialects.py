"""`toolparse dialects`: list the bundled dialects, each with its grammar file and what
it accepts (the grammar's first comment line); then `auto`, which reads them all at
once, and the bundled reasoning formats."""

from __future__ import annotations

import argparse
from typing import Any

from toolparse._dialect import Dialect
from toolparse._dialect.loader import AUTO, dialects
from toolparse._reasoning import reasoning_formats

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    listing = commands.add_parser(
        "dialects", help="list the bundled dialects, their grammar files and what they accept")
    listing.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    names = dialects()
    width = max((len(name) for name in (*names, AUTO)), default=0)
    for name in names:
        dialect = Dialect.bundled(name)
        print(f"{name:<{width}}  {dialect.path}")
        if dialect.description:
            print(f"{'':<{width}}  {dialect.description}")
    print(f"{AUTO:<{width}}  (every grammar above)")
    print(f"{'':<{width}}  {Dialect.bundled(AUTO).description}: for a route that serves "
          "models of several families (toolparse serve)")
    print(f"\nreasoning formats (--reasoning): {', '.join(reasoning_formats())}")
    return 0
