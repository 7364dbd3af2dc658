"""`toolparse bench`: the benchmarks (`toolparse._bench`), with their own options."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from toolparse._cli.common import UsageError

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    # The benchmarks own their options (`toolparse bench --help` lists them): every
    # argument after `bench` goes to toolparse._bench.main unchanged.
    bench = commands.add_parser(
        "bench", add_help=False, help="run the benchmarks (toolparse._bench)",
        usage="toolparse bench [--grammar PATH] [--quick] [--json PATH] ...")
    bench.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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
