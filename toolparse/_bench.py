"""The benchmark harness: `toolparse bench` and `python -m benchmarks` (issue 5).

Theory of operation
-------------------
Every figure is a *ratio measured in the same run*, because the machines this runs on
are shared and noisy: a streaming figure is the engine's speed over the speed of the
**floor** (a loop calling a trivial method per chunk that does two `str.find` calls and
one list append) on the very same pre-sliced chunks, timed alternately with it; a
one-shot `parse()` figure is over one `re.finditer` pass for `<` and backticks over the
whole text. Timed regions use this thread's CPU time (`_cpu`), so that a preemption by
another process is charged to neither side. Each cell runs a few interleaved passes
(`Plan`) and reports the median ratio; a target's figure pools every pass of a
(workload, chunking) over the sizes.

Workloads are generated from a seed, so every run (and every machine) parses the same
text; a larger size of prose, markup and tools starts with the smaller one.

    prose        Markdown answers: paragraphs, inline code, lists, headings; about one
                 fence and one real tool block per 10 KB.
    markup       Dense `<` and `>` in prose, tags in inline code, many fences with tool
                 call examples inside; about 13-15 % of the characters in real blocks.
    tools        Back-to-back blocks, canonical and DSML, many parameters, CDATA values.
    adv-*        Adversarial shapes (SPEC G6): an unclosed wrapper mention followed by
                 prose, backtick storms, runs of `<`, repeated `<tool_` prefixes, one
                 CDATA value as large as the workload, wrappers of 10,000 tiny invokes,
                 and an unclosed parameter value followed by prose.

Besides throughput: growth (time per character at the largest size over the smallest,
each relative to its baseline), peak traced memory while streaming 100 MB of prose in
4-character chunks (as a multiple of `max_capture`; measured in a child process while
the cells are timed), start-up of a fresh interpreter, and `repair_tool_call` on a valid
10 KB call against `json.loads` plus a cached jsonschema validation.

Throughput is measured with `max_capture` = `BENCH_MAX_CAPTURE` (8 MiB), larger than
any workload, so that the 4 MB CDATA value streams through one capture as G6 describes;
the memory figure uses the default `max_capture` (1 MiB). "MB" is 10^6 characters
(the workloads are nearly all ASCII).

The header names the git commit of the checkout measured (and whether it had
uncommitted changes); for a tree exported with `git archive`, set
TOOLPARSE_BENCH_COMMIT to the commit it came from.

Cost on a 2-core machine: `--smoke` about 5 s, `--quick` under a minute, the full run
3-5 minutes (its long poles: the slowest adversarial cells, and the 100 MB memory
stream, which runs about 7x slower under tracing).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = ["PLANS", "TARGETS", "WORKLOADS", "Workload", "generate", "main", "render", "run"]

KB: Final = 1024
MB: Final = 1024 * 1024

BENCH_MAX_CAPTURE: Final = 8 * MB
"""max_capture for the throughput figures: larger than every workload."""

DEFAULT_SEED: Final = 20240605


# ---- workloads ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Workload:
    """One generated benchmark text."""

    name: str
    """The workload's name (`prose`, `markup`, `tools`, `adv-...`)."""
    text: str
    """The text, at least the requested size (it ends at a segment boundary)."""
    real_blocks: int
    """How many well-formed tool blocks the generator wrote outside Markdown code."""
    real_chars: int
    """How many characters those blocks take."""


_WORDS = (  # noqa: SIM905 -- a word list reads better as text
    "the a an of to in for on with by from as at is are was be can will should may this "
    "that these those it its they we you your our function value file request response "
    "stream parser token chunk buffer server client model call tool result error output "
    "input line column offset index list map set key name path config option default "
    "return type string number object array field method class module package import "
    "test case data record event handler queue worker thread process memory cache time "
    "first second next last each every some many few more less fast slow simple clear "
    "check update create delete read write open close start stop send receive parse emit "
    "when while after before because if then else also only just still already again "
    "here there where which what how why large small new old same other whole partial"
).split()

_IDENTIFIERS = (  # noqa: SIM905
    "parse feed close read_file write_file run_tests search grep_repo list_dir make_dir "
    "git_diff http_get StreamParser ToolCall max_capture chunk_size config.yaml README.md "
    "src/main.py tests/test_api.py json.loads re.compile asyncio.run dict.get os.path.join "
    "--verbose --dry-run npm install pip install ls -la self.buffer result.calls"
).split()

_TOOL_NAMES = ("read_file", "write_file", "run_command", "search_code", "list_directory",
               "http_request", "edit_file", "get_weather", "create_issue", "query_db")

_PARAM_NAMES = ("path", "content", "command", "query", "limit", "offset", "recursive",
                "pattern", "url", "method", "headers", "body", "timeout", "city", "units",
                "title", "labels", "sql", "encoding", "mode", "line_start", "line_end")

_CODE_LINES = (
    "def handle(request):",
    "    value = request.get(\"key\", None)",
    "    if value is None:",
    "        return {\"error\": \"missing key\"}",
    "    for item in items:",
    "        total += item.size * 2",
    "    return total",
    "import json, re",
    "class Buffer:",
    "    def __init__(self) -> None:",
    "        self.parts: list[str] = []",
    "const x = items.filter((i) => i.ok).map((i) => i.id);",
    "if (a < b && b > c) { swap(a, c); }",
    "for (int i = 0; i < n; i++) { sum += v[i]; }",
    "SELECT id, name FROM users WHERE age > 30;",
    "echo \"done\" > /tmp/out.log",
    "x = data[idx[0]]  # nested index",
    "",
)

# Pieces of markup-heavy prose: HTML, generics, comparisons, arrows.
_MARKUP_BITS = (
    "a < b", "x > 0", "i <= n", "n >= 1", "List<String>", "Map<K, V>", "<div>", "</div>",
    "<br/>", "<span class=\"x\">", "</span>", "a -> b", "x => y", "<T>", "<<", ">>",
    "<p>", "</p>", "1 < 2 > 0", "<html>", "<!-- note -->", "Vec<u8>", "<input type=\"text\">",
)


def _sentence(rnd: random.Random, *, inline: float = 0.06, markup: float = 0.0) -> str:
    """A sentence of 6-18 words; `inline` of them in backticks (about one code span a
    sentence, as in technical answers), `markup` of them `<`/`>` bits."""
    words: list[str] = []
    for _ in range(rnd.randint(6, 18)):
        r = rnd.random()
        if r < inline:
            words.append("`" + rnd.choice(_IDENTIFIERS) + "`")
        elif r < inline + markup:
            words.append(rnd.choice(_MARKUP_BITS))
        elif r < inline + markup + 0.03:
            words.append("**" + rnd.choice(_WORDS) + "**")
        else:
            words.append(rnd.choice(_WORDS))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rnd.choice((".", ".", ".", "?", ":"))


def _paragraph(rnd: random.Random, **kw: float) -> str:
    return " ".join(_sentence(rnd, **kw) for _ in range(rnd.randint(2, 6)))


def _markdown_piece(rnd: random.Random, **kw: float) -> str:
    """A paragraph, a list or a heading (never code blocks, never tool markup)."""
    r = rnd.random()
    if r < 0.15:
        return "#" * rnd.randint(1, 3) + " " + _sentence(rnd, inline=0.0).rstrip(".?:")
    if r < 0.35:
        numbered = rnd.random() < 0.4
        lines = []
        for i in range(rnd.randint(2, 6)):
            bullet = f"{i + 1}." if numbered else rnd.choice("-*")
            lines.append(f"{bullet} {_sentence(rnd, **kw)}")
        return "\n".join(lines)
    return _paragraph(rnd, **kw)


def _code(rnd: random.Random, lines: int) -> str:
    return "\n".join(rnd.choice(_CODE_LINES) for _ in range(lines))


def _fence(rnd: random.Random, body: str, info: str = "") -> str:
    marker = "```" if rnd.random() < 0.8 else "~~~"
    return f"{marker}{info}\n{body}\n{marker}"


def _tag(name: str, dsml: bool, closing: bool = False, attrs: str = "") -> str:
    prefix = "｜DSML｜" if dsml else ""
    slash = "/" if closing else ""
    return f"<{slash}{prefix}{name}{attrs}>"


def _param_value(rnd: random.Random) -> tuple[str, str]:
    """(attributes, value markup) of one parameter."""
    r = rnd.random()
    if r < 0.45:
        return "", f"<![CDATA[{rnd.choice(_IDENTIFIERS)}]]>"
    if r < 0.6:
        return "", str(rnd.randint(0, 100000))
    if r < 0.68:
        return "", rnd.choice(("true", "false", "null"))
    if r < 0.75:
        return "", json.dumps([rnd.choice(_WORDS) for _ in range(rnd.randint(1, 5))])
    if r < 0.85:
        return ' string="true"', _sentence(rnd, inline=0.0).replace("&", "&amp;")
    # A multi-line code value, with `<`, `]]` and a `]]>` that is not a section end.
    body = _code(rnd, rnd.randint(3, 12)) + "\nx = a[b[0]]> 1"
    return "", f"<![CDATA[{body}]]>"


def _tool_block(rnd: random.Random, *, invokes: tuple[int, int] = (1, 2),
                params: tuple[int, int] = (1, 4), dsml: bool | None = None) -> str:
    """One well-formed block, canonical or DSML, pretty-printed the way models write it."""
    if dsml is None:
        dsml = rnd.random() < 0.4
    lines = [_tag("tool_calls", dsml)]
    for _ in range(rnd.randint(*invokes)):
        name = rnd.choice(_TOOL_NAMES)
        lines.append("  " + _tag("invoke", dsml, attrs=f' name="{name}"'))
        for _ in range(rnd.randint(*params)):
            attrs, value = _param_value(rnd)
            pname = rnd.choice(_PARAM_NAMES)
            lines.append("    " + _tag("parameter", dsml, attrs=f' name="{pname}"{attrs}')
                         + value + _tag("parameter", dsml, closing=True))
        lines.append("  " + _tag("invoke", dsml, closing=True))
    lines.append(_tag("tool_calls", dsml, closing=True))
    return "\n".join(lines)


class _Builder:
    """Accumulates segments until a size is reached; counts the real blocks."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.parts: list[str] = []
        self.length = 0
        self.real_blocks = 0
        self.real_chars = 0

    @property
    def full(self) -> bool:
        return self.length >= self.size

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def block(self, text: str) -> None:
        self.real_blocks += 1
        self.real_chars += len(text)
        self.add(text)

    def done(self, name: str) -> Workload:
        return Workload(name, "".join(self.parts), self.real_blocks, self.real_chars)


def _prose_section(rnd: random.Random, out: _Builder, target: int = 10 * KB) -> None:
    """About `target` characters of Markdown with one fence and one real block."""
    pieces: list[tuple[str, bool]] = []
    length = 0
    while length < target:
        piece = _markdown_piece(rnd)
        pieces.append((piece, False))
        length += len(piece) + 2
    fence = _fence(rnd, _code(rnd, rnd.randint(4, 15)), rnd.choice(("python", "", "js", "sh")))
    pieces.insert(rnd.randrange(len(pieces) + 1), (fence, False))
    pieces.insert(rnd.randrange(1, len(pieces) + 1), (_tool_block(rnd), True))
    for piece, real in pieces:
        if real:
            out.block(piece)
        else:
            out.add(piece)
        out.add("\n\n")


def _prose(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        _prose_section(rnd, out)
    return out.done("prose")


def _markup(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        r = rnd.random()
        if r < 0.45:
            out.add(_markdown_piece(rnd, inline=0.12, markup=0.25))
        elif r < 0.6:
            # Tags mentioned in inline code.
            bits = [_sentence(rnd, markup=0.2) for _ in range(2)]
            bits.insert(1, "`" + rnd.choice(("<tool_calls>", "<invoke name=\"x\">",
                                              "</parameter>", "<｜DSML｜invoke>",
                                              "<![CDATA[", "</tool_calls>")) + "`")
            out.add(" ".join(bits))
        elif r < 0.87:
            info = rnd.choice(("xml", "", "html", "text"))
            out.add(_fence(rnd, _tool_block(rnd), info))
        elif r < 0.92:
            out.add(_fence(rnd, "<div class=\"x\">\n  <p>a &lt; b</p>\n</div>", "html"))
        else:
            out.block(_tool_block(rnd))
        out.add("\n\n")
    return out.done("markup")


def _tools(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.block(_tool_block(rnd, invokes=(1, 3), params=(6, 16)))
        out.add("\n")
    return out.done("tools")


def _plain_prose(rnd: random.Random, size: int) -> str:
    """Markdown without fences or tool markup, at least `size` characters."""
    parts: list[str] = []
    length = 0
    while length < size:
        piece = _markdown_piece(rnd) + "\n\n"
        parts.append(piece)
        length += len(piece)
    return "".join(parts)


def _adv_unclosed(rnd: random.Random, size: int) -> Workload:
    head = "To call a tool, put the invokes inside <tool_calls> and then stop.\n\n"
    return Workload("adv-unclosed", head + _plain_prose(rnd, size - len(head)), 0, 0)


def _adv_open_value(rnd: random.Random, size: int) -> Workload:
    head = ('<tool_calls>\n<invoke name="write_file">\n<parameter name="content">'
            "Here is the file:\n\n")
    return Workload("adv-open-value", head + _plain_prose(rnd, size - len(head)), 0, 0)


def _adv_backticks(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.add("`" * rnd.choice((1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 12)))
        r = rnd.random()
        if r < 0.6:
            out.add(rnd.choice((" ", "x", " " + rnd.choice(_WORDS) + " ")))
        elif r < 0.8:
            out.add(rnd.choice(("\n", "\n\n", "\n```\n", "\n    ", "\\")))
        elif r < 0.98:
            out.add(rnd.choice(("<invoke name=\"x\">", "<tool_calls>", "</tool_calls>", "<")))
        else:
            # A whole block inside the storm: its fate waits on the runs around it.
            out.add(_tool_block(rnd, params=(1, 2)))
    return out.done("adv-backticks")


def _adv_lt_runs(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.add("<" * rnd.choice((1, 2, 3, 10, 100, 1000, 4000)))
        out.add(rnd.choice((" ", "\n", " a ", "\n\n", "tool_calls ", "invoke>")))
    return out.done("adv-lt-runs")


_PREFIXES = ("<tool_", "<tool_calls", "<｜DSML｜tool_", "<|DSML|tool_calls", "<invok",
             "<｜DSML｜invoke", "</tool_calls", "<tool_calls_x>", "<｜DSML｜", "<｜｜DSML｜｜ ",
             "<DSML", "<parameter", "<invoke name=", "<invoke name=\"x", "<tool_calls\n")


def _adv_prefixes(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.add(rnd.choice(_PREFIXES))
        if rnd.random() < 0.3:
            out.add(rnd.choice((" ", "\n", " text ", "x")))
    return out.done("adv-prefixes")


def _adv_cdata(rnd: random.Random, size: int) -> Workload:
    head = '<tool_calls>\n<invoke name="write_file">\n<parameter name="content"><![CDATA['
    tail = "]]></parameter>\n</invoke>\n</tool_calls>\n"
    lines: list[str] = []
    length = len(head) + len(tail)
    while length < size:
        r = rnd.random()
        if r < 0.02:
            # A nested example section, then a `]]>` that ends nothing.
            line = '<parameter name="x"><![CDATA[nested example]]></parameter> and ]]> alone'
        else:
            line = rnd.choice(_CODE_LINES)
        lines.append(line)
        length += len(line) + 1
    block = head + "\n".join(lines) + tail.rstrip("\n")
    return Workload("adv-cdata", block + "\n", 1, len(block))


def _adv_tiny_invokes(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        parts = ["<tool_calls>\n"]
        length = out.length + len(parts[0])
        for _ in range(10_000):
            if rnd.random() < 0.5:
                parts.append('<invoke name="f"/>\n')
            else:
                parts.append('<invoke name="g"><parameter name="a">1</parameter></invoke>\n')
            length += len(parts[-1])
            if length >= out.size:
                break
        parts.append("</tool_calls>")
        out.block("".join(parts))
        out.add("\n")
    return out.done("adv-tiny-invokes")


WORKLOADS: Final[dict[str, Callable[[random.Random, int], Workload]]] = {
    "prose": _prose,
    "markup": _markup,
    "tools": _tools,
    "adv-unclosed": _adv_unclosed,
    "adv-backticks": _adv_backticks,
    "adv-lt-runs": _adv_lt_runs,
    "adv-prefixes": _adv_prefixes,
    "adv-cdata": _adv_cdata,
    "adv-tiny-invokes": _adv_tiny_invokes,
    "adv-open-value": _adv_open_value,
}
"""Workload name -> generator(rnd, size)."""


def generate(name: str, size: int, seed: int = DEFAULT_SEED) -> Workload:
    """The workload `name` at (at least) `size` characters; the same for the same seed."""
    rnd = random.Random(f"toolparse-bench:{seed}:{name}")
    return WORKLOADS[name](rnd, size)


# ---- timing ------------------------------------------------------------------------------

class _Floor:
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

_clock = time.perf_counter
"""Wall time: progress, start-up (a child's latency) and the run's length."""
_cpu = time.thread_time
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
    floor = _Floor()
    feed = parser.feed
    floor_feed = floor.feed
    engine_time = floor_time = 0.0
    for n, start in enumerate(range(0, len(chunks), segment)):
        piece = chunks[start:start + segment]
        if (n % 2 == 0) == first_floor:
            t0 = _cpu()
            for chunk in piece:
                floor_feed(chunk)
            t1 = _cpu()
            for chunk in piece:
                feed(chunk)
            t2 = _cpu()
            floor_time += t1 - t0
            engine_time += t2 - t1
        else:
            t0 = _cpu()
            for chunk in piece:
                feed(chunk)
            t1 = _cpu()
            for chunk in piece:
                floor_feed(chunk)
            t2 = _cpu()
            engine_time += t1 - t0
            floor_time += t2 - t1
    t0 = _cpu()
    parser.close()
    t1 = _cpu()
    floor.close()
    t2 = _cpu()
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
    t0 = _cpu()
    _regex_pass(text)
    t1 = _cpu()
    result = parse(text)
    t2 = _cpu()
    _regex_pass(text)
    t3 = _cpu()
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


def _measure(cell: Cell, text: str, dialect: Any, plan: Plan) -> Any:
    """Run interleaved passes: at least `plan.passes` and `plan.min_cell_time` seconds
    (at most `plan.max_passes`), but never start a pass that would take the cell past
    `plan.cell_budget` seconds (the first pass always runs). Returns the last
    `ParseResult` of a one-shot cell, else None."""
    import toolparse

    last: list[Any] = [None]
    if cell.chunk is None:
        def parse(t: str) -> Any:
            return toolparse.parse(t, dialect, max_capture=BENCH_MAX_CAPTURE)

        def one_pass(n: int) -> tuple[float, float]:
            engine, base, last[0] = _parse_pass(text, parse)
            return engine, base
    else:
        size = cell.chunk
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        segment = max(1000, min(_SEGMENT_CHARS, len(text) // 32) // size)

        def make_parser() -> Any:
            return toolparse.StreamParser(dialect, max_capture=BENCH_MAX_CAPTURE)

        def one_pass(n: int) -> tuple[float, float]:
            return _stream_pass(chunks, make_parser, segment, first_floor=n % 2 == 0)
    spent = 0.0
    n = 0
    while True:
        gc.collect()
        engine, base = one_pass(n)
        cell.engine_s.append(engine)
        cell.base_s.append(base)
        spent += engine + base
        n += 1
        if n >= plan.max_passes:
            break
        if n >= plan.passes and spent >= plan.min_cell_time:
            break
        if spent / n * (n + 1) > plan.cell_budget:
            break
    return last[0]


def _warm_up(dialect: Any) -> None:
    """Fill the engine's lazy caches (per-state terminal lists, compiled patterns) before
    anything is timed."""
    import toolparse

    rnd = random.Random("toolparse-bench:warm-up")
    text = "".join(generate(name, 4 * KB).text for name in WORKLOADS)
    text += _tool_block(rnd, dsml=False) + _tool_block(rnd, dsml=True)
    for size in (1, 4, 64):
        parser = toolparse.StreamParser(dialect, max_capture=BENCH_MAX_CAPTURE)
        for i in range(0, len(text), size):
            parser.feed(text[i:i + size])
        parser.close()
    toolparse.parse(text, dialect)


# ---- memory, start-up, repair ------------------------------------------------------------

def _measure_memory(total: int, dialect: Any, seed: int) -> dict[str, Any]:
    """Peak traced memory while `total` characters of prose stream through one parser
    with the default `max_capture`, 4 characters at a time.

    The stream is made lazily: a 1 MiB prose text (built before tracing starts) is cut
    into fresh chunks on the fly, over and over, so nothing near `total` is ever held.
    What a process allocates once for all its parsers (grammars, compiled automata,
    caches) is measured first, on a short warm-up stream, and reported apart: the
    figure is the stream's own peak above what was allocated before it started."""
    import toolparse

    text = generate("prose", MB, seed).text
    warm = generate("markup", 8 * KB, seed).text
    length = len(text)
    rounds = -(-total // length)
    max_capture = toolparse.DEFAULT_MAX_CAPTURE
    gc.collect()
    tracemalloc.start()
    first = toolparse.StreamParser(dialect)
    for i in range(0, len(warm), 4):
        first.feed(warm[i:i + 4])
    first.close()
    del first
    gc.collect()
    retained, first_use_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    parser = toolparse.StreamParser(dialect)   # the default max_capture
    feed = parser.feed
    t0 = _clock()
    for _ in range(rounds):
        for i in range(0, length, 4):
            feed(text[i:i + 4])
    parser.close()
    elapsed = _clock() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"stream_chars": rounds * length, "chunk": 4, "max_capture": max_capture,
            "peak_bytes": peak - retained, "multiple": (peak - retained) / max_capture,
            "process_peak_bytes": peak, "first_use_peak_bytes": first_use_peak,
            "first_use_retained_bytes": retained, "seconds": elapsed}


_STARTUP_TEXT = ('Reading it now.\n\n<tool_calls>\n<invoke name="read_file">\n'
                 '<parameter name="path"><![CDATA[README.md]]></parameter>\n'
                 '</invoke>\n</tool_calls>\n')


def _children_cpu() -> float | None:
    """CPU seconds used so far by this process's finished children (None: not known)."""
    try:
        import resource
    except ImportError:  # not on Unix
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure_startup(runs: int) -> dict[str, Any]:
    """A fresh interpreter's `import toolparse` plus a first `parse()`, minus a bare
    interpreter; runs alternate, medians of each.

    The figure is the children's CPU time (user + system), which a busy machine does
    not inflate: start-up is CPU-bound once the files are cached (one warm-up run
    first). Wall times are reported beside it; where CPU time is not available, the
    figure is the wall time."""
    import toolparse

    package_parent = str(Path(toolparse.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    bare = [sys.executable, "-c", "pass"]
    full = [sys.executable, "-c",
            f"import toolparse; assert toolparse.parse({_STARTUP_TEXT!r}).calls"]

    def run(argv: list[str]) -> tuple[float, float | None]:
        cpu0 = _children_cpu()
        t0 = _clock()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
        wall = _clock() - t0
        cpu1 = _children_cpu()
        return wall, (cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None)
    run(full)  # warm the OS file cache and Lark's grammar cache
    bare_runs = []
    full_runs = []
    for _ in range(runs):
        bare_runs.append(run(bare))
        full_runs.append(run(full))
    bare_wall = statistics.median(w for w, _ in bare_runs)
    full_wall = statistics.median(w for w, _ in full_runs)
    out = {"runs": runs, "clock": "wall", "bare_ms": bare_wall * 1e3,
           "import_and_parse_ms": full_wall * 1e3, "startup_ms": (full_wall - bare_wall) * 1e3,
           "wall_bare_ms": bare_wall * 1e3, "wall_import_and_parse_ms": full_wall * 1e3,
           "wall_startup_ms": (full_wall - bare_wall) * 1e3}
    if all(c is not None for _, c in bare_runs + full_runs):
        bare_cpu = statistics.median(c for _, c in bare_runs if c is not None)
        full_cpu = statistics.median(c for _, c in full_runs if c is not None)
        out.update(clock="cpu", bare_ms=bare_cpu * 1e3, import_and_parse_ms=full_cpu * 1e3,
                   startup_ms=(full_cpu - bare_cpu) * 1e3)
    return out


def _repair_case() -> tuple[str, dict[str, Any], str]:
    """A valid call of about 10 KB: (tool name, schema, arguments JSON text)."""
    rnd = random.Random("toolparse-bench:repair")
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "line_start": {"type": "integer", "minimum": 1},
            "line_end": {"type": "integer", "minimum": 1},
            "create_dirs": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"old": {"type": "string"}, "new": {"type": "string"},
                               "count": {"type": "integer"}},
                "required": ["old", "new"], "additionalProperties": False}},
            "mode": {"enum": ["overwrite", "append", "patch"]},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    arguments: dict[str, Any] = {
        "path": "src/toolparse/_stream.py",
        "content": "",
        "line_start": 10, "line_end": 400, "create_dirs": False,
        "tags": [rnd.choice(_WORDS) for _ in range(20)],
        "edits": [{"old": _code(rnd, 2), "new": _code(rnd, 3), "count": 1} for _ in range(12)],
        "mode": "patch",
    }
    lines: list[str] = []
    text = json.dumps(arguments)
    while len(text) < 10_000:
        lines.append(rnd.choice(_CODE_LINES))
        arguments["content"] = "\n".join(lines)
        text = json.dumps(arguments)
    return "write_file", schema, text


def _measure_repair(passes: int, loops: int) -> dict[str, Any]:
    import jsonschema

    import toolparse

    name, schema, text = _repair_case()
    try:
        outcome = toolparse.repair_tool_call(name, text, schema)
    except NotImplementedError:
        return {"status": "n/a (repair not built)"}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(json.loads(text))
    repair = toolparse.repair_tool_call
    loads = json.loads
    is_valid = validator.is_valid

    def time_repair() -> float:
        t0 = _cpu()
        for _ in range(loops):
            repair(name, text, schema)
        return (_cpu() - t0) / loops

    def time_base() -> float:
        t0 = _cpu()
        for _ in range(loops):
            is_valid(loads(text))
        return (_cpu() - t0) / loops
    repair_s: list[float] = []
    base_s: list[float] = []
    for n in range(passes):
        if n % 2:
            repair_s.append(time_repair())
            base_s.append(time_base())
        else:
            base_s.append(time_base())
            repair_s.append(time_repair())
    ratios = [r / b for r, b in zip(repair_s, base_s)]
    return {"status": outcome.status, "chars": len(text), "passes": passes, "loops": loops,
            "repair_us": statistics.median(repair_s) * 1e6,
            "baseline_us": statistics.median(base_s) * 1e6,
            "ratio": statistics.median(ratios), "ratios": ratios}


class _MemoryChild:
    """The memory figure, measured in a child process while the parent times the
    throughput cells (it counts bytes, not seconds, and would otherwise add minutes)."""

    def __init__(self, total: int, grammar: str | None, seed: int) -> None:
        import toolparse

        package_parent = str(Path(toolparse.__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"]
                                              if env.get("PYTHONPATH") else "")
        # Not niced: on a machine shared with other busy processes a niced child gets
        # a sliver of a core and becomes the run's long pole. Running alongside does not
        # bias the timed figures: each is a ratio to a baseline interleaved with it.
        code = ("import json, sys; from toolparse import _bench; "
                "print(json.dumps(_bench._memory_in_child(*json.loads(sys.argv[1]))))")
        self._process = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps([total, grammar, seed])],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def result(self) -> dict[str, Any]:
        out, err = self._process.communicate()
        if self._process.returncode != 0:
            return {"error": err.strip().splitlines()[-1] if err.strip() else "failed"}
        return json.loads(out)  # type: ignore[no-any-return]


def _memory_in_child(total: int, grammar: str | None, seed: int) -> dict[str, Any]:
    return _measure_memory(total, _dialect(grammar), seed)


def _dialect(grammar: str | None) -> Any:
    import toolparse

    if grammar is None:
        return toolparse.Dialect.bundled("deepseek")
    return toolparse.Dialect.from_file(grammar)


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
    """Passes per cell, at least (unless the cell budget runs out)."""
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
    "quick": Plan("quick", (100 * KB, MB), 1, 1, 3, 0.2, 15, 1.0, 5_000_000, 5, 5, 30),
    "smoke": Plan("smoke", (20 * KB, 100 * KB), 1, 1, 1, 0.0, 1, 0.0, 1_000_000, 1, 1, 3),
}
"""full: every chunking at 100 KB (and at 1 MB for prose, markup and tools), 4-char
and parse() at every size; quick: every chunking at 100 KB, 4-char and parse() at
1 MB; smoke: every chunking at 20 KB, 4-char and parse() at 100 KB, one pass each."""

MEMORY_TARGET_CHARS: Final = 100_000_000


def _size_label(size: int) -> str:
    if size % MB == 0:
        return f"{size // MB} MB"
    if size % KB == 0:
        return f"{size // KB} KB"
    return f"{size} B"


def _parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([KkMm]?)[Bb]?\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say 100K or 1M)")
    return int(m.group(1)) * {"": 1, "k": KB, "m": MB}[m.group(2).lower()]


def _chunk_label(chunk: int | None) -> str:
    return "parse" if chunk is None else f"{chunk}-char"


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
)


def _pooled(cells: list[Cell], workload: str, chunk: int | None) -> float | None:
    """The median of every pass's ratio for (workload, chunking), over all sizes."""
    ratios = [r for c in cells if c.workload == workload and c.chunk == chunk
              and c.error is None for r in c.ratios]
    return statistics.median(ratios) if ratios else None


def _growth(cells: list[Cell], sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    small, large = min(sizes), max(sizes)
    found = []
    by_key = {(c.workload, c.size, c.chunk): c for c in cells}
    for workload in dict.fromkeys(c.workload for c in cells):
        for chunk in CHUNKINGS:
            a = by_key.get((workload, small, chunk))
            b = by_key.get((workload, large, chunk))
            if a is None or b is None or a is b or a.error or b.error:
                continue
            raw = (b.engine_time / b.chars) / (a.engine_time / a.chars)
            base = (b.base_time / b.chars) / (a.base_time / a.chars)
            found.append({"workload": workload, "chunk": chunk if chunk is not None else "parse",
                          "from_size": small, "to_size": large,
                          # The figure: engine time per character at the large size over
                          # the small, each relative to its baseline measured alongside
                          # it (a ratio of ratios, so that machine noise between the two
                          # moments cancels): a.ratio / b.ratio.
                          "growth": a.ratio / b.ratio,
                          "raw_growth": raw, "baseline_growth": base})
    return found


def _evaluate(cells: list[Cell], growth: list[dict[str, Any]], memory: dict[str, Any],
              startup: dict[str, Any], repair: dict[str, Any]) -> list[dict[str, Any]]:
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
            (worst_adv[2], f"{worst_adv[0]} {_chunk_label(worst_adv[1])}")
            if worst_adv else (None, "")),
        "prose parse()": (_pooled(cells, "prose", None), ""),
        "growth, worst": (
            (worst_growth["growth"],
             (f"{worst_growth['workload']} {_chunk_label(_chunk_of(worst_growth))}, "
              f"{_size_label(worst_growth['to_size'])} / "
              f"{_size_label(worst_growth['from_size'])}"))
            if worst_growth else (None, "")),
        "memory, 100 MB stream": (
            memory.get("multiple"),
            "" if memory.get("stream_chars", 0) >= MEMORY_TARGET_CHARS
            else f"{memory.get('stream_chars', 0) / 1e6:.0f} MB stream only"),
        "start-up": (startup.get("startup_ms"), ""),
        "repair, valid 10 KB": (repair.get("ratio"), repair.get("status", "")
                                if "ratio" not in repair else ""),
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


def _command(argv: Sequence[str]) -> str:
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
        self.start = _clock()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{_clock() - self.start:6.1f}s] {message}", file=sys.stderr, flush=True)


def run(plan: Plan, *, grammar: str | None = None, workloads: Sequence[str] | None = None,
        seed: int = DEFAULT_SEED, memory: bool = True, parallel_memory: bool = True,
        quiet: bool = False) -> dict[str, Any]:
    """Measure everything `plan` asks for; returns the JSON-ready report."""
    progress = _Progress(quiet)
    dialect = _dialect(grammar)
    names = list(workloads) if workloads else list(WORKLOADS)
    # Start-up and repair first, before the memory child starts sharing the machine.
    progress("start-up")
    try:
        startup = _measure_startup(plan.startup_runs)
    except (OSError, subprocess.SubprocessError) as e:
        startup = {"error": f"{type(e).__name__}: {e}"}
    progress("repair")
    try:
        repair = _measure_repair(plan.repair_passes, plan.repair_loops)
    except NotImplementedError:
        repair = {"status": "n/a (repair not built)"}
    except Exception as e:  # noqa: BLE001 -- a repair bug: report it, go on
        repair = {"status": "error", "error": f"{type(e).__name__}: {e}"}
    child = None
    if memory and parallel_memory:
        child = _MemoryChild(plan.memory_chars, grammar, seed)
    progress("warming up")
    try:
        _warm_up(dialect)
    except Exception as e:  # noqa: BLE001 -- an engine bug: the cells that hit it say so
        progress(f"warm-up failed: {type(e).__name__}: {e}")
    cells: list[Cell] = []
    checks: list[dict[str, Any]] = []
    # A workload's sizes are measured back to back, so that the cells its growth figure
    # compares are seconds apart, not minutes: a machine that gets busier meanwhile
    # cannot pass for superlinear work.
    for name in names:
        for size in plan.sizes:
            workload = generate(name, size, seed)
            text = workload.text
            for chunk in plan.chunkings(size, name):
                cell = Cell(name, size, chunk, len(text))
                began = _clock()
                try:
                    result = _measure(cell, text, dialect, plan)
                except Exception as e:  # noqa: BLE001 -- an engine bug: report it, go on
                    cell.error = f"{type(e).__name__}: {e}"
                    cells.append(cell)
                    progress(f"{name} {_size_label(size)} {_chunk_label(chunk)}: "
                             f"ERROR {cell.error}")
                    continue
                took = _clock() - began
                cells.append(cell)
                if result is not None:
                    checks.append(_check(workload, size, result))
                    del result
                base = "floor" if chunk is not None else "regex"
                progress(f"{name} {_size_label(size)} {_chunk_label(chunk)}: "
                         f"{cell.chars / cell.engine_time / 1e6:.2f} MB/s, "
                         f"{cell.ratio:.3f}x {base} ({len(cell.engine_s)} passes, {took:.1f} s)")
    memory_figure: dict[str, Any] = {"skipped": "--no-memory"}
    if memory:
        progress(f"memory: {plan.memory_chars / 1e6:.0f} MB of prose in 4-char chunks, traced"
                 + (" (in a child process, waiting)" if child else ""))
        memory_figure = child.result() if child else _measure_memory(
            plan.memory_chars, dialect, seed)
    growth = _growth(cells, plan.sizes)
    progress("done")
    return {
        "mode": plan.mode,
        "environment": _environment(),
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
        "targets": _evaluate(cells, growth, memory_figure, startup, repair),
        "elapsed_s": _clock() - progress.start,
    }


def _check(workload: Workload, size: int, result: Any) -> dict[str, Any]:
    """What one-shot `parse()` found in a workload, and whether it gave the text back."""
    import toolparse

    joined = "".join(e.text if isinstance(e, toolparse.Text) else e.raw
                     for e in result.events)
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
            out[_chunk_label(chunk)] = statistics.median(speeds)
    return out


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
    env = report["environment"]
    lines = []
    commit = env["commit"] or "unknown commit"
    if env["dirty"]:
        commit += " + uncommitted changes"
    lines.append(f"toolparse bench ({report['mode']}): toolparse {env['toolparse']} at {commit}, "
                 f"Python {env['python']}, lark {env['lark']}, {env['platform']}, "
                 f"{env['cpus']} CPUs")
    lines.append(f"command: {report.get('command', '?')}")
    lines.append(f"dialect: {report['dialect']['name']} ({report['dialect']['path']}); "
                 f"seed {report['seed']}; max_capture {report['max_capture'] // MB} MiB; "
                 f"{report['elapsed_s']:.0f} s")
    lines.append("")
    lines.append("Throughput: engine MB/s and, after it, its speed as a multiple of the "
                 "baseline measured")
    lines.append("on the same chunks in the same run (chunked: the floor; parse: one "
                 "re.finditer pass). Medians.")
    sizes = report["sizes"]
    header = f"{'workload':<18}{'chunking':<10}" + "".join(
        f"{_size_label(s):>18}" for s in sizes) + f"{'growth':>9}{'(raw)':>8}"
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
            text = f"{workload:<18}{_chunk_label(None if chunk == 'parse' else chunk):<10}"
            for s in sizes:
                c = cells.get((workload, s, chunk))
                if c is None:
                    text += f"{'':>18}"
                elif "error" in c:
                    text += f"{'ERROR':>18}"
                else:
                    text += f"{_fmt(c['engine_mb_s']):>9} {_fmt(c['ratio'], 3) + 'x':>8}"
            g = growth.get((workload, chunk))
            text += f"{_fmt(g['growth']):>9}{'(' + _fmt(g['raw_growth']) + ')':>8}" if g else ""
            lines.append(text.rstrip())
    floors = ", ".join(f"{k} {_fmt(v)}" for k, v in report["floor"].items())
    lines.append(f"baselines (MB/s, medians): {floors.replace('parse', 'regex pass')}")
    if report["growth"]:
        g0 = report["growth"][0]
        lines.append(f"growth: time per character at {_size_label(g0['to_size'])} over "
                     f"{_size_label(g0['from_size'])}, each relative to its baseline "
                     "(1.00 = linear); (raw): not")
        lines.append("relative to the baseline, so it also carries the machine's drift "
                     "between the two cells")
    for c in report["cells"]:
        if "error" in c:
            lines.append(f"ERROR {c['workload']} {_size_label(c['size'])} "
                         f"{_chunk_label(None if c['chunk'] == 'parse' else c['chunk'])}: "
                         f"{c['error']}")
    bad = [c for c in report["checks"] if not c["lossless"]]
    if bad:
        lines.append("LOSSLESS CHECK FAILED: " + ", ".join(
            f"{c['workload']} {_size_label(c['size'])}" for c in bad))
    lines.append("")
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
    st = report["startup"]
    if "error" in st:
        lines.append(f"start-up: ERROR {st['error']}")
    else:
        lines.append(f"start-up: {st['startup_ms']:.0f} ms above a bare interpreter "
                     f"(import toolparse + first parse() {st['import_and_parse_ms']:.0f} ms, "
                     f"bare {st['bare_ms']:.0f} ms; {st['clock']} time, median of "
                     f"{st['runs']}; wall: {st['wall_startup_ms']:.0f} ms above)")
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
    lines.append(f"{'target':<24}{'goal':>22}{'measured':>11}  result")
    for t in report["targets"]:
        op = ">=" if t["at_least"] else "<="
        goal = f"{op} {_fmt(t['goal'])} {t['unit']}"
        if t["met"] is None:
            verdict = "not measured"
        elif t["met"]:
            verdict = "met"
        else:
            verdict = f"MISSED ({_fmt(t['margin'])} of goal)" if t["at_least"] else \
                f"MISSED ({_fmt(1 / t['margin'])} x over)"
        note = f"  [{t['note']}]" if t["note"] else ""
        lines.append(f"{t['target']:<24}{goal:>22}{_fmt(t['measured'], 3):>11}  {verdict}{note}")
    return "\n".join(lines)


# ---- the command -------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """`toolparse bench [--quick | --smoke] [--grammar PATH] [--json PATH] ...`"""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="toolparse bench",
        description="Measure toolparse's speed as ratios to a Python floor measured in the "
                    "same run. The full run takes a few minutes; --quick under one.")
    level = parser.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true",
                       help="100 KB and 1 MB only (growth is 1 MB / 100 KB), a 5 MB memory "
                            "stream; under a minute")
    level.add_argument("--smoke", action="store_true",
                       help="the smallest sizes, one pass each: seconds; keeps the harness "
                            "working, the figures mean little")
    parser.add_argument("--grammar", metavar="PATH",
                        help="benchmark this grammar file (Dialect.from_file) instead of the "
                             "bundled deepseek dialect")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    parser.add_argument("--workloads", metavar="NAMES",
                        help="comma-separated subset of: " + ", ".join(WORKLOADS))
    parser.add_argument("--sizes", metavar="SIZES",
                        help="comma-separated sizes (e.g. 100K,1M) instead of the mode's; "
                             "every chunking runs at the smallest")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="workload seed")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figure")
    parser.add_argument("--serial", action="store_true",
                        help="measure memory after the throughput cells, not alongside them "
                             "in a child process")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(args_list)

    plan = PLANS["smoke" if args.smoke else "quick" if args.quick else "full"]
    if args.sizes:
        try:
            sizes = tuple(sorted({_parse_size(s) for s in args.sizes.split(",") if s.strip()}))
        except argparse.ArgumentTypeError as e:
            parser.error(str(e))
        if not sizes or min(sizes) < 1:
            parser.error("--sizes needs at least one positive size")
        plan = dataclasses.replace(plan, sizes=sizes, matrix_sizes=1,
                                   adversarial_matrix_sizes=1)
    workloads = None
    if args.workloads:
        workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
        unknown = [w for w in workloads if w not in WORKLOADS]
        if unknown:
            parser.error(f"unknown workload(s): {', '.join(unknown)}; "
                         f"known: {', '.join(WORKLOADS)}")
    import toolparse

    try:
        report = run(plan, grammar=args.grammar, workloads=workloads, seed=args.seed,
                     memory=not args.no_memory, parallel_memory=not args.serial,
                     quiet=args.quiet)
    except toolparse.ToolparseError as e:
        print(f"toolparse bench: {e}", file=sys.stderr)
        return 2
    report["command"] = _command(args_list)
    print(render(report))
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            print(f"toolparse bench: cannot write {args.json}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
    failed = (any(not c["lossless"] for c in report["checks"])
              or any("error" in c for c in report["cells"])
              or any("error" in report[k] for k in ("startup", "repair", "memory")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
