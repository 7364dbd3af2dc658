"""The DeepSeek groups of calls and of Markdown around them: prose, canonical, DSML,
several blocks, a missing wrapper, fenced and inline code, stray backticks."""

from __future__ import annotations

from writers.cases import case, crlf
from writers.segments import (
    CANONICAL,
    DSML_FULL,
    Block,
    Call,
    Code,
    Failed,
    Param,
    Spelling,
    block,
    cdata,
    dsml,
    indent,
    number,
    text,
)

# ==== the cases ==============================================================================

READ_EXAMPLE = Call("read_file", (cdata("path", "example.txt"),))
READ_REAL = Call("read_file", (cdata("path", "README.md"), number("limit", 200)))
SEARCH = Call("web_search", (text("query", "CommonMark code spans"), number("max_results", 5)))
SHELL = Call("run_shell", (cdata("command", "ls -la src/"),))
WEATHER = Call("get_weather", (text("city", "Berlin"), text("unit", "celsius")))
PING = Call("ping", self_closing=True)
PING_BLOCK = Block('<tool_calls><invoke name="ping"/></tool_calls>', (PING,))
PING_ORPHAN = Block('<invoke name="ping"/></tool_calls>', (PING,))


def ex_block(spelling: Spelling = CANONICAL, nl: str = "\n") -> str:
    """The example block models show before the real call."""
    return block(READ_EXAMPLE, spelling=spelling, nl=nl).raw



# ---- plain prose ---------------------------------------------------------------------------

def prose() -> None:
    g = "prose"
    case(g, "paragraphs", "Plain paragraphs: one text event, nothing held back",
         "The capital of France is Paris. It has been the capital since the 10th century.\n\n"
         "Paris is also the largest city in France, with about 2.1 million residents.\n")
    case(g, "empty", "An empty output gives no events")
    case(g, "whitespace-only", "Only spaces, tabs and blank lines", "  \n\n\t\n   \n")
    case(g, "comparisons", "Less-than signs in prose and formulas are text",
         "If a < b and b < c, then a < c. In code: `x<y`, but also x<y and 1<2 in plain text.\n"
         "The price went from <$5 to >$10; a<b<c.\n")
    case(g, "html-tags", "Ordinary HTML tags are text",
         '<div class="note">Remember to <b>save</b> your work.</div>\n<br/>\n<img src="a.png" alt="A">\n')
    case(g, "generics", "Generic types with angle brackets",
         "Use `List<String>` or, without code formatting, List<String>, Map<K, V> and "
         "Vec<Option<T>>.\nIn C++: std::vector<std::pair<int, int>> v;\n")
    case(g, "arrows-and-operators", "Arrows, shifts and comparison operators",
         "x <- 5 in R; a <= b; a <=> b; 1 << 3; <-> and <--> arrows; << and <<< runs.\n")
    case(g, "near-miss-tag-names", "Names that only start like a tag name are text (SPEC 3)",
         "Open the <toolbox>, not <tool_call> or <tool_calls_x> or <tool_callsx>; "
         "the <invoked> and <invoker> elements; <parameters> and <parameter_list>; "
         "<tool_calls-extra> too.\n")
    case(g, "closing-tags-alone", "Closing tags without an opening one are text",
         "The block ends with </tool_calls>, each call with </invoke>, each value with "
         "</parameter>.\n")
    case(g, "bare-mention", "A wrapper mentioned in prose fails at the next word, its text marked "
         "failed; an invoke tag then starts a call that breaks, and its span runs to the end "
         "(SPEC 3.2)",
         "Use ", Failed("<tool_calls> "), "to wrap your calls and ",
         Failed('<invoke name="f"> for each one; I will not call anything now.\n', at="for"))
    case(g, "self-closing-wrapper", "A self-closing wrapper is no tag; an empty wrapper fails "
         "at its close",
         "An empty block would be <tool_calls/> or ", Failed("<tool_calls>"),
         "</tool_calls>, which mean nothing.\n")
    case(g, "words-without-brackets", "Tag names as plain words",
         "The tool_calls wrapper holds invoke elements, each with parameter children. "
         "DSML is DeepSeek's markup language.\n")
    case(g, "markdown-document", "Headings, lists, a table, emphasis and links, no calls",
         "# Release notes\n\n## Added\n\n- *Streaming* output\n- **Faster** start-up\n\n"
         "| Version | Date |\n|---|---|\n| 1.2 | 2024-05-01 |\n\n"
         "See [the changelog](https://example.com/changelog) for details.\n\n---\n\n"
         "> Quoted text, with a footnote.[^1]\n\n[^1]: A footnote.\n")
    case(g, "autolinks", "Autolinks and e-mail links in angle brackets",
         "Write to <support@example.com> or visit <https://example.com/docs?a=1&b=2>.\n")
    case(g, "long-line", "One long line without a newline",
         ("lorem ipsum dolor sit amet " * 80).strip())
    case(g, "lt-at-the-end", "A lone `<` or `</` at the very end is text when the stream closes",
         "The last character is a less-than sign: <")
    case(g, "partial-tag-at-the-end", "A tag cut off by the end of the stream is text",
         "And the answer is <tool_ca")
    case(g, "cjk-prose", "Chinese prose without calls",
         "巴黎是法国的首都，也是法国最大的城市。\n\n它位于塞纳河畔，人口约为两百一十万。\n")


# ---- canonical calls -----------------------------------------------------------------------

def canonical() -> None:
    g = "canonical"
    case(g, "one-parameter", "One call with one CDATA parameter",
         "Let me read the file.\n\n", block(Call("read_file", (cdata("path", "README.md"),))), "\n")
    case(g, "two-parameters", "A string and a number", block(READ_REAL), "\n")
    case(g, "self-closing-invoke", "A self-closing invoke is a call with {}",
         "Listing the tools.\n", block(Call("list_tools", self_closing=True)))
    case(g, "empty-invoke-body", "An invoke with an empty body is a call with {}",
         block(Call("ping")), "\n")
    case(g, "json-body", "A JSON object as the invoke body is the arguments",
         block(Call("create_issue", json_body='{"title": "Crash on start", "labels": ["bug", "p1"], "assignee": null}',
                    json_value={"title": "Crash on start", "labels": ["bug", "p1"], "assignee": None})),
         "\n")
    case(g, "single-quoted-attributes", "Attributes in single quotes",
         Block("<tool_calls><invoke name='search'><parameter name='q'>cats</parameter></invoke></tool_calls>",
               (Call("search", (text("q", "cats"),)),)), "\n")
    case(g, "attribute-whitespace", "Whitespace around `=` and before `>`",
         Block('<tool_calls ><invoke  name = "search" ><parameter name= "q" >dogs</parameter ></invoke ></tool_calls >',
               (Call("search", (text("q", "dogs"),)),)))
    case(g, "unknown-attributes", "Unknown attributes are ignored on every tag",
         Block('<tool_calls id="call_1" version="2">\n  <invoke name="search" id="7">\n'
               '    <parameter name="q" type="string">birds</parameter>\n  </invoke>\n</tool_calls>',
               (Call("search", (text("q", "birds"),)),)), "\n")
    case(g, "comments-between-tags", "XML comments between tags are ignored",
         Block('<tool_calls>\n  <!-- first call -->\n  <invoke name="search"><!-- query follows -->\n'
               '    <parameter name="q">fish</parameter>\n  <!----></invoke>\n<!-- done --></tool_calls>',
               (Call("search", (text("q", "fish"),)),)), "\n")
    case(g, "block-only", "The whole output is one block, no newline at the end", block(SEARCH))
    case(g, "block-mid-line", "A compact block in the middle of a line",
         "Calling it now: ", block(WEATHER, compact=True), " and then I will report back.\n")
    case(g, "tab-indentation", "Tags indented with tabs",
         Block('<tool_calls>\n\t<invoke name="get_weather">\n\t\t<parameter name="city">Oslo</parameter>\n'
               '\t</invoke>\n</tool_calls>', (Call("get_weather", (text("city", "Oslo"),)),)), "\n")
    case(g, "entity-in-tool-name", "Attribute values are entity-decoded (SPEC 3.1)",
         Block('<tool_calls><invoke name="get&amp;set"><parameter name="key">a</parameter></invoke></tool_calls>',
               (Call("get&set", (text("key", "a"),)),)))
    case(g, "tool-name-trimmed", "Attribute values are trimmed",
         Block('<tool_calls><invoke name="  read_file "><parameter name=" path ">a.md</parameter>'
               "</invoke></tool_calls>",
               (Call("read_file", (text("path", "a.md"),)),)))
    case(g, "gt-in-quoted-attribute", "A `>` inside quotes does not end the tag",
         Block('<tool_calls><invoke name="compare" note="a>b"><parameter name="op" hint=\'x > y\'>gt</parameter>'
               '</invoke></tool_calls>', (Call("compare", (text("op", "gt"),)),)))
    case(g, "text-after-block", "Prose after the block is text",
         "I'll look that up.\n\n", block(SEARCH), "\n\nI'll summarise the results once they arrive.\n")
    case(g, "unknown-tool-name", "An unknown tool name is parsed (policy is section 6's)",
         block(Call("definitely_not_a_tool", (text("x", "y"),))), "\n")


# ---- DSML ----------------------------------------------------------------------------------

def dsml_cases() -> None:
    g = "dsml"
    for bar, bar_name in (("｜", "fullwidth"), ("|", "ascii")):
        for alias in ("tool_calls", "tool-calls", "toolcalls", "function_calls", "calls"):
            case(g, f"wrapper-{alias}-{bar_name}",
                 f"DSML wrapper alias {alias} with {bar_name} bars",
                 "Fetching the weather.\n\n", block(WEATHER, spelling=dsml(bar, alias)), "\n")
    prefixes = [
        ("DSML｜", "dsml-then-bar"), ("DSML", "dsml-no-bars"), ("dsml|", "lowercase-dsml"),
        ("DsMl|", "mixed-case-dsml"), ("｜｜DSML｜｜", "double-bars"), ("｜DSML｜_", "underscore-after"),
        ("｜｜DSML｜｜ ", "space-after"), ("｜", "one-bar-only"), ("｜｜", "two-bars-only"),
        ("dsml_", "dsml-underscore"), ("||DSML|| ", "ascii-double-bars-space"), ("|", "one-ascii-bar"),
        ("|｜DSML｜|", "mixed-bars"),
    ]
    for prefix, slug in prefixes:
        spelling = Spelling(prefix + "tool_calls", prefix + "tool_calls", prefix + "invoke", prefix + "parameter")
        case(g, f"prefix-{slug}", f"DSML prefix {prefix!r} on every tag (SPEC 3)",
             block(SHELL, spelling=spelling), "\n")
    case(g, "bar-prefix-alias", "A bar-only prefix allows the wrapper aliases too",
         block(SEARCH, spelling=Spelling("｜function_calls", "｜function_calls", "｜invoke", "｜parameter")))
    case(g, "mixed-prefixes", "Opening and closing tags may differ in prefix",
         Block('<｜DSML｜tool_calls>\n<|DSML|invoke name="get_weather">\n'
               '<dsml_parameter name="city">Lima</｜parameter>\n</DSMLinvoke>\n</tool_calls>',
               (Call("get_weather", (text("city", "Lima"),)),)), "\n")
    case(g, "mixed-aliases", "Opening and closing wrappers may use different aliases",
         Block('<｜DSML｜function_calls><｜DSML｜invoke name="ping"/></|DSML|tool-calls>', (Call("ping"),)))
    case(g, "deepseek-v3-style", "The DSML layout DeepSeek models write, with string attributes",
         "I'll run the tests.\n\n",
         Block('<｜DSML｜function_calls>\n<｜DSML｜invoke name="run_shell">\n'
               '<｜DSML｜parameter name="command" string="true">pytest -q tests/</｜DSML｜parameter>\n'
               '<｜DSML｜parameter name="timeout" string="false">120</｜DSML｜parameter>\n'
               '</｜DSML｜invoke>\n</｜DSML｜function_calls>',
               (Call("run_shell", (Param("command", "pytest -q tests/", "pytest -q tests/", ' string="true"'),
                                   Param("timeout", "120", 120, ' string="false"'))),)))
    for alias in ("function_calls", "calls", "toolcalls"):
        case(g, f"alias-{alias.replace('_', '-')}-needs-prefix",
             f"The wrapper alias {alias} without a prefix is no wrapper: the invoke starts a "
             "call that breaks at the close, and its span runs to the end (SPEC 3, 3.2)",
             f"<{alias}>", Failed(f'<invoke name="ping"/></{alias}>\n', at=f"</{alias}>"))
    case(g, "bad-prefix-hyphen", "`DSML-` is not a prefix: the wrapper fails there, the rest is text",
         Failed("<tool_calls>"), '<DSML-invoke name="ping"/></tool_calls>\n')
    case(g, "bad-prefix-three-bars", "Three bars are not a prefix",
         '<｜｜｜tool_calls><｜｜｜invoke name="ping"/></｜｜｜tool_calls>\n')
    case(g, "bad-prefix-two-spaces", "Only one space may follow a prefix",
         '<｜DSML｜  tool_calls><｜DSML｜  invoke name="ping"/></｜DSML｜  tool_calls>\n')
    case(g, "tag-names-are-case-sensitive", "Tag names are case-sensitive",
         '<TOOL_CALLS><Invoke name="ping"/></TOOL_CALLS> and <｜DSML｜Tool_Calls>\n')


# ---- several calls and blocks --------------------------------------------------------------

def multiple() -> None:
    g = "multiple"
    case(g, "two-invokes", "Two calls in one block", block(READ_REAL, SEARCH), "\n")
    case(g, "three-invokes", "Three calls of different tools",
         "I'll gather everything at once.\n\n", block(WEATHER, SEARCH, SHELL), "\n")
    case(g, "two-blocks-with-prose", "Two blocks separated by prose are independent",
         "First the weather:\n\n", block(WEATHER), "\n\nThen the news:\n\n", block(SEARCH), "\n")
    case(g, "back-to-back", "Two blocks with nothing between them",
         block(WEATHER, compact=True), block(SEARCH, compact=True))
    case(g, "newline-between", "Two blocks separated by one newline",
         block(WEATHER), "\n", block(SHELL), "\n")
    case(g, "good-bad-good", "A failed block between two good ones: its text is marked failed",
         block(WEATHER), "\n\n", Failed("<tool_calls>\n"),
         "I changed my mind about this one.\n</tool_calls>\n\n", block(SEARCH), "\n")
    steps = [Call("run_shell", (cdata("command", f"step {i}"),)) for i in range(1, 6)]
    case(g, "five-blocks", "Five blocks, one per step",
         *[part for i, c in enumerate(steps, 1) for part in (f"Step {i}:\n", block(c), "\n\n")])
    case(g, "same-tool-twice", "The same tool called twice in one block",
         block(Call("read_file", (cdata("path", "a.py"),)), Call("read_file", (cdata("path", "b.py"),))), "\n")
    case(g, "comments-between-invokes", "Comments between invokes",
         Block('<tool_calls><invoke name="a"/><!-- and --><invoke name="b"/><!-- end --></tool_calls>',
               (Call("a", self_closing=True), Call("b", self_closing=True))))
    case(g, "canonical-then-dsml", "A canonical block, then a DSML one",
         block(WEATHER), "\n\n", block(SEARCH, spelling=DSML_FULL), "\n")
    case(g, "block-then-missing-wrapper", "A block, then invokes closed by a wrapper close alone",
         block(WEATHER), "\n\nOne more:\n", block(SEARCH, missing_wrapper=True), "\n")
    case(g, "blank-lines-between-invokes", "Blank lines between invokes are whitespace",
         Block('<tool_calls>\n\n<invoke name="a"/>\n\n\n<invoke name="b"/>\n\n</tool_calls>',
               (Call("a", self_closing=True), Call("b", self_closing=True))), "\n")


# ---- missing opening wrapper ---------------------------------------------------------------

def missing_wrapper() -> None:
    g = "missing-wrapper"
    case(g, "one-invoke", "An invoke followed by a wrapper close is a block (SPEC 3)",
         "Sure.\n", block(READ_REAL, missing_wrapper=True), "\nDone.\n")
    case(g, "two-invokes", "Two invokes and a wrapper close",
         block(WEATHER, SEARCH, missing_wrapper=True), "\n")
    case(g, "dsml", "DSML invokes closed by a DSML wrapper close",
         "好的。\n", block(SHELL, spelling=DSML_FULL, missing_wrapper=True), "\n")
    case(g, "dsml-alias-close", "A wrapper close in an alias spelling ends the block",
         Block('<｜DSML｜invoke name="ping"/>\n</｜DSML｜function_calls>', (Call("ping", self_closing=True),)))
    case(g, "prose-between", "Prose between an invoke and the close: the calls broke, the span "
         "runs to the close (SPEC 3.2)",
         Failed('<invoke name="ping"/> and then </tool_calls>', at="and"), "\n")
    case(g, "no-close", "Invokes with no following wrapper close: the calls broke at the prose, "
         "the span runs to the end (SPEC 3.2)",
         Failed('<invoke name="a"><parameter name="p">1</parameter></invoke>\n<invoke name="b"/>\nDone.\n',
                at="Done"))
    case(g, "after-prose-in-wrapper", "A wrapper failing at prose; the invoke and close after it form a block",
         Failed("<tool_calls>"), "here is the call: ", PING_ORPHAN, "\n")
    case(g, "compact-mid-line", "A compact orphan block after text on the same line",
         "Calling: ", block(WEATHER, compact=True, missing_wrapper=True), " ok\n")
    case(g, "comment-before-close", "A comment between the invoke and the close",
         Block('<invoke name="ping"/>\n<!-- that is all -->\n</tool_calls>', (Call("ping", self_closing=True),)), "\n")
    case(g, "close-alone", "A wrapper close alone is text", "Nothing to call.\n</tool_calls>\n")
    case(g, "invoke-open-not-closed", "An unclosed invoke then a wrapper close: a failed span "
         "that the close ends (SPEC 3.2)",
         Failed('<invoke name="a"><parameter name="p">1</parameter>\n</tool_calls>', at="</tool_calls>"),
         "\n")


# ---- fenced code ---------------------------------------------------------------------------

def fences() -> None:
    g = "fences"
    ex = ex_block()
    real = block(READ_REAL)

    def shape(name: str, description: str, fenced: str, *, after: str = "\n\nNow the real call:\n\n") -> None:
        case(g, name, description, "Here is the format:\n\n", Code(fenced), after, real, "\n")

    shape("backticks-xml", "An example in a ```xml fence is text; the real call after it is a call",
          f"```xml\n{ex}\n```")
    shape("backticks-no-info", "A ``` fence without an info string", f"```\n{ex}\n```")
    shape("tildes", "A ~~~ fence", f"~~~\n{ex}\n~~~")
    shape("tildes-xml", "A ~~~xml fence", f"~~~xml\n{ex}\n~~~")
    shape("four-backticks", "A ```` fence", f"````xml\n{ex}\n````")
    shape("nested-backticks", "A ````` fence holding a ``` fence",
          f"`````markdown\nThe model writes:\n\n```xml\n{ex}\n```\n`````")
    shape("tildes-around-backticks", "A ~~~ fence holding a ``` fence", f"~~~markdown\n```xml\n{ex}\n```\n~~~")
    shape("backticks-around-tildes", "A ``` fence holding ~~~ lines", f"```\n~~~\n{ex}\n~~~\n```")
    for spaces in (1, 2, 3):
        pad = " " * spaces
        shape(f"indented-{spaces}", f"A fence indented by {spaces} space(s)",
              f"{pad}```xml\n{indent(ex, pad)}\n{pad}```")
    shape("indented-code-block", "Four spaces after a blank line: an indented code block", indent(ex, "    "))
    shape("tab-indented-code-block", "A tab after a blank line: an indented code block", indent(ex, "\t"))
    shape("longer-closing-fence", "A longer closing run closes the fence", f"```xml\n{ex}\n`````")
    shape("closing-fence-trailing-spaces", "Spaces after the closing run", f"```xml\n{ex}\n```   ")
    shape("shorter-run-does-not-close", "A shorter run inside a ```` fence is content",
          f"````\n{ex}\n```\n\nNow the real call:\n\n{ex}\n````")
    shape("closing-with-info-does-not-close", "A run with text after it does not close a fence",
          f"```xml\n{ex}\n``` xml\n{ex}\n```")
    shape("tilde-does-not-close-backticks", "A ~~~ line does not close a ``` fence",
          f"```\n{ex}\n~~~\n{ex}\n```")
    shape("not-at-line-start-does-not-close", "A run after text on the line does not close a fence",
          f"```xml\n{ex}\nthat was it ```\n```")
    case(g, "interrupts-paragraph", "A fence may interrupt a paragraph",
         "Here is the format:\n", Code(f"```xml\n{ex}\n```"), "\nAnd the real call:\n\n", real, "\n")
    case(g, "unclosed-at-end", "An unclosed fence runs to the end of the stream",
         "Here is the format:\n\n", Code(f"```xml\n{ex}\n"))
    case(g, "unclosed-swallows-later-block", "A block after an unclosed fence is still in code",
         "Example:\n\n", Code(f"```xml\n{ex}\n\nAnd for real:\n\n{ex}\n"))
    case(g, "in-list-item", "A fence inside a list item",
         "1. Write the wrapper:\n\n", Code(f"   ```xml\n{indent(ex, '   ')}\n   ```"),
         "\n\n2. Then send it.\n\n", real, "\n")
    case(g, "in-block-quote", "A fence inside a block quote",
         "> The format:\n>\n", Code(f"> ```xml\n{indent(ex, '> ')}\n> ```"), "\n\n", real, "\n")
    case(g, "backtick-in-info-is-not-a-fence",
         "A backtick in the info string: no fence, so the example is a call; the bare ``` "
         "line after it opens a fence that holds the rest",
         "Here is the format:\n\n``` a`b\n", block(READ_EXAMPLE),
         Code(f"\n```\n\nNow the real call:\n\n{real.raw}\n"))
    shape("tilde-info-may-hold-backticks", "A ~~~ fence's info string may contain backticks",
          f"~~~ a`b\n{ex}\n~~~")
    shape("blank-lines-inside", "Blank lines inside a fence", f"```xml\n\n{ex}\n\n\n```")
    case(g, "two-fences", "Two examples in two fences, then the real call",
         "Canonical:\n\n", Code(f"```xml\n{ex}\n```"), "\n\nDSML:\n\n",
         Code(f"```xml\n{ex_block(DSML_FULL)}\n```"), "\n\nNow:\n\n", real, "\n")
    case(g, "dsml-example-and-call", "A DSML example in a fence, then a DSML call",
         "格式如下：\n\n", Code(f"```xml\n{ex_block(DSML_FULL)}\n```"), "\n\n现在调用：\n\n",
         block(READ_REAL, spelling=DSML_FULL), "\n")
    case(g, "call-before-fence", "The real call first, then an example in a fence",
         real, "\n\nFor reference, the format is:\n\n", Code(f"```xml\n{ex}\n```"), "\n")
    case(g, "call-between-fences", "A real call between two fenced examples",
         Code(f"```xml\n{ex}\n```"), "\n\n", real, "\n\n", Code(f"~~~\n{ex}\n~~~"), "\n")
    case(g, "crlf", "A fence with CRLF line endings",
         *crlf("Here is the format:\n\n", Code(f"```xml\n{ex}\n```"), "\n\nNow the real call:\n\n"),
         block(READ_REAL, nl="\r\n"), "\r\n")
    case(g, "html-comment-is-not-code", "An HTML comment is not code: a block inside it is a call (SPEC 3)",
         "<!--\n", real, "\n-->\n")


# ---- inline code ---------------------------------------------------------------------------

def inline_code() -> None:
    g = "inline-code"
    real = block(READ_REAL)
    compact_ex = block(READ_EXAMPLE, compact=True).raw
    case(g, "tag-names", "Tag names in code spans are text; the real call after them is a call",
         "Wrap calls in ", Code("`<tool_calls>`"), " and put each one in ",
         Code('`<invoke name="...">`'), ".\n\n", real, "\n")
    case(g, "whole-block", "A whole block in a code span is text",
         "The shortest form is ", Code(f"`{compact_ex}`"), ".\n\n", real, "\n")
    case(g, "double-backticks", "Double-backtick spans",
         "The tags are ", Code("``<tool_calls>``"), " and ", Code('``<invoke name="f"/>``'), ".\n\n", real, "\n")
    case(g, "span-across-lines", "A code span may run over lines of one paragraph",
         "For example ", Code('`<tool_calls>\n<invoke name="x"/>\n</tool_calls>`'), " is one call.\n\n", real, "\n")
    case(g, "missing-wrapper-shape", "An invoke and a close, each in code: text",
         Code('`<invoke name="ping"/>`'), " followed by ", Code("`</tool_calls>`"), " makes a call.\n\n", real, "\n")
    case(g, "table-cells", "Code spans in table cells",
         "| Tag | Meaning |\n|---|---|\n| ", Code("`<tool_calls>`"), " | the wrapper |\n| ",
         Code('`<invoke name="f">`'), " | one call |\n\n", real, "\n")
    case(g, "list-items", "Code spans in list items",
         "- ", Code("`<tool_calls>` wraps"), "\n- ", Code("`<invoke>` calls"), "\n\n", real, "\n")
    case(g, "heading", "A code span in a heading", "## The ", Code("`<tool_calls>`"), " tag\n\n", real, "\n")
    case(g, "triple-backticks-mid-line", "``` in the middle of a line opens a code span, not a fence",
         "Use ", Code(f"```{compact_ex}```"), " inline.\n\n", real, "\n")
    case(g, "block-quote", "A code span in a block quote",
         "> Write ", Code("`<tool_calls>`"), " first.\n\n", real, "\n")
    case(g, "then-call-same-paragraph", "A closed span, then a real call in the same paragraph",
         "Wrap with ", Code("`<tool_calls>`"), ": ", block(READ_REAL, compact=True), "\n")
    case(g, "in-link-text", "A code span inside link text",
         "[", Code("`<tool_calls>`"), "](https://example.com/spec) explains it.\n\n", real, "\n")
    case(g, "cjk", "Code spans in Chinese prose",
         "用 ", Code("`<tool_calls>`"), " 包裹调用，每个调用用 ", Code('`<invoke name="工具">`'), "。\n\n", real, "\n")
    case(g, "dsml-in-span", "DSML tags in code spans",
         "DeepSeek writes ", Code("`<｜DSML｜function_calls>`"), " and ", Code("`<｜DSML｜invoke name=\"f\">`"),
         ".\n\n", block(READ_REAL, spelling=DSML_FULL), "\n")


def stray_backticks() -> None:
    g = "stray-backticks"
    compact = block(READ_REAL, compact=True)
    case(g, "unmatched-run-then-call", "An unmatched backtick before a call at the end: the call counts (SPEC 4.3)",
         "Press the ` key, then: ", compact)
    case(g, "unmatched-run-in-earlier-paragraph", "A stray backtick in an earlier paragraph",
         "The ` key is next to 1.\n\n", block(READ_REAL), "\n")
    case(g, "run-matched-after-block", "A backtick run matched after the block: the block was code (SPEC 4.3)",
         "See ", Code(f"` {compact.raw} `"), " for the format.\n\n", block(SEARCH), "\n")
    case(g, "escaped-backtick", "An escaped backtick opens no span",
         "Type \\` then: ", compact, " and a lone ` later.\n")
    case(g, "length-mismatch", "A run of two is not closed by a run of one",
         "Use `` then ", compact, " and ` here.\n")
    case(g, "backtick-in-value", "Backticks inside a block do not close an earlier run (SPEC G3a)",
         "The ` is a quote; now: ",
         block(Call("run_shell", (cdata("command", "echo `date` `"),))), " done.\n")
    case(g, "single-backtick-in-value", "A lone backtick inside a block closes nothing (SPEC G3a)",
         "Run `git log` first. A stray ` and then ",
         block(Call("run_shell", (text("command", "echo a`b"),))), " end.\n")
    case(g, "storm-then-call", "A storm of unmatched runs, then a call in a new paragraph",
         "```` `` ` ``` ````` ` `` ```\n\n", block(READ_REAL), "\n")
    case(g, "unmatched-then-heading", "A heading ends the paragraph of an unmatched run",
         "A stray ` here\n# Heading\n", compact, "\n")
    case(g, "unmatched-then-more-paragraphs", "An unmatched run; later code spans are in other paragraphs",
         "Note: ` is literal. ", compact, " And more text.\n\nNew paragraph with `code`.\n")
    case(g, "matched-lines-later", "A run matched two lines later in the same paragraph: code",
         Code(f"Start ` \n{compact.raw}\nmore text\nend ` here."), "\n\n", block(SEARCH), "\n")


