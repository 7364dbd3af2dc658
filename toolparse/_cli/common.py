"""What the commands share: bad-use errors, the dialect options and the tool options."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from toolparse._dialect import Dialect, resolve_dialect
from toolparse._errors import ConfigError

__all__ = ["MAX_PROCESSES", "MAX_SECONDS", "MAX_SIZE", "UsageError", "add_dialect_options",
           "add_reasoning_options", "add_tool_options", "chosen_dialect", "port",
           "positive_int", "processes", "reasoning_options", "seconds", "tool_options",
           "whole_number"]


class UsageError(Exception):
    """Bad use of the command line: reported on standard error with exit status 2."""


def add_dialect_options(parser: argparse.ArgumentParser, default_help: str = "deepseek") -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dialect", metavar="NAME",
                       help=f"a bundled dialect (`toolparse dialects`); default: {default_help}")
    group.add_argument("--grammar", metavar="PATH", help="a grammar file, such as an edited copy")


def add_reasoning_options(parser: argparse.ArgumentParser) -> None:
    """`--reasoning NAME|auto|none` and `--in-reasoning`: the `reasoning=` and
    `in_reasoning=` options of the parser (SPEC 11)."""
    parser.add_argument("--reasoning", metavar="NAME", default="auto",
                        help="the reasoning format (`toolparse dialects` lists them): auto "
                             "(the dialect's own, the default), a format's name, or none")
    parser.add_argument("--in-reasoning", action="store_true",
                        help="the text starts inside a reasoning region (the prompt opened "
                             "it)")


def reasoning_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments `--reasoning` and `--in-reasoning` ask for."""
    reasoning = None if args.reasoning == "none" else args.reasoning
    return {"reasoning": reasoning, "in_reasoning": args.in_reasoning}


MAX_PROCESSES: Final = 256
"""The most processes `--jobs` and `--workers` start: each is a Python process with the
parser loaded, and past the machine's cores more only share them."""

MAX_SIZE: Final = 1 << 30
"""The largest byte or character count a size flag takes (1 GiB): each is a bound on
what one record, body or chunk may hold in memory."""

MAX_SECONDS: Final = 86_400.0
"""The longest time-out a flag takes (a day)."""

MAX_PORT: Final = 65_535


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type` for a whole number from `low` to `high` (a usage error,
    exit status 2, naming the flag and the range, for anything else)."""

    def parsed(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {_shown(text)}")
        return value

    return parsed


positive_int = whole_number(1, MAX_SIZE)
"""A count or size: from 1 to `MAX_SIZE`."""

processes = whole_number(1, MAX_PROCESSES)
"""A number of processes: from 1 to `MAX_PROCESSES`."""

port = whole_number(1, MAX_PORT)
"""A TCP port to listen on: from 1 to 65535 (0, "any free port", is refused: the
clients of a server must know its port)."""


def seconds(text: str) -> float:
    """An argparse `type` for a time-out: more than 0, at most `MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {_shown(text)}") from None
    if not 0 < value <= MAX_SECONDS:   # also refuses nan and inf
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {MAX_SECONDS:g} seconds, not {_shown(text)}")
    return value


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 24 else repr(text[:20] + "...")


def chosen_dialect(args: argparse.Namespace) -> Dialect | None:
    """The dialect `--dialect` or `--grammar` names, loaded (errors say file, line, rule)."""
    if args.grammar is not None:
        return Dialect.from_file(args.grammar)
    if args.dialect is not None:
        return resolve_dialect(args.dialect)
    return None


def add_tool_options(parser: argparse.ArgumentParser) -> None:
    """`--tools FILE`, `--model ROUTE` and `--repair FILE`: the `tools=`, `model=` and
    `repair=` options of the parser (SPEC 6), read from files."""
    parser.add_argument("--tools", metavar="FILE",
                        help="tool definitions (a JSON array, or a request body with a "
                             '"tools" array): calls are typed by their schemas, validated '
                             "and repaired")
    parser.add_argument("--model", metavar="ROUTE",
                        help="the model route, for the repair rules configured for some "
                             "models (needs --tools)")
    parser.add_argument("--repair", metavar="FILE",
                        help="a JSON object of RepairConfig fields, snake_case or camelCase "
                             "(needs --tools)")


def tool_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments `--tools`, `--model` and `--repair` ask for (empty when no
    tools were given). Files that cannot be read or have the wrong shape are bad use."""
    if args.tools is None:
        for flag in ("model", "repair"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag} needs --tools: calls are checked and repaired "
                                 "against the tools' schemas")
        return {}
    tools = _read_json_file(args.tools)
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        tools = tools["tools"]          # a saved chat-completions request
    if not isinstance(tools, list):
        raise UsageError(f"{args.tools}: expected a JSON array of tool definitions, or an "
                         'object with a "tools" array')
    options: dict[str, Any] = {"tools": tools, "model": args.model}
    if args.repair is not None:
        from toolparse._calls.repair import RepairConfig

        mapping = _read_json_file(args.repair)
        try:
            options["repair"] = RepairConfig.from_mapping(mapping)
        except ConfigError as error:
            raise UsageError(f"{args.repair}: {error}") from None
    return options


def _read_json_file(name: str) -> Any:
    try:
        text = Path(name).read_bytes().decode("utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{name}: not UTF-8 (byte {error.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{name}: not JSON (line {error.lineno}: {error.msg})") from None
    except RecursionError:
        raise UsageError(f"{name}: nested deeper than the JSON decoder reads") from None
