"""The cyclic garbage collector and the engine (toolparse/_collector.py): paused while
calls are made in a burst, the caller's setting restored, nothing left for it to free,
and no tracked object held per call of an open block."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import toolparse
from toolparse import _bench, corpus

BLOCK = '<tool_calls><invoke name="a"><parameter name="p">1</parameter></invoke></tool_calls>'
INVOKE = '<invoke name="g"><parameter name="a">1</parameter></invoke>\n'


@pytest.fixture
def collector() -> Iterator[None]:
    """The test may switch the collector and its thresholds; they come back after."""
    was, thresholds = gc.isenabled(), gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_restores_the_callers_setting_exception_or_not(collector: None,
                                                              enabled: bool) -> None:
    seen = []

    def ids() -> str:
        seen.append(gc.isenabled())
        if len(seen) == 2:
            raise RuntimeError("the second id fails")
        return f"call_{len(seen)}"
    (gc.enable if enabled else gc.disable)()
    assert toolparse.parse(BLOCK, id_factory=ids).calls[0].id == "call_1"
    assert gc.isenabled() is enabled
    with pytest.raises(RuntimeError, match="second id"):
        toolparse.parse(BLOCK, id_factory=ids)
    assert gc.isenabled() is enabled and seen == [False, False]


def test_no_collection_runs_inside_parse(collector: None) -> None:
    text = ("Some prose, `code`, and a block. " + BLOCK + "\n") * 200
    runs = []

    def note(phase: str, info: dict[str, int]) -> None:
        runs.append(phase)
    gc.set_threshold(1)  # any tracked allocation would start a young collection
    gc.callbacks.append(note)
    try:
        result = toolparse.parse(text)
    finally:
        gc.callbacks.remove(note)
    assert len(result.calls) == 200 and runs == []


def test_a_stream_makes_a_blocks_calls_with_the_collector_paused(collector: None) -> None:
    seen = []

    def ids() -> str:
        seen.append(gc.isenabled())
        return f"call_{len(seen)}"
    gc.enable()
    parser = toolparse.StreamParser(id_factory=ids)
    events = parser.feed("x " + BLOCK[:30]) + parser.feed(BLOCK[30:] + BLOCK) + parser.close()
    assert sum(isinstance(e, toolparse.ToolCallBlock) for e in events) == 2
    assert seen == [False, False] and gc.isenabled()


def test_a_blocks_calls_wait_as_values_the_collector_stops_tracking(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A block's calls live until its wrapper's end. As plain tuples of strings, numbers
    # and such tuples, the collector stops tracking them at its first collection: held
    # calls add nothing to what its full collections walk.
    from toolparse._calls import build_calls as real
    held = []

    def build_calls(raw_calls: Any, *args: Any) -> Any:
        held.extend(raw_calls)
        return real(raw_calls, *args)
    monkeypatch.setattr("toolparse._stream.endings.build_calls", build_calls)
    text = ("<tool_calls>\n" + INVOKE * 3 + '<invoke name="f"/>\n'
            '<invoke name="h"><parameter name="b"><![CDATA[x]]></parameter>'
            '<parameter name="c" string="false">[1]</parameter></invoke>\n</tool_calls>')
    assert len(toolparse.parse(text).accepted_calls) == 5
    for _ in range(3):  # a collection may meet a tuple before its items: one more
        gc.collect()    # level of nesting (call, parameters, parameter) goes each time
    assert len(held) == 5 and not any(gc.is_tracked(call) for call in held)


def test_parse_makes_no_reference_cycles(collector: None) -> None:
    # Why pausing is safe: all parse() leaves behind is freed by reference counting,
    # on every bundled corpus case and benchmark workload. (The first pass imports what
    # parse() loads on use: a `dataclass(slots=True)` leaves its first class behind as
    # a cycle.)
    texts = [case.text for case in corpus.find_cases()]
    texts += [_bench.generate(name, 20_000).text for name in _bench.workloads.WORKLOADS]
    gc.disable()
    for _ in range(2):
        gc.collect()
        for text in texts:
            toolparse.parse(text, "auto")
    assert gc.collect() == 0
