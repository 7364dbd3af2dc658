"""Profile the engine on one benchmark workload: where does the time go?

    python -m benchmarks.profile prose --chunk 4 [--size 1M] [--top 25]
    python -m benchmarks.profile tools --chunk parse
    python -m benchmarks.profile markup --chunk 1 --pyinstrument   # a call tree instead

cProfile's table is sorted by own time and adds, for each function, its calls per
chunk (or per character for `parse`) and its own microseconds per call, which is what
a fix on the hot path has to beat. cProfile's overhead inflates small Python functions
(roughly 0.1-0.3 us per call), so use the shares to rank, and the benchmark's wall
clock figures (`python -m benchmarks`) to judge a fix. `--pyinstrument` (a sampling
profiler, `pip install pyinstrument`) shows the same run as a call tree with little
distortion.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections.abc import Sequence
from typing import Any

import toolparse
from toolparse import _bench
from toolparse._bench import measures, timing, workloads


def _run(text: str, chunk: int | None, dialect: Any) -> None:
    if chunk is None:
        toolparse.parse(text, dialect, max_capture=workloads.BENCH_MAX_CAPTURE)
        return
    parser = toolparse.StreamParser(dialect, max_capture=workloads.BENCH_MAX_CAPTURE)
    feed = parser.feed
    for i in range(0, len(text), chunk):
        feed(text[i:i + chunk])
    parser.close()


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("workload", choices=list(_bench.WORKLOADS))
    cli.add_argument("--chunk", default="4", help="characters per chunk, or 'parse'")
    cli.add_argument("--size", default="1M", help="workload size (100K, 1M, ...)")
    cli.add_argument("--top", type=int, default=25, help="rows to print")
    cli.add_argument("--grammar", metavar="PATH", help="a grammar file instead of deepseek")
    cli.add_argument("--pyinstrument", action="store_true", help="a sampled call tree")
    args = cli.parse_args(argv)
    chunk = None if args.chunk == "parse" else int(args.chunk)
    size = timing.parse_size(args.size)
    dialect = measures.load_dialect(args.grammar)
    timing.warm_up(dialect)
    text = _bench.generate(args.workload, size).text
    units = len(text) if chunk is None else -(-len(text) // chunk)
    unit = "char" if chunk is None else "chunk"

    t0 = time.perf_counter()
    _run(text, chunk, dialect)
    wall = time.perf_counter() - t0
    print(f"{args.workload}, {len(text)} chars, "
          f"{'parse()' if chunk is None else f'{chunk}-char chunks'}: {wall:.3f} s unprofiled, "
          f"{len(text) / wall / 1e6:.2f} MB/s, {wall / units * 1e6:.3f} us per {unit}")

    if args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
        _run(text, chunk, dialect)
        profiler.stop()
        print(profiler.output_text(unicode=True, color=False, show_all=False))
        return 0

    profile = cProfile.Profile()
    profile.enable()
    _run(text, chunk, dialect)
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for (filename, line, name), (_, ncalls, tottime, cumtime, _) in \
            stats.stats.items():  # type: ignore[attr-defined]
        where = filename.rsplit("/", 2)
        short = "/".join(where[-2:]) if len(where) > 1 else filename
        rows.append((tottime, cumtime, ncalls, f"{short}:{line}({name})"))
    rows.sort(reverse=True)
    print(f"cProfile total {total:.3f} s (profiling overhead included)")
    print(f"{'own %':>6} {'own s':>7} {'cum s':>7} {'calls':>9} {'/' + unit:>7} "
          f"{'us/call':>8}  function")
    for tottime, cumtime, ncalls, where in rows[:args.top]:
        print(f"{100 * tottime / total:6.1f} {tottime:7.3f} {cumtime:7.3f} {ncalls:9d} "
              f"{ncalls / units:7.2f} {tottime / ncalls * 1e6:8.3f}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
