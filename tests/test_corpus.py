"""The corpus regression suite (docs/corpus.md): every case in corpus/ as one test, and
the library that reads, runs, compares and rewrites cases."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import toolparse
from toolparse import corpus
from toolparse._syntax.files import grammar_path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "corpus"
CASES = corpus.find_cases(CORPUS) if CORPUS.is_dir() else []

BLOCK = '<tool_calls><invoke name="ping"><parameter name="n">1</parameter></invoke></tool_calls>'


# ---- the bundled corpus --------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: corpus.Case) -> None:
    result = corpus.run_case(case)
    assert result.passed, result.report()


def test_cases_are_found() -> None:
    assert len(CASES) >= 200, f"only {len(CASES)} corpus cases found in {CORPUS}"


def test_the_promised_groups_are_there() -> None:
    groups = {case.group for case in CASES}
    assert {"prose", "canonical", "dsml", "multiple", "missing-wrapper", "fences", "inline-code",
            "stray-backticks", "malformed", "values", "unicode", "adversarial",
            "realistic"} <= groups


def test_a_third_are_realistic_answers() -> None:
    realistic = [case for case in CASES if case.group == "realistic"]
    assert 3 * len(realistic) >= len(CASES)


def test_every_case_has_an_expected_file_and_a_description() -> None:
    assert [case.id for case in CASES if case.expected is None] == []
    assert [case.id for case in CASES if not case.description] == []


def test_the_bundled_corpus_is_found_without_a_path() -> None:
    # In a checkout: ../corpus; in an installed wheel: toolparse/_corpus.
    assert len(corpus.find_cases()) == len(CASES)


def test_the_generated_cases_are_up_to_date(tmp_path: Path) -> None:
    pytest.importorskip("markdown_it", reason="corpus/generate.py checks cases with markdown-it-py")
    subprocess.run([sys.executable, str(CORPUS / "generate.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) > 300
    stale = [p.relative_to(tmp_path).as_posix() for p in written
             if not (CORPUS / p.relative_to(tmp_path)).is_file()
             or (CORPUS / p.relative_to(tmp_path)).read_bytes() != p.read_bytes()]
    assert stale == [], "run corpus/generate.py and commit its output"


# ---- reading -------------------------------------------------------------------------------

def write_case(root: Path, name: str, text: str, expected: list[dict] | None = None,
               meta: dict | None = None, tools: list | None = None) -> Path:
    path = root / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    if expected is not None:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in expected)
        (root / f"{name}.expected.jsonl").write_bytes(lines.encode("utf-8"))
    if meta is not None:
        (root / f"{name}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    if tools is not None:
        (root / f"{name}.tools.json").write_text(json.dumps(tools), encoding="utf-8")
    return path


PING = {"calls": [{"name": "ping", "arguments": {"n": 1}}], "raw": BLOCK}


def test_a_case_is_read_byte_exact(tmp_path: Path) -> None:
    text = "\ufeffa\r\nb\rc " + BLOCK
    write_case(tmp_path / "g", "crlf", text, [{"text": "\ufeffa\r\nb\rc "}, PING],
               meta={"description": "CRLF", "dialect": "deepseek"}, tools=[])
    (case,) = corpus.find_cases(tmp_path)
    assert case.text == text
    assert case.id == "g/crlf.txt" and case.group == "g"
    assert case.description == "CRLF" and case.dialect == "deepseek" and case.tools == []
    assert case.expected == ({"text": "\ufeffa\r\nb\rc "}, PING)


def test_names_do_not_depend_on_the_path_given(tmp_path: Path) -> None:
    path = write_case(tmp_path / "corpus" / "group", "case", "x", [{"text": "x"}])
    ids = {corpus.find_cases(p)[0].id for p in
           (tmp_path / "corpus", tmp_path / "corpus" / "group", path)}
    assert ids == {"group/case.txt"}
    chunkings = {tuple(tuple(c) for _, c in corpus.chunkings(corpus.find_cases(p)[0]))
                 for p in (tmp_path / "corpus", path)}
    assert len(chunkings) == 1


def test_a_case_found_twice_runs_once(tmp_path: Path) -> None:
    path = write_case(tmp_path / "g", "a", "x", [{"text": "x"}])
    assert len(corpus.find_cases(tmp_path, path)) == 1


@pytest.mark.parametrize(("line", "message"), [
    ("not json", "line 2"),
    ('{"text": 1}', '"text" is a string'),
    ('{"raw": "x"}', '"reasoning" and "raw", or "calls" and "raw"'),
    ('{"calls": [{"name": "a"}], "raw": "x"}', 'a call has "name" (a string), "arguments"'),
    ('{"calls": [{"name": 1, "arguments": {}}], "raw": "x"}', 'a call has "name" (a string)'),
    ('{"calls": [{"name": "a", "arguments": {}, "id": 1}], "raw": "x"}', 'a call has'),
])
def test_a_broken_expected_file_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = write_case(tmp_path / "g", "bad", "x")
    (tmp_path / "g" / "bad.expected.jsonl").write_text('{"text": "x"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(corpus.CorpusError, match="bad.expected.jsonl") as info:
        corpus.load_case(path)
    assert message in str(info.value)
    assert isinstance(info.value, toolparse.ToolparseError)


def test_a_broken_meta_file_is_an_error(tmp_path: Path) -> None:
    path = write_case(tmp_path / "g", "bad", "x", meta={"dialect": "deepseek", "model": "x"})
    with pytest.raises(corpus.CorpusError, match="bad.meta.json"):
        corpus.load_case(path)


def test_a_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(corpus.CorpusError, match="no such file or directory"):
        corpus.find_cases(tmp_path / "nope")


def test_a_non_utf8_case_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g" / "latin1.txt"
    path.parent.mkdir()
    path.write_bytes(b"caf\xe9")
    with pytest.raises(corpus.CorpusError, match="not UTF-8"):
        corpus.load_case(path)


def test_an_empty_directory_has_no_cases(tmp_path: Path) -> None:
    assert corpus.find_cases(tmp_path) == []


# ---- running and comparing -----------------------------------------------------------------

def test_chunkings_are_whole_one_char_and_three_seeded(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "hello world, a longer text " * 3, [])
    (case,) = corpus.find_cases(tmp_path)
    runs = corpus.chunkings(case)
    assert [label for label, _ in runs][:2] == ["whole", "1-char"]
    assert len(runs) == 5 and all(label.startswith("random-") for label, _ in runs[2:])
    assert all("".join(chunks) == case.text for _, chunks in runs)
    assert len({tuple(chunks) for _, chunks in runs}) == 5
    assert corpus.chunkings(case) == runs  # repeatable


def test_a_passing_case(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "hi " + BLOCK, [{"text": "hi "}, PING])
    (case,) = corpus.find_cases(tmp_path)
    result = corpus.run_case(case)
    assert result.passed and result.mismatches == () and result.problem is None


def test_a_failure_names_the_chunkings_and_shows_a_diff(tmp_path: Path) -> None:
    wrong = {"calls": [{"name": "ping", "arguments": {"n": 2}}], "raw": BLOCK}
    write_case(tmp_path / "g", "a", "hi " + BLOCK, [{"text": "hi "}, wrong],
               meta={"description": "what it shows"})
    (case,) = corpus.find_cases(tmp_path)
    result = corpus.run_case(case)
    assert not result.passed
    (outcome,) = result.mismatches
    assert outcome.chunkings[:2] == ("whole", "1-char") and len(outcome.chunkings) == 5
    report = result.report()
    assert report.startswith("FAIL g/a.txt: what it shows")
    assert "--- expected (a.expected.jsonl)" in report
    assert "+++ got (chunkings: whole, 1-char, random-" in report
    assert '-  call ping {"n": 2}' in report and '+  call ping {"n": 1}' in report


@pytest.mark.parametrize(("want", "passes"), [
    ({"n": 1.0}, True),          # numbers compare by value
    ({"n": True}, False),        # a boolean is not a number
    ({"n": "1"}, False),
    ({"n": 1, "m": None}, False),
])
def test_arguments_compare_as_json_values(tmp_path: Path, want: dict, passes: bool) -> None:
    write_case(tmp_path / "g", "a", BLOCK, [{"calls": [{"name": "ping", "arguments": want}], "raw": BLOCK}])
    (case,) = corpus.find_cases(tmp_path)
    assert corpus.run_case(case).passed is passes


def test_status_is_compared_only_when_stated(tmp_path: Path) -> None:
    call = {"name": "ping", "arguments": {"n": 1}}
    write_case(tmp_path / "g", "unstated", BLOCK, [{"calls": [call], "raw": BLOCK}])
    write_case(tmp_path / "g", "stated", BLOCK, [{"calls": [{**call, "status": "valid"}], "raw": BLOCK}])
    unstated, stated = sorted(corpus.find_cases(tmp_path), key=lambda c: c.id, reverse=True)
    assert corpus.run_case(unstated).passed
    result = corpus.run_case(stated)
    assert not result.passed  # no tools given: the call is "unchecked"
    assert "[unchecked]" in result.report()


def test_split_text_events_are_merged(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "some text\nmore text <tool_ca", [{"text": "some text\nmore text <tool_ca"}])
    (case,) = corpus.find_cases(tmp_path)
    assert corpus.run_case(case).passed


def test_expected_events_that_lose_text_are_a_problem(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "abc", [{"text": "ab"}])
    (case,) = corpus.find_cases(tmp_path)
    result = corpus.run_case(case)
    assert not result.passed and "G1" in (result.problem or "")


def test_a_case_without_expected_file_fails(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "abc")
    (case,) = corpus.find_cases(tmp_path)
    result = corpus.run_case(case)
    assert not result.passed and "--update" in (result.problem or "")


def test_a_dialect_can_be_given(tmp_path: Path) -> None:
    aliased = '<|DSML|actions><|DSML|invoke name="ping"/></|DSML|actions>'
    write_case(tmp_path / "g", "a", aliased,
               [{"calls": [{"name": "ping", "arguments": {}}], "raw": aliased}])
    (case,) = corpus.find_cases(tmp_path)
    assert not corpus.run_case(case).passed
    grammar = grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8")
    edited = tmp_path / "actions.lark"
    edited.write_text(grammar.replace('| "calls"\n', '| "calls" | "actions"\n', 1), encoding="utf-8")
    assert corpus.run_case(case, toolparse.Dialect.from_file(edited)).passed


def test_summary_table_counts_per_group(tmp_path: Path) -> None:
    write_case(tmp_path / "alpha", "ok", "x", [{"text": "x"}])
    write_case(tmp_path / "alpha", "bad", "x", [{"text": "x"}, {"text": ""}])
    write_case(tmp_path / "beta", "ok", "y", [{"text": "y"}])
    results = [corpus.run_case(case) for case in corpus.find_cases(tmp_path)]
    table = corpus.summary_table(results).splitlines()
    assert table[0].split() == ["group", "cases", "passed", "failed"]
    assert table[1].split() == ["alpha", "2", "1", "1"]
    assert table[2].split() == ["beta", "1", "1", "0"]
    assert table[3].split() == ["total", "3", "2", "1"]


# ---- rewriting -----------------------------------------------------------------------------

def test_update_writes_a_missing_expected_file(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", "hi " + BLOCK)
    (case,) = corpus.find_cases(tmp_path)
    update = corpus.update_case(case)
    assert update.changed and update.unstable == ()
    assert "+  call ping" in update.diff
    (case,) = corpus.find_cases(tmp_path)
    assert case.expected == ({"text": "hi "}, PING)
    assert corpus.run_case(case).passed


def test_update_leaves_a_file_that_holds(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", BLOCK, [PING])
    expected = tmp_path / "g" / "a.expected.jsonl"
    expected.write_text(json.dumps(PING, indent=None, separators=(", ", ":")) + "\n", encoding="utf-8")
    before = expected.read_bytes()
    (case,) = corpus.find_cases(tmp_path)
    assert not corpus.update_case(case).changed
    assert expected.read_bytes() == before


def test_update_without_writing_says_what_would_change(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", BLOCK, [{"text": BLOCK}])
    expected = tmp_path / "g" / "a.expected.jsonl"
    before = expected.read_bytes()
    (case,) = corpus.find_cases(tmp_path)
    update = corpus.update_case(case, write=False)
    assert update.changed and "-text" in update.diff
    assert expected.read_bytes() == before


def test_update_writes_status_for_cases_with_tools(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "a", BLOCK, tools=[])
    (case,) = corpus.find_cases(tmp_path)
    corpus.update_case(case)
    (case,) = corpus.find_cases(tmp_path)
    assert case.expected is not None and "status" in case.expected[0]["calls"][0]
