"""The DeepSeek groups of what fails and what is typed: malformed and truncated blocks,
no partial execution, values, unicode, adversarial shapes, schemas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from writers.cases import case, crlf
from writers.deepseek_calls import (
    PING_BLOCK,
    PING_ORPHAN,
    READ_EXAMPLE,
    READ_REAL,
    SEARCH,
    SHELL,
    WEATHER,
)
from writers.segments import (
    DSML_FULL,
    Block,
    Call,
    Code,
    Failed,
    Param,
    Segment,
    block,
    block_text,
    cdata,
    json_value,
    number,
    text,
)

# ---- malformed and truncated ---------------------------------------------------------------

def malformed() -> None:
    g = "malformed"
    full = block(READ_REAL).raw
    cuts = [
        ("after-wrapper-name", full.index(">")),
        ("after-wrapper", full.index(">") + 2),
        ("inside-invoke-tag", full.index("name=") + 7),
        ("after-invoke-tag", full.index('">', full.index("<invoke")) + 3),
        ("inside-cdata", full.index("README") + 3),
        ("after-parameter", full.index("</parameter>") + len("</parameter>")),
        ("inside-second-value", full.index(">200") + 2),
        ("after-invoke-close", full.index("</invoke>") + len("</invoke>")),
        ("inside-wrapper-close", len(full) - 4),
    ]
    for slug, cut in cuts:
        truncated = full[:cut]
        # Cut inside a tag before a call started: the wrapper alone failed, the rest is
        # text; once a call started, everything to the end is the failed span.
        if slug == "after-wrapper-name":  # no tag yet: plain text
            segments: list[Segment | str] = [truncated]
        elif slug == "inside-invoke-tag":
            head = truncated[:truncated.index("<invoke")]
            segments = [Failed(head, "truncated", at=len(truncated)),
                        truncated[len(head):]]
        else:
            segments = [Failed(truncated, "truncated")]
        case(g, f"truncated-{slug}", "A block cut off by the end of the stream fails with reason "
             "truncated (SPEC 3.2, G4)", "Let me read it.\n\n", *segments)
    case(g, "truncated-dsml", "A DSML block cut off fails with reason truncated",
         "好的。\n\n", Failed(block(SHELL, spelling=DSML_FULL).raw[:-12], "truncated"))
    case(g, "prose-in-wrapper", "A wrapper holding prose fails at the prose (a prose mention)",
         Failed("<tool_calls>\n"), "I will now call the tool.\n</tool_calls>\n")
    case(g, "empty-wrapper", "An empty wrapper is not a block: it fails at the close",
         Failed("<tool_calls>\n\n"), "</tool_calls>\n")
    case(g, "invoke-without-name", "An invoke without a name is refused as it arrives: the "
         "wrapper fails there, and the nameless tag starts no call",
         Failed("<tool_calls>", "invalid_name"), Failed("<invoke>", "invalid_name", at=0),
         '<parameter name="p">1</parameter></invoke></tool_calls>\n')
    case(g, "empty-name", "An empty name is no name: refused as it arrives",
         Failed("<tool_calls>", "invalid_name"), Failed('<invoke name=""/>', "invalid_name", at=0),
         "</tool_calls>\n")
    case(g, "parameter-without-name", "A parameter without a name fails the block after its call "
         "started: the span runs to the wrapper close",
         Failed('<tool_calls><invoke name="a"><parameter>1</parameter></invoke></tool_calls>',
                "invalid_name", at="</parameter>"), "\n")
    case(g, "unquoted-attributes", "Unquoted values are not attributes: no invoke tag, the wrapper fails",
         Failed("<tool_calls>"),
         "<invoke name=search><parameter name=q>cats</parameter></invoke></tool_calls>\n")
    case(g, "missing-invoke-close", "A wrapper close where an invoke close belongs: the span ends there",
         Failed('<tool_calls><invoke name="a"><parameter name="p">1</parameter></tool_calls>',
                at="</tool_calls>"), "\n")
    case(g, "json-body-trailing-comma", "A JSON body that is not strict JSON: without tools "
         "the call is rejected (invalid_json), the block stays a block (SPEC 3.1)",
         Block('<tool_calls><invoke name="a">{"x": 1,}</invoke></tool_calls>',
               (Call("a", json_body='{"x": 1,}', json_value={}),)), "\n", status={0: "rejected"})
    case(g, "json-body-array", "A JSON body that parses but is not an object: the call is "
         "rejected (not_object), the block stays a block (SPEC 3.1)",
         Block('<tool_calls><invoke name="a">[1, 2]</invoke></tool_calls>',
               (Call("a", json_body="[1, 2]", json_value={}),)), "\n", status={0: "rejected"})
    case(g, "text-in-invoke-body", "Other text in an invoke body: the calls broke, the span runs "
         "to the wrapper close (SPEC 3.2)",
         Failed('<tool_calls><invoke name="a">stray<parameter name="p">1</parameter></invoke></tool_calls>',
                at="stray"), "\n")
    case(g, "repeated-attribute", "A repeated attribute is refused as the tag arrives: no call started",
         Failed("<tool_calls>", "repeated_attribute"),
         Failed('<invoke name="a" name="b"/>', "repeated_attribute", at=0), "</tool_calls>\n")
    case(g, "unclosed-cdata", "A value with an unclosed CDATA section never ends (SPEC 3): truncated",
         Failed('<tool_calls><invoke name="a"><parameter name="p"><![CDATA[never closed</parameter>'
                "</invoke></tool_calls>\n", "truncated"))
    case(g, "text-after-cdata", "A `]]>` followed by text is content, so the section never ends "
         "(SPEC 3): truncated",
         Failed('<tool_calls><invoke name="a"><parameter name="p"><![CDATA[x]]> y</parameter>'
                "</invoke></tool_calls>\n", "truncated"))
    case(g, "second-parameter-close", "A second parameter close: the calls broke, the span runs "
         "to the wrapper close",
         Failed('<tool_calls><invoke name="a"><parameter name="p">x<parameter name="q">y</parameter>z'
                "</parameter></invoke></tool_calls>", at="z</parameter>"), "\n")
    case(g, "stray-parameter-close", "A parameter close where a parameter belongs: the span runs "
         "to the wrapper close",
         Failed('<tool_calls><invoke name="a"></parameter></invoke></tool_calls>', at="</parameter>"),
         "\n")
    case(g, "lt-in-attribute-value", "A `<` inside an attribute value: not a tag, so the wrapper fails",
         Failed("<tool_calls>"), '<invoke name="a<b"/></tool_calls>\n')
    case(g, "nested-wrapper", "Scanning resumes at the failing token: the inner block is found (SPEC 3)",
         Failed("<tool_calls>"), PING_BLOCK, "\n")
    case(g, "tag-without-gt", "A `<` before the `>`: the first tag was text, the rest a block",
         "<｜DSML｜tool_calls\n",
         Block('<｜DSML｜invoke name="ping"></｜DSML｜invoke>\n</｜DSML｜tool_calls>', (Call("ping"),)), "\n")
    case(g, "released-text-opens-fence", "A failed block's text is Markdown: a fence in it opens (SPEC 3)",
         Failed("<tool_calls>\n"), "I'll explain:\n", Code(f"```xml\n{block(READ_EXAMPLE).raw}\n```"), "\n\n",
         block(READ_REAL), "\n")


# ---- failures: no partial execution (SPEC 3.2, G4) ------------------------------------------

def failures() -> None:
    g = "failures"
    step = '<invoke name="run"><parameter name="command">pytest -q</parameter></invoke>'
    tail = '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>'
    broken = '<invoke name="run"><parameter name="command">make</parameter>stray text</invoke>'
    case(g, "second-of-three-broken", "Three invokes, the second broken by stray text: the whole "
         "block is one failed span; the third (`rm -rf build`) never runs",
         "Running the steps.\n", Failed(f"<tool_calls>\n{step}\n{broken}\n{tail}\n</tool_calls>",
                                       at="stray"), "\nDone.\n")
    case(g, "broken-then-new-wrapper", "A new wrapper open ends the failed span, not included: "
         "the fresh block after it is a call",
         Failed(f"<tool_calls>\n{step}\n{broken}\n", at="stray"),
         block(Call("run", (text("command", "make"),))), "\n")
    case(g, "close-in-cdata-after-the-break", "A wrapper close inside a CDATA section of the "
         "failed span does not end it",
         Failed(f"<tool_calls>\n{step} oops <parameter name=\"x\"><![CDATA[</tool_calls>\n{tail}]]>"
                "</parameter>\n</tool_calls>", at="oops"), "\nafter\n")
    case(g, "missing-wrapper-broken-in-the-middle", "Invokes without a wrapper, the second "
         "broken: no missing-wrapper block starts inside the span, so the third does not run",
         "Sure.\n", Failed(f"{step}\n{broken}\n{tail}\n</tool_calls>", at="stray"), "\n")
    case(g, "broken-in-inline-code-is-code", "A call tag in inline code that breaks: code, so "
         "plain text, and the text after it is not held",
         'Write `<invoke name="run">` and then a parameter.\n')
    case(g, "broken-after-a-literal-backtick", "A stray backtick, then a block that breaks: the "
         "run is never matched, so the tag was outside code and the span is failed",
         "A stray ` here: ", Failed(f"<tool_calls>{step} oops {tail}</tool_calls>", at="oops"),
         " end\n\nNext paragraph.\n")
    case(g, "bad-json-body-in-the-middle", "A JSON body that is not valid JSON rejects its call; "
         "the block stays a block, with a rejected call, so a gateway that runs accepted "
         "blocks runs none of it (SPEC 3.1)",
         Block(f'<tool_calls>{step}<invoke name="run">{{"command": "make",}}</invoke>{tail}</tool_calls>',
               (Call("run", (text("command", "pytest -q"),)),
                Call("run", json_body='{"command": "make",}', json_value={}),
                Call("run", (text("command", "rm -rf build"),)))), "\n",
         status={0: "unchecked", 1: "rejected", 2: "unchecked"})


# ---- values --------------------------------------------------------------------------------

def values() -> None:
    g = "values"

    def one(name: str, description: str, *params: Param, tool: str = "set") -> None:
        case(g, name, description, block(Call(tool, tuple(params))), "\n")

    one("cdata-verbatim", "CDATA is verbatim: no decoding, no trimming",
        Param("v", "<![CDATA[  42 &amp; <x> ]]>", "  42 &amp; <x> "))
    one("cdata-end-inside", "A `]]>` not followed by `<` is content",
        Param("v", "<![CDATA[a ]]> b ]]]]>", "a ]]> b ]]"))
    one("cdata-end-before-whitespace", "Whitespace between `]]>` and the closing tag",
        Param("v", "<![CDATA[x]]>  \n  ", "x"))
    heredoc = ('cat <<EOF\n```xml\n<tool_calls><invoke name="x"><parameter name="p"><![CDATA[hi]]>'
               "</parameter></invoke></tool_calls>\n```\nEOF")
    one("nested-cdata", "A CDATA section holding an example with its own CDATA comes through whole",
        Param("command", f"<![CDATA[{heredoc}]]>", heredoc), tool="run_shell")
    code = "\ndef area(r):\n    return 3.14159 * r * r\n"
    one("cdata-code-keeps-edges", "A CDATA value keeps its leading and trailing newlines",
        Param("content", f"<![CDATA[{code}]]>", code), tool="write_file")
    one("entities", "The five entities and numeric references are decoded once (SPEC 3.1)",
        Param("v", "&lt;a&gt; &amp;lt; &#65;&#x42; &quot;&apos; &nbsp; &copy;", "<a> &lt; AB \"' &nbsp; &copy;"))
    one("invalid-numeric-references", "References to no character stay as written",
        Param("v", "&#1114112; &#x110000; &#x; &#; &#12a;", "&#1114112; &#x110000; &#x; &#; &#12a;"))
    one("entities-in-cdata", "Entities inside CDATA stay", Param("v", "<![CDATA[&amp; &lt;]]>", "&amp; &lt;"))
    case(g, "entities-in-names", "Names are entity-decoded too",
         Block('<tool_calls><invoke name="r&amp;w"><parameter name="p&#x41;">1</parameter></invoke></tool_calls>',
               (Call("r&w", (Param("pA", "1", 1),)),)), "\n")
    one("trimmed", "A one-line text value is trimmed", Param("path", "   a.md  ", "a.md"))
    one("edge-newlines", "One newline after the opening tag and one before the closing tag go",
        Param("path", "\n  a.md \n", "a.md"))
    one("only-one-edge-newline", "Only one newline goes at each edge", Param("v", "\n\nx\n\n", "\nx\n"))
    one("code-keeps-indentation", "A multi-line text value keeps its first-line indentation",
        block_text("code", "    def f():\n        return 1", "    "), tool="write_file")
    one("crlf-edges", "CRLF edges are removed like LF ones",
        Param("code", "\r\n  x\r\n  y\r\n", "  x\r\n  y"), tool="write_file")
    one("json-typing", "Exactly-JSON values are typed (SPEC 3)",
        number("int", 42), number("float", -1500.0), Param("exp", "-1.5e3", -1500.0),
        json_value("yes", True), json_value("no", False), json_value("nothing", None),
        json_value("list", [1, "a"]), json_value("object", {"a": {"b": 1}}), Param("padded", " 7 ", 7))
    one("json-lookalikes", "Text that is not exactly a JSON non-string stays a string",
        Param("quoted", '"quoted"', '"quoted"'), Param("suffix", "42abc", "42abc"),
        Param("nan", "NaN", "NaN"), Param("hex", "0x10", "0x10"), Param("plus", "+1", "+1"),
        Param("leading_zero", "01", "01"), Param("duplicate_keys", '{"a": 1, "a": 2}', '{"a": 1, "a": 2}'),
        Param("single_quotes", "{'a': 1}", "{'a': 1}"), Param("word", "True", "True"))
    one("cdata-number-is-string", "A value that is exactly one CDATA section is a string",
        Param("n", "<![CDATA[42]]>", "42"), Param("b", "<![CDATA[true]]>", "true"))
    one("string-true", 'string="true" keeps the text',
        Param("n", "42", "42", ' string="true"'), Param("l", "[1]", "[1]", ' string="TRUE"'))
    one("string-false", 'string="false" gives the JSON value, from CDATA or not',
        Param("s", '"s"', "s", ' string="false"'), Param("l", "<![CDATA[[1, 2]]]>", [1, 2], ' string="false"'),
        Param("n", "42", 42, ' string="false"'))
    one("string-false-not-json", 'string="false" with text that is not JSON: the string',
        Param("v", "not json", "not json", ' string="false"'))
    one("repeated-names", "A repeated parameter name gives a list, in order",
        Param("f", "a", "a"), Param("g", "1", 1), Param("f", "2", 2), Param("f", "<![CDATA[3]]>", "3"))
    case(g, "self-closing-parameter", "A self-closing parameter is the empty string",
         Block('<tool_calls><invoke name="w"><parameter name="a"/><parameter name="b"></parameter>'
               "</invoke></tool_calls>",
               (Call("w", (Param("a", "", ""), Param("b", "", ""))),)), "\n")
    one("whitespace-only", "A value of spaces is the empty string", Param("v", "   ", ""))
    one("lt-in-value", "A `<` in a value that starts no closing tag is text",
        Param("v", "a < b <b>bold</b> </para", "a < b <b>bold</b> </para"))
    one("parameter-tag-in-value", "A `<parameter` inside a value is text",
        Param("p", 'x <parameter name="q">y', 'x <parameter name="q">y'))
    one("comment-in-value", "A comment inside a value is content", Param("v", "x<!-- c -->y", "x<!-- c -->y"))
    one("text-and-cdata", "A text run and a CDATA section join; the edges are trimmed",
        Param("v", "  a &amp; <![CDATA[<b> &amp;]]>  ", "a & <b> &amp;"))
    case(g, "json-body-with-lt", "A JSON body may contain `<`",
         block(Call("calc", json_body='{"expr": "a < b", "n": [1, 2]}',
                    json_value={"expr": "a < b", "n": [1, 2]})), "\n")
    one("json-unicode-escapes", "JSON escapes decode", Param("v", '["\\u00e9", "\\n"]', ["é", "\n"]))
    big = "\n".join(f"line {i}: {'x' * (i % 50)}" for i in range(300))
    one("long-multiline-cdata", "A 300-line CDATA value", Param("content", f"<![CDATA[{big}]]>", big),
        tool="write_file")
    fence_value = "```python\nprint('hello')\n"
    case(g, "fence-in-value", "An unclosed fence inside a value opens no code (SPEC G3a)",
         "Writing the notes:\n\n",
         block(Call("write_file", (cdata("path", "notes.md"), cdata("content", fence_value)))),
         "\n\nAnd then:\n\n", block(SEARCH), "\n")
    case(g, "backtick-in-value-then-span", "A backtick inside a value does not pair with one after the block",
         block(Call("run_shell", (text("command", "echo `a"),))), "\n\nThen `b` is code, and this is a call:\n\n",
         block(SEARCH), "\n")


# ---- unicode, CJK, CRLF --------------------------------------------------------------------

def unicode() -> None:
    g = "unicode"
    case(g, "cjk-answer", "A Chinese answer with a call whose values are Chinese",
         "好的，我来帮你查一下北京明天的天气。\n\n",
         block(Call("get_weather", (text("city", "北京"), text("date", "明天")))), "\n")
    case(g, "cjk-names", "Tool and parameter names in Chinese",
         Block('<tool_calls><invoke name="搜索"><parameter name="关键词">人工智能</parameter></invoke></tool_calls>',
               (Call("搜索", (text("关键词", "人工智能"),)),)), "\n")
    case(g, "emoji", "Emoji and supplementary-plane characters in prose and values",
         "Sending it 🚀👩‍💻 now 𝔘𝔫𝔦𝔠𝔬𝔡𝔢:\n", block(Call("send_message", (cdata("text", "Done ✅ 🎉 👨‍👩‍👧"),))), "\n")
    case(g, "crlf-answer", "A whole answer with CRLF line endings, values included",
         *crlf("I'll write the file.\n\n"),
         block(Call("write_file", (cdata("path", "a.txt"), block_text("content", "line one\nline two", "    "))),
               nl="\r\n"), "\r\n")
    case(g, "crlf-cdata", "CRLF inside CDATA stays",
         Block("<tool_calls>\r\n<invoke name=\"w\">\r\n<parameter name=\"c\"><![CDATA[a\r\nb]]></parameter>\r\n"
               "</invoke>\r\n</tool_calls>", (Call("w", (Param("c", "<![CDATA[a\r\nb]]>", "a\r\nb"),)),)), "\r\n")
    case(g, "cr-line-endings", "Old Mac line endings in the prose",
         "First line.\rSecond line.\r", block(WEATHER, compact=True), "\r")
    case(g, "byte-order-mark", "A byte-order mark at the start is text",
         "\ufeffHello.\n", block(WEATHER), "\n")
    case(g, "full-width-brackets", "Full-width angle brackets are not tags",
         "请使用＜tool_calls＞和＜invoke name=\"x\"＞标签。\n")
    case(g, "rtl", "Right-to-left text around a call",
         "مرحبا! سأبحث عن ذلك.\n", block(Call("web_search", (text("query", "الطقس في القاهرة"),))), "\nשלום\n")
    case(g, "combining-characters", "Combining characters in values stay as written",
         block(Call("lookup", (text("word", "cafe\u0301"), text("other", "n\u0303o")))), "\n")
    case(g, "zero-width-space-in-wrapper", "A zero-width space is not whitespace: the wrapper fails there",
         Failed("<tool_calls>"), "\u200b", PING_ORPHAN, "\n")
    case(g, "zero-width-space-in-tag", "A zero-width space inside a tag name: text",
         '<\u200btool_calls><\u200binvoke name="ping"/></tool_calls>\n')
    case(g, "dsml-chinese-answer", "A DeepSeek-style Chinese answer with DSML tags",
         "我先读取配置文件，然后再决定下一步。\n\n", block(Call("read_file", (cdata("path", "config/设置.yaml"),)),
                                           spelling=DSML_FULL), "\n")


# ---- adversarial shapes --------------------------------------------------------------------

def adversarial() -> None:
    g = "adversarial"
    real = block(READ_REAL)
    case(g, "many-lt", "Two thousand `<` then a block", "<" * 2000, real, "\n")
    case(g, "open-wrapper-then-long-prose", "An open wrapper, a long run of whitespace, then prose",
         Failed("<tool_calls>" + " \n" * 3000), ("Some prose follows. " * 400) + "\n\n", real, "\n")
    storm = "".join("`" * (1 + (i * 7) % 5) + " x " for i in range(800))
    case(g, "backtick-storm", "Eight hundred backtick runs, then a block in a new paragraph",
         storm + "\n\n", real, "\n")
    case(g, "repeated-wrapper-opens", "Five hundred wrapper opens: each fails at the next, the last holds the block",
         *[Failed("<tool_calls>")] * 499, PING_BLOCK, "\n")
    case(g, "repeated-unclosed-invokes", "Three hundred unclosed invokes: the first call broke at "
         "the second, and its span runs to the end (SPEC 3.2)",
         Failed('<invoke name="x">' * 300 + " the end\n", at=len('<invoke name="x">')))
    case(g, "cdata-markers-in-prose", "CDATA and comment markers outside a block are text",
         "Raw: <![CDATA[ not a block ]]> and ]]> and <!-- a comment --> and <!-- unclosed\n")
    case(g, "partial-tag-storm", "Thousands of tag beginnings that never complete",
         "".join(("<tool_", "<｜DSML", "<｜", "</tool_calls", "<inv", "<!", "<![CDA", "<｜｜DSML｜")[i % 8] + " "
                 for i in range(2000)) + "\n")
    big = "x" * 60_000
    case(g, "huge-value", "A 60,000-character value", block(Call("write_file", (cdata("content", big),))), "\n")
    # Each inner `]]>` is followed by `<`, so it closes the section opened inside (SPEC 3).
    nested = "<![CDATA[" * 50 + "core" + "]]><br>" * 50
    case(g, "deeply-nested-cdata", "Fifty nested CDATA sections are one value",
         block(Call("w", (Param("v", f"<![CDATA[{nested}]]>", nested),))), "\n")
    case(g, "near-miss-storm", "A hundred tag names that run on", "<tool_calls_" * 100 + "\n")
    blocks: list[Segment | str] = []
    for i in range(300):
        blocks += [block(Call("tick", (number("i", i),)), compact=True), "\n"]
    case(g, "three-hundred-blocks", "Three hundred small blocks", *blocks)
    case(g, "long-line-then-block", "Fifty thousand characters with no `<`, then a block",
         "a" * 50_000, block(WEATHER, compact=True))
    case(g, "bar-storm", "Thousands of bars, then over-long prefixes", "｜" * 1000 + "<｜｜｜｜invoke name=\"x\"/> "
         + "|" * 1000 + "<|||DSML|||tool_calls>\n")
    case(g, "lt-runs-inside-value", "Runs of `<` inside a value",
         block(Call("w", (Param("v", "<<<<< <<</ <</para", "<<<<< <<</ <</para"),))), "\n")


# ---- schemas (typing and repair, SPEC 6) ---------------------------------------------------

def schemas() -> None:
    g = "schemas"

    def tool(name: str, properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": properties, "required": list(required)}}}

    read = tool("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"}}, ["path"])
    case(g, "valid-typed-by-schema", "With tools, an integer property is decoded and the call is valid",
         block(Call("read_file", (text("path", "README.md"), Param("limit", "200", 200)))), "\n",
         tools=[read], status={0: "valid"})
    note = tool("add_note", {"text": {"type": "string"}, "priority": {"type": "integer"}}, ["text"])
    case(g, "string-property-keeps-text", "A string-typed property keeps numeric-looking text",
         block(Call("add_note", (Param("text", "42", "42"), Param("priority", "1", 1)))), "\n",
         tools=[note], status={0: "valid"})
    flags = tool("configure", {"verbose": {"type": "boolean"}, "ids": {"type": "array", "items": {"type": "integer"}}})
    case(g, "boolean-and-array", "Boolean and array properties are decoded",
         block(Call("configure", (Param("verbose", "true", True), Param("ids", "[1, 2]", [1, 2])))), "\n",
         tools=[flags], status={0: "valid"})
    case(g, "unknown-tool-rejected", "A call to a tool not given is rejected, never dropped",
         block(Call("delete_everything", (text("scope", "all"),))), "\n",
         tools=[read], status={0: "rejected"})
    case(g, "missing-required-rejected", "A missing required value is never invented: rejected",
         block(Call("read_file", (Param("limit", "10", 10),))), "\n",
         tools=[read], status={0: "rejected"})
    optional = tool("search", {"q": {"type": "string"}, "lang": {"type": "string"}}, ["q"])
    case(g, "optional-null-dropped", "An optional null the schema rejects is dropped: repaired",
         block(Call("search", json_body='{"q": "cats", "lang": null}', json_value={"q": "cats"})), "\n",
         tools=[optional], status={0: "repaired"})


