"""What the commands share: bad-use errors, and the dialect options."""

from __future__ import annotations

import argparse

from toolparse._dialect import Dialect, resolve_dialect

__all__ = ["UsageError", "add_dialect_options", "chosen_dialect", "positive_int"]


class UsageError(Exception):
    """Bad use of the command line: reported on standard error with exit status 2."""


def add_dialect_options(parser: argparse.ArgumentParser, default_help: str = "deepseek") -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dialect", metavar="NAME",
                       help=f"a bundled dialect (`toolparse dialects`); default: {default_help}")
    group.add_argument("--grammar", metavar="PATH", help="a grammar file, such as an edited copy")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def chosen_dialect(args: argparse.Namespace) -> Dialect | None:
    """The dialect `--dialect` or `--grammar` names, loaded (errors say file, line, rule)."""
    if args.grammar is not None:
        return Dialect.from_file(args.grammar)
    if args.dialect is not None:
        return resolve_dialect(args.dialect)
    return None
