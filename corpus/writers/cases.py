"""A case: its segments, the records SPEC 3 expects from them, and its files."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from writers.commonmark import commonmark_disagreements
from writers.segments import Block, Code, Failed, Framing, Prose, Segment, Thinking

# ---- cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    group: str
    name: str
    description: str
    segments: list[Segment]
    tools: list[Any] | None = None
    status: dict[int, str] = field(default_factory=dict)
    """Expected status per call index (document order), for cases with tools."""
    dialect: str = "deepseek"
    reasoning: str | None = "auto"
    in_reasoning: bool = False

    @property
    def text(self) -> str:
        return "".join(s.raw if isinstance(s, (Block, Thinking, Framing)) else s.text
                       for s in self.segments)

    def expected(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        index = 0
        offset = 0
        for segment in self.segments:
            start = offset
            offset += len(segment.raw if isinstance(segment, (Block, Thinking, Framing))
                          else segment.text)
            if isinstance(segment, (Thinking, Framing)):
                # Merged with the record before it of the same kind, as the events are.
                key = "reasoning" if isinstance(segment, Thinking) else "text"
                if records and set(records[-1]) == {key, "raw"}:
                    records[-1][key] += segment.text
                    records[-1]["raw"] += segment.raw
                else:
                    records.append({key: segment.text, "raw": segment.raw})
            elif isinstance(segment, Failed):
                records.append({"text": segment.text, "failure": segment.reason,
                                "at": start + segment.offset()})
            elif isinstance(segment, Block):
                calls = []
                for call in segment.calls:
                    entry: dict[str, Any] = {"name": call.name, "arguments": call.arguments()}
                    if index in self.status:
                        entry["status"] = self.status[index]
                    calls.append(entry)
                    index += 1
                records.append({"calls": calls, "raw": segment.raw})
            elif segment.text:
                if records and records[-1].keys() == {"text"}:
                    records[-1]["text"] += segment.text
                else:
                    records.append({"text": segment.text})
        return records


CASES: list[Case] = []


def case(group: str, name: str, description: str, *segments: Segment | str,
         tools: list[Any] | None = None, status: dict[int, str] | None = None,
         dialect: str = "deepseek", reasoning: str | None = "auto",
         in_reasoning: bool = False) -> None:
    """Define a case; a bare string segment is Prose."""
    CASES.append(Case(group, name, description,
                      [Prose(s) if isinstance(s, str) else s for s in segments],
                      tools=tools, status=status or {}, dialect=dialect, reasoning=reasoning,
                      in_reasoning=in_reasoning))


def crlf(*segments: Segment | str) -> list[Segment]:
    """The segments with LF line endings turned into CRLF (blocks must be built with
    nl="\\r\\n" already)."""
    out: list[Segment] = []
    for s in segments:
        if isinstance(s, str):
            out.append(Prose(s.replace("\n", "\r\n")))
        elif isinstance(s, Prose):
            out.append(Prose(s.text.replace("\n", "\r\n")))
        elif isinstance(s, Code):
            out.append(Code(s.text.replace("\n", "\r\n")))
        elif isinstance(s, Failed):
            assert not isinstance(s.at, int) or "\n" not in s.text[:s.at]
            out.append(replace(s, text=s.text.replace("\n", "\r\n")))
        else:
            assert "\n" not in s.raw.replace("\r\n", ""), "build CRLF blocks with nl='\\r\\n'"
            out.append(s)
    return out



# ---- writing -------------------------------------------------------------------------------

def write(cases: Sequence[Case], out: Path) -> None:
    names = [f"{c.group}/{c.name}" for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"generate.py: duplicate case names: {sorted(duplicates)}")
    problems = [f"{c.group}/{c.name}: {p}" for c in cases for p in commonmark_disagreements(c)]
    if problems:
        sys.exit("generate.py: cases that disagree with markdown-it-py:\n  " + "\n  ".join(problems))
    for c in cases:
        directory = out / c.group
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / c.name
        Path(f"{stem}.txt").write_bytes(c.text.encode("utf-8"))
        expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in c.expected())
        Path(f"{stem}.expected.jsonl").write_bytes(expected.encode("utf-8"))
        meta: dict[str, Any] = {"dialect": c.dialect, "description": c.description}
        if c.reasoning != "auto":
            meta["reasoning"] = c.reasoning
        if c.in_reasoning:
            meta["in_reasoning"] = True
        Path(f"{stem}.meta.json").write_bytes(
            (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
        if c.tools is not None:
            Path(f"{stem}.tools.json").write_bytes(
                (json.dumps(c.tools, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


