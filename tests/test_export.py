"""export_grammar (SPEC 12), checked both ways against llguidance's own matcher, with a
byte tokenizer built here: what the grammar lets a model write parses to valid calls,
and the corpus's accepted blocks are written by the grammar."""

from __future__ import annotations

import json
import random
import re

import pytest

import toolparse
from toolparse._export import regex
from toolparse.corpus.cases import bundled_corpus, find_cases


from export_engine import accepts, committed, compiled, tools_of, walk  # noqa: E402

CHECKED = ("hermes", "qwen3_coder", "glm45", "kimi_k2", "anthropic", "minimax_m2",
           "deepseek", "deepseek_v31", "hy_v3", "minicpm5", "seed_oss", "gpt_oss", "longcat",
           "internlm", "nemotron", "cohere", "apertus", "hunyuan_a13b", "minimax_m1",
           "mistral", "step3", "deepseek_v3", "kimi_k3", "phi4_mini", "granite",
           "llama3_json", "minimax_m3", "olmo3", "lfm2", "pythonic", "gemma4")
"""The dialects whose accepted corpus blocks the grammar is checked to write."""
EXPORTED = CHECKED
"""The dialects whose grammar is walked: what it lets a model write parses as valid."""
NOT_EXPORTED: dict[str, str] = {}
"""Bundled dialects export_grammar refuses, with the reason it gives (docs/export.md)."""
REFUSED_MODES = {("llama3_json", "auto"): "starts with neither a tag nor a call"}
"""Exported dialects refused in one mode, with the reason."""

TOOLS = [
    {"name": "read_file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "limit": {"type": "integer"},
        "mode": {"enum": ["r", "rb"]},
        "opts": {"type": "object", "properties": {
            "x": {"type": "string"}, "n": {"type": "array", "items": {"type": "number"}}}}},
        "required": ["path"]}},
    {"name": "list_files", "parameters": {"type": "object", "properties": {}}},
]

# Blocks the parser accepts through a leniency the grammar never writes: the grammar
# file's accept-only marks (docs/grammars.md), the Hermes body's other spellings (read
# by the json value syntax).
LENIENT_CASES = {
    "hermes/arguments-as-a-string.txt": "arguments written as a JSON string",
    "hermes/reversed-keys.txt": "arguments before the name",
    "qwen3_coder/bare-function.txt": "orphan_block",
    "qwen3_coder/missing-parameter-close.txt": "lenient_unclosed_param",
    "qwen3_coder/seed-oss.txt": "lenient_seed_wrapper",
    "kimi_k2/missing-section-begin.txt": "orphan_block",
    "reasoning/kimi_k2-in-reasoning.txt": "orphan_block",
    "missing-wrapper/compact-mid-line.txt": "orphan_block",
    "missing-wrapper/two-invokes.txt": "orphan_block",
    "multiple/block-then-missing-wrapper.txt": "orphan_block",
    "malformed/tag-without-gt.txt": "orphan_block",
    "seed_oss/missing-parameter-close.txt": "lenient_unclosed_param",
    "deepseek_v31/call-without-section.txt": "orphan_block",
    "reasoning/deepseek_v31-in-reasoning.txt": "orphan_block",
    "minicpm5/tokenizer-space-marker.txt": "_LENIENT_TOKENIZER_SPACE",
    # Not accept-only, but left out: Step-3's head name (`function<｜tool_sep｜>NAME`) is
    # read with a lookahead, which llguidance cannot write; its alternative is not written.
    "step3/whitespace-kept.txt": "HEAD_NAME (a lookaround)",
    # JSON calls (the header's shape, SPEC 5.3 e): the grammar writes the name member
    # first and always an arguments member; the parser reads them in any order, and a
    # call with none as `{}`.
    "granite/arguments-first.txt": "arguments before the name",
    "phi4_mini/parameters-any-order.txt": "arguments before the name",
    "phi4_mini/engine-no-arguments.txt": "no arguments member",
    # Llama 3's bare `{` opens a call only before the members its lookahead names
    # (CALL_OPEN): the export writes the name first, and no ignored `type` member.
    "llama3_json/sglang-arguments-first.txt": "arguments before the name",
    "llama3_json/type-function.txt": "an ignored member (`type`) before the name",
    # Values as elements (MiniMax-M3): an array's items are written as `item` members
    # (the parser reads any name), and a member is never repeated to make a list.
    "minimax_m3/nested-object-and-array.txt": "array items named `tag`, not `item`",
    "minimax_m3/nested-untyped.txt": "a repeated member read as a list",
}

# What the export writes one way only, though the parser reads more (docs/export.md):
# values as raw text (no CDATA section, no entity in a name), tags with no attribute
# but the name (none on a close), no self-closing call, no comment inside a call, and
# none of deepseek's accept-only DSML drift, no padded name; in JSON, no `\\uXXXX` escape
# (llguidance writes the character itself) and no exponent (a bounded number).
NOT_WRITTEN = {
    "cdata": re.compile(r"<!\[CDATA\["),
    "self-closing": re.compile(r"/>"),
    "other attribute": re.compile(r"<[^<>]*\s(?!name\s*=)[\w:-]+\s*=\s*[\"']"),
    "comment": re.compile(r"<!--"),
    "entity": re.compile(r"&\w+;"),
    "padded name": re.compile(r"""name\s*=\s*(["'])(\s[^"']*|[^"']*\s)\1"""),
    "json escape": re.compile(r"\\u[0-9a-fA-F]{4}"),
    "json exponent": re.compile(r"\d[eE][+-]?\d"),
}
DSML_DRIFT = re.compile(r"[|｜]|dsml", re.I)
"""In a deepseek block with the canonical `｜DSML｜` taken out: a drifted spelling
(`_LENIENT_DSML_DRIFT`)."""
DSML_ALIAS = re.compile(r"｜DSML｜(?:tool-calls|toolcalls|calls)>")
"""A deepseek wrapper alias (`_LENIENT_WRAPPER_ALIAS`)."""
NOT_WRITTEN_FORMS = {"granite": "<function_call>", "pythonic": "["}
"""Block forms whose opener the target cannot write, so that the export leaves their
alternative out, as it does Step-3's head name: Granite 20B's `<function_call>` looks
ahead for the call's `{` (CALL_OPEN, a lookaround), and so does the bare list of
Llama 3.2 (`[` before a call's name: BARE_LIST, which also counts only at the start of
the answer); the array form and `<|python_start|>[...]` are written."""
NOT_WRITTEN_LITERALS = {
    "set": re.compile(r"""\{\s*(['"])[^'"]*\1\s*[,}]"""),
    "tuple or parentheses": re.compile(r"=\s*\("),
    "leading zero": re.compile(r"[=,\[]\s*-?0\d"),
    "JSON name (_LENIENT_JSON_*)": re.compile(r"[=,\[:]\s*(?:true|false|null)\b"),
    "JSON call with no arguments member": re.compile(r'\{"name":\s*"[^"]*"\}'),
}
"""Python literals the parser reads and the export does not write (docs/export.md)."""
PYTHON_CALLS = ("olmo3", "lfm2", "pythonic")


def _not_written(dialect: str, raw: str) -> bool:
    drift = dialect == "deepseek" and (DSML_DRIFT.search(raw.replace("｜DSML｜", ""))
                                       or DSML_ALIAS.search(raw))
    form = NOT_WRITTEN_FORMS.get(dialect)
    literal = dialect in PYTHON_CALLS and any(
        p.search(raw) for p in NOT_WRITTEN_LITERALS.values())
    return bool(drift) or bool(form and raw.startswith(form)) or literal or any(
        p.search(raw) for p in NOT_WRITTEN.values())


def _parsed_ok(text: str, dialect: str, mode: str) -> tuple[bool, int]:
    result = toolparse.parse(text, dialect=dialect, tools=TOOLS)
    blocks = [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    failed = [e for e in result.events if isinstance(e, toolparse.Text) and e.failure]
    calls = [c for b in blocks for c in b.calls]
    good = not failed and all(c.status == "valid" for c in calls) and (
        mode == "auto" or (len(blocks) == 1 and calls))
    return good, len(calls)


@pytest.mark.parametrize("dialect", EXPORTED)
@pytest.mark.parametrize("mode", ["required", "auto"])
def test_random_walks_parse_to_valid_calls(dialect: str, mode: str) -> None:
    if (dialect, mode) in REFUSED_MODES:
        with pytest.raises(toolparse.ExportError, match=REFUSED_MODES[dialect, mode]):
            toolparse.export_grammar(dialect, TOOLS, mode=mode)
        return
    grammar = compiled(toolparse.export_grammar(dialect, TOOLS, mode=mode))
    required = compiled(toolparse.export_grammar(dialect, TOOLS, mode="required"))
    rng = random.Random(f"{dialect}-{mode}")
    done = calls = 0
    for _ in range(40):
        prefix = ""
        if mode == "auto":  # prose, then a block's opening tag as a required walk writes it,
            # up to where the grammar must go on with a block
            block = ""
            while not block:
                block = walk(required, rng) or ""
            prose = "Let me check that.\n"
            prefix = prose + committed(grammar, prose, block)
        text = walk(grammar, rng, eos=0.3, prefix=prefix)
        if text is None:
            continue
        good, found = _parsed_ok(text, dialect, mode)
        assert good, text
        done += 1
        calls += found
    assert done >= 5 and calls >= 3, (done, calls)


def _corpus_blocks(dialect: str) -> list[tuple[str, str, list[dict]]]:
    out = []
    for case in find_cases(bundled_corpus()):
        if case.dialect != dialect:
            continue
        for event in toolparse.parse(case.text, dialect=dialect, tools=case.tools).events:
            if isinstance(event, toolparse.ToolCallBlock) and event.calls and event.accepted:
                tools = case.tools or tools_of([(c.name, c.arguments) for c in event.calls])
                again = toolparse.parse(event.raw, dialect=dialect, tools=tools)
                if all(c.status == "valid" for c in again.calls):
                    out.append((case.id, event.raw, tools))
    return out


@pytest.mark.parametrize("dialect", CHECKED)
def test_every_accepted_corpus_block_is_written_by_the_grammar(dialect: str) -> None:
    blocks = _corpus_blocks(dialect)
    grammars: dict[str, str] = {}
    refused, written = [], 0
    for case_id, raw, tools in blocks:
        key = json.dumps(tools, sort_keys=True)
        try:
            if key not in grammars:
                grammars[key] = compiled(toolparse.export_grammar(dialect, tools,
                                                                  mode="required"))
        except toolparse.ExportError:  # a schema inferred from `null` values: any type
            continue
        if accepts(grammars[key], raw):
            written += 1
        elif case_id not in LENIENT_CASES and not _not_written(dialect, raw):
            refused.append((case_id, raw))
    assert len(blocks) >= 10
    assert not refused, refused
    assert written >= len(blocks) // 2, (written, len(blocks))


@pytest.mark.parametrize("dialect", EXPORTED)
def test_unlisted_tool_bad_value_and_broken_block_are_refused(dialect: str) -> None:
    good = toolparse.export_grammar(dialect, TOOLS[1:], mode="required")
    other = toolparse.export_grammar(dialect, [{"name": "write_file", "parameters": {
        "type": "object", "properties": {"limit": {"type": "integer"}}}}], mode="required")
    grammar = compiled(good)
    # A call written under one tool list is refused under another, and cut short too
    # (by its last character that is not whitespace: a block that ends with its last
    # value may be followed by whitespace, which is no part of it).
    rng = random.Random(dialect)
    texts = [t for t in (walk(compiled(other), rng, eos=0.5) for _ in range(10)) if t]
    assert texts
    for text in texts:
        assert not accepts(grammar, text)
        assert not accepts(compiled(other), text.rstrip()[:-1])
    # An integer parameter takes no letters.
    typed = compiled(toolparse.export_grammar(dialect, TOOLS, mode="required"))
    assert all(not accepts(typed, t.replace("0", "x", 1)) or "0" not in t
               for t in texts if "limit" in t)


def test_values_cannot_hold_their_closer() -> None:
    grammar = compiled(toolparse.export_grammar("qwen3_coder", TOOLS, mode="required"))
    head = "<tool_call>\n<function=read_file>\n<parameter=path>\n"
    tail = "\n</parameter>\n</function>\n</tool_call>"
    assert accepts(grammar, head + "a < b </param" + tail)
    assert not accepts(grammar, head + "a </parameter> b" + tail)
    assert not accepts(grammar, head + "a <parameter=x> b" + tail)
    hermes = compiled(toolparse.export_grammar("hermes", TOOLS, mode="required"))
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "%s"}}</tool_call>'
    assert accepts(hermes, call % "a<b")
    assert not accepts(hermes, call % "a</tool_call>b")
    assert not accepts(hermes, call.replace("read_file", "nope") % "a")


def test_auto_keeps_block_openers_out_of_free_text() -> None:
    grammar = compiled(toolparse.export_grammar("hermes", TOOLS, mode="auto"))
    call = '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>'
    assert accepts(grammar, "Let me look.\n" + call)
    assert accepts(grammar, "No call needed.")
    assert not accepts(grammar, "See <tool_call> tags. " + call)


def test_auto_writes_no_indented_code_between_blocks() -> None:
    # After a blank line, four columns of indentation open Markdown's indented code, in
    # which the parser reads the next block as text: the grammar never writes that.
    grammar = compiled(toolparse.export_grammar("hermes", TOOLS, mode="auto"))
    call = '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>'
    for gap, written in (("\n\n", True), ("\n  \n   ", True), ("  \r\n", True),
                         ("\n\n    ", False), ("\n\n \t", False)):
        text = "Let me look.\n" + call + gap + call
        assert accepts(grammar, text) == written, repr(gap)
        if written:
            assert len(toolparse.parse(text, dialect="hermes").calls) == 2, repr(gap)
    assert len(toolparse.parse("Hi.\n" + call + "\n\n    " + call, dialect="hermes").calls) == 1


def test_accept_only_spellings_inside_terminals_are_never_written() -> None:
    grammar = compiled(toolparse.export_grammar("deepseek", TOOLS[1:], mode="required"))
    for wrapper in ("tool_calls", "｜DSML｜tool_calls", "|DSML|tool_calls", "DSML tool_calls",
                    "｜DSML｜calls"):
        text = f'<{wrapper}><invoke name="list_files"></invoke></{wrapper}>'
        assert toolparse.parse(text).accepted_calls  # the parser reads every one
        assert accepts(grammar, text) == (wrapper in ("tool_calls", "｜DSML｜tool_calls"))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"dialect": "auto"}, "several formats"),
    ({"target": "gbnf"}, "target"),
    ({"mode": "sometimes"}, "mode"),
    ({"tools": []}, "no tools"),
    ({"tools": [{"name": "a>b"}]}, "does not fit"),
    ({"tools": [{"name": "f", "parameters": {"type": "object", "properties": {
        "p": {"type": "string", "pattern": "^x+$"}}}}]}, "/properties/p"),
])
def test_bad_requests_are_export_errors(kwargs: dict, message: str) -> None:
    args = {"dialect": "qwen3_coder", "tools": TOOLS, **kwargs}
    with pytest.raises(toolparse.ExportError, match=re.escape(message)):
        toolparse.export_grammar(args.pop("dialect"), args.pop("tools"), **args)


def test_json_schema_that_cannot_be_kept_safe_names_the_pointer() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {}}}}}}]
    with pytest.raises(toolparse.ExportError, match="/properties/b"):
        toolparse.export_grammar("hermes", tools)


def test_avoiding_matches_exactly_the_texts_without_the_words() -> None:
    rng = random.Random(0)
    for words in (["</tool_call>"], ["</parameter>", "<parameter=", "</function>"],
                  ["<ab", "<a"], ["<"], ["```"], ["aab", "ab"], ["<a<b"], ["```", "<x"],
                  ["<|end|>", "<|channel|>analysis<|message|>", "<|channel|>"]):
        pattern = re.compile(regex.avoiding(words), re.S)
        alphabet = sorted(set("".join(words)) | {"x"})
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            if rng.random() < 0.3:
                text = text[:3] + rng.choice(words) + text[3:]
            assert bool(pattern.match(text)) == (not any(w in text for w in words)), text


def test_cli_writes_the_grammar_and_reports_what_it_cannot(tmp_path, capsys) -> None:
    from toolparse._cli import main

    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "list_files"}]')
    assert main(["grammar", "export", "--dialect", "hermes", "--tools", str(tools),
                 "--mode", "required"]) == 0
    written = capsys.readouterr().out
    assert written == toolparse.export_grammar("hermes", [{"name": "list_files"}],
                                               mode="required")
    assert accepts(compiled(written),
                   '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>')
    assert main(["grammar", "export", "--dialect", "auto", "--tools", str(tools)]) == 2
    assert "several formats" in capsys.readouterr().err
    assert main(["grammar", "export", "--tools", str(tools)]) == 2


def test_a_union_of_bare_types_is_raw_text_and_a_constrained_branch_is_refused() -> None:
    union = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": union}}}]
    grammar = compiled(toolparse.export_grammar("glm45", tools, mode="required"))
    for value in ("some text", "null"):
        text = f"<tool_call>f<arg_key>a</arg_key><arg_value>{value}</arg_value></tool_call>"
        assert accepts(grammar, text)
        assert toolparse.parse(text, dialect="glm45", tools=tools).calls[0].status == "valid"
    union["anyOf"][0]["pattern"] = "^x+$"
    with pytest.raises(toolparse.ExportError, match="/properties/a"):
        toolparse.export_grammar("glm45", tools)


def test_every_bundled_dialect_exports_or_says_why_not() -> None:
    assert set(EXPORTED) | set(NOT_EXPORTED) == set(toolparse.dialects())
    for dialect, reason in NOT_EXPORTED.items():
        with pytest.raises(toolparse.ExportError, match=reason):
            toolparse.export_grammar(dialect, TOOLS, mode="required")


def test_strings_hold_nothing_their_pieces_cannot_read() -> None:
    # gpt-oss reads no harmony token inside a JSON string, DeepSeek V3.1 no `<｜tool▁`:
    # the parser refuses those blocks, so the grammar never writes them.
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "string"}}, "required": ["a"]}}]
    cases = {
        "gpt_oss": ('<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json'
                    '<|message|>{"a": "%s"}', ("x<|end|>y", "x<|message|>y")),
        "deepseek_v31": ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "%s"}'
                         '<｜tool▁call▁end｜><｜tool▁calls▁end｜>', ("x<｜tool▁sep｜>y",)),
    }
    for dialect, (call, refused) in cases.items():
        grammar = compiled(toolparse.export_grammar(dialect, tools, mode="required"))
        for value, written in (("x <b> y", True), *((v, False) for v in refused)):
            calls = toolparse.parse(call % value, dialect=dialect, tools=tools).calls
            assert accepts(grammar, call % value) == written, (dialect, value)
            assert [c.status for c in calls] == (["valid"] if written else []), value


def test_a_closing_fence_inside_a_deepseek_v3_string_is_written() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "string"}}, "required": ["a"]}}]
    grammar = compiled(toolparse.export_grammar("deepseek_v3", tools, mode="required"))
    call = ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n'
            '{"a": "%s"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
    assert accepts(grammar, call % "```py\\nx\\n```")
    assert toolparse.parse(call % "```py\\nx\\n```", dialect="deepseek_v3",
                           tools=tools).calls[0].arguments == {"a": "```py\nx\n```"}
    assert not accepts(grammar, call % "x<｜tool▁call▁end｜>")


def test_json_calls_are_written_in_the_shape_the_header_declares() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {}}}]
    shapes = {
        "cohere": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]'
                  '<|END_ACTION|>',
        "apertus": '<|tools_prefix|>[{"f": {}}]<|tools_suffix|>',
        "nemotron": '<TOOLCALL>[{"name": "f", "arguments": {}}, {"name": "f", '
                    '"parameters": {}}]</TOOLCALL>',
        "minimax_m1": '<tool_calls>\n{"name": "f", "arguments": {}}\n</tool_calls>',
    }
    for dialect, text in shapes.items():
        grammar = compiled(toolparse.export_grammar(dialect, tools, mode="required"))
        assert accepts(grammar, text), dialect
        assert not accepts(grammar, text.replace('"f"', '"g"')), dialect
    # A block with no call (an empty array) is read, but never written.
    grammar = compiled(toolparse.export_grammar("nemotron", tools, mode="required"))
    assert not accepts(grammar, "<TOOLCALL>[]</TOOLCALL>")
    assert not accepts(grammar, '<TOOLCALL>[{"name": "f", "arguments": {}, "x": 1}]</TOOLCALL>')


def test_objects_and_arrays_are_written_as_elements_where_the_grammar_reads_members() -> None:
    tools = [{"name": "order", "parameters": {"type": "object", "properties": {
        "ship": {"type": "object", "properties": {"city": {"type": "string"},
                                                  "zip": {"type": "integer"}},
                 "required": ["city"]},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}}, "required": ["sku"]}, "maxItems": 2},
        "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["ship"]}}]
    grammar = compiled(toolparse.export_grammar("minimax_m3", tools, mode="required"))
    ns = "]<]minimax[>["
    def element(key: str, inner: str) -> str:
        return f"{ns}<{key}>{inner}{ns}</{key}>"
    def block(args: str) -> str:
        return f'{ns}<tool_call>\n{ns}<invoke name="order">{args}{ns}</invoke>\n{ns}</tool_call>'
    ship = element("ship", element("city", "Oslo <x>") + "\n" + element("zip", "18956"))
    items = element("items", element("item", element("sku", "a")) * 2)
    text = block(ship + items + element("tags", "[]"))
    assert accepts(grammar, text)
    call = toolparse.parse(text, dialect="minimax_m3", tools=tools).calls[0]
    assert call.status == "valid"
    assert call.arguments == {"ship": {"city": "Oslo <x>", "zip": 18956},
                              "items": [{"sku": "a"}, {"sku": "a"}], "tags": []}
    for refused in (block(element("ship", element("zip", "1"))),       # city is required
                    block(ship + element("items", element("item", element("sku", "a")) * 3)),
                    block(element("ship", "{}")),                      # required members
                    block(ship + element("tags", "")),                 # "" is no array
                    block(ship + element("tags", element("tag", "a")))):  # items as `item`
        assert not accepts(grammar, refused), refused
    loop = {"name": "tree", "parameters": {"type": "object", "$defs": {"node": {
        "type": "object", "properties": {"kids": {"type": "array", "items": {
            "$ref": "#/$defs/node"}}}}}, "properties": {"root": {"$ref": "#/$defs/node"}}}}
    with pytest.raises(toolparse.ExportError, match="recursive"):
        toolparse.export_grammar("minimax_m3", [loop])


def test_python_calls_are_written_as_the_pythonic_value_syntax_reads_them() -> None:
    tools = [{"name": "run", "parameters": {"type": "object", "properties": {
        "cmd": {"type": "string"}, "n": {"type": "integer"}, "mode": {"enum": ["r", 2, None]},
        "env": {"type": "object", "properties": {"k": {"type": "boolean"}},
                "required": ["k"]},
        "args": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
        "required": ["cmd"]}}]
    grammar = compiled(toolparse.export_grammar("olmo3", tools, mode="required"))
    def block(args: str) -> str:
        return f"<function_calls>run({args})</function_calls>"
    text = block("""cmd='it\\'s "x" \\\\ \\n\\x41\\9', n=-3, mode=None,\n env={"k": False},"""
                 " args=['a', \"b\"]")
    assert accepts(grammar, text)
    call = toolparse.parse(text, dialect="olmo3", tools=tools).calls[0]
    assert call.status == "valid"
    assert call.arguments == {"cmd": "it's \"x\" \\ \nA\\9", "n": -3, "mode": None,
                              "env": {"k": False}, "args": ["a", "b"]}
    for refused in (block("n=1"),                       # cmd is required
                    block("cmd='a', x=1"),              # no other key
                    block("n=1, cmd='a'"),              # the schema's order
                    block("'a'"),                       # no positional argument
                    block("cmd='a', mode='w'"),         # the enum's values only
                    block("cmd='a', env={}"),           # k is required
                    block("cmd='a', args=['a', 'b', 'c']"),  # maxItems
                    block("cmd=true"),                  # JSON's names are accept-only
                    block("cmd='\\U0011FFFF'")):        # no code point past U+10FFFF
        assert not accepts(grammar, refused), refused
    for schema, message in (({"type": "string", "pattern": "x"}, "'pattern'"),
                            ({"$ref": "#"}, "recursive"),
                            ({"type": "object", "additionalProperties": {"type": "string"}},
                             "additionalProperties")):
        tool = {"name": "f", "parameters": {"type": "object", "properties": {"p": schema}}}
        with pytest.raises(toolparse.ExportError, match=message):
            toolparse.export_grammar("pythonic", [tool])


def test_gemma_calls_are_written_in_gemmas_notation() -> None:
    tools = [{"name": "find", "parameters": {"type": "object", "properties": {
        "q": {"type": "string"}, "n": {"type": "integer"},
        "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        "units": {"type": "array", "items": {"enum": ["c", "f"]}}}, "required": ["q"]}}]
    grammar = compiled(toolparse.export_grammar("gemma4", tools, mode="required"))
    quote = '<|"|>'
    def call(args: str) -> str:
        return f"<|tool_call>call:find{{{args}}}<tool_call|>"
    text = call(f"q:{quote}a \"b\" {{c}} <tool_call|> <x>{quote},n:3,opts:{{deep:true}},"
                f"units:[{quote}c{quote}]")
    assert accepts(grammar, text)
    found = toolparse.parse(text, dialect="gemma4", tools=tools).calls[0]
    assert found.status == "valid"
    assert found.arguments == {"q": 'a "b" {c} <tool_call|> <x>', "n": 3,
                               "opts": {"deep": True}, "units": ["c"]}
    assert accepts(grammar, f"<start_function_call>call:find{{q:<escape>a<escape>}}"
                            "<end_function_call>")
    for refused in (call(f"q:{quote}a{quote}b{quote}"),      # a quote ends a string
                    call(f"q:{quote}<escape>{quote}"),       # so does the other form's
                    call("n:3"),                              # q is required
                    call(f"q :{quote}a{quote}"),              # a bare key meets its `:`
                    f"<|tool_call>call:find {{q:{quote}a{quote}}}<tool_call|>",  # `{` follows
                    call(f"q:{quote}a{quote},units:[{quote}k{quote}]")):
        assert not accepts(grammar, refused), refused
