"""The targets over every bundled dialect (issue 46): each dialect's own workloads read
by the dialect alone and by `dialect="auto"`, in 4-character chunks.

For each dialect and each shape of the dialect axis (`dialects.py`: prose, markup and
tools written in that dialect's markup), two cells are timed against the floor at the
plan's smallest size, like every other cell: the dialect alone, then `auto`. Two
figures come of them:

    tools, worst dialect   the lowest ratio to the floor of any dialect's tools shape
                           (beside the main axis's own tools workload, deepseek's)
    auto, worst            auto's time per character over the dialect's on the same
                           text: the dialect's ratio to the floor over auto's (SPEC 5.2:
                           at most 1.5x), the worst (dialect, shape)

The ratio of two ratios to the same floor cancels most of the machine's drift between
the two cells; `benchmarks/auto_cost.py` counts the same thing in instructions, which
the machine does not move at all. Each reader runs one untimed pass over the first
`_WARM_CHARS` of the text before its cell (per-state lexers and automata are built on
first use).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from toolparse._bench.dialects import DIALECT_SHAPES, dialect_workload
from toolparse._bench.timing import Cell, Plan, measure
from toolparse._bench.workloads import BENCH_MAX_CAPTURE

__all__ = ["ACROSS_CHUNK", "AUTO", "measure_across", "worst_auto", "worst_tools"]

ACROSS_CHUNK: Final = 4
"""Characters per chunk of every cell here."""
AUTO: Final = "auto"
_WARM_CHARS: Final = 16 * 1024


def _warm(text: str, reader: Any) -> None:
    import toolparse

    parser = toolparse.StreamParser(reader, max_capture=BENCH_MAX_CAPTURE)
    warm = text[:_WARM_CHARS]
    for i in range(0, len(warm), ACROSS_CHUNK):
        parser.feed(warm[i:i + ACROSS_CHUNK])
    parser.close()


def _cell(text: str, name: str, reader: Any, plan: Plan) -> Cell:
    cell = Cell(name, len(text), ACROSS_CHUNK, len(text))
    _warm(text, reader)
    measure(cell, text, reader, plan)
    return cell


def _row(name: str, shape: str, text: str, plan: Plan) -> dict[str, Any]:
    import toolparse

    row: dict[str, Any] = {"dialect": name, "shape": shape, "chunk": ACROSS_CHUNK,
                           "chars": len(text)}
    try:
        alone = _cell(text, f"{shape}/{name}", toolparse.Dialect.bundled(name), plan)
        auto = _cell(text, f"{shape}/{name}/auto", AUTO, plan)
    except Exception as e:  # noqa: BLE001 -- an engine bug: report it, go on
        row["error"] = f"{type(e).__name__}: {e}"
        return row
    row.update({"passes": len(alone.engine_s),
                "alone_mb_s": alone.chars / alone.engine_time / 1e6, "alone_ratio": alone.ratio,
                "auto_mb_s": auto.chars / auto.engine_time / 1e6, "auto_ratio": auto.ratio,
                "auto_cost": alone.ratio / auto.ratio})
    return row


def measure_across(names: Sequence[str], plan: Plan, seed: int,
                   progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """One row per (dialect, shape): the dialect alone and auto, at 4-char chunks."""
    size = min(plan.sizes)
    rows = []
    for name in names:
        for shape in DIALECT_SHAPES:
            row = _row(name, shape, dialect_workload(shape, name, size, seed).text, plan)
            rows.append(row)
            if "error" in row:
                progress(f"{shape}/{name} 4-char: ERROR {row['error']}")
            else:
                progress(f"{shape}/{name} 4-char: {row['alone_ratio']:.3f}x floor alone, "
                         f"auto {row['auto_cost']:.3f}x its time")
    return rows


def worst_tools(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The dialect whose tools shape is the slowest against the floor."""
    tools = [r for r in rows if r["shape"] == "tools" and "alone_ratio" in r]
    return min(tools, key=lambda r: r["alone_ratio"], default=None)


def worst_auto(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The (dialect, shape) on which auto costs the most over the dialect alone."""
    return max((r for r in rows if "auto_cost" in r), key=lambda r: r["auto_cost"],
               default=None)
