"""One benchmark run: every cell, then the other figures, as a report."""

from __future__ import annotations

import functools
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolparse._bench.incremental import measure_incremental
from toolparse._bench.measures import MemoryChild, load_dialect, measure_memory, measure_repair, measure_startup
from toolparse._bench.targets import evaluate, growth_pair, growth_rows
from toolparse._bench.timing import (CHUNKINGS, GROWTH_CHUNKINGS, Cell, Plan, chunk_label, clock,
                                     measure, measure_pair, size_label, warm_up)
from toolparse._bench.workloads import BENCH_MAX_CAPTURE, DEFAULT_SEED, WORKLOADS, Workload, generate

# ---- the run -----------------------------------------------------------------------------

def _environment() -> dict[str, Any]:
    import lark

    import toolparse

    info: dict[str, Any] = {
        "toolparse": getattr(toolparse, "__version__", "?"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(), "lark": lark.__version__, "commit": None, "dirty": None,
        # The figures of the two builds (docs/performance.md) are not comparable.
        "build": toolparse.build_info().build,
    }
    checkout = Path(toolparse.__file__).resolve().parent.parent
    if os.environ.get("TOOLPARSE_BENCH_COMMIT"):
        # A tree exported with `git archive` has no .git: say which commit it is.
        info["commit"] = os.environ["TOOLPARSE_BENCH_COMMIT"]
        info["dirty"] = False
    elif (checkout / ".git").exists():
        try:
            info["commit"] = subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True,
                text=True, check=True, timeout=10).stdout.strip()
            status = subprocess.run(
                ["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
                cwd=checkout, capture_output=True, text=True, check=True, timeout=10).stdout
            info["dirty"] = bool(status.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    return info


def command(argv: Sequence[str]) -> str:
    import shlex

    launcher = sys.argv[0] if sys.argv else ""
    if launcher.endswith(os.path.join("benchmarks", "__main__.py")):
        prog = "python -m benchmarks"
    elif Path(launcher).name == "toolparse" or launcher.endswith(
            os.path.join("toolparse", "__main__.py")):
        prog = "toolparse bench"
    else:
        prog = "toolparse._bench.main"
    return " ".join([prog, *map(shlex.quote, argv)])


class _Progress:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.start = clock()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{clock() - self.start:6.1f}s] {message}", file=sys.stderr, flush=True)


def run(plan: Plan, *, grammar: str | None = None, workloads: Sequence[str] | None = None,
        seed: int = DEFAULT_SEED, memory: bool = True, parallel_memory: bool = True,
        quiet: bool = False, dialects: Sequence[str] | None = None,
        across: Sequence[str] = ()) -> dict[str, Any]:
    """Measure everything `plan` asks for; returns the JSON-ready report. `dialects`:
    also the dialect axis (`dialects.py`) for these bundled dialects; `across`: the
    bundled dialects whose own workloads the tools and auto targets read (`across.py`)."""
    progress = _Progress(quiet)
    dialect = load_dialect(grammar)
    names = list(workloads) if workloads else list(WORKLOADS)
    # Start-up and repair first, before the memory child starts sharing the machine.
    progress("start-up")
    try:
        startup = measure_startup(plan.startup_runs)
    except (OSError, subprocess.SubprocessError) as e:
        startup = {"error": f"{type(e).__name__}: {e}"}
    progress("repair")
    try:
        repair = measure_repair(plan.repair_passes, plan.repair_loops)
    except NotImplementedError:
        repair = {"status": "n/a (repair not built)"}
    except Exception as e:  # noqa: BLE001 -- a repair bug: report it, go on
        repair = {"status": "error", "error": f"{type(e).__name__}: {e}"}
    child = None
    if memory and parallel_memory:
        child = MemoryChild(plan.memory_chars, grammar, seed)
    progress("warming up")
    try:
        warm_up(dialect)
    except Exception as e:  # noqa: BLE001 -- an engine bug: the cells that hit it say so
        progress(f"warm-up failed: {type(e).__name__}: {e}")
    cells, checks = _cells(names, plan, dialect, seed, progress)
    incremental = measure_incremental(plan, dialect, seed, names, progress)
    across_rows = _across(across, plan, seed, progress) if across else []
    dialect_rows = _dialect_axis(dialects, plan, seed, progress) if dialects else None
    memory_figure: dict[str, Any] = {"skipped": "--no-memory"}
    if memory:
        progress(f"memory: {plan.memory_chars / 1e6:.0f} MB of prose in 4-char chunks, traced"
                 + (" (in a child process, waiting)" if child else ""))
        memory_figure = child.result() if child else measure_memory(
            plan.memory_chars, dialect, seed)
    growth = growth_rows(cells, plan.sizes)
    progress("done")
    environment = _environment()
    report: dict[str, Any] = {
        "mode": plan.mode,
        "environment": environment,
        "dialect": {"name": dialect.name, "path": str(dialect.path)},
        "seed": seed,
        "max_capture": BENCH_MAX_CAPTURE,
        "sizes": list(plan.sizes),
        "chunkings": [c if c is not None else "parse" for c in CHUNKINGS],
        "cells": [c.as_json() for c in cells],
        "floor": _baselines(cells),
        "checks": checks,
        "growth": growth,
        "memory": memory_figure,
        "startup": startup,
        "repair": repair,
        "incremental": incremental,
        "across": across_rows,
        "targets": evaluate(cells, growth, memory_figure, startup, repair, incremental,
                            across=across_rows, build=environment["build"]),
        "elapsed_s": clock() - progress.start,
    }
    if dialect_rows is not None:
        report["dialects"] = dialect_rows
    return report


def _cells(names: Sequence[str], plan: Plan, dialect: Any, seed: int, progress: _Progress
           ) -> tuple[list[Cell], list[dict[str, Any]]]:
    """Every (workload, size, chunking) cell of the main axis, and the parse() checks."""
    cells: list[Cell] = []
    checks: list[dict[str, Any]] = []
    small, large = growth_pair(plan.sizes)
    paired = GROWTH_CHUNKINGS if small != large else ()
    order = {key: i for i, key in enumerate((s, c) for s in plan.sizes for c in CHUNKINGS)}
    # A workload's sizes are measured back to back, and the two cells its growth figure
    # divides round by round (`measure_pair`), so that a machine that gets busier
    # meanwhile cannot pass for superlinear work.
    for name in names:
        workloads = {size: generate(name, size, seed) for size in plan.sizes}
        mine: list[Cell] = []
        for size, workload in workloads.items():
            for chunk in plan.chunkings(size, name):
                if chunk not in paired or size not in (small, large):
                    mine += _timed([(size, workload, chunk)], plan, dialect, checks, progress)
        for chunk in paired:
            mine += _timed([(small, workloads[small], chunk), (large, workloads[large], chunk)],
                           plan, dialect, checks, progress)
        cells += sorted(mine, key=lambda c: order[c.size, c.chunk])
    return cells, checks


def _timed(what: list[tuple[int, Workload, int | None]], plan: Plan, dialect: Any,
           checks: list[dict[str, Any]], progress: _Progress) -> list[Cell]:
    """One cell, or a growth pair of two (`measure_pair`), timed; an engine error marks
    every cell of it."""
    cells = [Cell(w.name, size, chunk, len(w.text)) for size, w, chunk in what]
    # Each keeps what the report needs of a parse(), not the result (`measure_pair`).
    keeps = [functools.partial(_check, w, size) for size, w, _ in what]
    began = clock()
    try:
        if len(cells) == 1:
            found = [measure(cells[0], what[0][1].text, dialect, plan, keeps[0])]
        else:
            found = list(measure_pair((cells[0], what[0][1].text), (cells[1], what[1][1].text),
                                      dialect, plan, (keeps[0], keeps[1])))
    except Exception as e:  # noqa: BLE001 -- an engine bug: report it, go on
        for cell in cells:
            cell.error = f"{type(e).__name__}: {e}"
            cell.engine_s.clear()
            cell.base_s.clear()
            progress(f"{cell.workload} {size_label(cell.size)} {chunk_label(cell.chunk)}: "
                     f"ERROR {cell.error}")
        return cells
    took = clock() - began
    for cell, check in zip(cells, found):
        if check is not None:
            checks.append(check)
        base = "floor" if cell.chunk is not None else "regex"
        progress(f"{cell.workload} {size_label(cell.size)} {chunk_label(cell.chunk)}: "
                 f"{cell.chars / cell.engine_time / 1e6:.2f} MB/s, "
                 f"{cell.ratio:.3f}x {base} ({len(cell.engine_s)} passes, {took:.1f} s)")
    return cells


def _dialect_axis(names: Sequence[str], plan: Plan, seed: int,
                  progress: _Progress) -> list[dict[str, Any]]:
    from toolparse._bench.dialects import measure_dialects, warm_up_dialects

    progress("dialect axis: warming up " + ", ".join(names))
    warm_up_dialects(names, seed)
    return measure_dialects(list(names), plan, seed, progress)


def _across(names: Sequence[str], plan: Plan, seed: int,
            progress: _Progress) -> list[dict[str, Any]]:
    from toolparse._bench.across import measure_across

    progress(f"each dialect's workloads, alone and under auto: {len(names)} dialects")
    return measure_across(names, plan, seed, progress)


def _check(workload: Workload, size: int, result: Any) -> dict[str, Any]:
    """What one-shot `parse()` found in a workload, and whether it gave the text back."""
    import toolparse

    joined = "".join(e.raw for e in result.events)
    blocks = [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    return {"workload": workload.name, "size": size, "chars": len(workload.text),
            "lossless": joined == workload.text, "real_blocks": workload.real_blocks,
            "real_chars": workload.real_chars, "blocks_found": len(blocks),
            "block_chars_found": sum(len(b.raw) for b in blocks),
            "calls_found": len(result.calls)}


def _baselines(cells: list[Cell]) -> dict[str, float]:
    """Median baseline speed (MB/s) per chunking, over every cell."""
    out = {}
    for chunk in CHUNKINGS:
        speeds = [c.chars / t / 1e6 for c in cells if c.chunk == chunk for t in c.base_s]
        if speeds:
            out[chunk_label(chunk)] = statistics.median(speeds)
    return out
