"""What reasoning regions cost where there are none (SPEC 11; issue 42: at most 5 %).

    python -m benchmarks.regions [--size 1M] [--rounds 7] [--dialect deepseek]

The prose workload (no region, no block) is read with the dialect's default reasoning
format (`reasoning="auto"`) and with none (`reasoning=None`), the two runs interleaved
round by round in one process, so that the machine's noise falls on both alike. Each
line is the median over rounds of (with regions) / (without): 1.00 costs nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

import toolparse
from toolparse import _bench
from toolparse._bench import timing, workloads

CHUNKINGS = {"parse": None, "4-char": 4, "1-char": 1}


def _seconds(text: str, chunk: int | None, dialect: str, reasoning: str | None) -> float:
    options = {"max_capture": workloads.BENCH_MAX_CAPTURE, "reasoning": reasoning}
    start = time.perf_counter()
    if chunk is None:
        toolparse.parse(text, dialect, **options)   # type: ignore[arg-type]
    else:
        parser = toolparse.StreamParser(dialect, **options)   # type: ignore[arg-type]
        feed = parser.feed
        for i in range(0, len(text), chunk):
            feed(text[i:i + chunk])
        parser.close()
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m benchmarks.regions", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--size", default="1M", help="workload size (100K, 1M, ...)")
    cli.add_argument("--rounds", type=int, default=7)
    cli.add_argument("--dialect", default="deepseek", help="a bundled dialect, or auto")
    args = cli.parse_args(argv)
    text = _bench.generate("prose", timing.parse_size(args.size)).text
    print(f"prose {len(text):,} characters, {args.dialect}, {args.rounds} rounds")
    for name, chunk in CHUNKINGS.items():
        piece = text if chunk is None or chunk >= 4 else text[:len(text) // 4]
        _seconds(piece[:10_000], chunk, args.dialect, "auto")   # warm both
        _seconds(piece[:10_000], chunk, args.dialect, None)
        ratios = []
        for _ in range(args.rounds):
            with_regions = _seconds(piece, chunk, args.dialect, "auto")
            without = _seconds(piece, chunk, args.dialect, None)
            ratios.append(with_regions / without)
        print(f"  {name:7} regions / none: {statistics.median(ratios):.3f} "
              f"(rounds {min(ratios):.3f}-{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
