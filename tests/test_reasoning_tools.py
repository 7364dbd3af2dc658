"""Reasoning regions (SPEC 11) in the tools around the parser: `toolparse parse`,
`toolparse scan` and its comparison with recorded calls (SPEC 10), the display."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse import scan
from toolparse._cli import main

QUOTED = '<tool_calls><invoke name="rm"><parameter name="path">build</parameter></invoke></tool_calls>'
REAL = '<tool_calls><invoke name="ping"><parameter name="n">1</parameter></invoke></tool_calls>'
ANSWER = f"<think>Maybe {QUOTED}?\nNo.</think>\nPinging.\n{REAL}\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def answer_file(tmp_path: Path) -> Path:
    path = tmp_path / "answer.txt"
    path.write_bytes(ANSWER.encode("utf-8"))
    return path


def test_parse_jsonl_has_a_reasoning_record_and_gives_the_input_back(capsys, answer_file) -> None:
    status, out, _ = run(capsys, "parse", str(answer_file), "--format", "jsonl",
                         "--chunk-size", "3")
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert records[0] == {"type": "reasoning", "start": 0, "end": ANSWER.index("\nPinging"),
                          "text": f"Maybe {QUOTED}?\nNo.",
                          "raw": f"<think>Maybe {QUOTED}?\nNo.</think>"}
    assert [r["type"] for r in records] == ["reasoning", "text", "block", "text"]
    assert "".join(r.get("raw", r.get("text")) for r in records) == ANSWER
    assert [c["name"] for r in records if r["type"] == "block" for c in r["calls"]] == ["ping"]


def test_parse_pretty_frames_the_reasoning_apart(capsys, answer_file) -> None:
    status, out, _ = run(capsys, "parse", str(answer_file))
    assert status == 0
    assert out.startswith(f"┌─ reasoning\n│ Maybe {QUOTED}?\n│ No.\n└─\n")
    assert "┌─ tool call block" in out and out.count("tool call block") == 1


def test_parse_reasoning_none_and_bad_names(capsys, answer_file) -> None:
    status, out, _ = run(capsys, "parse", str(answer_file), "--reasoning", "none",
                         "--format", "jsonl")
    assert status == 0 and out.count('"type": "block"') == 2
    status, _, err = run(capsys, "parse", str(answer_file), "--reasoning", "thinking")
    assert status == 2 and "seed_think" in err
    status, _, err = run(capsys, "parse", str(answer_file), "--dialect", "anthropic",
                         "--in-reasoning")
    assert status == 2 and "in_reasoning" in err


def _transcript(answer: str, recorded: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [{"id": f"c{i}", "type": "function", "function": call}
             for i, call in enumerate(recorded)]
    return {"messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": answer, "tool_calls": calls}]}


def test_scan_records_the_thinking_and_the_calls_quoted_in_it() -> None:
    recorded = [{"name": "rm", "arguments": '{"path": "build"}'},
                {"name": "ping", "arguments": '{"n": 1}'}]
    (out,) = scan.scan_batch([_transcript(ANSWER, recorded)], compare_recorded="auto")
    assert out["reasoning_chars"] == len(f"Maybe {QUOTED}?\nNo.")
    assert out["reasoning_calls"] == [{"name": "rm", "arguments": '{"path": "build"}',
                                       "start": ANSWER.index(QUOTED) + len("<tool_calls>"),
                                       "line": 1}]
    assert [c["name"] for c in out["calls"]] == ["ping"]
    # "How often did the model run a call it only thought about?"
    assert [(d["reason"], d["name"]) for d in out["differences"]] == [("in_reasoning", "rm")]


def test_scan_without_a_block_start_still_reads_a_region() -> None:
    # The scan skips the engine for text with no block start; a region must not be.
    (out,) = scan.scan_batch([_transcript("<think>plan</think>Hello.", [])])
    assert out["reasoning_chars"] == 4 and out["calls"] == []
    (off,) = scan.scan_batch([_transcript("<think>plan</think>Hello.", [])], reasoning=None)
    assert off["reasoning_chars"] == 0


def test_display_shows_reasoning_as_its_own_collapsed_kind() -> None:
    result = toolparse.parse(ANSWER)
    page = result._repr_html_()
    assert 'class="tp-reasoning-region"' in page and "<details" in page
    assert "reasoning, " in page
    assert repr(result).splitlines()[1].startswith("  Reasoning(")
    assert "tp-reasoning" in result.events[0]._repr_html_()
