"""How events and results show in a notebook (`_repr_html_`) and at a prompt (the repr
functions in toolparse._display)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import toolparse
from toolparse import _display

BLOCK = ('<tool_calls><invoke name="read_file"><parameter name="path">a&lt;b.md</parameter>'
         '<parameter name="limit">20</parameter></invoke></tool_calls>')
ANSWER = "Look: <script>alert(1)</script> & more\n" + BLOCK + "\nDone."


class _Balance(HTMLParser):
    """Checks that every element opened is closed, in order; collects the text."""

    VOID = {"br", "hr", "img"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: list[str] = []
        self.source: list[str] = []
        """The text outside labels and summaries: the source text as the display shows it."""
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)
            classes = (dict(attrs).get("class") or "").split()
            if self.skipping or tag == "summary" or "tp-label" in classes:
                self.skipping += 1

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()
        self.skipping = max(self.skipping - 1, 0)

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if not self.skipping:
            self.source.append(data)


def rendered(markup: str) -> str:
    """The text a browser shows for `markup`, after checking the markup is balanced."""
    return "".join(_balanced(markup).text)


def flow_source(markup: str) -> str:
    """The source text in the display's text box, without labels and fold summaries."""
    flow = re.search(r'<div class="tp-flow".*?</div>(?=<table|</div>$)', markup, re.S)
    assert flow, "no tp-flow box"
    return "".join(_balanced(flow.group(0)).source)


def _balanced(markup: str) -> _Balance:
    checker = _Balance()
    checker.feed(markup)
    checker.close()
    assert checker.open == [], f"unclosed: {checker.open}"
    return checker


def test_result_html_shows_the_text_escaped_and_the_block_highlighted() -> None:
    result = toolparse.parse(ANSWER)
    markup = result._repr_html_()
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "<tool_calls>" not in markup and "&lt;tool_calls&gt;" in markup
    assert "&amp; more" in markup
    shown = rendered(markup)
    assert "Look: <script>alert(1)</script> & more\n" in shown  # the text as written
    assert BLOCK in shown                                          # the block's source as written
    assert "ParseResult: 1 block, 1 call, saw_tool_syntax=True" in shown
    assert 'path = "a<b.md"' in shown and "limit = 20" in shown  # the calls table
    assert "read_file" in shown and "unchecked" in shown


def test_each_block_is_numbered_in_the_text_and_the_table() -> None:
    second = BLOCK.replace("read_file", "write_file")
    markup = toolparse.parse("a " + BLOCK + " b " + second)._repr_html_()
    assert 'title="block 1: characters 2-' in markup and 'title="block 2: characters' in markup
    assert "<th" in markup and ">block</th>" in markup


def test_result_without_calls_has_no_table() -> None:
    markup = toolparse.parse("just <b>text</b>")._repr_html_()
    assert "<table" not in markup and "just &lt;b&gt;text&lt;/b&gt;" in markup
    rendered(markup)


def test_block_html() -> None:
    block = toolparse.parse(ANSWER).events[1]
    assert isinstance(block, toolparse.ToolCallBlock)
    shown = rendered(block._repr_html_())
    assert f"ToolCallBlock, characters {block.start}-{block.end}, 1 call" in shown
    assert BLOCK in shown and 'path = "a<b.md"' in shown


def test_call_html_shows_name_status_and_arguments() -> None:
    call = toolparse.ToolCall("search", {"q": "<b> & 'x'", "n": [1, 2], "deep": {"a": None}})
    shown = rendered(call._repr_html_())
    assert "search" in shown and "unchecked" in shown
    assert "q = \"<b> & 'x'\"" in shown and "n = [1, 2]" in shown and 'deep = {"a": null}' in shown
    assert "&lt;b&gt; &amp; " in call._repr_html_()


def test_call_html_without_arguments_and_with_json_errors() -> None:
    assert "no arguments" in rendered(toolparse.ToolCall("ping", {})._repr_html_())
    call = toolparse.ToolCall("t", {"v": "oops"}, json_errors=("v",))
    assert "not JSON, kept as text: v" in rendered(call._repr_html_())


def test_text_html() -> None:
    shown = rendered(toolparse.Text("a < b & c")._repr_html_())
    assert "Text, 9 characters" in shown and "a < b & c" in shown


def test_long_text_is_cut_and_says_so() -> None:
    long = "x" * (_display.MAX_SHOWN_CHARS + 5000)
    markup = toolparse.parse(long + " " + BLOCK)._repr_html_()
    assert flow_source(markup).startswith("x" * _display.MAX_SHOWN_CHARS + " … ")
    assert f"{5000 + 1 + len(BLOCK):,} characters more not shown" in rendered(markup)
    markup = toolparse.Text(long)._repr_html_()
    assert "5,000 characters more not shown" in rendered(markup)
    assert flow_source(markup) == "x" * _display.MAX_SHOWN_CHARS + " … 5,000 characters more not shown"


def test_long_values_and_many_calls_are_cut() -> None:
    call = toolparse.ToolCall("w", {"v": "y" * (_display.MAX_VALUE_CHARS * 2)})
    assert "more not shown" in rendered(call._repr_html_())
    many = "".join('<tool_calls><invoke name="t"/></tool_calls>' for _ in range(_display.MAX_SHOWN_CALLS + 3))
    shown = rendered(toolparse.parse(many)._repr_html_())
    assert "3 calls more not shown" in shown


# ---- marks: statuses, failures, code, repairs, folds -----------------------------------------

READ = {"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"], "additionalProperties": False}}}
WRITE = {"name": "write_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"]}}
FENCED = '```xml\n<tool_calls><invoke name="read_file"/></tool_calls>\n```\n'
VALID = '<tool_calls><invoke name="read_file"><parameter name="path">a</parameter></invoke></tool_calls>'
REPAIRED = '<tool_calls><invoke name="read_file">{"path": "b",}</invoke></tool_calls>'
REJECTED = '<tool_calls><invoke name="rm"><parameter name="path">/</parameter></invoke></tool_calls>'
BROKEN = ('<tool_calls><invoke name="read_file"><parameter name="path">c</parameter>stray'
          '</invoke></tool_calls>')
CODE = "def f():\n    return '<b>'\n"
WRITES = (f'<tool_calls><invoke name="write_file"><parameter name="path">f.py</parameter>'
          f'<parameter name="content"><![CDATA[{CODE}]]></parameter></invoke></tool_calls>')
MIXED = "\n".join(["Example:", "", FENCED, VALID, REPAIRED, REJECTED, BROKEN, WRITES, "end"])


def mixed_html() -> str:
    return toolparse.parse(MIXED, tools=[READ, WRITE], id_factory=iter(["c1", "c2", "c3", "c4"]).__next__)._repr_html_()


def blocks_marked(markup: str) -> list[str]:
    return re.findall(r'<span class="tp-block tp-(\w+)"', markup)


def test_blocks_are_coloured_by_the_status_of_their_worst_call() -> None:
    markup = mixed_html()
    assert blocks_marked(markup) == ["valid", "repaired", "rejected", "valid"]
    assert blocks_marked(toolparse.parse(BLOCK)._repr_html_()) == ["unchecked"]
    both = VALID.replace("</tool_calls>", '<invoke name="rm"/></tool_calls>')
    assert blocks_marked(toolparse.parse(both, tools=[READ])._repr_html_()) == ["rejected"]
    # The number label has the block's colour and says its status.
    assert re.search(r'class="tp-label tp-repaired"[^>]*title="block 2: characters \d+-\d+, repaired">2<',
                     markup)
    # Each call's row and status label carry its own status.
    assert re.findall(r'<tr class="tp-call tp-(\w+)"', markup) == ["valid", "repaired", "rejected", "valid"]
    assert ">rejected: unknown_tool</span>" in markup


def test_the_legend_names_every_colour() -> None:
    markup = mixed_html()
    legend = re.search(r'<div class="tp-legend".*?</div>', markup, re.S)
    assert legend
    keys = re.findall(r'class="tp-key tp-([\w-]+)"', legend.group(0))
    assert keys == ["valid", "repaired", "rejected", "unchecked", "failed", "in-code",
                    "reasoning"]
    assert "in code, not run" in rendered(legend.group(0))


def test_a_failed_block_is_marked_with_its_reason() -> None:
    result = toolparse.parse(MIXED, tools=[READ, WRITE])
    (failure,) = result.failures
    markup = result._repr_html_()
    spans = re.findall(r'<span class="tp-failed"[^>]*title="([^"]*)">(.*?)</span>', markup, re.S)
    assert len(spans) == 1
    title, text = spans[0]
    assert text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"') == BROKEN
    assert title.startswith(f"failed at character {failure.at}; expected ")
    assert ">failed: unexpected_token</span>" in markup
    shown = rendered(markup)
    assert "1 failed block" in shown
    row = re.search(r'<tr class="tp-failure">.*?</tr>', markup, re.S)
    assert row and f"characters {failure.start}-{failure.end}" in rendered(row.group(0))
    assert all(name in row.group(0) for name in failure.expected)


def test_tags_in_markdown_code_are_marked_not_run() -> None:
    markup = mixed_html()
    marked = re.findall(r'<span class="tp-in-code"[^>]*title="([^"]*)">([^<]*)</span>', markup)
    # Both tags that could start a block (the invoke alone could, SPEC 3.1) are in the fence.
    assert marked == [("in a fenced code block, line 4: not run", "&lt;tool_calls&gt;"),
                      ("in a fenced code block, line 4: not run",
                       "&lt;invoke name=&quot;read_file&quot;/&gt;")]
    assert markup.count(">in code, not run</span>") == 3  # the legend and the two labels
    assert "2 tags in code, not run" in rendered(markup)
    span = toolparse.parse("Write `<tool_calls>` first.")._repr_html_()
    assert re.findall(r'class="tp-in-code"[^>]*title="([^"]*)"', span) == ["in a code span, line 1: not run"]
    assert '<span class="tp-in-code"' not in toolparse.parse(BLOCK)._repr_html_()


def test_the_display_keeps_the_source_text_exactly() -> None:
    assert flow_source(mixed_html()) == MIXED
    assert flow_source(toolparse.parse(ANSWER)._repr_html_()) == ANSWER


def test_repaired_calls_show_their_rules() -> None:
    markup = mixed_html()
    rules = re.findall(r'<div class="tp-rules"[^>]*>(.*?)</div>', markup)
    assert rules == ["rules: repair_json_syntax"]
    call = toolparse.parse(REPAIRED, tools=[READ]).calls[0]
    assert "rules: repair_json_syntax" in rendered(call._repr_html_())


def test_multi_line_strings_are_preformatted() -> None:
    markup = mixed_html()
    (code,) = re.findall(r'<pre class="tp-code"[^>]*>(.*?)</pre>', markup, re.S)
    assert code == "def f():\n    return &#x27;&lt;b&gt;&#x27;\n"  # real newlines, escaped
    assert "\\n" not in rendered(markup)                          # never a literal backslash-n
    assert 'path = "f.py"' in rendered(markup)                     # one-line values stay JSON


def test_long_text_folds_into_details() -> None:
    prose = "".join(f"line {n} of a long explanation\n" for n in range(200))
    text = prose + BLOCK + "\n" + prose
    markup = toolparse.parse(text)._repr_html_()
    folds = re.findall(r'<details class="tp-more"[^>]*><summary[^>]*>(.*?)</summary>', markup)
    assert len(folds) == 2
    assert folds[0].startswith("… ") and "more characters" in folds[0] and "lines" in folds[0]
    assert flow_source(markup) == text  # folded, not lost
    head = markup.split("<details", 1)[0]
    assert "line 0 of" in head and "line 199 of" not in head
    assert "<details" not in toolparse.parse("short " + BLOCK)._repr_html_()


def test_a_fold_never_splits_a_tag_in_code() -> None:
    cut = _display.COLLAPSED_HEAD
    text = "```\n" + "y" * (cut - 10) + '<tool_calls><invoke name="x"/></tool_calls>' + "z" * 2000 + "\n```\n"
    markup = toolparse.parse(text)._repr_html_()
    assert re.findall(r'class="tp-in-code"[^>]*>([^<]*)</span>', markup) == [
        "&lt;tool_calls&gt;", "&lt;invoke name=&quot;x&quot;/&gt;"]
    head = markup.split("<details", 1)[0]
    assert head.endswith("y" * (cut - 10)) or head.endswith("y" * (cut - 10) + "</span>")
    assert flow_source(markup) == text


def test_a_failed_text_event_alone() -> None:
    (failed,) = [e for e in toolparse.parse(BROKEN).events if isinstance(e, toolparse.Text) and e.failure]
    markup = failed._repr_html_()
    assert "the text of a failed block (unexpected_token)" in rendered(markup)
    assert 'class="tp-failed"' in markup and flow_source(markup) == BROKEN


def test_titles_and_ids_are_escaped() -> None:
    markup = toolparse.parse(BLOCK, id_factory=lambda: '"><script>x</script>')._repr_html_()
    assert "<script>" not in markup and "&quot;&gt;&lt;script&gt;" in markup
    rendered(markup)


# ---- plain repr ----------------------------------------------------------------------------

def test_text_repr() -> None:
    assert _display.text_repr(toolparse.Text("hi\n")) == "Text('hi\\n')"
    long = _display.text_repr(toolparse.Text("a" * 100 + "z"))
    assert long.startswith("Text('aaa") and "…" in long and long.endswith("az')")
    assert len(long) <= _display.REPR_CHARS + len("Text()")


def test_call_repr() -> None:
    call = toolparse.parse(ANSWER).calls[0]
    assert _display.call_repr(call) == (
        f"ToolCall(name='read_file', arguments={{'path': 'a<b.md', 'limit': 20}}, "
        f"status='unchecked', start={call.start}, end={call.end})")
    flagged = toolparse.ToolCall("t", {"v": "x"}, json_errors=("v",))
    assert "json_errors=('v',)" in _display.call_repr(flagged)


def test_block_repr() -> None:
    block = toolparse.parse(ANSWER).events[1]
    assert isinstance(block, toolparse.ToolCallBlock)
    text = _display.block_repr(block)
    assert text.startswith(f"ToolCallBlock({block.start}-{block.end}: "
                           "read_file(path='a<b.md', limit=20); raw='<tool_calls>")
    assert "…" in text


def test_result_repr_lists_events() -> None:
    text = _display.result_repr(toolparse.parse(ANSWER))
    lines = text.splitlines()
    assert lines[0] == "ParseResult(saw_tool_syntax=True, calls=1, events=["
    assert lines[1].startswith("  Text('Look: <script>")
    assert lines[2].startswith("  ToolCallBlock(") and "read_file(path='a<b.md', limit=20)" in lines[2]
    assert lines[3] == "  Text('\\nDone.'),"
    assert lines[-1] == "])"


def test_result_repr_is_bounded() -> None:
    many = " ".join('<tool_calls><invoke name="t"/></tool_calls>' for _ in range(50))
    lines = _display.result_repr(toolparse.parse(many)).splitlines()
    assert len(lines) == _display.REPR_EVENTS + 3
    assert lines[-2] == f"  ... {99 - _display.REPR_EVENTS} more events"
