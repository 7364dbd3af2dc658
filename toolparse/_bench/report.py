"""The report as a table."""

from __future__ import annotations

from typing import Any

from toolparse._bench.timing import MEMORY_TARGET_CHARS, chunk_label, size_label
from toolparse._bench.workloads import KB, MB

# ---- the table ---------------------------------------------------------------------------

def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.{digits}f}"


def render(report: dict[str, Any]) -> str:
    """The report as a plain-text table (what `toolparse bench` prints)."""
    lines: list[str] = []
    for section in (_header, _throughput, _baselines, _problems, _memory,
                    _startup_and_repair, _incremental, _across, _targets, _dialects):
        lines += section(report)
    return "\n".join(lines)


def _header(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    env = report["environment"]
    commit = env["commit"] or "unknown commit"
    if env["dirty"]:
        commit += " + uncommitted changes"
    lines.append(f"toolparse bench ({report['mode']}): toolparse {env['toolparse']} at {commit}, "
                 f"Python {env['python']}, lark {env['lark']}, {env['platform']}, "
                 f"{env['cpus']} CPUs, {env.get('build', 'pure')} build")
    lines.append(f"command: {report.get('command', '?')}")
    lines.append(f"dialect: {report['dialect']['name']} ({report['dialect']['path']}); "
                 f"seed {report['seed']}; max_capture {report['max_capture'] // MB} MiB; "
                 f"{report['elapsed_s']:.0f} s")
    lines.append("")
    lines.append("Throughput: engine MB/s and, after it, its speed as a multiple of the "
                 "baseline measured")
    lines.append("on the same chunks in the same run (chunked: the floor; parse: one "
                 "re.finditer pass). Medians.")
    return lines


def _throughput(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    sizes = report["sizes"]
    header = f"{'workload':<18}{'chunking':<10}" + "".join(
        f"{size_label(s):>18}" for s in sizes) + f"{'growth':>9}{'(rel.)':>8}"
    lines.append("")
    lines.append(header)
    lines.append("-" * len(header))
    cells = {(c["workload"], c["size"], c["chunk"]): c for c in report["cells"]}
    growth = {(g["workload"], g["chunk"]): g for g in report["growth"]}
    workloads = list(dict.fromkeys(c["workload"] for c in report["cells"]))
    for workload in workloads:
        for chunk in report["chunkings"]:
            row = [c for s in sizes if (c := cells.get((workload, s, chunk)))]
            if not row:
                continue
            text = f"{workload:<18}{chunk_label(None if chunk == 'parse' else chunk):<10}"
            for s in sizes:
                c = cells.get((workload, s, chunk))
                if c is None:
                    text += f"{'':>18}"
                elif "error" in c:
                    text += f"{'ERROR':>18}"
                else:
                    text += f"{_fmt(c['engine_mb_s']):>9} {_fmt(c['ratio'], 3) + 'x':>8}"
            g = growth.get((workload, chunk))
            text += f"{_fmt(g['growth']):>9}{'(' + _fmt(g['relative_growth']) + ')':>8}" if g else ""
            lines.append(text.rstrip())
    return lines


def _baselines(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    floors = ", ".join(f"{k} {_fmt(v)}" for k, v in report["floor"].items())
    lines.append(f"baselines (MB/s, medians): {floors.replace('parse', 'regex pass')}")
    if report["growth"]:
        g0 = report["growth"][0]
        lines.append(f"growth: time per character at {size_label(g0['to_size'])} over "
                     f"{size_label(g0['from_size'])}, the median over rounds of "
                     "one pass each (1.00 = linear);")
        lines.append("(rel.): the same, each pass relative to its baseline (which has "
                     "size effects of its own)")
    return lines


def _problems(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for c in report["cells"]:
        if "error" in c:
            lines.append(f"ERROR {c['workload']} {size_label(c['size'])} "
                         f"{chunk_label(None if c['chunk'] == 'parse' else c['chunk'])}: "
                         f"{c['error']}")
    bad = [c for c in report["checks"] if not c["lossless"]]
    if bad:
        lines.append("LOSSLESS CHECK FAILED: " + ", ".join(
            f"{c['workload']} {size_label(c['size'])}" for c in bad))
    lines.append("")
    return lines


def _memory(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    memory = report["memory"]
    if "multiple" in memory:
        lines.append(f"memory:   peak traced {memory['peak_bytes'] / KB:.0f} KiB while streaming "
                     f"{memory['stream_chars'] / 1e6:.0f} MB of prose in 4-char chunks = "
                     f"{memory['multiple']:.3f} x max_capture ({memory['max_capture'] // KB} KiB)"
                     + ("" if memory["stream_chars"] >= MEMORY_TARGET_CHARS
                        else f" [{report['mode']}: a shorter stream than the target's 100 MB]"))
        lines.append(f"          (once per process, before it: first use peaked at "
                     f"{memory['first_use_peak_bytes'] / KB:.0f} KiB and keeps "
                     f"{memory['first_use_retained_bytes'] / KB:.0f} KiB for every parser)")
    else:
        lines.append(f"memory:   not measured ({memory.get('skipped') or memory.get('error')})")
    return lines


def _startup_and_repair(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    st = report["startup"]
    if "error" in st:
        lines.append(f"start-up: ERROR {st['error']}")
    else:
        lines.append(f"start-up: {st['startup_ms']:.0f} ms above a bare interpreter "
                     f"(import toolparse + first parse() {st['import_and_parse_ms']:.0f} ms, "
                     f"bare {st['bare_ms']:.0f} ms; {st['clock']} time, median of "
                     f"{st['runs']}, bytecode cached; wall: {st['wall_startup_ms']:.0f} ms above)")
    rp = report["repair"]
    if "error" in rp:
        lines.append(f"repair:   ERROR {rp['error']}")
    elif "ratio" in rp:
        lines.append(f"repair:   {rp['ratio']:.2f} x json.loads + cached jsonschema validation "
                     f"on a valid {rp['chars'] / 1000:.1f} KB call ({rp['repair_us']:.0f} us vs "
                     f"{rp['baseline_us']:.0f} us)")
    else:
        lines.append(f"repair:   {rp['status']}")
    lines.append("")
    return lines


def _incremental(report: dict[str, Any]) -> list[str]:
    """SPEC 7's cost: incremental=True over incremental=False, same chunks, same run."""
    rows = report.get("incremental") or []
    if not rows:
        return []
    lines = ["incremental events (SPEC 7): StreamParser(incremental=True) over the same parser "
             "without, same chunks, same run"]
    for row in rows:
        head = f"          {row['workload']:<8} {chunk_label(row['chunk']):<7}"
        if "error" in row:
            lines.append(f"{head} ERROR {row['error']}")
            continue
        lines.append(f"{head} {row['plain_s'] * 1e3:8.1f} ms -> {row['incremental_s'] * 1e3:8.1f} ms"
                     f"  {row['ratio']:.3f}x  ({row['passes']} passes, "
                     f"{size_label(row['size'])})")
    lines.append("")
    return lines


def _across(report: dict[str, Any]) -> list[str]:
    """Each dialect's own workloads, alone and under auto (`across.py`)."""
    rows = report.get("across") or []
    if not rows:
        return []
    from toolparse._bench.across import ACROSS_CHUNK
    from toolparse._bench.dialects import DIALECT_SHAPES

    size = size_label(min(report["sizes"]))
    lines = [(f"each dialect's own workloads ({size}, {ACROSS_CHUNK}-char chunks): the dialect "
              "alone as a multiple of the floor, and auto's time per"),
             ("character over the dialect's on the same text (its ratio to the floor over "
              "auto's)"),
             f"{'dialect':<14}" + "".join(f"{s + ' alone':>14}" for s in DIALECT_SHAPES)
             + "".join(f"{'auto ' + s:>13}" for s in DIALECT_SHAPES)]
    by = {(r["dialect"], r["shape"]): r for r in rows}
    for name in dict.fromkeys(r["dialect"] for r in rows):
        alone = auto = ""
        for shape in DIALECT_SHAPES:
            row = by.get((name, shape), {})
            if "error" in row:
                alone += f"{'ERROR':>14}"
                auto += f"{'':>13}"
                continue
            alone += f"{_fmt(row.get('alone_ratio'), 3) + 'x':>14}"
            auto += f"{_fmt(row.get('auto_cost'), 3) + 'x':>13}"
        lines.append(f"{name:<14}{alone}{auto}")
    lines += [f"          {r['shape']}/{r['dialect']}: ERROR {r['error']}"
              for r in rows if "error" in r]
    lines.append("")
    return lines


def _targets(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    from toolparse._bench.targets import ROUND

    build = report["targets"][0]["build"] if report["targets"] else "?"
    lines.append(f"targets: {ROUND}, the goals of the {build} build")
    lines.append(f"{'target':<28}{'goal':>31}{'measured':>11}  result")
    for t in report["targets"]:
        op = ">=" if t["at_least"] else "<="
        goal = f"{t['build']} {op} {_fmt(t['goal'])} {t['unit']}"
        if t["met"] is None:
            verdict = "not measured"
        elif t["met"]:
            verdict = "met"
        else:
            verdict = f"MISSED ({_fmt(t['margin'])} of goal)" if t["at_least"] else \
                f"MISSED ({_fmt(1 / t['margin'])} x over)"
        note = f"  [{t['note']}]" if t["note"] else ""
        lines.append(f"{t['target']:<28}{goal:>31}{_fmt(t['measured'], 3):>11}  {verdict}{note}")
    return lines


def _dialects(report: dict[str, Any]) -> list[str]:
    """The dialect axis: each dialect's speed, and its slowdown against deepseek on the
    same content (lower is better; the goal is at most DIALECT_GOAL)."""
    rows = report.get("dialects")
    if not rows:
        return []
    from toolparse._bench.dialects import DIALECT_GOAL, worst_slowdown

    lines = ["", f"Dialects: {size_label(min(report['sizes']))} of the same content in each "
             "dialect's markup; MB/s, the ratio to the floor (parse: to the regex pass),",
             "and time per character over deepseek's on the same content (<= "
             f"{DIALECT_GOAL}x is the goal)",
             f"{'shape':<8}{'chunking':<10}{'dialect':<13}{'MB/s':>8}{'ratio':>9}"
             f"{'vs deepseek':>13}"]
    for row in rows:
        head = f"{row['shape']:<8}{chunk_label(None if row['chunk'] == 'parse' else row['chunk']):<10}"
        if "error" in row:
            lines.append(f"{head}{row['dialect']:<13}  ERROR {row['error']}")
            continue
        lost = "  LOSSLESS CHECK FAILED" if row.get("lossless") is False else ""
        lines.append(f"{head}{row['dialect']:<13}{_fmt(row['engine_mb_s']):>8}"
                     f"{_fmt(row['ratio'], 3) + 'x':>9}{_fmt(row.get('slowdown'), 3) + 'x':>13}"
                     + lost)
    worst = worst_slowdown(rows)
    if worst is not None:
        verdict = "met" if worst["slowdown"] <= DIALECT_GOAL else "MISSED"
        lines.append(f"dialects vs deepseek, worst: {worst['slowdown']:.3f}x "
                     f"({worst['dialect']}, {worst['shape']} "
                     f"{chunk_label(None if worst['chunk'] == 'parse' else worst['chunk'])}); "
                     f"goal <= {DIALECT_GOAL}x: {verdict}")
    return lines
