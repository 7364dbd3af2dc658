"""Seeded transcript archives, with what a correct scan must report about each record.

Each record is a chat transcript (OpenAI `messages`, or a chat completion's `choices`)
whose assistant message carries the answer text and the `tool_calls` a *naive gateway*
recorded: one that ran every well-formed block it saw, in code or not, ran broken
blocks as best it could, and sometimes lost a call. The kinds, and their weights:

    plain      prose, no markup; nothing recorded                   -> nothing
    real       prose and a block of one or two calls, all recorded  -> nothing
    fenced     a fenced example the gateway ran, and a real call    -> in_code (fenced)
    indented   an indented example the gateway ran                  -> in_code (indented)
    span       an inline-code invoke the gateway ran                -> in_code (span)
    missed     real calls, one of them not recorded                 -> not_in_recorded
    broken     a block that fails (a nameless parameter, or cut off
               at the end), which the gateway ran                   -> failed (+ reason)
    unknown    a real call to a tool not in TOOLS, recorded         -> unknown_tool (with tools)
    bad_json   a line cut short                                     -> error invalid_json
    no_answer  a transcript without an assistant message            -> error no_field

`generate(count, seed)` gives `Generated` items: the JSONL line and the expectations.
Used by the tests, `benchmarks/scan.py` and to build the bundled example archive.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["EXAMPLE_COUNT", "EXAMPLE_SEED", "Expected", "Generated", "KINDS", "TOOLS", "example",
           "generate", "write_archive"]

TOOLS: Final[tuple[dict[str, Any], ...]] = tuple(
    {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties, "required": list(properties)[:1]}}}
    for name, properties in (
        ("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"}}),
        ("run_command", {"command": {"type": "string"}}),
        ("search", {"query": {"type": "string"}}),
        ("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}),
    ))
"""The tools the generated gateway offers (an OpenAI-style tools list)."""

KINDS: Final = {"plain": 40, "real": 22, "fenced": 8, "indented": 3, "span": 3, "missed": 8,
                "broken": 6, "unknown": 4, "bad_json": 3, "no_answer": 3}
"""Record kinds and their weights."""

_WORDS: Final = ("the service reads its settings at start-up and keeps them; a change to "
                 "the timeout needs a restart, and the log says which file it loaded. "
                 "I checked the configuration, the tests and the recent changes, and the "
                 "simplest fix is to raise the limit and retry once. Here is what I found "
                 "so far, and what I would do next if you agree with the plan.").split()

_PATHS: Final = ("src/app.py", "README.md", "config/settings.toml", "tests/test_io.py",
                 "docs/index.md", "Makefile")
_COMMANDS: Final = ("ls -la", "pytest -q", "git status", "make build", "du -sh .")
_QUERIES: Final = ("timeout setting", "retry policy", "start-up log", "open issues")


@dataclass(frozen=True, slots=True)
class Expected:
    """A difference a correct scan reports (`kind` only for `in_code`)."""

    reason: str
    name: str
    kind: str | None = None
    detail: str | None = None
    needs_tools: bool = False
    """Reported only when the scan is given TOOLS."""


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated JSONL line and what its scan must say."""

    line: str
    kind: str
    differences: tuple[Expected, ...] = ()
    error: str | None = None
    calls: int = 0
    """Calls a correct scan finds."""
    failures: tuple[str, ...] = field(default=())
    """Reasons of the failed blocks it finds."""


def _prose(rng: random.Random, low: int, high: int) -> str:
    count = rng.randint(low, high)
    start = rng.randrange(len(_WORDS))
    words = [_WORDS[(start + i) % len(_WORDS)] for i in range(count)]
    return " ".join(words).capitalize() + "."


def _call(rng: random.Random, name: str | None = None) -> tuple[str, dict[str, Any]]:
    name = name or rng.choice(("read_file", "run_command", "search", "write_file"))
    if name == "read_file":
        arguments: dict[str, Any] = {"path": rng.choice(_PATHS)}
        if rng.random() < 0.5:
            arguments["limit"] = rng.choice((50, 200, 1000))
        return name, arguments
    if name == "run_command":
        return name, {"command": rng.choice(_COMMANDS)}
    if name == "search":
        return name, {"query": rng.choice(_QUERIES)}
    if name == "write_file":
        return name, {"path": rng.choice(_PATHS), "content": _prose(rng, 3, 8)}
    return name, {"target": rng.choice(_PATHS)}


def _invoke(name: str, arguments: dict[str, Any], indent: str = "") -> str:
    params = "".join(f'{indent}  <parameter name="{key}">{value}</parameter>\n'
                     for key, value in arguments.items())
    return f'{indent}<invoke name="{name}">\n{params}{indent}</invoke>\n'


def _block(calls: list[tuple[str, dict[str, Any]]], indent: str = "") -> str:
    body = "".join(_invoke(name, arguments, indent) for name, arguments in calls)
    return f"{indent}<tool_calls>\n{body}{indent}</tool_calls>"


def _recorded(calls: list[tuple[str, dict[str, Any]]], rng: random.Random) -> list[dict[str, Any]]:
    return [{"id": f"call_{rng.getrandbits(48):012x}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}
            for name, arguments in calls]


def _kind_record(kind: str, rng: random.Random) -> tuple[str, list[Any], tuple[Expected, ...],
                                                          int, tuple[str, ...]]:
    """(answer, recorded calls, expected differences, calls found, failure reasons)."""
    intro, outro = _prose(rng, 12, 40), _prose(rng, 5, 25)
    if kind == "plain":
        return f"{intro}\n\n{outro}", [], (), 0, ()
    real = [_call(rng) for _ in range(rng.choice((1, 1, 2)))]
    if kind == "real":
        return f"{intro}\n\n{_block(real)}", real, (), len(real), ()
    if kind == "missed":
        real = real if len(real) == 2 else real + [_call(rng)]
        lost = rng.randrange(2)
        return (f"{intro}\n\n{_block(real)}", [c for i, c in enumerate(real) if i != lost],
                (Expected("not_in_recorded", real[lost][0]),), len(real), ())
    example = _call(rng)
    if kind == "fenced":
        text = (f"{intro} The format is:\n\n```xml\n{_block([example])}\n```\n\n{outro}\n\n"
                f"{_block(real)}")
        return text, [example] + real, (Expected("in_code", example[0], "fenced"),), len(real), ()
    if kind == "indented":
        text = f"{intro} For example:\n\n{_block([example], '    ')}\n\n{outro}"
        return text, [example], (Expected("in_code", example[0], "indented"),), 0, ()
    if kind == "span":
        name, arguments = example
        inline = _invoke(name, arguments).replace("\n", "")
        text = f"{intro} You could write `{inline}` yourself. {outro}"
        return text, [example], (Expected("in_code", name, "span"),), 0, ()
    if kind == "broken":
        name, arguments = example
        if rng.random() < 0.5:
            broken = _block([example]).replace('<parameter name="', '<parameter title="', 1)
            return (f"{intro}\n\n{broken}\n\n{outro}", [example],
                    (Expected("failed", name, detail="invalid_name"),), 0, ("invalid_name",))
        cut = _block([example]).rsplit("</invoke>", 1)[0]
        return (f"{intro}\n\n{cut}", [example], (Expected("failed", name, detail="truncated"),),
                0, ("truncated",))
    if kind == "unknown":
        stray = _call(rng, "delete_branch")
        return (f"{intro}\n\n{_block([stray])}", [stray],
                (Expected("unknown_tool", stray[0], needs_tools=True),), 1, ())
    raise ValueError(f"unknown record kind {kind!r}")


def _transcript(number: int, answer: str | None, recorded: list[Any],
                rng: random.Random) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer}
    if recorded:
        message["tool_calls"] = _recorded(recorded, rng)
    if answer is not None and rng.random() < 0.3:
        return {"id": f"chatcmpl-{number:06d}", "object": "chat.completion",
                "model": "deepseek-chat", "choices": [{"index": 0, "message": message}]}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding assistant."},
        {"role": "user", "content": _prose(rng, 6, 20)}]
    if answer is not None:
        messages.append(message)
    return {"id": f"conv-{number:06d}", "model": "deepseek-chat", "messages": messages}


def generate(count: int, seed: int = 0, kinds: dict[str, int] | None = None) -> list[Generated]:
    """`count` records, the same for the same seed and kinds."""
    rng = random.Random(seed)
    weights = kinds or KINDS
    names, shares = list(weights), list(weights.values())
    out: list[Generated] = []
    for number in range(1, count + 1):
        kind = rng.choices(names, shares)[0]
        if kind in ("bad_json", "no_answer"):
            record = _transcript(number, None, [], rng)
            line = json.dumps(record)
            if kind == "bad_json":
                line = line[:len(line) // 2]
            error = "invalid_json" if kind == "bad_json" else "no_field"
            out.append(Generated(line, kind, error=error))
            continue
        answer, recorded, differences, calls, failures = _kind_record(kind, rng)
        line = json.dumps(_transcript(number, answer, recorded, rng), ensure_ascii=False)
        out.append(Generated(line, kind, differences, None, calls, failures))
    return out


def write_archive(path: Any, records: list[Generated]) -> None:
    """Write generated records as a JSONL file."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        for record in records:
            file.write(record.line + "\n")


EXAMPLE_COUNT: Final = 14
EXAMPLE_SEED: Final = 29
"""The bundled example archive (`toolparse.scan.EXAMPLE_ARCHIVE`) is
`generate(EXAMPLE_COUNT, EXAMPLE_SEED, EXAMPLE_KINDS)`: every kind at least once."""

EXAMPLE_KINDS: Final = {kind: 1 for kind in KINDS}


def example() -> list[Generated]:
    """The records of the bundled example archive."""
    return generate(EXAMPLE_COUNT, EXAMPLE_SEED, EXAMPLE_KINDS)


if __name__ == "__main__":   # python -m toolparse._scan.generate: rebuild the example files
    from pathlib import Path

    here = Path(__file__).resolve().parent
    write_archive(here / "example.jsonl", example())
    (here / "example-tools.json").write_text(json.dumps(list(TOOLS), indent=2) + "\n",
                                             encoding="utf-8")
