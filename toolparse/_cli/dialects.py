"""`toolparse dialects`: list the bundled dialects."""

from __future__ import annotations

import argparse
from typing import Any

from toolparse._dialect import bundled_dialects

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    dialects = commands.add_parser("dialects", help="list the bundled dialects and their grammar files")
    dialects.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    available = bundled_dialects()
    width = max((len(name) for name in available), default=0)
    for name, path in available.items():
        print(f"{name:<{width}}  {path}")
    return 0
