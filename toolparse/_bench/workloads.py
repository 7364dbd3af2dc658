"""Generated benchmark texts: the same on every machine, from a seed."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

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


WORDS = (  # noqa: SIM905 -- a word list reads better as text
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

CODE_LINES = (
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
            words.append("**" + rnd.choice(WORDS) + "**")
        else:
            words.append(rnd.choice(WORDS))
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


def code(rnd: random.Random, lines: int) -> str:
    return "\n".join(rnd.choice(CODE_LINES) for _ in range(lines))


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
        return "", json.dumps([rnd.choice(WORDS) for _ in range(rnd.randint(1, 5))])
    if r < 0.85:
        return ' string="true"', _sentence(rnd, inline=0.0).replace("&", "&amp;")
    # A multi-line code value, with `<`, `]]` and a `]]>` that is not a section end.
    body = code(rnd, rnd.randint(3, 12)) + "\nx = a[b[0]]> 1"
    return "", f"<![CDATA[{body}]]>"


def tool_block(rnd: random.Random, *, invokes: tuple[int, int] = (1, 2),
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
    fence = _fence(rnd, code(rnd, rnd.randint(4, 15)), rnd.choice(("python", "", "js", "sh")))
    pieces.insert(rnd.randrange(len(pieces) + 1), (fence, False))
    pieces.insert(rnd.randrange(1, len(pieces) + 1), (tool_block(rnd), True))
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
            out.add(_fence(rnd, tool_block(rnd), info))
        elif r < 0.92:
            out.add(_fence(rnd, "<div class=\"x\">\n  <p>a &lt; b</p>\n</div>", "html"))
        else:
            out.block(tool_block(rnd))
        out.add("\n\n")
    return out.done("markup")


def _tools(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.block(tool_block(rnd, invokes=(1, 3), params=(6, 16)))
        out.add("\n")
    return out.done("tools")


def _string_value(rnd: random.Random, dsml: bool, name: str, body: str) -> str:
    """A long string argument, as models write one: text marked `string="true"` (DSML's
    way; `&` escaped) or a CDATA body."""
    if rnd.random() < 0.5:
        return (_tag("parameter", dsml, attrs=f' name="{name}" string="true"')
                + body.replace("&", "&amp;") + _tag("parameter", dsml, closing=True))
    return (_tag("parameter", dsml, attrs=f' name="{name}"') + f"<![CDATA[{body}]]>"
            + _tag("parameter", dsml, closing=True))


def edit_block(rnd: random.Random) -> str:
    """One call of an edit tool: a short path and one or two values of code of a few KB
    (a whole file to write, or the text to replace and its replacement)."""
    dsml = rnd.random() < 0.4
    lines = [_tag("tool_calls", dsml)]
    path = _tag("parameter", dsml, attrs=' name="path" string="true"') + rnd.choice(
        ("src/main.py", "tests/test_api.py", "README.md", "config.yaml")) + _tag(
        "parameter", dsml, closing=True)
    if rnd.random() < 0.5:
        lines += ["  " + _tag("invoke", dsml, attrs=' name="write_file"'), "    " + path,
                  "    " + _string_value(rnd, dsml, "content", code(rnd, rnd.randint(60, 160)))]
    else:
        lines += ["  " + _tag("invoke", dsml, attrs=' name="edit_file"'), "    " + path]
        for name in ("old_string", "new_string"):
            lines.append("    " + _string_value(rnd, dsml, name, code(rnd, rnd.randint(30, 90))))
    lines += ["  " + _tag("invoke", dsml, closing=True), _tag("tool_calls", dsml, closing=True)]
    return "\n".join(lines)


def _strings(rnd: random.Random, size: int) -> Workload:
    out = _Builder(size)
    while not out.full:
        out.block(edit_block(rnd))
        out.add("\n")
    return out.done("strings")


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
            out.add(rnd.choice((" ", "x", " " + rnd.choice(WORDS) + " ")))
        elif r < 0.8:
            out.add(rnd.choice(("\n", "\n\n", "\n```\n", "\n    ", "\\")))
        elif r < 0.98:
            out.add(rnd.choice(("<invoke name=\"x\">", "<tool_calls>", "</tool_calls>", "<")))
        else:
            # A whole block inside the storm: its fate waits on the runs around it.
            out.add(tool_block(rnd, params=(1, 2)))
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
            line = rnd.choice(CODE_LINES)
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
    "strings": _strings,
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
