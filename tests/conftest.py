"""Shared helpers: run the parser under chunkings, and compare events."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import toolparse
from toolparse.corpus import random_chunks, split_at  # noqa: F401  (shared by the tests)

BlockFailure = toolparse.BlockFailure

REPO = Path(__file__).resolve().parents[1]
# The maintainers' conformance data: labelled cases about other projects and the
# CommonMark specification's examples, kept apart from the repository (they are not
# toolparse's to distribute). A few tests read them when they are there and say, when
# skipped, how to point at them.
CONFORMANCE = Path(os.environ.get("TOOLPARSE_CONFORMANCE")
                   or REPO.parent / "shared" / "conformance")


def conformance_missing(file: str) -> str | None:
    """Why a test of the conformance `file` cannot run, in words for a user of a plain
    checkout, or None when it can."""
    if (CONFORMANCE / file).is_file():
        return None
    return (f"needs the maintainers' conformance data set ({file}), which is not part of "
            "this repository; set TOOLPARSE_CONFORMANCE to the folder holding it to run "
            "this test")

settings.register_profile("default", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("quick", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("TOOLPARSE_HYPOTHESIS_PROFILE", "default"))


def stream(chunks: Sequence[str], **options: Any) -> list[toolparse.Event]:
    """Feed `chunks` to a fresh StreamParser and close it; all events in order."""
    parser = toolparse.StreamParser(**options)
    events: list[toolparse.Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def merge(events: Iterable[toolparse.Event]) -> list[toolparse.Event]:
    """Adjacent Text events with the same failure (or none) joined into one, as SPEC G2
    merges them; empty Text dropped."""
    merged: list[toolparse.Event] = []
    for event in events:
        last = merged[-1] if merged else None
        if isinstance(event, toolparse.Text):
            if not event.raw:
                continue
            if isinstance(last, toolparse.Text) and last.failure == event.failure:
                merged[-1] = toolparse.Text(last.text + event.text, event.failure,
                                            last.raw + event.raw)
                continue
        if isinstance(event, toolparse.Reasoning):
            if not event.raw:
                continue
            if isinstance(last, toolparse.Reasoning):
                merged[-1] = toolparse.Reasoning(last.text + event.text, last.raw + event.raw)
                continue
        merged.append(event)
    return merged


def joined(events: Iterable[Any]) -> str:
    """Every event's source text, its `raw`, in order (G1: equals the input);
    incremental events carry none."""
    return "".join(getattr(e, "raw", "") for e in events)


def shape(events: Iterable[toolparse.Event]) -> list[tuple[Any, ...]]:
    """A comparable summary: ("text", s) (with its raw when that holds framing markup),
    ("failed", s, reason) for a failed block's text, ("reasoning", text, raw), or
    ("block", raw, [(name, arguments)])."""
    out: list[tuple[Any, ...]] = []
    for e in merge(events):
        if isinstance(e, toolparse.Reasoning):
            out.append(("reasoning", e.text, e.raw))
        elif isinstance(e, toolparse.Text) and e.failure is not None:
            out.append(("failed", e.text, e.failure.reason))
        elif isinstance(e, toolparse.Text):
            # Framing markup (SPEC 11) is in `raw` only.
            out.append(("text", e.text) if e.raw == e.text else ("text", e.text, e.raw))
        else:
            out.append(("block", e.raw, [(c.name, c.arguments) for c in e.calls]))
    return out


def failures(events: Iterable[toolparse.Event]) -> list[toolparse.BlockFailure]:
    """The failures of the merged events, in order (G2 compares them too)."""
    return [e.failure for e in merge(events) if isinstance(e, toolparse.Text) and e.failure]


def calls_of(text: str, **options: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in toolparse.parse(text, **options).calls]


def all_chunkings(text: str) -> list[tuple[str, list[str]]]:
    """Whole, one character at a time, and three seeded random chunkings."""
    return [("whole", [text]), ("1-char", list(text) or [""])] + [
        (f"random-{seed}", random_chunks(text, seed)) for seed in (1, 2, 3)]


@pytest.fixture
def check_chunkings():
    """Assert the events of `text` do not depend on chunking, and return them."""
    def check(text: str, **options: Any) -> list[tuple[Any, ...]]:
        whole = toolparse.parse(text, **options)
        expected = shape(whole.events)
        assert failures(whole.events) == list(whole.failures)
        for label, chunks in all_chunkings(text):
            events = stream(chunks, **options)
            assert joined(events) == text, label
            assert shape(events) == expected, label
            assert failures(events) == list(whole.failures), label
        return expected
    return check
