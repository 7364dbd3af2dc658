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
import os, sys, time, toolparse
from toolparse._bench.dialects import dialect_workload
shape, name, reader, size, chunk, ready, go = sys.argv[1:8]
text = dialect_workload(shape, name, int(size), 7).text
n = len(text) if chunk == "parse" else int(chunk)
chunks = [text[i:i + n] for i in range(0, len(text), n)]   # (cut before counting)
def run():
    if chunk == "parse":
        toolparse.parse(text, reader, max_capture={cap})
        return
    parser = toolparse.StreamParser(reader, max_capture={cap})
    for piece in chunks:
        parser.feed(piece)
    parser.close()
run()
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.002)
run()
os._exit(0)
"""
# The counted run starts when the file `go` appears, after `callgrind_control -i on`
# has turned counting on while the child sleeps, and the child ends without a word
# more: nothing but the parser's work (and at most one turn of the sleep loop, about
# 7,000 instructions) is counted. Until the twenty-third sitting the child ran
# `callgrind_control` itself, which counted that subprocess too (4-5 M instructions),
# and cut its chunks inside the counted loop (about 3 M on 10 KB in 4-char chunks):
# both count the same for the dialect and for auto, so they pulled the ratio toward 1
# (hermes markup, 10 KB: 1.43x shown, 1.52x the parser's own).


def _instructions(shape: str, name: str, reader: str, size: int, chunk: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "count.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(_COUNT.format(cap=BENCH_MAX_CAPTURE))
        out, ready, go = (os.path.join(tmp, n) for n in ("cg.out", "ready", "go"))
        child = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}", sys.executable, script, shape, name, reader,
             str(size), chunk, ready, go],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while not os.path.exists(ready):
            if child.poll() is not None:
                raise RuntimeError(f"the counted child ended early: {child.stderr.read()[-500:]}")
            time.sleep(0.05)
        subprocess.run(["callgrind_control", "-i", "on", str(child.pid)],
                       capture_output=True, check=True)
        open(go, "w").close()
        _, err = child.communicate()
        m = re.search(r"Collected : (\d+)", err)
        if m is None:
            raise RuntimeError(f"callgrind gave no count: {err[-500:]}")
        return int(m.group(1))


def _wall(shape: str, name: str, reader: str, size: int, chunk: str) -> float:
    text = dialect_workload(shape, name, size, 7).text
    n = len(text) if chunk == "parse" else int(chunk)
    chunks = [text[i:i + n] for i in range(0, len(text), n)]

    def run() -> None:
        if chunk == "parse":
            toolparse.parse(text, reader, max_capture=BENCH_MAX_CAPTURE)
            return
        parser = toolparse.StreamParser(reader, max_capture=BENCH_MAX_CAPTURE)
        for piece in chunks:
            parser.feed(piece)
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
