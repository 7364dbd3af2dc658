"""Timing: the floor, the passes, the cells and the plan of a run."""

from __future__ import annotations

import argparse
import gc
import random
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from toolparse._bench.workloads import BENCH_MAX_CAPTURE, KB, MB, WORKLOADS, generate, tool_block

# ---- timing ------------------------------------------------------------------------------

class Floor:
    """The floor: the least a Python stream consumer can do per chunk."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: list[str] = []

    def feed(self, chunk: str) -> int:
        found = chunk.find("<") + chunk.find("`")
        self._seen.append(chunk)
        return found

    def close(self) -> None:
        self._seen = []


_SEGMENT_CHARS: Final = 64 * KB
"""Within one pass, the engine and the floor alternate every this many characters (or
every 1/32 of the text, if that is shorter), but never more often than every 1,000
chunks, so that a slow patch of the machine (a busy neighbour on the same cache,
frequency changes) lands on both, and the clock's own cost stays under 1 %."""

clock = time.perf_counter
"""Wall time: progress, start-up (a child's latency) and the run's length."""
cpu = time.thread_time
"""What every timed figure uses: this thread's CPU time, which leaves out the time the
OS gave the core to other processes. On a shared machine a wall clock would charge a
preemption of several milliseconds to whichever side happened to be running, which
for a short cell is nearly always the slower engine; CPU time does not. (A call costs
about 1-2 us, so segments are at least 1,000 chunks long.)"""


def _stream_pass(chunks: list[str], make_parser: Callable[[], Any], segment: int,
                 first_floor: bool) -> tuple[float, float]:
    """One pass of the engine and the floor over `chunks`, interleaved segment by
    segment (the order alternating); returns (engine seconds, floor seconds)."""
    parser = make_parser()
    floor = Floor()
    feed = parser.feed
    floor_feed = floor.feed
    engine_time = floor_time = 0.0
    for n, start in enumerate(range(0, len(chunks), segment)):
        piece = chunks[start:start + segment]
        if (n % 2 == 0) == first_floor:
            t0 = cpu()
            for chunk in piece:
                floor_feed(chunk)
            t1 = cpu()
            for chunk in piece:
                feed(chunk)
            t2 = cpu()
            floor_time += t1 - t0
            engine_time += t2 - t1
        else:
            t0 = cpu()
            for chunk in piece:
                feed(chunk)
            t1 = cpu()
            for chunk in piece:
                floor_feed(chunk)
            t2 = cpu()
            engine_time += t1 - t0
            floor_time += t2 - t1
    t0 = cpu()
    parser.close()
    t1 = cpu()
    floor.close()
    t2 = cpu()
    return engine_time + (t1 - t0), floor_time + (t2 - t1)


_REGEX_PASS = re.compile(r"[<`]")


def _regex_pass(text: str) -> int:
    """The one-shot baseline: one `re.finditer` pass for `<` and backticks."""
    count = 0
    for _ in _REGEX_PASS.finditer(text):
        count += 1
    return count


def _parse_pass(text: str, parse: Callable[[str], Any]) -> tuple[float, float, Any]:
    """One `parse()` bracketed by two regex passes (the faster is the baseline: the
    pass is deterministic, so noise only ever adds to it); returns (parse seconds,
    regex seconds, the parse result)."""
    t0 = cpu()
    _regex_pass(text)
    t1 = cpu()
    result = parse(text)
    t2 = cpu()
    _regex_pass(text)
    t3 = cpu()
    return t2 - t1, min(t1 - t0, t3 - t2), result


@dataclass(slots=True)
class Cell:
    """One (workload, size, chunking) measurement."""

    workload: str
    size: int
    chunk: int | None
    """Characters per chunk; None for one-shot `parse()`."""
    chars: int
    engine_s: list[float] = field(default_factory=list)
    base_s: list[float] = field(default_factory=list)
    """The floor's seconds (streaming) or the regex pass's (one-shot), pass by pass."""
    error: str | None = None
    """The exception the engine raised on this cell (a bug: content never raises)."""
    paired: int = 0
    """The first this many passes ran round by round with the other cell of a growth
    pair (`measure_pair`): pass i of each is from the same round."""

    @property
    def ratios(self) -> list[float]:
        """Engine speed over baseline speed, pass by pass."""
        return [b / e for e, b in zip(self.engine_s, self.base_s)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def engine_time(self) -> float:
        return statistics.median(self.engine_s)

    @property
    def base_time(self) -> float:
        return statistics.median(self.base_s)

    def as_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"workload": self.workload, "size": self.size,
                    "chunk": self.chunk if self.chunk is not None else "parse",
                    "chars": self.chars, "error": self.error}
        return {
            "workload": self.workload, "size": self.size,
            "chunk": self.chunk if self.chunk is not None else "parse",
            "chars": self.chars, "passes": len(self.engine_s),
            "engine_s": self.engine_time, "baseline_s": self.base_time,
            "engine_mb_s": self.chars / self.engine_time / 1e6,
            "baseline_mb_s": self.chars / self.base_time / 1e6,
            "baseline": "floor" if self.chunk is not None else "regex",
            "ratio": self.ratio, "ratios": self.ratios,
        }


def _same(result: Any) -> Any:
    return result


def _runner(cell: Cell, text: str, dialect: Any, keep: Callable[[Any], Any]
            ) -> tuple[Callable[[int], tuple[float, float]], list[Any]]:
    """The pass function of `cell` (pass number -> engine and baseline seconds) and a
    one-item list that holds `keep(result)` of the last pass of a one-shot cell. The
    previous one is dropped before each pass: a large `ParseResult` left alive would
    charge its collection to the next pass (of this cell or its growth twin)."""
    import toolparse

    last: list[Any] = [None]
    if cell.chunk is None:
        def parse(t: str) -> Any:
            return toolparse.parse(t, dialect, max_capture=BENCH_MAX_CAPTURE)

        def one_pass(n: int) -> tuple[float, float]:
            last[0] = None
            engine, base, result = _parse_pass(text, parse)
            last[0] = keep(result)
            return engine, base
        return one_pass, last
    size = cell.chunk
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    segment = max(1000, min(_SEGMENT_CHARS, len(text) // 32) // size)

    def make_parser() -> Any:
        return toolparse.StreamParser(dialect, max_capture=BENCH_MAX_CAPTURE)

    def one_stream_pass(n: int) -> tuple[float, float]:
        return _stream_pass(chunks, make_parser, segment, first_floor=n % 2 == 0)
    return one_stream_pass, last


def _one(cell: Cell, one_pass: Callable[[int], tuple[float, float]]) -> float:
    """Run one pass of `cell`; returns its seconds (engine and baseline)."""
    gc.collect()
    engine, base = one_pass(len(cell.engine_s))
    cell.engine_s.append(engine)
    cell.base_s.append(base)
    return engine + base


def _repeat(cell: Cell, one_pass: Callable[[int], tuple[float, float]], plan: Plan) -> None:
    """More passes of `cell` while it needs them: at least `plan.passes` and
    `plan.min_cell_time` seconds, at most `plan.max_passes`, and never one that would
    take it past `plan.cell_budget` (but a cell always gets one pass)."""
    spent = sum(cell.engine_s) + sum(cell.base_s)
    while True:
        n = len(cell.engine_s)
        if n >= plan.max_passes or (n >= plan.passes and spent >= plan.min_cell_time):
            return
        if n and spent / n * (n + 1) > plan.cell_budget:
            return
        spent += _one(cell, one_pass)


def measure(cell: Cell, text: str, dialect: Any, plan: Plan,
            keep: Callable[[Any], Any] = _same) -> Any:
    """Time `cell` over `text` (`_repeat`'s rule); returns `keep` of the last
    `ParseResult` of a one-shot cell, else None."""
    one_pass, last = _runner(cell, text, dialect, keep)
    _repeat(cell, one_pass, plan)
    return last[0]


def measure_pair(small: tuple[Cell, str], large: tuple[Cell, str], dialect: Any,
                 plan: Plan, keeps: tuple[Callable[[Any], Any], Callable[[Any], Any]]
                 = (_same, _same)) -> tuple[Any, Any]:
    """Time the two cells a growth figure divides: `plan.passes` rounds of one pass
    each, alternating which goes first, whatever they take (a slow workload's largest
    cell would otherwise get one pass), then each on by `_repeat`'s rule. Within a
    round the two passes are seconds apart, so a round's ratio of their times per
    character carries little of the machine's drift (`Cell.paired`). Returns each one's
    `keeps` of its last `ParseResult` (None when streaming): pass ones that return
    something small, or the one cell's result is alive while the other's passes run."""
    runs = [(cell, *_runner(cell, text, dialect, keep))
            for (cell, text), keep in zip((small, large), keeps)]
    for round_ in range(plan.passes):
        for cell, one_pass, _ in (runs if round_ % 2 == 0 else runs[::-1]):
            _one(cell, one_pass)
    for cell, one_pass, _ in runs:
        cell.paired = plan.passes
        _repeat(cell, one_pass, plan)
    return runs[0][2][0], runs[1][2][0]


def warm_up(dialect: Any) -> None:
    """Fill the engine's lazy caches (per-state terminal lists, compiled patterns) before
    anything is timed."""
    import toolparse

    rnd = random.Random("toolparse-bench:warm-up")
    text = "".join(generate(name, 4 * KB).text for name in WORKLOADS)
    text += tool_block(rnd, dsml=False) + tool_block(rnd, dsml=True)
    for size in (1, 4, 64):
        parser = toolparse.StreamParser(dialect, max_capture=BENCH_MAX_CAPTURE)
        for i in range(0, len(text), size):
            parser.feed(text[i:i + size])
        parser.close()
    toolparse.parse(text, dialect)



# ---- the plan ----------------------------------------------------------------------------

CHUNKINGS: Final[tuple[int | None, ...]] = (1, 4, 64, None)
"""Characters per chunk; None is one-shot `parse()`."""

GROWTH_CHUNKINGS: Final[tuple[int | None, ...]] = (4, None)
"""Measured at every size, for the growth figure."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What one mode measures."""

    mode: str
    sizes: tuple[int, ...]
    matrix_sizes: int
    """The first this many sizes get every chunking; larger ones only GROWTH_CHUNKINGS."""
    adversarial_matrix_sizes: int
    """The same for the adversarial workloads (whose 1-character cells are the slowest)."""
    passes: int
    """Passes per cell, at least (unless the cell budget runs out), and the rounds of a
    growth pair (`measure_pair`), which run whatever they take."""
    min_cell_time: float
    """Seconds a cell runs at least (more passes for small, fast cells)."""
    max_passes: int
    cell_budget: float
    """Seconds a cell may take before it stops repeating (it always runs one pass)."""
    memory_chars: int
    startup_runs: int
    repair_passes: int
    repair_loops: int

    def chunkings(self, size: int, workload: str) -> tuple[int | None, ...]:
        count = (self.adversarial_matrix_sizes if workload.startswith("adv-")
                 else self.matrix_sizes)
        if size in self.sizes[:count]:
            return CHUNKINGS
        return GROWTH_CHUNKINGS


PLANS: Final = {
    "full": Plan("full", (100 * KB, MB, 4 * MB), 2, 1, 3, 0.3, 15, 3.0, 100_000_000, 9, 7, 50),
    "quick": Plan("quick", (100 * KB, 400 * KB), 1, 1, 3, 0.2, 15, 1.0, 5_000_000, 5, 5, 30),
    "smoke": Plan("smoke", (20 * KB, 80 * KB), 1, 1, 1, 0.0, 1, 0.0, 1_000_000, 1, 1, 3),
}
"""full: every chunking at 100 KB (and at 1 MB for prose, markup and tools), 4-char
and parse() at every size; quick: every chunking at 100 KB, 4-char and parse() at
400 KB; smoke: every chunking at 20 KB, 4-char and parse() at 80 KB, one pass each.
Each largest size is 4x the one growth divides it by (`targets.growth_pair`)."""

MEMORY_TARGET_CHARS: Final = 100_000_000


def size_label(size: int) -> str:
    if size % MB == 0:
        return f"{size // MB} MB"
    if size % KB == 0:
        return f"{size // KB} KB"
    return f"{size} B"


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([KkMm]?)[Bb]?\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say 100K or 1M)")
    return int(m.group(1)) * {"": 1, "k": KB, "m": MB}[m.group(2).lower()]


def chunk_label(chunk: int | None) -> str:
    return "parse" if chunk is None else f"{chunk}-char"
