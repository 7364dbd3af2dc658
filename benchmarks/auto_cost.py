"""What `dialect="auto"` costs on one dialect's text (SPEC 5.2: at most 1.5x that dialect).

    python -m benchmarks.auto_cost deepseek_v3 [--shapes tools,markup,prose] [--chunk 4]
    python -m benchmarks.auto_cost all --size 40K

For each shape of the benchmark's dialect axis (`toolparse bench --dialect`: the same
content written in the dialect's markup), the text is read by the dialect alone and by
`auto`, and the figure is auto's instructions per character over the dialect's.
Instructions, counted by callgrind, are what the machine's noise does not move
(docs/performance.md, "Instruction counts"): each reading runs once to warm the lexers
and automata, then once counted. Needs valgrind; without it, `--wall` times the two
readings instead (the median of several passes, in the same process).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

import toolparse
from toolparse._bench.dialects import DIALECT_SHAPES, MARKUP, dialect_workload
from toolparse._bench.timing import parse_size
from toolparse._bench.workloads import BENCH_MAX_CAPTURE

_COUNT = """
import os, subprocess, sys, toolparse
from toolparse._bench.dialects import dialect_workload
shape, name, reader, size, chunk = sys.argv[1:6]
text = dialect_workload(shape, name, int(size), 7).text
def run():
    if chunk == "parse":
        toolparse.parse(text, reader, max_capture={cap})
        return
    n = int(chunk)
    parser = toolparse.StreamParser(reader, max_capture={cap})
    for i in range(0, len(text), n):
        parser.feed(text[i:i + n])
    parser.close()
run()
control = lambda state: subprocess.run(["callgrind_control", "-i", state, str(os.getpid())],
                                       capture_output=True)
control("on")
run()
control("off")
"""


def _instructions(shape: str, name: str, reader: str, size: int, chunk: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "count.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(_COUNT.format(cap=BENCH_MAX_CAPTURE))
        out = os.path.join(tmp, "cg.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}", sys.executable, script, shape, name, reader,
             str(size), chunk], capture_output=True, text=True, check=True)
        m = re.search(r"Collected : (\d+)", run.stderr)
        if m is None:
            raise RuntimeError(f"callgrind gave no count: {run.stderr[-500:]}")
        return int(m.group(1))


def _wall(shape: str, name: str, reader: str, size: int, chunk: str) -> float:
    text = dialect_workload(shape, name, size, 7).text

    def run() -> None:
        if chunk == "parse":
            toolparse.parse(text, reader, max_capture=BENCH_MAX_CAPTURE)
            return
        n = int(chunk)
        parser = toolparse.StreamParser(reader, max_capture=BENCH_MAX_CAPTURE)
        for i in range(0, len(text), n):
            parser.feed(text[i:i + n])
        parser.close()

    run()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m benchmarks.auto_cost", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("dialects", help="comma-separated bundled dialects, or 'all'")
    cli.add_argument("--shapes", default=",".join(DIALECT_SHAPES))
    cli.add_argument("--chunk", default="4", help="characters per chunk, or 'parse'")
    cli.add_argument("--size", default="40K")
    cli.add_argument("--wall", action="store_true", help="time instead of counting")
    args = cli.parse_args(argv)
    names = list(MARKUP) if args.dialects == "all" else args.dialects.split(",")
    size = parse_size(args.size)
    wall = args.wall or shutil.which("valgrind") is None
    measure = _wall if wall else _instructions
    unit = "s" if wall else "instructions/char"
    print(f"{'dialect':<14}{'shape':<8}{'alone':>14}{'auto':>14}  auto/alone  ({unit}, "
          f"{args.chunk} chunks, {args.size})")
    for name in names:
        for shape in args.shapes.split(","):
            chars = len(dialect_workload(shape, name, size, 7).text)
            per = 1.0 if wall else float(chars)
            alone = measure(shape, name, name, size, args.chunk) / per
            auto = measure(shape, name, "auto", size, args.chunk) / per
            print(f"{name:<14}{shape:<8}{alone:>14.4g}{auto:>14.4g}  {auto / alone:.3f}x",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
