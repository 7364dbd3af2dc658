"""The command line, called in-process: `main([...]) -> int`, its output and exit codes,
including bad use (status 2, a message on standard error)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from toolparse import corpus
from toolparse._cli import main
from toolparse._syntax.files import grammar_path

BLOCK = '<tool_calls><invoke name="ping"><parameter name="n">1</parameter></invoke></tool_calls>'
PING = {"calls": [{"name": "ping", "arguments": {"n": 1}}], "raw": BLOCK}
ANSWER = "Let me check.\r\n\r\n" + BLOCK + "\r\nDone, ünïcode 你好.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def answer_file(tmp_path: Path) -> Path:
    path = tmp_path / "answer.txt"
    path.write_bytes(ANSWER.encode("utf-8"))
    return path


# ---- parse ---------------------------------------------------------------------------------

def test_parse_pretty_shows_text_and_a_call_block(capsys, answer_file: Path) -> None:
    status, out, err = run(capsys, "parse", str(answer_file))
    assert status == 0 and err == ""
    assert out.startswith("Let me check.\r\n\r\n┌─ tool call block, characters 17-")
    assert "│ ping\n│   n = 1\n└─\r\nDone, ünïcode 你好.\n" in out


def jsonl(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_parse_jsonl_gives_one_record_per_event_whatever_the_chunk_size(capsys, answer_file: Path) -> None:
    outputs = []
    for size in ("1", "3", "1000"):
        status, out, _ = run(capsys, "parse", str(answer_file), "--format", "jsonl",
                             "--chunk-size", size, "--id-prefix", "call_")
        assert status == 0
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]  # merged text, never per-chunk fragments
    records = jsonl(outputs[0])
    assert "".join(r.get("text", r.get("raw", "")) for r in records) == ANSWER  # CRLF kept
    start = len("Let me check.\r\n\r\n")
    assert records == [
        {"type": "text", "start": 0, "end": start, "text": "Let me check.\r\n\r\n"},
        {"type": "block", "start": start, "end": start + len(BLOCK), "accepted": True,
         "calls": [{"id": "call_1", "name": "ping", "arguments": {"n": 1}, "status": "unchecked",
                    "reason": None, "hint": None, "repair_rules": [], "json_errors": [],
                    "start": start + len("<tool_calls>"),
                    "end": start + len(BLOCK) - len("</tool_calls>")}],
         "raw": BLOCK},
        {"type": "text", "start": start + len(BLOCK), "end": len(ANSWER),
         "text": ANSWER[start + len(BLOCK):]}]


def test_parse_jsonl_offsets_locate_every_record(capsys, tmp_path: Path) -> None:
    text = ("a `x` <tool_calls>oops</tool_calls> b " + BLOCK + " c <tool_calls><invoke name=\"q\">"
            "<parameter name=\"p\">1</parameter>stray</invoke></tool_calls> d " + BLOCK + "\n")
    source = tmp_path / "mixed.txt"
    source.write_text(text, encoding="utf-8")
    _, out, _ = run(capsys, "parse", str(source), "--format", "jsonl", "--chunk-size", "2")
    records = jsonl(out)
    position = 0
    for record in records:
        assert record["start"] == position
        assert text[record["start"]:record["end"]] == record.get("text", record.get("raw"))
        position = record["end"]
    assert position == len(text)
    kinds = [(r["type"], r.get("failure", {}).get("reason")) for r in records]
    assert kinds == [("text", None), ("text", "unexpected_token"), ("text", None), ("block", None),
                     ("text", None), ("text", "unexpected_token"), ("text", None), ("block", None),
                     ("text", None)]
    broken = records[5]
    assert broken["text"].startswith("<tool_calls><invoke") and broken["text"].endswith("</tool_calls>")
    failure = broken["failure"]
    assert (failure["start"], failure["end"]) == (broken["start"], broken["end"])
    assert text[failure["at"]:].startswith("stray") and failure["expected"]
    ids = [call["id"] for r in records if r["type"] == "block" for call in r["calls"]]
    assert all(i.startswith("call_") and len(i) == 29 for i in ids) and len(set(ids)) == 2


def test_parse_reads_standard_input(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi " + BLOCK))
    status, out, _ = run(capsys, "parse", "--format", "jsonl")
    assert status == 0
    assert [json.loads(line) for line in out.splitlines()][-1]["raw"] == BLOCK


def test_parse_reads_standard_input_as_bytes(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(("a\r\n" + BLOCK).encode("utf-8")), encoding="latin-1")
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, _ = run(capsys, "parse", "-", "--format", "jsonl", "--chunk-size", "2")
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert "".join(r.get("text", r.get("raw", "")) for r in records) == "a\r\n" + BLOCK
    assert not stdin.closed  # standard input is left open


def test_parse_with_a_bundled_dialect_and_with_a_grammar(capsys, tmp_path: Path) -> None:
    aliased = '<|DSML|actions><|DSML|invoke name="ping"/></|DSML|actions>'
    source = tmp_path / "a.txt"
    source.write_text(aliased, encoding="utf-8")
    grammar = tmp_path / "actions.lark"
    grammar.write_text(grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8").replace(
        '| "calls"\n', '| "calls" | "actions"\n', 1), encoding="utf-8")
    _, out, _ = run(capsys, "parse", str(source), "--dialect", "deepseek", "--format", "jsonl",
                    "--chunk-size", "1000")
    # With deepseek the alias is no wrapper: the invoke breaks at the close (SPEC 3.2).
    opening = len("<|DSML|actions>")
    records = jsonl(out)
    assert [(r["text"], r.get("failure", {}).get("reason")) for r in records] == [
        ("<|DSML|actions>", None), ('<|DSML|invoke name="ping"/></|DSML|actions>', "unexpected_token")]
    assert records[1]["failure"]["at"] == len('<|DSML|actions><|DSML|invoke name="ping"/>')
    assert (records[1]["start"], records[1]["failure"]["start"]) == (opening, opening)
    status, out, _ = run(capsys, "parse", str(source), "--grammar", str(grammar), "--format", "jsonl")
    assert status == 0
    (block,) = jsonl(out)
    assert block["raw"] == aliased and [(c["name"], c["arguments"]) for c in block["calls"]] == [("ping", {})]


def test_parse_pretty_shortens_long_values(capsys, tmp_path: Path) -> None:
    source = tmp_path / "long.txt"
    source.write_text(f'<tool_calls><invoke name="w"><parameter name="v">{"x" * 500}</parameter>'
                      "</invoke></tool_calls> and after", encoding="utf-8")
    _, out, _ = run(capsys, "parse", str(source))
    assert "more characters)" in out and "x" * 400 not in out
    assert out.endswith("└─\n and after")


# ---- parse with tools ----------------------------------------------------------------------

READ = {"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"], "additionalProperties": False}}}
TOOLS_ANSWER = (
    '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter>'
    '<parameter name="limit">20</parameter></invoke></tool_calls>\n'
    '<tool_calls><invoke name="read_file">{"path": "b.md", "limit": 5,}</invoke></tool_calls>\n'
    '<tool_calls><invoke name="read_file"><parameter name="path">c.md</parameter></invoke>'
    '<invoke name="rm"><parameter name="path">/</parameter></invoke></tool_calls>\n')


@pytest.fixture
def tools_files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "answer.txt").write_text(TOOLS_ANSWER, encoding="utf-8")
    (tmp_path / "tools.json").write_text(json.dumps([READ]), encoding="utf-8")
    return tmp_path / "answer.txt", tmp_path / "tools.json"


def test_parse_with_tools_gives_statuses_reasons_rules_and_ids(capsys, tools_files) -> None:
    answer, tools = tools_files
    status, out, err = run(capsys, "parse", str(answer), "--tools", str(tools), "--format", "jsonl",
                           "--id-prefix", "t")
    assert status == 0 and err == ""
    blocks = [r for r in jsonl(out) if r["type"] == "block"]
    calls = [(c["id"], c["name"], c["status"], c["reason"], c["repair_rules"], c["arguments"])
             for b in blocks for c in b["calls"]]
    assert calls == [
        ("t1", "read_file", "valid", None, [], {"path": "a.md", "limit": 20}),  # typed by the schema
        ("t2", "read_file", "repaired", None, ["repair_json_syntax"], {"path": "b.md", "limit": 5}),
        ("t3", "read_file", "valid", None, [], {"path": "c.md"}),
        ("t4", "rm", "rejected", "unknown_tool", [], {"path": "/"})]
    assert [b["accepted"] for b in blocks] == [True, True, False]
    assert "no tool named 'rm'" in blocks[2]["calls"][1]["hint"]
    for block in blocks:
        for call in block["calls"]:
            assert TOOLS_ANSWER[call["start"]:call["end"]].startswith('<invoke name="' + call["name"])


def test_parse_pretty_with_tools_shows_repairs_and_hints(capsys, tools_files) -> None:
    answer, tools = tools_files
    status, out, _ = run(capsys, "parse", str(answer), "--tools", str(tools))
    assert status == 0
    assert "│ read_file  [valid]\n│   path = \"a.md\"\n│   limit = 20\n" in out
    assert "│ read_file  [repaired: repair_json_syntax]" in out
    assert "│ rm  [rejected: unknown_tool]\n│   path = \"/\"\n│   hint: There is no tool named 'rm'" in out


def test_parse_tools_from_a_request_body_with_model_and_repair(capsys, tools_files, tmp_path: Path) -> None:
    answer, _ = tools_files
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"model": "x", "messages": [], "tools": [READ]}), encoding="utf-8")
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"repairJsonSyntax": False}), encoding="utf-8")
    status, out, _ = run(capsys, "parse", str(answer), "--tools", str(request), "--model", "zai/glm-4.6",
                         "--repair", str(strict), "--format", "jsonl")
    assert status == 0
    statuses = [c["status"] for r in jsonl(out) if r["type"] == "block" for c in r["calls"]]
    assert statuses == ["valid", "rejected", "valid", "rejected"]  # no syntax repair now


@pytest.mark.parametrize("content, message", [
    (None, "cannot read "),
    ("[{", "not JSON (line 1"),
    ('{"name": "x"}', "expected a JSON array of tool definitions"),
    ('[{"name": "t", "parameters": {"$ref": "https://example.com/s.json"}}]', "points outside"),
    (b"\xff[]", "not UTF-8"),
])
def test_a_bad_tools_file_is_bad_use_in_one_line(capsys, tmp_path: Path, answer_file: Path,
                                                 content: str | bytes | None, message: str) -> None:
    tools = tmp_path / "tools.json"
    if isinstance(content, bytes):
        tools.write_bytes(content)
    elif content is not None:
        tools.write_text(content, encoding="utf-8")
    status, out, err = run(capsys, "parse", str(answer_file), "--tools", str(tools))
    assert status == 2 and out == ""
    assert err.startswith("toolparse: ") and err.count("\n") == 1
    assert message in err and "tools.json" in err


def test_model_or_repair_without_tools_is_bad_use(capsys, tmp_path: Path, answer_file: Path) -> None:
    config = tmp_path / "repair.json"
    config.write_text("{}", encoding="utf-8")
    for flag, value in (("--model", "glm"), ("--repair", str(config))):
        status, _, err = run(capsys, "parse", str(answer_file), flag, value)
        assert status == 2 and err == f"toolparse: {flag} needs --tools: calls are checked and " \
                                      "repaired against the tools' schemas\n"


def test_a_bad_repair_file_names_the_file_and_the_key(capsys, tools_files, tmp_path: Path) -> None:
    answer, tools = tools_files
    config = tmp_path / "repair.json"
    config.write_text(json.dumps({"fixEverything": True}), encoding="utf-8")
    status, _, err = run(capsys, "parse", str(answer), "--tools", str(tools), "--repair", str(config))
    assert status == 2 and err.count("\n") == 1
    assert "repair.json: " in err and "'fixEverything'" in err


# ---- bad use -------------------------------------------------------------------------------

def test_a_missing_file_is_bad_use(capsys, tmp_path: Path) -> None:
    status, out, err = run(capsys, "parse", str(tmp_path / "nope.txt"))
    assert status == 2 and out == ""
    assert err.startswith("toolparse: cannot read ") and "nope.txt" in err


def test_an_unknown_dialect_is_bad_use(capsys, answer_file: Path) -> None:
    status, _, err = run(capsys, "parse", str(answer_file), "--dialect", "klingon")
    assert status == 2 and "unknown dialect 'klingon'" in err and "deepseek" in err


def test_a_broken_grammar_names_file_line_and_rule(capsys, tmp_path: Path, answer_file: Path) -> None:
    grammar = tmp_path / "broken.lark"
    grammar.write_text(grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8").replace(
        "invoke: INVOKE_OPEN (param | comment)* INVOKE_CLOSE",
        "invoke: INVOKE_OPEN (param | comment | gadget)* INVOKE_CLOSE", 1), encoding="utf-8")
    status, out, err = run(capsys, "parse", str(answer_file), "--grammar", str(grammar))
    assert status == 2 and out == ""
    assert str(grammar.resolve()) in err and "line " in err and "gadget" in err


def test_a_missing_grammar_is_bad_use(capsys, tmp_path: Path, answer_file: Path) -> None:
    status, _, err = run(capsys, "parse", str(answer_file), "--grammar", str(tmp_path / "no.lark"))
    assert status == 2 and "no.lark" in err


def test_input_that_is_not_utf8_is_bad_use(capsys, tmp_path: Path) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes(b"caf\xe9 au lait")
    status, _, err = run(capsys, "parse", str(source))
    assert status == 2 and "not UTF-8" in err


@pytest.mark.parametrize("argv", [
    [], ["frobnicate"], ["parse", "--chunk-size", "0"], ["parse", "--chunk-size", "four"],
    ["parse", "--format", "xml"], ["parse", "--dialect", "deepseek", "--grammar", "g.lark"],
    ["corpus", "--update", "--check"], ["dialects", "--verbose"], ["parse", "a.txt", "b.txt"],
])
def test_argument_errors_are_bad_use(capsys, argv: list[str]) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2 and "usage: toolparse" in err


def test_version(capsys) -> None:
    from importlib.metadata import version

    status, out, _ = run(capsys, "--version")
    # The version, then the build and the Python (tests/test_build_info.py).
    assert status == 0 and out.startswith(f"toolparse {version('toolparse')} (")
    assert out.count("\n") == 1 and out.endswith("\n")


def test_help_exits_zero(capsys) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "parse" in out and "corpus" in out and "dialects" in out and "bench" in out


# ---- dialects ------------------------------------------------------------------------------

def test_dialects_lists_bundled_grammars(capsys) -> None:
    status, out, _ = run(capsys, "dialects")
    assert status == 0
    name, path = out.splitlines()[0].split(maxsplit=1)
    assert name == "deepseek" and Path(path) == grammar_path("dialects/deepseek.lark")
    assert "markdown" not in out.split()


# ---- corpus --------------------------------------------------------------------------------

def make_corpus(root: Path, *, failing: bool = False) -> Path:
    for group, name, text, records in [
        ("alpha", "call", "hi " + BLOCK, [{"text": "hi "}, PING]),
        ("alpha", "prose", "just text", [{"text": "just text"}]),
        ("beta", "wrong" if failing else "ok", BLOCK, [{"text": BLOCK}] if failing else [PING]),
    ]:
        (root / group).mkdir(parents=True, exist_ok=True)
        (root / group / f"{name}.txt").write_text(text, encoding="utf-8")
        (root / group / f"{name}.expected.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return root


def test_corpus_passing(capsys, tmp_path: Path) -> None:
    status, out, _ = run(capsys, "corpus", str(make_corpus(tmp_path)))
    assert status == 0
    assert out.splitlines()[0].split() == ["group", "cases", "passed", "failed"]
    assert out.splitlines()[-1].split() == ["total", "3", "3", "0"]


def test_corpus_failure_prints_the_diff_and_exits_1(capsys, tmp_path: Path) -> None:
    status, out, _ = run(capsys, "corpus", str(make_corpus(tmp_path, failing=True)))
    assert status == 1
    assert "FAIL beta/wrong.txt" in out and "+++ got (chunkings: whole, 1-char, random-" in out
    assert "+block with 1 call(s)" in out
    assert out.splitlines()[-1].split() == ["total", "3", "2", "1"]


def test_corpus_runs_one_group_or_one_case(capsys, tmp_path: Path) -> None:
    make_corpus(tmp_path, failing=True)
    status, out, _ = run(capsys, "corpus", str(tmp_path / "alpha"), str(tmp_path / "alpha" / "call.txt"))
    assert status == 0 and out.splitlines()[-1].split() == ["total", "2", "2", "0"]


def test_corpus_update_and_check(capsys, tmp_path: Path) -> None:
    make_corpus(tmp_path, failing=True)
    expected = tmp_path / "beta" / "wrong.expected.jsonl"
    before = expected.read_bytes()
    status, out, _ = run(capsys, "corpus", str(tmp_path), "--check")
    assert status == 1 and "1 expected files out of date" in out and "beta/wrong.txt (after)" in out
    assert expected.read_bytes() == before  # --check writes nothing
    status, out, _ = run(capsys, "corpus", str(tmp_path), "--update")
    assert status == 0 and "3 cases, 1 expected files updated" in out
    assert "+block with 1 call(s)" in out
    assert run(capsys, "corpus", str(tmp_path), "--check")[0] == 0
    assert run(capsys, "corpus", str(tmp_path))[0] == 0


def test_corpus_update_reports_chunking_dependent_cases(capsys, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    make_corpus(tmp_path)
    monkeypatch.setattr(corpus.run, "chunkings", lambda case: [("whole", [case.text]), ("odd", [case.text[:-1]])])
    status, out, _ = run(capsys, "corpus", str(tmp_path / "alpha" / "prose.txt"), "--update")
    assert status == 1 and "chunkings odd give other events" in out


def test_corpus_defaults_to_the_bundled_corpus(capsys, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus.cases, "bundled_corpus", lambda: make_corpus(tmp_path))
    status, out, _ = run(capsys, "corpus")
    assert status == 0 and out.splitlines()[-1].split() == ["total", "3", "3", "0"]


def test_corpus_bad_use(capsys, tmp_path: Path) -> None:
    status, _, err = run(capsys, "corpus", str(tmp_path / "nope"))
    assert status == 2 and "no such file or directory" in err
    status, _, err = run(capsys, "corpus", str(tmp_path))
    assert status == 2 and "no corpus cases" in err
    make_corpus(tmp_path)
    (tmp_path / "alpha" / "prose.expected.jsonl").write_text("{oops\n", encoding="utf-8")
    status, _, err = run(capsys, "corpus", str(tmp_path))
    assert status == 2 and "prose.expected.jsonl: line 1" in err


# ---- bench ---------------------------------------------------------------------------------

def test_bench_forwards_its_options(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[list[str]] = []
    fake = types.ModuleType("toolparse._bench")
    fake.main = lambda argv: received.append(list(argv)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toolparse._bench", fake)
    assert run(capsys, "bench", "--quick", "--grammar", "g.lark", "--json", "out.json", "--help")[0] == 0
    assert run(capsys, "bench")[0] == 0
    assert received == [["--quick", "--grammar", "g.lark", "--json", "out.json", "--help"], []]


def test_bench_without_the_benchmarks_is_bad_use(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "toolparse._bench", None)
    status, _, err = run(capsys, "bench")
    assert status == 2 and "toolparse._bench" in err


# ---- as a program --------------------------------------------------------------------------

def test_python_dash_m_toolparse(answer_file: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "toolparse", "parse", str(answer_file), "--format", "jsonl"],
                          capture_output=True, env=os.environ.copy(), check=False)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [r["raw"] for r in records if "raw" in r] == [BLOCK]


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("line of text\n" * 50_000, encoding="utf-8")
    reader = subprocess.Popen([sys.executable, "-m", "toolparse", "parse", str(big)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.read(100)
    reader.stdout.close()
    assert reader.wait(timeout=60) == 0
    assert reader.stderr.read() == b""


def test_a_binary_grammar_is_bad_use_in_one_line(capsys, tmp_path: Path) -> None:
    grammar = tmp_path / "binary.lark"
    grammar.write_bytes(b"\x00\xff\xfe not a grammar")
    source = tmp_path / "a.txt"
    source.write_text("hello", encoding="utf-8")
    status, out, err = run(capsys, "parse", str(source), "--grammar", str(grammar))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "not UTF-8" in err and "Traceback" not in err
