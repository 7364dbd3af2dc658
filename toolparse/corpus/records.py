"""Events as expected-file records, compared and rendered (docs/corpus.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from toolparse._arguments import require_items
from toolparse._events import (
    ArgumentsDelta, BlockFailure, CallsAborted, CallStarted, Event, Reasoning, Text,
    ToolCallBlock)

__all__ = ["Record", "event_records", "records_match", "render_records"]

_EVENTS: Final = (Text, ToolCallBlock, Reasoning, CallStarted, ArgumentsDelta, CallsAborted)

Record = dict[str, Any]
"""One expected-file line: `{"text": ...}`, `{"text": ..., "failure": ..., "at": ...}`,
`{"reasoning": ..., "raw": ...}` or `{"calls": [...], "raw": ...}`."""


def event_records(events: Iterable[Event], *, with_status: bool = False) -> list[Record]:
    """Events as expected-file records.

    Adjacent text with the same failure (or none) is merged and empty text dropped. A
    failed block's text is `{"text", "failure", "at"}` (its reason code and failing
    offset); a block is `{"calls", "raw"}`. (`toolparse parse --format jsonl` writes a
    richer record, with offsets, ids and reasons: see docs/cli.md.)

    Args:
        events: Events of one stream, in order (any chunking's).
        with_status: Give each call its `status` too.

    Returns:
        The records, in order.
    """
    records: list[Record] = []
    last_failure: BlockFailure | None = None
    for event in require_items(events, _EVENTS, "event_records: events", "events", "an event"):
        if isinstance(event, Reasoning) or (isinstance(event, Text) and event.raw != event.text):
            # A reasoning piece, or framing markup (SPEC 11): merged with the last record
            # of the same kind, so that every chunking gives the same records.
            key = "reasoning" if isinstance(event, Reasoning) else "text"
            last = records[-1] if records else {}
            if set(last) == {key, "raw"}:
                records[-1] = {key: last[key] + event.text, "raw": last["raw"] + event.raw}
            else:
                records.append({key: event.text, "raw": event.raw})
            last_failure = None
            continue
        if isinstance(event, Text):
            if not event.text:
                continue
            if (records and "text" in records[-1] and "raw" not in records[-1]
                    and last_failure == event.failure):
                records[-1] = {**records[-1], "text": records[-1]["text"] + event.text}
                continue
            record: Record = {"text": event.text}
            if event.failure is not None:
                record["failure"] = event.failure.reason
                record["at"] = event.failure.at
            records.append(record)
            last_failure = event.failure
        elif isinstance(event, ToolCallBlock):
            calls = []
            for call in event.calls:
                entry: dict[str, Any] = {"name": call.name, "arguments": _as_json(call.arguments)}
                if with_status:
                    entry["status"] = call.status
                calls.append(entry)
            records.append({"calls": calls, "raw": event.raw})
            last_failure = None
    return records


# ---- comparing -------------------------------------------------------------------------

def records_match(expected: Sequence[Record], got: Sequence[Record]) -> bool:
    """Whether `got` gives the `expected` events.

    Text, failures and raw must be equal exactly, call names too; arguments compare as
    JSON values (`1` equals `1.0`, `true` is not `1`); `status` only where `expected`
    states it.

    Args:
        expected: The expected records.
        got: The records a run gave.

    Returns:
        True when they match.
    """
    for name, records in (("expected", expected), ("got", got)):
        require_items(records, dict, f"records_match: {name}", "records", "a dict")
    if len(expected) != len(got):
        return False
    for want, have in zip(expected, got):
        if "reasoning" in want or "reasoning" in have or want.keys() == {"text", "raw"}:
            if want != have:
                return False
            continue
        if "text" in want or "text" in have:
            if any(want.get(key) != have.get(key) for key in ("text", "failure", "at")):
                return False
            continue
        if want["raw"] != have["raw"] or len(want["calls"]) != len(have["calls"]):
            return False
        for want_call, have_call in zip(want["calls"], have["calls"]):
            if want_call["name"] != have_call["name"]:
                return False
            if not _json_equal(want_call["arguments"], have_call["arguments"]):
                return False
            if "status" in want_call and want_call["status"] != have_call.get("status"):
                return False
    return True


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value (1 == 1.0), but a boolean is no number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _as_json(value: Any) -> Any:
    """`value` as plain JSON data (tuples become lists), so records compare and print."""
    return json.loads(json.dumps(value, ensure_ascii=False))


# ---- rendering -------------------------------------------------------------------------

def render_records(records: Iterable[Mapping[str, Any]], *, with_status: bool = True) -> list[str]:
    """Events as lines for reading and diffing.

    Each line of source text is on its own line, JSON-quoted, so that a difference
    shows up where it is.

    Args:
        records: Expected-file records.
        with_status: Show each call's status where the record has one.

    Returns:
        The lines, without line endings.
    """
    lines: list[str] = []
    for record in require_items(records, Mapping, "render_records: records", "records",
                                "a mapping"):
        if "reasoning" in record or record.keys() == {"text", "raw"}:
            lines.append("reasoning" if "reasoning" in record else "framing")
            lines.extend(_quoted_lines("  text ", record.get("reasoning", record.get("text", ""))))
            lines.extend(_quoted_lines("  raw ", record["raw"]))
            continue
        if "text" in record:
            if "failure" in record:
                lines.append(f"failed block ({record['failure']} at {record['at']})")
            lines.extend(_quoted_lines("text ", record["text"]))
            continue
        lines.append(f"block with {len(record['calls'])} call(s)")
        for call in record["calls"]:
            status = f"  [{call['status']}]" if with_status and "status" in call else ""
            lines.append(f"  call {call['name']} "
                         f"{json.dumps(call['arguments'], ensure_ascii=False, sort_keys=True)}{status}")
        lines.extend(_quoted_lines("  raw ", record["raw"]))
    return lines


def _quoted_lines(label: str, text: str) -> Iterator[str]:
    pad = " " * len(label)
    for i, line in enumerate(text.splitlines(keepends=True) or [""]):
        yield (label if i == 0 else pad) + json.dumps(line, ensure_ascii=False)

