"""`toolparse.scan`: one output record per transcript, with the calls, the failures and
the differences from the recorded calls, each with its reason (SPEC 10, docs/scan.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse import scan
from toolparse._scan import generate as gen
from toolparse._scan.compare import json_equal
from toolparse._scan.record import Scanner

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

READ = '<invoke name="read_file"><parameter name="path">a.txt</parameter></invoke>'
BLOCK = f"<tool_calls>{READ}</tool_calls>"
READ_A = {"name": "read_file", "arguments": '{"path": "a.txt"}'}


def transcript(answer: Any, recorded: list[dict[str, Any]] | None = None,
               **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer}
    if recorded is not None:
        message["tool_calls"] = [{"id": f"c{i}", "type": "function", "function": call}
                                 for i, call in enumerate(recorded)]
    return {"messages": [{"role": "user", "content": "hi"}, message], **extra}


def one(record: Any, **options: Any) -> dict[str, Any]:
    (out,) = scan.scan_batch([record], **options)
    return out


def reasons(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(d["reason"], d["name"], d["kind"], d["detail"]) for d in record["differences"]]


# ---- generated archives: every seeded difference, with the right reason ------------------

def _expected(item: gen.Generated, tools: bool) -> Counter[tuple[Any, ...]]:
    return Counter((e.reason, e.name, e.kind, e.detail) for e in item.differences
                   if tools or not e.needs_tools)


def _got(record: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter((d["reason"], d["name"], d["kind"], d["detail"] if d["reason"] == "failed" else None)
                   for d in record["differences"])


@pytest.mark.parametrize("tools", [None, gen.TOOLS], ids=["no-tools", "tools"])
def test_a_generated_archive_reports_every_seeded_difference_and_nothing_else(tools) -> None:
    archive = gen.generate(600, seed=11)
    records = scan.scan_batch([item.line for item in archive], compare_recorded="auto",
                              tools=tools)
    assert len(records) == len(archive)
    kinds = Counter(item.kind for item in archive)
    assert all(kinds[kind] >= 10 for kind in gen.KINDS), kinds   # every kind is exercised
    for item, record in zip(archive, records):
        if item.error is not None:
            assert record["error"]["reason"] == item.error, item
            continue
        assert record["error"] is None
        assert _got(record) == _expected(item, tools is not None), (item.kind, record)
        assert len(record["calls"]) == item.calls
        assert sorted(f["reason"] for f in record["failures"]) == sorted(item.failures)


def test_clean_records_report_nothing() -> None:
    archive = gen.generate(200, seed=4, kinds={"plain": 1, "real": 1})
    records = scan.scan_batch([item.line for item in archive], compare_recorded="auto",
                              tools=gen.TOOLS)
    assert records and all(r["error"] is None and r["differences"] == [] and r["failures"] == []
                           for r in records)
    assert sum(len(r["calls"]) for r in records) == sum(item.calls for item in archive) > 50
    assert all(call["status"] == "valid" for r in records for call in r["calls"])


def test_the_bundled_example_archive_is_the_generators_and_has_every_kind() -> None:
    expected = "".join(item.line + "\n" for item in gen.example())
    assert scan.EXAMPLE_ARCHIVE.read_text(encoding="utf-8") == expected
    assert json.loads(scan.EXAMPLE_TOOLS.read_text(encoding="utf-8")) == list(gen.TOOLS)
    assert {item.kind for item in gen.example()} == set(gen.KINDS)
    records = list(scan.scan_file(scan.EXAMPLE_ARCHIVE, compare_recorded="auto",
                                  tools=scan.load_tools(scan.EXAMPLE_TOOLS)))
    found = {d["reason"] for r in records for d in r["differences"] or ()}
    assert found == {"in_code", "failed", "unknown_tool", "not_in_recorded"}


# ---- each reason, by hand ------------------------------------------------------------------

def test_a_fenced_example_that_was_run_is_in_code_with_its_kind_and_line() -> None:
    answer = f"Like this:\n\n```xml\n{BLOCK}\n```\n"
    out = one(transcript(answer, [READ_A]), compare_recorded="auto")
    assert out["calls"] == []
    assert out["differences"] == [{"reason": "in_code", "name": "read_file", "recorded": 0,
                                   "call": None, "kind": "fenced", "line": 4,
                                   "start": answer.index("<invoke"), "detail": None}]


def test_indented_and_inline_examples_name_their_kind() -> None:
    indented = f"Example:\n\n    {BLOCK}\n"
    span = f"Write `{READ}` to read."
    assert reasons(one(transcript(indented, [READ_A]), compare_recorded="auto")) == [
        ("in_code", "read_file", "indented", None)]
    out = one(transcript(span, [READ_A]), compare_recorded="auto")
    assert reasons(out) == [("in_code", "read_file", "span", None)]
    assert out["differences"][0]["line"] == 1


def test_an_example_in_code_with_other_arguments_still_explains_by_its_tool() -> None:
    answer = f"```\n{BLOCK}\n```\n"
    other = {"name": "read_file", "arguments": '{"path": "b.txt"}'}
    assert reasons(one(transcript(answer, [other]), compare_recorded="auto")) == [
        ("in_code", "read_file", "fenced", None)]


def test_a_recorded_call_from_a_failed_block_says_failed_with_the_reason() -> None:
    broken = BLOCK.replace('<parameter name="path">', "<parameter>")
    out = one(transcript(f"Now:\n{broken}", [READ_A]), compare_recorded="auto")
    assert out["failures"][0]["reason"] == "invalid_name"
    assert reasons(out) == [("failed", "read_file", None, "invalid_name")]
    assert out["differences"][0]["line"] == 2
    cut = one(transcript("Now:\n" + BLOCK[:-len("</tool_calls>")], [READ_A]),
              compare_recorded="auto")
    assert cut["truncated"] is True
    assert reasons(cut) == [("failed", "read_file", None, "truncated")]


def test_a_found_call_nobody_recorded_is_not_in_recorded() -> None:
    out = one(transcript(f"Sure.\n\n{BLOCK}", []), compare_recorded="auto")
    assert out["differences"] == [{"reason": "not_in_recorded", "name": "read_file",
                                   "recorded": None, "call": 0, "kind": None, "line": 3,
                                   "start": 7 + BLOCK.index("<invoke"), "detail": None}]


def test_unknown_tools_rejected_calls_and_calls_with_no_markup() -> None:
    stray = {"name": "delete_branch", "arguments": "{}"}
    nowhere = {"name": "read_file", "arguments": '{"path": "z"}'}
    answer = BLOCK.replace("read_file", "delete_branch") + "\n\n" + BLOCK
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "integer"}}}}}]
    out = one(transcript(answer, [{"name": "delete_branch", "arguments": '{"path": "a.txt"}'},
                                  READ_A, stray, nowhere]),
              compare_recorded="auto", tools=tools)
    assert reasons(out) == [("unknown_tool", "delete_branch", None, None),
                            ("rejected", "read_file", None, "schema"),
                            ("unknown_tool", "delete_branch", None, None),
                            ("not_found", "read_file", None, None)]
    assert [d["call"] for d in out["differences"]] == [0, 1, None, None]
    # Without tools nothing is rejected or unknown: the same calls just match.
    plain = one(transcript(answer, [{"name": "delete_branch", "arguments": '{"path": "a.txt"}'},
                                    READ_A]), compare_recorded="auto")
    assert plain["differences"] == []


def test_a_rejected_call_that_nobody_recorded_is_no_difference() -> None:
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    out = one(transcript(BLOCK, []), compare_recorded="auto", tools=tools)
    assert out["calls"][0]["status"] == "rejected" and out["differences"] == []


def test_matching_goes_in_order_and_each_call_explains_one_recorded_call() -> None:
    answer = f"```\n{BLOCK}\n```\n\n{BLOCK}"
    out = one(transcript(answer, [READ_A, READ_A, READ_A]), compare_recorded="auto")
    # The first recorded call takes the real one, the second the example; the third has
    # nothing left.
    assert reasons(out) == [("in_code", "read_file", "fenced", None),
                            ("not_found", "read_file", None, None)]
    assert [d["recorded"] for d in out["differences"]] == [1, 2]


def test_arguments_match_as_json_values() -> None:
    assert json_equal({"a": 1, "b": [1.0, "x"]}, {"b": [1, "x"], "a": 1.0})
    assert not json_equal({"a": True}, {"a": 1})
    assert not json_equal([1, 2], [2, 1])
    assert not json_equal("1", 1)
    answer = BLOCK.replace("a.txt", "7")        # typed as the number 7 (SPEC 3)
    assert one(transcript(answer, [{"name": "read_file", "arguments": '{"path": 7.0}'}]),
               compare_recorded="auto")["differences"] == []
    assert reasons(one(transcript(answer, [{"name": "read_file", "arguments": '{"path": "7"}'}]),
                       compare_recorded="auto"))[0][0] == "not_found"


def test_recorded_arguments_may_be_an_object_empty_or_not_json() -> None:
    empty = BLOCK.replace('<parameter name="path">a.txt</parameter>', "")
    for arguments in ("", None, {}, "{}"):
        out = one(transcript(empty, [{"name": "read_file", "arguments": arguments}]),
                  compare_recorded="auto")
        assert out["differences"] == [], arguments
    out = one(transcript(BLOCK, [{"name": "read_file", "arguments": '{"path": '}]),
              compare_recorded="auto")
    assert [d["reason"] for d in out["differences"]] == ["not_found", "not_in_recorded"]


# ---- the record format ---------------------------------------------------------------------

RECORD_KEYS = {"source", "line", "id", "error", "chars", "calls", "failures", "truncated",
               "reasoning_chars", "reasoning_calls", "recorded", "differences"}


def test_a_record_has_every_key_and_is_json() -> None:
    out = one(json.dumps(transcript(f"Ok.\n{BLOCK}", [READ_A], id="r-1")),
              compare_recorded="auto", source="logs.jsonl", first_line=41)
    assert set(out) == RECORD_KEYS
    assert (out["source"], out["line"], out["id"], out["chars"]) == ("logs.jsonl", 41, "r-1", 4 + len(BLOCK))
    (call,) = out["calls"]
    assert set(call) == {"index", "id", "name", "arguments", "status", "reason", "start", "end",
                         "line", "block"}
    assert json.loads(call["arguments"]) == {"path": "a.txt"}
    assert (call["status"], call["start"], call["line"], call["block"]) == ("unchecked", 4 + BLOCK.index("<invoke"), 2, 0)
    assert json.loads(json.dumps(out)) == out
    broken = one(transcript("<tool_calls><invoke name='x'>junk</invoke></tool_calls>"))
    assert set(broken["failures"][0]) == {"reason", "start", "end", "at", "line", "expected"}
    assert broken["recorded"] is None and broken["differences"] is None   # not compared


def test_call_ids_are_deterministic_and_differ_between_calls_and_records() -> None:
    two = BLOCK.replace("</tool_calls>", READ + "</tool_calls>")
    first = one(transcript(two), first_line=3)
    assert first == one(transcript(two), first_line=3)
    ids = [call["id"] for call in first["calls"]]
    other = [call["id"] for call in one(transcript(two), first_line=4)["calls"]]
    assert len(set(ids + other)) == 4
    assert all(i.startswith("call_") and len(i) == 29 for i in ids)


def test_the_plain_text_shortcut_gives_what_the_engine_gives() -> None:
    # Texts with no block-start tag skip the engine; the events must be the engine's.
    scanner = Scanner(scan.ScanOptions())
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.txt"))]
    texts += ["", "a < b", "<tool_calls", "x <invoke", "<tool_callsx>", "```\n<tool_calls>\n"]
    assert len(texts) > 100
    for text in texts:
        parser = toolparse.StreamParser(scanner.dialect)
        engine = parser.feed(text) + parser.close()
        assert toolparse.parse(text).events == tuple(_merged(scanner._events(text, 1))), text
        assert _merged(engine) == _merged(scanner._events(text, 1))


def _merged(events: list[Any]) -> list[Any]:
    out: list[Any] = []
    for event in events:
        if out and isinstance(event, toolparse.Text) and isinstance(out[-1], toolparse.Text) \
                and out[-1].failure == event.failure:
            out[-1] = toolparse.Text(out[-1].text + event.text, event.failure)
        else:
            out.append(event)
    return out


def test_with_tools_the_policy_is_checked_once_not_per_record(monkeypatch) -> None:
    from toolparse._calls import repair
    from toolparse._scan import api

    checked = []
    real = repair.check_tools
    monkeypatch.setattr(repair, "check_tools", lambda tools: checked.append(1) or real(tools))
    monkeypatch.setattr(api, "_cached", [])     # no Scanner kept from another test
    lines = [json.dumps(transcript(BLOCK, [READ_A], id=str(i))) for i in range(20)]
    records = scan.scan_batch(lines, scan.ScanOptions(compare_recorded="auto", tools=gen.TOOLS))
    assert len(checked) == 1
    # ... and the calls are what parse(tools=...) makes of them.
    expected = toolparse.parse(BLOCK, tools=gen.TOOLS).calls[0]
    assert {(c["status"], c["arguments"]) for r in records for c in r["calls"]} == {
        (expected.status, expected.arguments_json)}


# ---- where the text and the recorded calls are ---------------------------------------------

@pytest.mark.parametrize("record", [
    transcript(BLOCK, [READ_A]),
    {"choices": [{"message": {"role": "assistant", "content": BLOCK,
                              "tool_calls": [{"function": READ_A}]}}]},
    {"request": {}, "response": {"choices": [{"message": {"content": BLOCK,
                                                          "tool_calls": [{"function": READ_A}]}}]}},
    {"role": "assistant", "content": BLOCK, "tool_calls": [READ_A]},
    transcript([{"type": "text", "text": BLOCK[:20]}, {"type": "text", "text": BLOCK[20:]}],
               [READ_A]),
], ids=["messages", "choices", "response", "message", "content-parts"])
def test_the_default_field_finds_the_assistant_message_in_common_shapes(record) -> None:
    out = one(record, compare_recorded="auto")
    assert out["error"] is None and out["chars"] == len(BLOCK)
    assert [c["name"] for c in out["calls"]] == ["read_file"] and out["recorded"] == 1
    assert out["differences"] == []


def test_the_last_assistant_message_of_a_conversation_is_read() -> None:
    record = transcript("second " + BLOCK)
    record["messages"][1:1] = [{"role": "assistant", "content": "first"},
                               {"role": "tool", "content": "result"}]
    record["messages"].append({"role": "tool", "content": "done"})
    assert one(record)["chars"] == len("second " + BLOCK)


def test_explicit_paths_for_the_text_the_recorded_calls_and_the_id() -> None:
    record = {"meta": {"key": 7}, "log": {"turns": [{"out": "x"}, {"out": BLOCK}]},
              "ran": [{"function": READ_A}, {"function": READ_A}]}
    out = one(record, field="log.turns.-1.out", compare_recorded="ran", id_field="meta.key")
    assert out["id"] == "7" and out["chars"] == len(BLOCK)
    assert reasons(out) == [("not_found", "read_file", None, None)]
    # `auto` beside an explicit field: the tool_calls next to it.
    nested = {"out": {"text": BLOCK, "tool_calls": [{"function": READ_A}]}}
    assert one(nested, field="out.text", compare_recorded="auto")["recorded"] == 1


def test_null_content_is_no_text_and_missing_recorded_calls_are_none() -> None:
    out = one(transcript(None), compare_recorded="auto")
    assert out["error"] is None and out["chars"] == 0 and out["recorded"] == 0


# ---- bad records: one error record each, never fatal ---------------------------------------

@pytest.mark.parametrize("item,reason", [
    ('{"messages": [{"role": "assistant", "content": "cut', "invalid_json"),
    (b'{"content": "\xff"}', "not_utf8"),
    ("{\"role\": \"assistant\", \"content\": \"x\udc80\"}", "not_utf8"),
    ('{"role": "assistant", "content": "\\ud800"}', "not_utf8"),
    ("[1, 2]", "not_object"),
    ('{"messages": [{"role": "user", "content": "hi"}]}', "no_field"),
    ('{"role": "assistant", "content": 12}', "not_text"),
    ('{"role": "assistant", "content": "x", "tool_calls": {"a": 1}}', "bad_recorded"),
    ('{"role": "assistant", "content": "x", "tool_calls": [{"function": {}}]}', "bad_recorded"),
    ("[" * 100_000 + "]" * 100_000, "invalid_json"),
], ids=["truncated", "bytes", "surrogate-escaped", "lone-surrogate", "array", "no-field",
        "number", "recorded-object", "recorded-nameless", "deep"])
def test_a_bad_record_is_an_error_record(item, reason) -> None:
    records = scan.scan_batch([item, json.dumps(transcript("fine"))], compare_recorded="auto")
    assert [r["error"]["reason"] if r["error"] else None for r in records] == [reason, None]
    assert set(records[0]) == RECORD_KEYS and records[0]["error"]["message"]
    assert records[0]["calls"] == [] and records[0]["differences"] is None


def test_blank_lines_give_no_record_but_keep_their_numbers() -> None:
    records = scan.scan_batch(["", json.dumps(transcript("a")), "  \n", json.dumps(transcript("b"))])
    assert [r["line"] for r in records] == [2, 4]


def test_dask_style_pairs_carry_their_path_and_number_per_path() -> None:
    line = json.dumps(transcript("a"))
    records = scan.scan_batch([(line, "/x/a.jsonl"), (line, "/x/a.jsonl"), (line, "/x/b.jsonl")])
    assert [(r["source"], r["line"]) for r in records] == [
        ("/x/a.jsonl", 1), ("/x/a.jsonl", 2), ("/x/b.jsonl", 1)]


def test_an_arrow_table_is_a_batch_of_records() -> None:
    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_pylist([transcript(BLOCK, [READ_A]), transcript("plain", [])])
    records = scan.scan_batch(table, compare_recorded="auto")
    assert [len(r["calls"]) for r in records] == [1, 0]
    assert all(r["differences"] == [] for r in records)


def test_bad_options_raise_before_any_record() -> None:
    with pytest.raises(scan.ScanOptionError, match="field path"):
        scan.scan_batch([], field="a..b")
    with pytest.raises(toolparse.UnknownDialectError):
        scan.scan_batch([], dialect="nope")
    with pytest.raises(TypeError, match="either"):
        scan.scan_batch([], scan.ScanOptions(), field="x")
    # The streaming functions check too, when called rather than when first read.
    with pytest.raises(scan.ScanOptionError, match="field path"):
        scan.scan_records(iter([]), field=".")
    with pytest.raises(scan.ScanOptionError, match="cannot read"):
        scan.scan_file("/no/such/archive.jsonl")


def test_summary_and_differences_table() -> None:
    records = scan.scan_batch([json.dumps(transcript(f"```\n{BLOCK}\n```", [READ_A])), "{bad"],
                              compare_recorded="auto", source="a.jsonl")
    summary = scan.summarize(records)
    assert (summary.records, summary.errors, summary.differences) == (
        2, Counter(invalid_json=1), Counter(in_code=1))
    text = summary.table()
    assert "differences" in text and "in_code 1" in text and "invalid_json 1" in text
    assert "<table>" in summary._repr_html_()
    table = scan.differences_table(records)
    assert len(table) == 2
    assert table.rows[0][:5] == ("a.jsonl:1", "", "in_code", "read_file", "fenced, line 2")
    assert "error: invalid_json" in str(table) and "<td" in table._repr_html_()
