"""The targets a run is judged against, and growth."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Final

from toolparse._bench.timing import CHUNKINGS, Cell, MEMORY_TARGET_CHARS, chunk_label, size_label
from toolparse._bench.workloads import WORKLOADS

# ---- targets -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Target:
    name: str
    pure: float
    """The goal in the pure-Python build (the README's install, the reference)."""
    compiled: float
    """The goal in the mypyc build (docs/performance.md, "The compiled build")."""
    at_least: bool
    """True: the figure must be >= goal (speed ratios); False: <= goal."""
    unit: str

    def goal(self, build: str) -> float:
        return self.compiled if build == "compiled" else self.pure


ROUND: Final = "issue 46, the third round"
"""Whose goals TARGETS are (the first round's, at 9ce2bfe, are in docs/performance.md)."""

TARGETS: Final = (
    Target("prose 4-char", 0.5, 1.0, True, "x floor"),
    Target("prose 1-char", 0.6, 1.0, True, "x floor"),
    Target("markup 4-char", 0.25, 0.6, True, "x floor"),
    Target("tools 4-char, worst dialect", 0.15, 0.4, True, "x floor"),
    Target("strings 4-char", 0.15, 0.4, True, "x floor"),
    Target("adversarial 1/4-char, worst", 0.05, 0.1, True, "x floor"),
    Target("auto vs dialect, worst", 1.5, 1.5, False, "x"),
    Target("growth at 4x size, worst", 1.15, 1.15, False, "x"),
    Target("start-up", 150.0, 150.0, False, "ms"),
    Target("memory, 100 MB stream", 4.0, 4.0, False, "x max_capture"),
    Target("repair, valid 10 KB", 1.5, 1.5, False, "x baseline"),
    Target("incremental, tools 4-char", 1.25, 1.25, False, "x plain"),
    Target("incremental, strings", 1.25, 1.25, False, "x plain"),
)
"""Issue 46's goals per build; memory, repair and incremental are the earlier rounds'
(SPEC 7 for incremental), the same in both builds."""

ADVERSARIAL_CHUNKINGS: Final = (1, 4)
"""The adversarial target is over these chunkings (64-char and parse() are reported)."""


def growth_pair(sizes: tuple[int, ...]) -> tuple[int, int]:
    """The two sizes growth divides: the largest, over the largest size at most a
    quarter of it (1 MB -> 4 MB in the full run), else over the smallest."""
    large = max(sizes)
    quarter = [s for s in sizes if 4 * s <= large]
    return (max(quarter) if quarter else min(sizes)), large


def _pooled(cells: list[Cell], workload: str, chunk: int | None) -> float | None:
    """The median of every pass's ratio for (workload, chunking), over all sizes."""
    ratios = [r for c in cells if c.workload == workload and c.chunk == chunk
              and c.error is None for r in c.ratios]
    return statistics.median(ratios) if ratios else None


def growth_rows(cells: list[Cell], sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Per (workload, chunking): the engine's time per character at the largest size
    over the one `growth_pair` gives (a quarter of it), the median over the rounds the two cells ran together
    (`measure_pair`; 1.00 = linear). Beside it, the same relative to each pass's
    baseline (`relative_growth`), and the baseline's own (`baseline_growth`)."""
    small, large = growth_pair(sizes)
    found = []
    by_key = {(c.workload, c.size, c.chunk): c for c in cells}
    for workload in dict.fromkeys(c.workload for c in cells):
        for chunk in CHUNKINGS:
            a = by_key.get((workload, small, chunk))
            b = by_key.get((workload, large, chunk))
            if a is None or b is None or a is b or a.error or b.error:
                continue
            rounds = range(min(a.paired, b.paired) or 1)
            per_char = a.chars / b.chars
            found.append({
                "workload": workload, "chunk": chunk if chunk is not None else "parse",
                "from_size": small, "to_size": large, "rounds": len(rounds),
                "growth": statistics.median(b.engine_s[i] / a.engine_s[i] * per_char
                                            for i in rounds),
                "relative_growth": statistics.median(a.ratios[i] / b.ratios[i]
                                                     for i in rounds),
                "baseline_growth": statistics.median(b.base_s[i] / a.base_s[i] * per_char
                                                     for i in rounds)})
    return found


def _incremental(rows: list[dict[str, Any]], workload: str,
                 chunks: tuple[int, ...]) -> tuple[float | None, str]:
    """The worst incremental ratio of `workload` over `chunks` (`incremental.py`)."""
    found = [r for r in rows if r["workload"] == workload and r["chunk"] in chunks
             and "ratio" in r]
    if not found:
        return None, ""
    worst = max(found, key=lambda r: r["ratio"])
    return worst["ratio"], (f"worst: {worst['chunk']}-char" if len(chunks) > 1 else "")


def _worst_tools(cells: list[Cell], across: list[dict[str, Any]]) -> tuple[float | None, str]:
    """The slowest tools text at 4-char chunks: the main axis's (deepseek's tools
    workload) or any dialect's tools shape (`across.py`)."""
    from toolparse._bench.across import worst_tools

    main = _pooled(cells, "tools", 4)
    found = [(main, "deepseek, the tools workload")] if main is not None else []
    worst = worst_tools(across)
    if worst is not None:
        found.append((worst["alone_ratio"], f"{worst['dialect']}, its tools shape"))
    if not found:
        return None, ""
    value, where = min(found, key=lambda f: f[0])
    dialects = len({r["dialect"] for r in across if "alone_ratio" in r})
    return value, (f"{where}; of {dialects} dialects" if dialects
                   else f"{where}; no other dialect measured")


def _worst_auto(across: list[dict[str, Any]]) -> tuple[float | None, str]:
    from toolparse._bench.across import worst_auto

    worst = worst_auto(across)
    if worst is None:
        return None, ""
    return worst["auto_cost"], f"{worst['dialect']}, {worst['shape']} 4-char"


def _worst_growth(growth: list[dict[str, Any]]) -> tuple[float | None, str]:
    worst = max(growth, key=lambda g: g["growth"], default=None)
    if worst is None:
        return None, ""
    return worst["growth"], (f"{worst['workload']} {chunk_label(_chunk_of(worst))}, "
                             f"{size_label(worst['to_size'])} / {size_label(worst['from_size'])}")


def _worst_adversarial(cells: list[Cell]) -> tuple[float | None, str]:
    found = [(r, f"{w} {chunk_label(ch)}") for w in WORKLOADS if w.startswith("adv-")
             for ch in ADVERSARIAL_CHUNKINGS if (r := _pooled(cells, w, ch)) is not None]
    return min(found, key=lambda f: f[0], default=(None, ""))


def evaluate(cells: list[Cell], growth: list[dict[str, Any]], memory: dict[str, Any],
             startup: dict[str, Any], repair: dict[str, Any],
             incremental: list[dict[str, Any]] | None = None, *,
             across: list[dict[str, Any]] | None = None,
             build: str = "pure") -> list[dict[str, Any]]:
    """Each of TARGETS with its goal in `build` ("pure" or "compiled"), the figure
    measured, met or not, and a note naming the worst cell where one is the figure."""
    figures: dict[str, tuple[float | None, str]] = {
        "prose 4-char": (_pooled(cells, "prose", 4), ""),
        "prose 1-char": (_pooled(cells, "prose", 1), ""),
        "markup 4-char": (_pooled(cells, "markup", 4), ""),
        "tools 4-char, worst dialect": _worst_tools(cells, across or []),
        "strings 4-char": (_pooled(cells, "strings", 4), ""),
        "adversarial 1/4-char, worst": _worst_adversarial(cells),
        "auto vs dialect, worst": _worst_auto(across or []),
        "growth at 4x size, worst": _worst_growth(growth),
        "memory, 100 MB stream": (
            memory.get("multiple"),
            "" if memory.get("stream_chars", 0) >= MEMORY_TARGET_CHARS
            else f"{memory.get('stream_chars', 0) / 1e6:.0f} MB stream only"),
        "start-up": (startup.get("startup_ms"), ""),
        "repair, valid 10 KB": (repair.get("ratio"), repair.get("status", "")
                                if "ratio" not in repair else ""),
        "incremental, tools 4-char": _incremental(incremental or [], "tools", (4,)),
        "incremental, strings": _incremental(incremental or [], "strings", (1, 4)),
    }
    out = []
    for target in TARGETS:
        value, note = figures[target.name]
        goal = target.goal(build)
        met = None if value is None else (value >= goal if target.at_least else value <= goal)
        out.append({"target": target.name, "build": build, "goal": goal, "unit": target.unit,
                    "at_least": target.at_least, "measured": value, "met": met,
                    "note": note,
                    # How far off: >= 1 means met; e.g. 0.4 means 2.5x too slow.
                    "margin": None if value is None or value == 0 else
                    (value / goal if target.at_least else goal / value)})
    return out


def _chunk_of(entry: dict[str, Any]) -> int | None:
    return None if entry["chunk"] == "parse" else int(entry["chunk"])
