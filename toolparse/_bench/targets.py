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
    goal: float
    at_least: bool
    """True: the figure must be >= goal (speed ratios); False: <= goal."""
    unit: str


TARGETS: Final = (
    Target("prose 4-char", 0.5, True, "x floor"),
    Target("prose 1-char", 0.5, True, "x floor"),
    Target("prose 64-char", 0.1, True, "x floor"),
    Target("markup 4-char", 0.25, True, "x floor"),
    Target("tools 4-char", 0.1, True, "x floor"),
    Target("adversarial, worst", 0.05, True, "x floor"),
    Target("prose parse()", 0.1, True, "x regex"),
    Target("growth, worst", 1.25, False, "x"),
    Target("memory, 100 MB stream", 4.0, False, "x max_capture"),
    Target("start-up", 150.0, False, "ms"),
    Target("repair, valid 10 KB", 1.5, False, "x baseline"),
    Target("incremental, tools 4-char", 1.25, False, "x plain"),
    Target("incremental, strings", 1.25, False, "x plain"),
)


def _pooled(cells: list[Cell], workload: str, chunk: int | None) -> float | None:
    """The median of every pass's ratio for (workload, chunking), over all sizes."""
    ratios = [r for c in cells if c.workload == workload and c.chunk == chunk
              and c.error is None for r in c.ratios]
    return statistics.median(ratios) if ratios else None


def growth_rows(cells: list[Cell], sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Per (workload, chunking): the engine's time per character at the largest size
    over the smallest, the median over the rounds the two cells ran together
    (`measure_pair`; 1.00 = linear). Beside it, the same relative to each pass's
    baseline (`relative_growth`), and the baseline's own (`baseline_growth`)."""
    small, large = min(sizes), max(sizes)
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


def evaluate(cells: list[Cell], growth: list[dict[str, Any]], memory: dict[str, Any],
             startup: dict[str, Any], repair: dict[str, Any],
             incremental: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    adversarial = [(w, ch, _pooled(cells, w, ch)) for w in WORKLOADS if w.startswith("adv-")
                   for ch in CHUNKINGS if ch is not None]
    adversarial = [a for a in adversarial if a[2] is not None]
    worst_adv = min(adversarial, key=lambda a: a[2] or 0.0, default=None)
    worst_growth = max(growth, key=lambda g: g["growth"], default=None)
    figures: dict[str, tuple[float | None, str]] = {
        "prose 4-char": (_pooled(cells, "prose", 4), ""),
        "prose 1-char": (_pooled(cells, "prose", 1), ""),
        "prose 64-char": (_pooled(cells, "prose", 64), ""),
        "markup 4-char": (_pooled(cells, "markup", 4), ""),
        "tools 4-char": (_pooled(cells, "tools", 4), ""),
        "adversarial, worst": (
            (worst_adv[2], f"{worst_adv[0]} {chunk_label(worst_adv[1])}")
            if worst_adv else (None, "")),
        "prose parse()": (_pooled(cells, "prose", None), ""),
        "growth, worst": (
            (worst_growth["growth"],
             (f"{worst_growth['workload']} {chunk_label(_chunk_of(worst_growth))}, "
              f"{size_label(worst_growth['to_size'])} / "
              f"{size_label(worst_growth['from_size'])}"))
            if worst_growth else (None, "")),
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
        met = None if value is None else (value >= target.goal if target.at_least
                                          else value <= target.goal)
        out.append({"target": target.name, "goal": target.goal, "unit": target.unit,
                    "at_least": target.at_least, "measured": value, "met": met,
                    "note": note,
                    # How far off: >= 1 means met; e.g. 0.4 means 2.5x too slow.
                    "margin": None if value is None or value == 0 else
                    (value / target.goal if target.at_least else target.goal / value)})
    return out


def _chunk_of(entry: dict[str, Any]) -> int | None:
    return None if entry["chunk"] == "parse" else int(entry["chunk"])
