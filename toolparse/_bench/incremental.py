"""SPEC 7's cost: `StreamParser(incremental=True)` against the same parser with
`incremental=False`, fed the same chunks in the same run.

A cell is a (workload, chunking) pair; the two parsers take turns every segment of a
pass (as the engine and the floor do, `timing._stream_pass`), alternating who goes
first, and the figure is the median over the passes of incremental time over plain
time: 1.25 means that incremental events add 25 %. SPEC 7's goal is at most 1.25 on
the tools workload at 4-char chunks and on string-heavy tool text (`strings`: long
values and CDATA bodies) at 1- and 4-char chunks; tools at 1-char is reported beside.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable, Sequence
from typing import Any, Final

from toolparse._bench.timing import Plan, cpu
from toolparse._bench.workloads import BENCH_MAX_CAPTURE, generate

__all__ = ["INCREMENTAL_CELLS", "INCREMENTAL_GOAL", "measure_incremental"]

INCREMENTAL_CELLS: Final = (("tools", 4), ("tools", 1), ("strings", 4), ("strings", 1))
"""(workload, characters per chunk) of the figure."""
INCREMENTAL_GOAL: Final = 1.25
"""Incremental over plain, at most (SPEC 7)."""

_SEGMENT_CHUNKS: Final = 2000
"""The two parsers take turns every this many chunks."""


def _pair_pass(chunks: list[str], make: Callable[[bool], Any], first_plain: bool
               ) -> tuple[float, float]:
    """One pass of a plain and an incremental parser over `chunks`, segment by segment,
    each segment timed for both; returns (plain seconds, incremental seconds)."""
    parsers = {False: make(False), True: make(True)}
    feeds = {mode: parser.feed for mode, parser in parsers.items()}
    spent = {False: 0.0, True: 0.0}
    for n, start in enumerate(range(0, len(chunks), _SEGMENT_CHUNKS)):
        piece = chunks[start:start + _SEGMENT_CHUNKS]
        order = (False, True) if (n % 2 == 0) == first_plain else (True, False)
        for mode in order:
            feed = feeds[mode]
            t0 = cpu()
            for chunk in piece:
                feed(chunk)
            spent[mode] += cpu() - t0
    for mode in (False, True):
        t0 = cpu()
        parsers[mode].close()
        spent[mode] += cpu() - t0
    return spent[False], spent[True]


def _cell(text: str, chunk: int, dialect: Any, plan: Plan) -> dict[str, Any]:
    import toolparse

    chunks = [text[i:i + chunk] for i in range(0, len(text), chunk)]

    def make(incremental: bool) -> Any:
        return toolparse.StreamParser(dialect, max_capture=BENCH_MAX_CAPTURE,
                                      incremental=incremental)

    _pair_pass(chunks, make, True)   # warm: per-state lexers, automata
    plain_s: list[float] = []
    incremental_s: list[float] = []
    while len(plain_s) < plan.max_passes:
        spent = sum(plain_s) + sum(incremental_s)
        if len(plain_s) >= plan.passes and spent >= plan.min_cell_time:
            break
        if plain_s and spent / len(plain_s) * (len(plain_s) + 1) > plan.cell_budget:
            break
        gc.collect()
        plain, incremental = _pair_pass(chunks, make, len(plain_s) % 2 == 0)
        plain_s.append(plain)
        incremental_s.append(incremental)
    ratios = [i / p for p, i in zip(plain_s, incremental_s)]
    return {"chars": len(text), "passes": len(ratios), "plain_s": statistics.median(plain_s),
            "incremental_s": statistics.median(incremental_s),
            "ratio": statistics.median(ratios), "ratios": ratios}


def measure_incremental(plan: Plan, dialect: Any, seed: int, workloads: Sequence[str],
                        progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every cell of `INCREMENTAL_CELLS` whose workload is among `workloads`, at the
    plan's smallest size; an engine error marks its cell."""
    size = min(plan.sizes)
    rows: list[dict[str, Any]] = []
    for name, chunk in INCREMENTAL_CELLS:
        if name not in workloads:
            continue
        row: dict[str, Any] = {"workload": name, "size": size, "chunk": chunk}
        try:
            row.update(_cell(generate(name, size, seed).text, chunk, dialect, plan))
        except Exception as e:  # noqa: BLE001 -- an engine bug: report it, go on
            row["error"] = f"{type(e).__name__}: {e}"
            progress(f"incremental {name} {chunk}-char: ERROR {row['error']}")
        else:
            progress(f"incremental {name} {chunk}-char: {row['ratio']:.3f}x the plain parser "
                     f"({row['passes']} passes)")
        rows.append(row)
    return rows
