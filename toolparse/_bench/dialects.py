"""The `--dialect` axis: the same answers written in every bundled dialect, timed side by
side, each dialect's speed as a multiple of deepseek's on the same-shaped text.

A workload here is first built as content (prose, code fences, tag mentions, and tool
calls as names and values) from the seed, then written out in each dialect's markup,
so that every dialect parses the same prose, the same fences and the same calls; only
the markup differs. Three shapes, as in the main axis:

    prose    Markdown answers with about one fence and one real call per 10 KB
    markup   dense `<` and `>`, the dialect's tags in inline code, fenced examples of
             the dialect's calls, and real calls
    tools    back-to-back calls with many arguments

Each (shape, dialect, chunking) cell is timed against the floor like every other cell;
the figure a dialect is judged by is its *slowdown*: deepseek's ratio to the floor over
its own (so 1.10 means 10 % slower per character than deepseek on the same content).
The goal is at most `DIALECT_GOAL` (issue 12).

The markup is spelled here, as in `workloads.py`: the benchmark writes model output.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from toolparse._bench.timing import Cell, Plan, chunk_label, measure
from toolparse._bench.workloads import (
    WORDS, Workload, _fence, _IDENTIFIERS, _markdown_piece, _PARAM_NAMES, _sentence,
    _TOOL_NAMES, code,
)

__all__ = ["DIALECT_CHUNKINGS", "DIALECT_GOAL", "DIALECT_SHAPES", "MARKUP", "dialect_workload",
           "measure_dialects", "slowdowns", "warm_up_dialects", "worst_slowdown"]

DIALECT_SHAPES: Final = ("prose", "markup", "tools")
DIALECT_CHUNKINGS: Final[tuple[int | None, ...]] = (1, 4, None)
DIALECT_GOAL: Final = 1.25
"""Each dialect within 1.25x of deepseek's time per character on the same content."""
REFERENCE: Final = "deepseek"

Value = str | int | float | bool | None | list[Any]
Call = tuple[str, list[tuple[str, Value]]]


# ---- content ------------------------------------------------------------------------------

def _value(rnd: random.Random) -> Value:
    """One argument value: text, a number, a literal, a list, a sentence or code."""
    r = rnd.random()
    if r < 0.45:
        return rnd.choice(_IDENTIFIERS)
    if r < 0.6:
        return rnd.randint(0, 100000)
    if r < 0.68:
        return rnd.choice((True, False, None))
    if r < 0.75:
        return [rnd.choice(WORDS) for _ in range(rnd.randint(1, 5))]
    if r < 0.85:
        return _sentence(rnd, inline=0.0)
    return code(rnd, rnd.randint(3, 12)) + "\nx = a[b[0]] > 1"


def _calls(rnd: random.Random, calls: tuple[int, int], params: tuple[int, int]) -> list[Call]:
    return [(rnd.choice(_TOOL_NAMES),
             [(rnd.choice(_PARAM_NAMES), _value(rnd)) for _ in range(rnd.randint(*params))])
            for _ in range(rnd.randint(*calls))]


# ---- markup, one writer per dialect ----------------------------------------------------------

def _text(value: Value) -> str:
    """A value as the XML-style dialects write it: strings as they are, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def _arguments(params: list[tuple[str, Value]]) -> str:
    return json.dumps(dict(params), ensure_ascii=False)


def _xml(wrapper: str) -> Callable[[list[Call]], str]:
    def write(calls: list[Call]) -> str:
        lines = [f"<{wrapper}>"]
        for name, params in calls:
            lines.append(f'<invoke name="{name}">')
            lines += [f'<parameter name="{k}">{_text(v)}</parameter>' for k, v in params]
            lines.append("</invoke>")
        return "\n".join([*lines, f"</{wrapper}>"])
    return write


def _qwen(calls: list[Call]) -> str:
    lines = ["<tool_call>"]
    for name, params in calls:
        lines.append(f"<function={name}>")
        lines += [f"<parameter={k}>\n{_text(v)}\n</parameter>" for k, v in params]
        lines.append("</function>")
    return "\n".join([*lines, "</tool_call>"])


def _glm(calls: list[Call]) -> str:
    return "\n".join(
        f"<tool_call>{name}\n" + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_text(v)}"
                                         "</arg_value>\n" for k, v in params) + "</tool_call>"
        for name, params in calls)


def _hermes(calls: list[Call]) -> str:
    return "\n".join(f'<tool_call>\n{{"name": "{name}", "arguments": {_arguments(params)}}}\n'
                     "</tool_call>" for name, params in calls)


def _json_object(open_tag: str, close_tag: str, member: str) -> Callable[[list[Call]], str]:
    """One JSON object {"name": ..., member: {...}} per block, between two tags."""
    def write(calls: list[Call]) -> str:
        return "\n".join(f'{open_tag}\n{{"name": "{name}", "{member}": {_arguments(params)}}}'
                         f"\n{close_tag}" for name, params in calls)
    return write


def _json_calls(open_tag: str, close_tag: str, element: str,
                lines: bool = False) -> Callable[[list[Call]], str]:
    """All calls in one block, each a JSON object (`element`, formatted with `name` and
    `args`): a JSON array, or one per line (SPEC 5.3 e)."""
    def write(calls: list[Call]) -> str:
        items = [element.format(name=name, args=_arguments(params)) for name, params in calls]
        body = "\n" + "\n".join(items) + "\n" if lines else "[" + ", ".join(items) + "]"
        return f"{open_tag}{body}{close_tag}"
    return write


def _kimi(calls: list[Call]) -> str:
    body = "\n".join(f"<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>"
                     f"{_arguments(params)}<|tool_call_end|>"
                     for i, (name, params) in enumerate(calls))
    return f"<|tool_calls_section_begin|>\n{body}\n<|tool_calls_section_end|>"


def _gpt_oss(calls: list[Call]) -> str:
    return "\n".join(f"<|start|>assistant<|channel|>commentary to=functions.{name} "
                     f"<|constrain|>json<|message|>{_arguments(params)}<|call|>"
                     for name, params in calls)


def _deepseek_v3(calls: list[Call]) -> str:
    body = "\n".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n"
                     f"{_arguments(params)}\n```<｜tool▁call▁end｜>" for name, params in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _deepseek_v31(calls: list[Call]) -> str:
    body = "".join(f"<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{_arguments(params)}"
                   "<｜tool▁call▁end｜>" for name, params in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _seed_oss(calls: list[Call]) -> str:
    lines = ["<seed:tool_call>"]
    for name, params in calls:
        lines.append(f"<function={name}>")
        lines += [f"<parameter={k}>{_text(v)}</parameter>" for k, v in params]
        lines.append("</function>")
    return "\n".join([*lines, "</seed:tool_call>"])


def _minicpm5(calls: list[Call]) -> str:
    return "\n".join(f'<function name="{name}">' + "".join(
        f'<param name="{k}">{_text(v)}</param>' for k, v in params) + "</function>"
        for name, params in calls)


def _hy_v3(calls: list[Call]) -> str:
    body = "".join(f"\n<tool_call>{name}<tool_sep>" + "".join(
        f"\n<arg_key>{k}</arg_key>\n<arg_value>{_text(v)}</arg_value>" for k, v in params)
        + "\n</tool_call>" for name, params in calls)
    return f"<tool_calls>{body}\n</tool_calls>"


def _step3(calls: list[Call]) -> str:
    body = "".join(f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">'
                   + "".join(f'<steptml:parameter name="{k}">{_text(v)}</steptml:parameter>'
                             for k, v in params)
                   + "</steptml:invoke><｜tool_call_end｜>" for name, params in calls)
    return f"<｜tool_calls_begin｜>{body}<｜tool_calls_end｜>"


def _minimax_m3(calls: list[Call]) -> str:
    ns = "]<]minimax[>["
    body = "\n".join(f'{ns}<invoke name="{name}">' + "".join(
        f"{ns}<{k}>{_text(v)}{ns}</{k}>" for k, v in params) + f"{ns}</invoke>"
        for name, params in calls)
    return f"{ns}<tool_call>\n{body}\n{ns}</tool_call>"


def _kimi_k3(calls: list[Call]) -> str:
    body = "\n".join(f'<|open|>call tool="{name}" index="{i}"<|sep|>' + "".join(
        f'<|open|>argument key="{k}" type="string"<|sep|>{_text(v)}<|close|>argument<|sep|>'
        for k, v in params) + "<|close|>call<|sep|>" for i, (name, params) in enumerate(calls))
    return f"<|open|>tools<|sep|>{body}<|close|>tools<|sep|>"


def _mistral(calls: list[Call]) -> str:
    return "".join(f"[TOOL_CALLS]{name}[ARGS]{_arguments(params)}" for name, params in calls)


def _py_literal(value: Any) -> str:
    """A JSON value as a Python literal (`repr`: single quotes, `True`, `None`)."""
    if isinstance(value, list):
        return "[" + ", ".join(_py_literal(item) for item in value) + "]"
    return repr(value)


def _pythonic(open_tag: str, close_tag: str, listed: bool) -> Callable[[list[Call]], str]:
    """Calls written as Python (SPEC 5.3 c): a list `[f(a=1), g()]`, or one per line."""
    def write(calls: list[Call]) -> str:
        items = [f"{name}(" + ", ".join(f"{k}={_py_literal(v)}" for k, v in params) + ")"
                 for name, params in calls]
        body = "[" + ", ".join(items) + "]" if listed else "\n".join(items)
        return f"{open_tag}{body}{close_tag}"
    return write
def _gemma_value(value: Any) -> str:
    """A value in Gemma's notation: strings between `<|"|>` tokens, the rest as JSON's
    (an object's keys bare)."""
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _gemma4(calls: list[Call]) -> str:
    return "".join(f"<|tool_call>call:{name}{_gemma_value(dict(params))}<tool_call|>"
                   for name, params in calls)
def _llama3_json(calls: list[Call]) -> str:
    return "<|python_tag|>" + "; ".join(
        f'{{"name": "{name}", "parameters": {_arguments(params)}}}' for name, params in calls)


@dataclass(frozen=True, slots=True)
class Markup:
    """How one dialect writes calls, and the tags a model mentions in inline code."""

    write: Callable[[list[Call]], str]
    mentions: tuple[str, ...]
    per_call: bool = False
    """Every call is a block of its own (GLM, Hermes)."""


MARKUP: Final[dict[str, Markup]] = {
    "deepseek": Markup(_xml("tool_calls"), ("<tool_calls>", '<invoke name="x">', "</parameter>")),
    "qwen3_coder": Markup(_qwen, ("<tool_call>", "<function=x>", "</parameter>")),
    "minimax_m2": Markup(_xml("minimax:tool_call"),
                         ("<minimax:tool_call>", '<invoke name="x">', "</parameter>")),
    "anthropic": Markup(_xml("function_calls"),
                        ("<function_calls>", '<invoke name="x">', "</parameter>")),
    "glm45": Markup(_glm, ("<tool_call>", "<arg_key>", "</arg_value>"), per_call=True),
    "hermes": Markup(_hermes, ("<tool_call>", '{"name": "x"}', "</tool_call>"), per_call=True),
    "kimi_k2": Markup(_kimi, ("<|tool_calls_section_begin|>", "<|tool_call_begin|>",
                              "<|tool_call_end|>")),
    "gpt_oss": Markup(_gpt_oss, ("<|start|>assistant", "<|channel|>commentary to=functions.x",
                                 "<|call|>"), per_call=True),
    "deepseek_v3": Markup(_deepseek_v3, ("<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>",
                                         "<｜tool▁call▁end｜>")),
    "deepseek_v31": Markup(_deepseek_v31, ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>",
                                           "<｜tool▁sep｜>")),
    "seed_oss": Markup(_seed_oss, ("<seed:tool_call>", "<function=", "<parameter=")),
    "minicpm5": Markup(_minicpm5, ('<function name="f">', '<param name="a">', "</function>"),
                         per_call=True),
    "hy_v3": Markup(_hy_v3, ("<tool_calls>", "<tool_sep>", "<arg_value>")),
    "step3": Markup(_step3, ("<｜tool_calls_begin｜>", '<steptml:invoke name="f">',
                             "<｜tool_call_end｜>")),
    "longcat": Markup(_json_object("<longcat_tool_call>", "</longcat_tool_call>", "arguments"),
                      ("<longcat_tool_call>", '{"name": "x"}', "</longcat_tool_call>"),
                      per_call=True),
    "internlm": Markup(_json_object("<|action_start|><|plugin|>", "<|action_end|>", "parameters"),
                       ("<|action_start|><|plugin|>", '{"name": "x"}', "<|action_end|>"),
                       per_call=True),
    "nemotron": Markup(_json_calls("<TOOLCALL>", "</TOOLCALL>",
                                   '{{"name": "{name}", "arguments": {args}}}'),
                       ("<TOOLCALL>", '[{"name": "x"}]', "</TOOLCALL>")),
    "cohere": Markup(_json_calls("<|START_ACTION|>", "<|END_ACTION|>",
                                 '{{"tool_call_id": "0", "tool_name": "{name}", "parameters": {args}}}'),
                     ("<|START_ACTION|>", '[{"tool_name": "x"}]', "<|END_ACTION|>")),
    "apertus": Markup(_json_calls("<|tools_prefix|>", "<|tools_suffix|>", '{{"{name}": {args}}}'),
                      ("<|tools_prefix|>", '[{"x": {}}]', "<|tools_suffix|>")),
    "hunyuan_a13b": Markup(_json_calls("<tool_calls>", "</tool_calls>",
                                       '{{"name": "{name}", "arguments": {args}}}'),
                           ("<tool_calls>", '[{"name": "x"}]', "</tool_calls>")),
    "minimax_m1": Markup(_json_calls("<tool_calls>", "</tool_calls>",
                                     '{{"name": "{name}", "arguments": {args}}}', lines=True),
                         ("<tool_calls>", '{"name": "x"}', "</tool_calls>")),
    "mistral": Markup(_mistral, ("[TOOL_CALLS]", "[TOOL_CALLS]x[ARGS]", "[ARGS]"), per_call=True),
    "olmo3": Markup(_pythonic("<function_calls>", "</function_calls>", listed=False),
                    ("<function_calls>", "x(a=1)", "</function_calls>")),
    "lfm2": Markup(_pythonic("<|tool_call_start|>", "<|tool_call_end|>", listed=True),
                   ("<|tool_call_start|>", "[x(a=1)]", "<|tool_call_end|>")),
    "pythonic": Markup(_pythonic("<|python_start|>", "<|python_end|>", listed=True),
                       ("<|python_start|>", "[x(a=1)]", "<|python_end|>")),
    "minimax_m3": Markup(_minimax_m3, ("]<]minimax[>[<tool_call>", "]<]minimax[>[<invoke",
                                       "]<]minimax[>[</invoke>")),
    "kimi_k3": Markup(_kimi_k3, ("<|open|>tools<|sep|>", '<|open|>call tool="x"',
                                 "<|close|>call<|sep|>")),
    "granite": Markup(_json_calls("<|tool_call|>", "", '{{"name": "{name}", "arguments": {args}}}'),
                      ("<|tool_call|>", '<|tool_call|>[{"name": "x"}]', "<function_call>")),
    "gemma4": Markup(_gemma4, ("<|tool_call>", "<|tool_call>call:x{}", "<tool_call|>"),
                     per_call=True),
    "phi4_mini": Markup(_json_calls("functools", "", '{{"name": "{name}", "arguments": {args}}}'),
                        ("functools", 'functools[{"name": "x"}]', "functools.partial")),
    "llama3_json": Markup(_llama3_json, ("<|python_tag|>", '{"name": "x", "parameters": {}}',
                                         "<|python_tag|>{")),
}
"""Dialect -> its writer. A dialect without one is measured with no dialect figures."""


# ---- workloads --------------------------------------------------------------------------------

Piece = tuple[str, Any]
"""("text", str), ("fence", list[Call]), ("mention", int) or ("block", list[Call])."""


def _content(shape: str, rnd: random.Random, size: int) -> list[Piece]:
    """The shape's content up to about `size` characters of prose and calls."""
    pieces: list[Piece] = []
    length = 0
    while length < size:
        r = rnd.random()
        if shape == "tools":
            piece: Piece = ("block", _calls(rnd, (1, 3), (6, 16)))
        elif shape == "prose":
            piece = (("block", _calls(rnd, (1, 2), (1, 4))) if r < 0.03
                     else ("text", _fence(rnd, code(rnd, rnd.randint(4, 15)), "python"))
                     if r < 0.06 else ("text", _markdown_piece(rnd)))
        elif r < 0.45:
            piece = ("text", _markdown_piece(rnd, inline=0.12, markup=0.25))
        elif r < 0.6:
            piece = ("mention", rnd.randrange(3))
        elif r < 0.87:
            piece = ("fence", _calls(rnd, (1, 2), (1, 4)))
        else:
            piece = ("block", _calls(rnd, (1, 2), (1, 4)))
        pieces.append(piece)
        # Sized as deepseek writes it, so that every dialect gets the same content.
        kind, content = piece
        length += (len(content) if kind == "text" else 60 if kind == "mention"
                   else len(MARKUP[REFERENCE].write(content)))
    return pieces


def dialect_workload(shape: str, dialect: str, size: int, seed: int) -> Workload:
    """The `shape` workload written in `dialect`: the same content for every dialect."""
    rnd = random.Random(f"toolparse-bench:dialects:{seed}:{shape}:{size}")
    markup = MARKUP[dialect]
    parts: list[str] = []
    blocks = chars = 0
    for kind, content in _content(shape, rnd, size):
        if kind == "text":
            parts.append(content)
        elif kind == "mention":
            parts.append(f"Write `{markup.mentions[content]}` where the call goes, then stop.")
        elif kind == "fence":
            parts.append("For example:\n\n```\n" + markup.write(content) + "\n```")
        else:
            block = markup.write(content)
            blocks += len(content) if markup.per_call else 1
            chars += len(block)
            parts.append(block)
    return Workload(f"{shape}/{dialect}", "\n\n".join(parts) + "\n", blocks, chars)


# ---- measuring ---------------------------------------------------------------------------------

def warm_up_dialects(names: list[str] | tuple[str, ...] | Any, seed: int) -> None:
    """Fill each dialect's lazy caches (per-state lexers) on its own markup first."""
    import toolparse

    for name in dict.fromkeys([REFERENCE, *names]):
        dialect = toolparse.Dialect.bundled(name)
        text = "".join(dialect_workload(shape, name, 4 * 1024, seed).text for shape in DIALECT_SHAPES)
        for size in (1, 4, 64):
            parser = toolparse.StreamParser(dialect)
            for i in range(0, len(text), size):
                parser.feed(text[i:i + size])
            parser.close()
        toolparse.parse(text, dialect)


def measure_dialects(names: list[str], plan: Plan, seed: int,
                     progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every (shape, dialect, chunking) cell at the plan's smallest size."""
    import toolparse

    size = min(plan.sizes)
    rows: list[dict[str, Any]] = []
    for shape in DIALECT_SHAPES:
        for name in [REFERENCE, *(n for n in names if n != REFERENCE)]:
            dialect = toolparse.Dialect.bundled(name)
            workload = dialect_workload(shape, name, size, seed)
            for chunk in DIALECT_CHUNKINGS:
                cell = Cell(workload.name, size, chunk, len(workload.text))
                try:
                    result = measure(cell, workload.text, dialect, plan)
                except Exception as e:  # noqa: BLE001 -- an engine bug: report it, go on
                    rows.append({"shape": shape, "dialect": name, "chunk": _chunk(chunk),
                                 "error": f"{type(e).__name__}: {e}"})
                    continue
                row = {"shape": shape, "dialect": name, "chunk": _chunk(chunk),
                       "chars": cell.chars, "engine_mb_s": cell.chars / cell.engine_time / 1e6,
                       "ratio": cell.ratio, "ratios": cell.ratios,
                       "real_blocks": workload.real_blocks}
                if result is not None:
                    row["calls_found"] = len(result.calls)
                    row["lossless"] = "".join(e.raw for e in result.events) == workload.text
                rows.append(row)
                progress(f"{shape} {name} {chunk_label(chunk)}: "
                         f"{row['engine_mb_s']:.2f} MB/s, {cell.ratio:.3f}x floor")
    return slowdowns(rows)


def slowdowns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its `slowdown`: deepseek's ratio to the baseline over the row's,
    for the same shape and chunking (1.0 for deepseek itself)."""
    reference = {(r["shape"], r["chunk"]): r["ratio"] for r in rows
                 if r["dialect"] == REFERENCE and "ratio" in r}
    for row in rows:
        base = reference.get((row["shape"], row["chunk"]))
        if "ratio" in row and base:
            row["slowdown"] = base / row["ratio"]
    return rows


def worst_slowdown(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row furthest behind deepseek, among the other dialects."""
    measured = [r for r in rows if "slowdown" in r and r["dialect"] != REFERENCE]
    return max(measured, key=lambda r: r["slowdown"], default=None)


def _chunk(chunk: int | None) -> int | str:
    return chunk if chunk is not None else "parse"

