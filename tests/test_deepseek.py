"""SPEC section 3: the deepseek dialect, rule by rule, each with a positive and a negative
case. Every case is also checked under several chunkings."""

from __future__ import annotations

import pytest

import toolparse
from conftest import calls_of, shape

CALL = '<invoke name="read_file"><parameter name="path">a.md</parameter></invoke>'


def block(inner: str = CALL, open_tag: str = "<tool_calls>", close_tag: str = "</tool_calls>") -> str:
    return open_tag + inner + close_tag


# ---- tags and DSML prefixes -------------------------------------------------------------

DSML_INVOKES = ["<｜DSML｜invoke", "<|DSML|invoke", "<DSML｜invoke", "<DSMLinvoke",
                "<dsml|invoke", "<｜｜DSML｜｜invoke", "<｜DSML｜_invoke", "<｜｜DSML｜｜ invoke",
                "<｜invoke", "<｜｜invoke", "<dsml_invoke", "<DsMl|invoke"]


@pytest.mark.parametrize("head", DSML_INVOKES)
def test_dsml_prefixes_are_invoke(head: str, check_chunkings) -> None:
    closing = "</" + head[1:]
    text = f'<tool_calls>{head} name="x"><parameter name="a">1</parameter>{closing}></tool_calls>'
    events = check_chunkings(text)
    assert events == [("block", text, [("x", {"a": 1})])]


@pytest.mark.parametrize("head", [
    "<DSML-invoke", "<｜｜｜invoke", "<DSMLDSMLinvoke", "<DSM|invoke", "<dsml||| invoke",
    "<｜DSML｜  invoke", "<proto|invoke", "<Invoke", "<INVOKE"])
def test_other_prefixes_and_cases_are_text(head: str, check_chunkings) -> None:
    # Not an invoke: the wrapper fails there, a prose mention (SPEC 3.2), and the rest
    # is text (a lone wrapper close opens nothing).
    closing = "</" + head[1:]
    text = f'<tool_calls>{head} name="x"></{closing[2:]}></tool_calls>'
    assert check_chunkings(text) == [("failed", "<tool_calls>", "unexpected_token"),
                                     ("text", text[len("<tool_calls>"):])]


@pytest.mark.parametrize("bar", ["|", "｜"])
@pytest.mark.parametrize("alias", ["tool-calls", "toolcalls", "function_calls", "calls", "tool_calls"])
def test_wrapper_aliases_with_a_prefix(bar: str, alias: str, check_chunkings) -> None:
    text = f'<{bar}DSML{bar}{alias}><invoke name="x"/></{bar}DSML{bar}{alias}>'
    assert check_chunkings(text) == [("block", text, [("x", {})])]


@pytest.mark.parametrize("alias", ["tool-calls", "toolcalls", "function_calls", "calls"])
def test_wrapper_aliases_need_a_prefix(alias: str, check_chunkings) -> None:
    # The alias is no wrapper: the invoke starts a missing-wrapper block that then
    # fails after a call started, so the span runs to the end (SPEC 3.2).
    text = f'<{alias}><invoke name="x"/></{alias}>'
    assert check_chunkings(text) == [("text", f"<{alias}>"),
                                     ("failed", text[len(alias) + 2:], "unexpected_token")]


def test_opening_and_closing_tags_may_differ_in_prefix(check_chunkings) -> None:
    text = '<｜DSML｜tool_calls><|DSML|invoke name="x"><dsml_parameter name="a">b</parameter></invoke></DSMLtool_calls>'
    assert check_chunkings(text) == [("block", text, [("x", {"a": "b"})])]


@pytest.mark.parametrize("name", ["tool_calls_x", "tool_callsx", "tool_calls-x", "tool_calls|"])
def test_tag_name_must_end_at_space_slash_or_gt(name: str, check_chunkings) -> None:
    text = f'<{name}><invoke name="x"/></{name}>'
    # The wrapper is not a tag, and no wrapper close follows the invoke: no call.
    assert check_chunkings(text) == [("text", f"<{name}>"),
                                     ("failed", text[len(name) + 2:], "unexpected_token")]


def test_tag_names_are_case_sensitive() -> None:
    assert calls_of('<TOOL_CALLS><invoke name="x"/></TOOL_CALLS>') == []
    assert calls_of('<tool_calls><invoke name="x"/></tool_calls>') == [("x", {})]


def test_a_lt_before_the_gt_means_it_was_not_a_tag(check_chunkings) -> None:
    # The first wrapper never ends (a `<` comes first): text. The invoke and the close
    # then form a missing-opening-wrapper block.
    text = '<｜DSML｜tool_calls\n<｜DSML｜invoke name="x"></｜DSML｜invoke>\n</｜DSML｜tool_calls>'
    events = check_chunkings(text)
    assert events[0] == ("text", "<｜DSML｜tool_calls\n")
    assert events[1][0] == "block" and events[1][2] == [("x", {})]


def test_gt_inside_a_quoted_attribute_does_not_end_the_tag(check_chunkings) -> None:
    text = '<tool_calls><invoke name="a>b"/></tool_calls>'
    assert check_chunkings(text) == [("block", text, [("a>b", {})])]


# ---- blocks -----------------------------------------------------------------------------

def test_block_with_several_invokes(check_chunkings) -> None:
    text = block('\n  <invoke name="a"/>\n  <invoke name="b"></invoke>\n')
    assert check_chunkings(text) == [("block", text, [("a", {}), ("b", {})])]


def test_empty_wrapper_is_not_a_block(check_chunkings) -> None:
    assert check_chunkings("<tool_calls></tool_calls>") == [
        ("failed", "<tool_calls>", "unexpected_token"), ("text", "</tool_calls>")]
    assert check_chunkings("<tool_calls>\n \n</tool_calls>") == [
        ("failed", "<tool_calls>\n \n", "unexpected_token"), ("text", "</tool_calls>")]


def test_wrapper_with_prose_inside_is_text(check_chunkings) -> None:
    # A call started, so the whole block to its wrapper close is one failed span.
    text = block('<invoke name="x"/> and some prose ')
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_invokes_after_prose_in_a_wrapper_form_a_missing_wrapper_block(check_chunkings) -> None:
    # The wrapper fails at the prose; scanning resumes there, and the invoke followed by
    # the wrapper close is a block of its own (SPEC 3, missing opening wrapper).
    text = block('here is a call: <invoke name="x"/>')
    assert check_chunkings(text) == [
        ("failed", "<tool_calls>", "unexpected_token"), ("text", "here is a call: "),
        ("block", '<invoke name="x"/></tool_calls>', [("x", {})])]


def test_two_blocks_in_one_chunk_are_both_emitted_in_order() -> None:
    text = block('<invoke name="a"/>') + "\n" + block('<invoke name="b"/>') + "tail"
    parser = toolparse.StreamParser()
    events = parser.feed(text)
    assert [type(e).__name__ for e in events] == ["ToolCallBlock", "Text", "ToolCallBlock", "Text"]
    assert [c.name for e in events if isinstance(e, toolparse.ToolCallBlock) for c in e.calls] == ["a", "b"]
    assert parser.close() == []


def test_block_then_text_in_the_same_chunk() -> None:
    parser = toolparse.StreamParser()
    first = parser.feed("<tool_calls><invoke name=")
    assert first == []
    events = parser.feed('"a"/></tool_calls> and after')
    assert [type(e).__name__ for e in events] == ["ToolCallBlock", "Text"]
    assert events[1] == toolparse.Text(" and after")


def test_back_to_back_blocks_without_separator(check_chunkings) -> None:
    text = block('<invoke name="a"/>') + block('<invoke name="b"/>')
    assert [e[2] for e in check_chunkings(text)] == [[("a", {})], [("b", {})]]


def test_unknown_attributes_are_ignored(check_chunkings) -> None:
    text = '<tool_calls id="x" foo=\'bar\'><invoke name="a" extra="1"><parameter name="p" hint="h">v</parameter></invoke></tool_calls>'
    assert check_chunkings(text) == [("block", text, [("a", {"p": "v"})])]


def test_unquoted_attribute_values_are_not_attributes(check_chunkings) -> None:
    text = '<tool_calls><invoke name=x><parameter name=p>v</parameter></invoke></tool_calls>'
    assert check_chunkings(text) == [("failed", "<tool_calls>", "unexpected_token"),
                                     ("text", text[len("<tool_calls>"):])]


def test_attribute_whitespace_and_single_quotes(check_chunkings) -> None:
    text = "<tool_calls><invoke  name = ' read ' ><parameter name ='p' >v</parameter ></invoke ></tool_calls >"
    assert check_chunkings(text) == [("block", text, [("read", {"p": "v"})])]


def test_comments_between_tags_are_ignored(check_chunkings) -> None:
    text = block('<!-- first --><invoke name="a"><!-- x - y --><parameter name="p">1</parameter><!----></invoke><!-- z -->')
    assert check_chunkings(text) == [("block", text, [("a", {"p": 1})])]


def test_comment_inside_a_value_is_content() -> None:
    assert calls_of(block('<invoke name="a"><parameter name="p">x<!-- c -->y</parameter></invoke>')) == [
        ("a", {"p": "x<!-- c -->y"})]


# ---- missing opening wrapper ------------------------------------------------------------

def test_missing_opening_wrapper(check_chunkings) -> None:
    text = 'Sure.\n<invoke name="a"><parameter name="p">1</parameter></invoke>\n<invoke name="b"/>\n</tool_calls>\nDone.'
    events = check_chunkings(text)
    assert events[0] == ("text", "Sure.\n")
    assert events[1][2] == [("a", {"p": 1}), ("b", {})]
    assert events[1][1].startswith("<invoke") and events[1][1].endswith("</tool_calls>")
    assert events[2] == ("text", "\nDone.")


def test_invokes_without_a_following_wrapper_close_are_a_failed_span(check_chunkings) -> None:
    # Calls started and broke: the span runs to the end of the stream (SPEC 3.2).
    text = '<invoke name="a"/>\n<invoke name="b"/>\nDone.'
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_missing_wrapper_needs_only_whitespace_between(check_chunkings) -> None:
    # The prose breaks the calls that started; the span runs to the wrapper close, and
    # no missing-wrapper block can start inside it: `b` does not run either.
    text = '<invoke name="a"/> and <invoke name="b"/></tool_calls>'
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


# ---- invoke bodies ----------------------------------------------------------------------

def test_invoke_requires_a_name(check_chunkings) -> None:
    for text in [block('<invoke><parameter name="p">1</parameter></invoke>'),
                 block('<invoke name=""/>'), block('<invoke id="x"/>')]:
        events = check_chunkings(text)
        assert not any(kind == "block" for kind, *_ in events)
        # A nameless call tag is refused as it arrives: no call started.
        assert events[0] == ("failed", "<tool_calls>", "invalid_name")


def test_json_object_body(check_chunkings) -> None:
    text = block('<invoke name="a">\n  {"path": "x<y", "n": [1, 2]}\n</invoke>')
    assert check_chunkings(text) == [("block", text, [("a", {"path": "x<y", "n": [1, 2]})])]


@pytest.mark.parametrize(("body", "reason"), [
    ("[1, 2]", "not_object"), ('{"a": 1} {"b": 2}', "invalid_json"), ('{"a": 1,}', "invalid_json"),
    ('{"a": 1', "invalid_json"), ('{"a": NaN}', "invalid_json"), ('{"a": 1, "a": 2}', "invalid_json"),
    ("[", "invalid_json"), ('{"a": "</parameter>"', "invalid_json"),
])
def test_a_json_body_is_arguments_text_and_never_fails_the_block(
        body: str, reason: str, check_chunkings) -> None:
    # SPEC 3.1: a body starting with { or [ is the call's arguments text, like OpenAI's
    # function.arguments; without tools, anything but one JSON object rejects the call
    # (arguments {}, the text kept for repair) and the block stays a block.
    text = block(f'<invoke name="a">\n  {body}\n</invoke>')
    assert check_chunkings(text) == [("block", text, [("a", {})])]
    call = toolparse.parse(text).calls[0]
    assert (call.status, call.reason) == ("rejected", reason)
    assert call.repair is not None and call.repair.text == body
    assert call.hint and body not in call.hint


def test_a_body_of_other_text_still_fails_the_block(check_chunkings) -> None:
    for body in ['"s"', "plain words", "1"]:
        text = block(f'<invoke name="a">{body}</invoke>')
        assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_self_closing_invoke_and_empty_body(check_chunkings) -> None:
    text = block('<invoke name="a"/><invoke name="b"></invoke><invoke name="c">  </invoke>')
    assert check_chunkings(text) == [("block", text, [("a", {}), ("b", {}), ("c", {})])]


def test_other_text_in_an_invoke_body_fails(check_chunkings) -> None:
    text = block('<invoke name="a">stray<parameter name="p">1</parameter></invoke>')
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_parameter_without_a_name_fails(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter>1</parameter></invoke>')
    assert check_chunkings(text) == [("failed", text, "invalid_name")]


def test_repeated_attribute_fails(check_chunkings) -> None:
    text = block('<invoke name="a" name="b"/>')
    assert check_chunkings(text) == [
        ("failed", "<tool_calls>", "repeated_attribute"),
        ("failed", '<invoke name="a" name="b"/>', "repeated_attribute"), ("text", "</tool_calls>")]


# ---- parameter values -------------------------------------------------------------------

def test_value_runs_to_the_first_parameter_close(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p">x <parameter name="q">y</parameter></invoke>')
    assert check_chunkings(text) == [("block", text, [("a", {"p": 'x <parameter name="q">y'})])]


def test_second_parameter_close_fails_the_block(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p">x<parameter name="q">y</parameter>z</parameter></invoke>')
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_lt_in_a_value_is_text(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p">a < b <b>bold</b> </para</parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("a", {"p": "a < b <b>bold</b> </para"})]


def test_cdata_value_is_verbatim_string(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p"><![CDATA[  42 &amp; <x> ]]></parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("a", {"p": "  42 &amp; <x> "})]


def test_cdata_end_not_followed_by_lt_is_content(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p"><![CDATA[a ]]> b ]]]]></parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("a", {"p": "a ]]> b ]]"})]


def test_cdata_end_followed_by_whitespace_then_lt_ends_it(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p"><![CDATA[x]]>  \n  </parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("a", {"p": "x"})]


def test_nested_cdata_comes_through_whole(check_chunkings) -> None:
    inner = ('cat <<EOF\n```xml\n<tool_calls><invoke name="x"><parameter name="p"><![CDATA[hi]]>'
             '</parameter></invoke></tool_calls>\n```\nEOF')
    text = block(f'<invoke name="Bash"><parameter name="command"><![CDATA[{inner}]]></parameter></invoke>')
    assert check_chunkings(text) == [("block", text, [("Bash", {"command": inner})])]


def test_unclosed_cdata_is_text(check_chunkings) -> None:
    text = block('<invoke name="a"><parameter name="p"><![CDATA[never closed</parameter></invoke>')
    assert check_chunkings(text) == [("failed", text, "truncated")]


def test_cdata_then_more_text_after_an_inner_end(check_chunkings) -> None:
    # `]]>` inside the content followed by more text does not end the section.
    text = block('<invoke name="a"><parameter name="p"><![CDATA[if (a[b[0]]> 1) x;]]></parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("a", {"p": "if (a[b[0]]> 1) x;"})]


def test_entities_are_decoded_once_in_text_and_names(check_chunkings) -> None:
    text = block('<invoke name="r&amp;w"><parameter name="p&#x41;">&lt;a&gt; &amp;lt; &#65;&#x42; &quot;&apos; &nbsp; &#0;</parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("r&w", {"pA": "<a> &lt; AB \"' &nbsp; &#0;"})]


def test_edge_newlines_and_trimming(check_chunkings) -> None:
    text = block('<invoke name="w"><parameter name="path">\n  a.md \n</parameter>'
                 '<parameter name="content"><![CDATA[  two spaces  ]]></parameter>'
                 '<parameter name="note">  <![CDATA[x]]>  </parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("w", {"path": "a.md", "content": "  two spaces  ", "note": "x"})]


def test_multiline_code_keeps_its_first_line_indentation(check_chunkings) -> None:
    text = block('\n  <invoke name="write">\n    <parameter name="code">\n    def f():\n        return 1\n    </parameter>\n  </invoke>\n')
    assert check_chunkings(text)[0][2] == [("write", {"code": "    def f():\n        return 1"})]


def test_crlf_edges(check_chunkings) -> None:
    text = block('<invoke name="w">\r\n<parameter name="code">\r\n  x\r\n  y\r\n</parameter>\r\n</invoke>')
    assert check_chunkings(text)[0][2] == [("w", {"code": "  x\r\n  y"})]


def test_only_one_edge_newline_is_removed() -> None:
    assert calls_of(block('<invoke name="w"><parameter name="p">\n\nx\n\n</parameter></invoke>')) == [
        ("w", {"p": "\nx\n"})]


def test_self_closing_parameter_is_empty_string(check_chunkings) -> None:
    text = block('<invoke name="w"><parameter name="a"/><parameter name="b"></parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("w", {"a": "", "b": ""})]


def test_repeated_names_give_a_list_in_order(check_chunkings) -> None:
    text = block('<invoke name="w"><parameter name="f">a</parameter><parameter name="g">1</parameter>'
                 '<parameter name="f">2</parameter><parameter name="f"><![CDATA[3]]></parameter></invoke>')
    assert check_chunkings(text)[0][2] == [("w", {"f": ["a", 2, "3"], "g": 1})]


# ---- typing without a schema ------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("42", 42), ("-1.5e3", -1500.0), ("true", True), ("false", False), ("null", None),
    ("[1, \"a\"]", [1, "a"]), ('{"a": {"b": 1}}', {"a": {"b": 1}}),
    ('"quoted"', '"quoted"'), ("hello", "hello"), ("42abc", "42abc"), ("NaN", "NaN"),
    ("0x10", "0x10"), ('{"a": 1, "a": 2}', '{"a": 1, "a": 2}'), ("", ""),
    ("<![CDATA[42]]>", "42"), ("<![CDATA[true]]>", "true"),
])
def test_typing_without_attribute(value: str, expected: object) -> None:
    assert calls_of(block(f'<invoke name="t"><parameter name="v">{value}</parameter></invoke>')) == [
        ("t", {"v": expected})]


@pytest.mark.parametrize(("value", "expected", "errors"), [
    ("42", 42, ()), ("<![CDATA[[1, 2]]]>", [1, 2], ()), ('"s"', "s", ()),
    ("not json", "not json", ("v",)), ("{'a': 1}", "{'a': 1}", ("v",)),
])
def test_string_false_gives_json(value: str, expected: object, errors: tuple[str, ...]) -> None:
    result = toolparse.parse(block(f'<invoke name="t"><parameter name="v" string="false">{value}</parameter></invoke>'))
    assert result.calls[0].arguments == {"v": expected}
    assert result.calls[0].json_errors == errors


def test_string_true_keeps_text() -> None:
    assert calls_of(block('<invoke name="t"><parameter name="v" string="true">42</parameter></invoke>')) == [
        ("t", {"v": "42"})]
    assert calls_of(block('<invoke name="t"><parameter name="v" string="TRUE">[1]</parameter></invoke>')) == [
        ("t", {"v": "[1]"})]


# ---- failure and resumption -------------------------------------------------------------

def test_prose_mention_is_released_at_the_failing_token() -> None:
    parser = toolparse.StreamParser()
    assert parser.feed("Use <tool_calls>") == [toolparse.Text("Use ")]
    assert parser.feed(" ") == []  # whitespace inside a wrapper: still a block
    failure = toolparse.BlockFailure("unexpected_token", 4, 17, 17,
                                     ("COMMENT_OPEN", "INVOKE_EMPTY", "INVOKE_OPEN"))
    assert parser.feed("to wrap") == [toolparse.Text("<tool_calls> ", failure),
                                      toolparse.Text("to wrap")]


def test_scanning_resumes_at_the_failing_token(check_chunkings) -> None:
    text = '<tool_calls><tool_calls><invoke name="a"/></tool_calls>'
    assert check_chunkings(text) == [("failed", "<tool_calls>", "unexpected_token"),
                                     ("block", text[len("<tool_calls>"):], [("a", {})])]


def test_truncated_block_at_end_of_stream_fails_as_truncated(check_chunkings) -> None:
    full = block('<invoke name="a"><parameter name="p">1</parameter></invoke>')
    wrapper, invoke = len("<tool_calls>"), len('<tool_calls><invoke name="a">')
    for cut in range(1, len(full)):
        text = "before " + full[:cut]
        events = check_chunkings(text)
        result = toolparse.parse(text)
        if cut < wrapper:          # the wrapper never completed: plain text
            assert events == [("text", text)], cut
            assert not result.truncated
        elif cut < invoke:         # no call started: the wrapper alone is the failure
            assert events[:2] == [("text", "before "), ("failed", "<tool_calls>", "truncated")], cut
            assert result.truncated
        else:                      # a call started: everything to the end failed
            assert events == [("text", "before "), ("failed", full[:cut], "truncated")], cut
            assert result.truncated


def test_a_tag_completed_mid_chunk_followed_by_plain_text() -> None:
    # The chunk that completes a held tag goes on with text that holds no `<`: the tag
    # must still open the block (a regression found by the corpus's random chunkings).
    parser = toolparse.StreamParser()
    assert parser.feed("x <tool_calls") == [toolparse.Text("x ")]
    assert parser.feed(">\n  ") == []
    events = parser.feed('<invoke name="a"/>\n</tool_calls>')
    assert [type(e).__name__ for e in events] == ["ToolCallBlock"]
    assert events[0].raw.startswith("<tool_calls>")  # type: ignore[union-attr]


def test_closing_tag_alone_is_text(check_chunkings) -> None:
    text = "一些正文内容\n</tool_calls>\n后续内容"
    assert check_chunkings(text) == [("text", text)]


def test_unknown_tool_names_are_parsed() -> None:
    assert calls_of(block('<invoke name="definitely_not_a_tool"/>')) == [("definitely_not_a_tool", {})]


def test_block_offsets_and_raw() -> None:
    text = "αβ " + block('<invoke name="a"/>') + " γ"
    result = toolparse.parse(text)
    (blk,) = [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    assert text[blk.start:blk.end] == blk.raw
    (call,) = blk.calls
    assert text[call.start:call.end] == call.raw == '<invoke name="a"/>'
    assert result.text == "αβ  γ"
    assert result.saw_tool_syntax


def test_saw_tool_syntax() -> None:
    assert not toolparse.parse("plain text").saw_tool_syntax
    assert toolparse.parse("Use <tool_calls> to wrap").saw_tool_syntax
    assert toolparse.parse('<invoke name="a"/> but no close').saw_tool_syntax
    assert not toolparse.parse("<tool_calls_x> is not a tag").saw_tool_syntax


def test_shape_helper_sees_every_event() -> None:
    # Guard for the helpers above: an event kind they did not know would be lost.
    events = toolparse.parse("a" + block('<invoke name="x"/>') + "b").events
    assert [kind for kind, *_ in shape(events)] == ["text", "block", "text"]


def test_attributes_read_once_per_tag_are_the_same_and_the_store_is_bounded() -> None:
    # A dialect keeps the attributes of the tags it has read (a stream repeats its
    # tags); what it keeps must read as a fresh read does, a repeated attribute must
    # still fail every time, and no stream can grow the store past its bound.
    from toolparse._dialect import build
    builders = toolparse.Dialect.bundled("deepseek")._grammars[0].build
    tag = '<parameter name="p&amp;q" string="true">'
    assert builders.attributes(tag) == {"name": "p&q", "string": "true"}
    assert builders.attributes(tag) == builders._read_attributes(tag)
    for _ in range(2):
        with pytest.raises(build.BlockRejected):
            builders.attributes('<invoke name="a" name="b">')
    for n in range(build._KEPT + 10):
        assert builders.attributes(f'<invoke name="f{n}">') == {"name": f"f{n}"}
    long_tag = '<invoke name="' + "x" * build._KEPT_LENGTH + '">'
    assert builders.attributes(long_tag)["name"] == "x" * build._KEPT_LENGTH
    assert len(builders._attributes) <= build._KEPT and long_tag not in builders._attributes
    text = block('<invoke name="a"><parameter name="p">1</parameter></invoke>' * 3)
    assert [c.arguments for c in toolparse.parse(text).calls] == [{"p": 1}] * 3
