"""The command line of the benchmark (`toolparse bench`, `python -m benchmarks`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolparse._bench.report import render
from toolparse._bench.run import command, run
from toolparse._bench.timing import PLANS, parse_size
from toolparse._bench.workloads import DEFAULT_SEED, WORKLOADS

# ---- the command -------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolparse bench",
        description="Measure toolparse's speed as ratios to a Python floor measured in the "
                    "same run. The full run takes 6-7 minutes; --quick about 2.")
    level = parser.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true",
                       help="100 KB and 400 KB only (growth is 400 KB / 100 KB), a 5 MB "
                            "memory stream; about 2 minutes")
    level.add_argument("--smoke", action="store_true",
                       help="the smallest sizes, one pass each: seconds; keeps the harness "
                            "working, the figures mean little")
    parser.add_argument("--grammar", metavar="PATH",
                        help="benchmark this grammar file (Dialect.from_file) instead of the "
                             "bundled deepseek dialect")
    parser.add_argument("--dialect", metavar="NAMES",
                        help="also run the dialect axis: prose, markup and tools written in "
                             "each of these bundled dialects (comma-separated, or 'all'), "
                             "each timed against deepseek on the same content")
    parser.add_argument("--target-dialects", metavar="NAMES",
                        help="the bundled dialects whose own prose, markup and tools the "
                             "'tools, worst dialect' and 'auto' targets read, alone and under "
                             "auto, in 4-char chunks (comma-separated, 'all' or 'none'; "
                             "default: all, or none with --grammar)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    parser.add_argument("--workloads", metavar="NAMES",
                        help="comma-separated subset of: " + ", ".join(WORKLOADS))
    parser.add_argument("--sizes", metavar="SIZES",
                        help="comma-separated sizes (e.g. 100K,1M) instead of the mode's; "
                             "every chunking runs at the smallest")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="workload seed")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figure")
    parser.add_argument("--serial", action="store_true",
                        help="measure memory after the throughput cells, not alongside them "
                             "in a child process")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """`toolparse bench [--quick | --smoke] [--grammar PATH] [--dialect NAMES] ...`"""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(args_list)

    plan = PLANS["smoke" if args.smoke else "quick" if args.quick else "full"]
    if args.sizes:
        try:
            sizes = tuple(sorted({parse_size(s) for s in args.sizes.split(",") if s.strip()}))
        except argparse.ArgumentTypeError as e:
            parser.error(str(e))
        if not sizes or min(sizes) < 1:
            parser.error("--sizes needs at least one positive size")
        plan = dataclasses.replace(plan, sizes=sizes, matrix_sizes=1,
                                   adversarial_matrix_sizes=1)
    workloads = None
    if args.workloads:
        workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
        unknown = [w for w in workloads if w not in WORKLOADS]
        if unknown:
            parser.error(f"unknown workload(s): {', '.join(unknown)}; "
                         f"known: {', '.join(WORKLOADS)}")
    import toolparse

    dialects = _dialects(parser, args.dialect) if args.dialect else None
    across = args.target_dialects or ("none" if args.grammar else "all")
    try:
        report = run(plan, grammar=args.grammar, workloads=workloads, seed=args.seed,
                     memory=not args.no_memory, parallel_memory=not args.serial,
                     quiet=args.quiet, dialects=dialects,
                     across=[] if across.strip() == "none" else _dialects(parser, across))
    except toolparse.ToolparseError as e:
        print(f"toolparse bench: {e}", file=sys.stderr)
        return 2
    report["command"] = command(args_list)
    print(render(report))
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            print(f"toolparse bench: cannot write {args.json}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
    return 1 if _failed(report) else 0


def _failed(report: dict[str, Any]) -> bool:
    """The engine raised or lost text somewhere in the run (a bug, not a missed goal)."""
    return (any(not c["lossless"] for c in report["checks"])
            or any("error" in c for c in report["cells"])
            or any("error" in r or r.get("lossless") is False
                   for r in report.get("dialects", ()))
            or any("error" in r for r in report.get("incremental", ()))
            or any("error" in r for r in report.get("across", ()))
            or any("error" in report[k] for k in ("startup", "repair", "memory")))


def _dialects(parser: argparse.ArgumentParser, names: str) -> list[str]:
    from toolparse._bench.dialects import MARKUP
    from toolparse._dialect.loader import dialects

    bundled = list(dialects())
    chosen = bundled if names.strip() == "all" else [n.strip() for n in names.split(",")
                                                     if n.strip()]
    unknown = [n for n in chosen if n not in bundled]
    if unknown or not chosen:
        parser.error(f"unknown dialect(s): {', '.join(unknown) or '(none)'}; "
                     f"bundled: {', '.join(bundled)}, or all")
    missing = [n for n in chosen if n not in MARKUP]
    if missing:
        parser.error(f"the benchmark cannot write {', '.join(missing)} markup yet")
    return chosen


if __name__ == "__main__":
    sys.exit(main())
