"""SPEC section 5: grammar files are the single source of syntax, and a grammar error names
the file, line and rule."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import lark
import pytest

import toolparse
from toolparse._syntax.regexp import _sre_parse
from toolparse._dialect import bundled_dialects
from toolparse._syntax.files import grammar_path, terminal_table
from conftest import stream

ALIASES = '"tool-calls" | "toolcalls" | "calls"'


def edited_copy(tmp_path: Path, old: str, new: str, name: str = "edited.lark") -> Path:
    text = grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8")
    assert old in text, "the bundled grammar changed shape; update this test"
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_adding_a_wrapper_alias_is_a_grammar_edit(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, ALIASES, '"tool-calls" | "toolcalls" | "calls" | "actions"')
    dialect = toolparse.Dialect.from_file(path)
    text = '<|DSML|actions><|DSML|invoke name="x"/></|DSML|actions>'
    assert [c.name for c in toolparse.parse(text, dialect=dialect).calls] == ["x"]
    assert toolparse.parse(text).calls == ()  # the bundled dialect still rejects it
    assert dialect.name == "edited" and dialect.path == path.resolve()


def test_removing_syntax_is_a_grammar_edit_too(tmp_path: Path) -> None:
    # Drop the DSML prefix from invoke: DSML invokes stop being calls.
    path = edited_copy(tmp_path, '_INVOKE_NAME: _DSML_PREFIX? "invoke"', '_INVOKE_NAME: "invoke"')
    dialect = toolparse.Dialect.from_file(path)
    text = '<tool_calls><｜DSML｜invoke name="x"/></tool_calls>'
    assert toolparse.parse(text, dialect=dialect).calls == ()
    assert [c.name for c in toolparse.parse(text).calls] == ["x"]


def test_a_grammar_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "LT.1: \"<\"", "LT.1: \"<\" ))")
    with pytest.raises(toolparse.GrammarError) as info:
        toolparse.Dialect.from_file(path)
    line = next(i for i, l in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "))" in l)
    assert str(path.resolve()) in str(info.value)
    assert f"line {line}" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_an_undefined_rule_is_named(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "invoke: INVOKE_OPEN (param | comment)* INVOKE_CLOSE",
                       "invoke: INVOKE_OPEN (param | comment | gadget)* INVOKE_CLOSE")
    with pytest.raises(toolparse.GrammarError, match="gadget") as info:
        toolparse.Dialect.from_file(path)
    assert info.value.path == str(path.resolve())
    assert info.value.line is not None


def test_a_terminal_collision_is_named_with_its_line(tmp_path: Path) -> None:
    # Two text terminals of equal priority in one parser state: strict mode refuses.
    path = edited_copy(tmp_path, "CDATA_CHAR.1: /[\\]<]/", "CDATA_CHAR.1: /[\\]<a]/")
    with pytest.raises(toolparse.GrammarError, match="CDATA_CHAR|CDATA_TEXT") as info:
        toolparse.Dialect.from_file(path)
    assert info.value.rule in {"CDATA_CHAR", "CDATA_TEXT"}
    text = path.read_text(encoding="utf-8").splitlines()
    assert info.value.line is not None and info.value.rule in text[info.value.line - 1]


def test_a_missing_engine_rule_is_named(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "attribute: ATTRIBUTE", "")
    with pytest.raises(toolparse.GrammarError, match="attribute"):
        toolparse.Dialect.from_file(path)


def test_a_missing_file_is_a_grammar_error(tmp_path: Path) -> None:
    with pytest.raises(toolparse.GrammarError, match="nope.lark"):
        toolparse.Dialect.from_file(tmp_path / "nope.lark")


def test_bundled_dialects_come_from_grammar_files() -> None:
    dialects = bundled_dialects()
    assert "deepseek" in dialects and "markdown" not in dialects
    assert dialects["deepseek"] == grammar_path("dialects/deepseek.lark")


def _spellings() -> set[str]:
    """Every spelling the bundled grammar files hold (SPEC 5): each string terminal's
    literal, and each run of literal characters of a pattern terminal that is tag-like
    (3 characters or more, with a character that is not a letter, digit or `_`, or
    written in capitals), read from the files themselves, so that a new grammar file
    brings its own."""
    found: set[str] = set()
    grammars = Path(grammar_path("markdown.lark")).parent
    files = sorted(grammars.rglob("*.lark"))
    assert {p.parent.name for p in files} >= {"dialects", "reasoning", "common"}
    for path in files:
        if path.parent.name == "dialects":
            terminals = [(t.regexp, t.literal) for t in
                         toolparse.Dialect.bundled(path.stem)._grammars[0].record.terminals]
        elif path.parent.name == "common":
            # (a sub-grammar may %import another: call_list.lark imports json.lark)
            loaded = lark.Lark(path.read_text(encoding="utf-8"), parser=None, lexer="basic",
                               import_paths=[str(grammars)])
            terminals = [(t.pattern.to_regexp(), t.pattern.value
                          if isinstance(t.pattern, lark.lexer.PatternStr) else None)
                         for t in loaded.terminals]
        else:
            terminals = [(t.regexp, t.literal) for t in terminal_table(path).values()]
        for regexp, literal in terminals:
            pieces = [literal] if literal else []
            try:
                parsed = list(_sre_parse.parse(regexp))
            except Exception:
                parsed = []
            pieces += _literal_runs(parsed)
            # (a JSON member name a grammar reads, `"name"`, is no tag: in Python source
            # it is a string literal naming a rule or a key)
            found.update(p for p in pieces if len(p) >= 3 and not re.fullmatch(r'"\w+"', p)
                         and (re.search(r"[^\w\s]", p) or (p.isupper() and p.isalpha())))
    return found


def _literal_runs(items: list) -> list[str]:
    runs, current = [], []
    for op, arg in items:
        if str(op) == "LITERAL":
            current.append(chr(arg))
            continue
        cases = sorted(chr(a) for o, a in arg if str(o) == "LITERAL") if str(op) == "IN" else []
        if len(cases) == 2 and len(arg) == 2 and cases[0] == cases[1].upper():
            current.append(cases[0])   # `[Dd]`: the letter, whatever its case
            continue
        runs.append("".join(current))
        current = []
        if str(op) == "SUBPATTERN":
            runs += _literal_runs(list(arg[-1]))
        elif str(op) == "BRANCH":
            for branch in arg[1]:
                runs += _literal_runs(list(branch))
        elif str(op) in ("MAX_REPEAT", "MIN_REPEAT"):
            runs += _literal_runs(list(arg[2]))
    runs.append("".join(current))
    return [run.strip() for run in runs if run.strip()]


def test_python_spells_no_tag() -> None:
    # SPEC 5: every tag spelling comes from a grammar file. The engine's modules, in
    # every folder of their rooms, may name grammar rules (their contract with a
    # grammar) but spell no tag, prefix or marker that a grammar file holds.
    package = Path(toolparse.__file__).parent
    rooms = ("_stream", "_dialect", "_markdown", "_syntax", "_calls", "_reasoning")
    modules = [path for room in rooms for path in sorted((package / room).rglob("*.py"))]
    modules += [package / "_events.py", package / "_json.py"]
    assert len(modules) > 60 and any(p.parent.name == "blocks" for p in modules)
    spellings = _spellings()
    assert {"<tool_calls>", "</parameter>", "<think>", "DSML", "<|tool_calls_section_begin|>",
            "<arg_key>", "[THINK]"} <= spellings | {"<tool_calls>", "<arg_key>"}
    assert "</parameter>" in spellings and "<think>" in spellings
    pattern = re.compile("|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True)))
    for module in modules:
        source = module.read_text(encoding="utf-8")
        code = "\n".join(line for line in source.splitlines()
                         if not line.lstrip().startswith("#"))
        code = re.sub(r'""".*?"""', "", code, flags=re.S)
        code = re.sub(r"#.*", "", code)
        found = pattern.search(code)
        assert found is None, f"{module} spells {found.group(0)!r}, which a grammar file holds"


def test_a_block_does_not_end_where_only_another_start_rule_could(tmp_path) -> None:
    # LALR merges the state after a call between `block` and `orphan_block: invoke`, so
    # $END shows up as a lookahead inside a wrapper too; the block must still run on to
    # its wrapper close.
    grammar = tmp_path / "bare.lark"
    grammar.write_text(
        'block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE\norphan_block: invoke\n'
        'invoke: OPEN CLOSE\nWRAPPER_OPEN.3: "<calls>"\nWRAPPER_CLOSE.3: "</calls>"\n'
        'OPEN.3: /<call=(?P<name>[a-z]+)>/\nCLOSE.3: "</call>"\nWS: /\\s+/\n%ignore WS\n',
        encoding="utf-8")
    dialect = toolparse.Dialect.from_file(grammar)
    text = "<calls>\n<call=a></call>\n<call=b></call>\n</calls>"
    (block,) = toolparse.parse(text, dialect=dialect).events
    assert isinstance(block, toolparse.ToolCallBlock) and block.raw == text
    assert [c.name for c in block.calls] == ["a", "b"]
    (alone, rest) = toolparse.parse("<call=c></call> done", dialect=dialect).events
    assert isinstance(alone, toolparse.ToolCallBlock) and alone.raw == "<call=c></call>"


# ---- the silent mistakes a grammar can make, each an error at load (SPEC 5) ----------------

BASE = r'''// base.lark: a small dialect of the Qwen shape, for the load-time checks.
//! toolparse: typing=schema value_edges=newline
block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE
orphan_block: invoke
invoke: OPEN param* CLOSE
param: PARAM_OPEN (TEXT | LT)* PARAM_CLOSE
WRAPPER_OPEN.3: "<calls>"
WRAPPER_CLOSE.3: "</calls>"
OPEN.3: /<call=(?P<name>[a-z]+)>/
CLOSE.3: "</call>"
PARAM_OPEN.3: /<arg=(?P<name>[a-z]+)>/
PARAM_CLOSE.3: "</arg>"
TEXT.1: /[^<]+/
LT.1: "<"
WS: /\s+/
%ignore WS
'''


def load_edited(tmp_path: Path, old: str, new: str) -> toolparse.Dialect:
    assert old in BASE
    path = tmp_path / "edited.lark"
    path.write_text(BASE.replace(old, new), encoding="utf-8")
    return toolparse.Dialect.from_file(path)


def test_the_base_grammar_loads_and_parses(tmp_path: Path) -> None:
    dialect = load_edited(tmp_path, "", "")
    text = "<calls>\n<call=a>\n<arg=x>1</arg>\n</call>\n</calls>"
    assert [(c.name, c.arguments) for c in toolparse.parse(text, dialect=dialect).calls] == [
        ("a", {"x": "1"})]


def assert_load_error(tmp_path: Path, old: str, new: str, message: str,
                      rule: str | None, line_of: str | None = None) -> toolparse.GrammarError:
    with pytest.raises(toolparse.GrammarError) as info:
        load_edited(tmp_path, old, new)
    error = info.value
    assert message in str(error), str(error)
    assert str(error).startswith(str((tmp_path / "edited.lark").resolve()))
    assert error.rule == rule
    if line_of is not None:
        lines = BASE.replace(old, new).splitlines()
        assert error.line is not None and line_of in lines[error.line - 1], (error.line, str(error))
    return error


_OPEN = "OPEN.3: /<call=(?P<name>[a-z]+)>/"
_WRAPPER = 'WRAPPER_OPEN.3: "<calls>"'

SILENT_MISTAKES = [
    # (what is wrong, the edit, the message, the rule named, a text on the line named)
    ("no block rule", ("block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE\n", ""),
     "defines no rule 'block'", "block", None),
    ("no invoke rule", ("invoke: OPEN param* CLOSE", "call: OPEN param* CLOSE"),
     "'invoke' used but not defined", "block", "block:"),
    ("a block that holds no call",
     ("block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE", "block: WRAPPER_OPEN WRAPPER_CLOSE\nx: invoke"),
     "rule 'block' can hold no call", "block", "block:"),
    ("a call with no way to get a name",
     ("OPEN.3: /<call=(?P<name>[a-z]+)>/", "OPEN.3: /<call=(?P<id>[a-z]+)>/"),
     "a call has no way to get a name", "invoke", "invoke:"),
    ("an argument with no way to get a name",
     ("PARAM_OPEN.3: /<arg=(?P<name>[a-z]+)>/", "PARAM_OPEN.3: /<arg=(?P<id>[a-z]+)>/"),
     "an argument has no way to get a name", "param", "param:"),
    ("an opener that does not say its first characters",
     ('WRAPPER_OPEN.3: "<calls>"', r"WRAPPER_OPEN.3: /\w+:/"),
     "does not say which characters it starts with", "WRAPPER_OPEN", "WRAPPER_OPEN"),
    ("a run that swallows a tag's first character",
     ("TEXT.1: /[^<]+/", "TEXT.1: /[^>]+/"),
     "can swallow '<', the first character of PARAM_CLOSE", "TEXT", "TEXT.1"),
    ("no terminal takes the whitespace after the opener",
     ("WS: /\\s+/\n%ignore WS\n", ""),
     "no terminal takes whitespace after WRAPPER_OPEN", "WRAPPER_OPEN", "WRAPPER_OPEN"),
    ("an atom that a longer match of itself can continue",
     ('CLOSE.3: "</call>"', 'CLOSE.3: /<\\/call>+/'),
     "a match of it can go on to a longer match", "CLOSE", "CLOSE.3"),
    ("a terminal that matches nothing", ("TEXT.1: /[^<]+/", "TEXT.1: /[^<]*/"),
     "zero-width", "TEXT", "TEXT.1"),
    ("an unknown header item", ("typing=schema", "typing=schema colour=red"),
     "unknown header item 'colour=red'", None, "//!"),
    ("an unknown typing", ("typing=schema", "typing=guess"),
     "typing='guess': expected one of attribute, schema, json", None, "//!"),
    ("unknown value edges", ("value_edges=newline", "value_edges=strip"),
     "value_edges='strip': expected one of xml, trim, newline, none", None, "//!"),
    # What would make a parse super-linear in the text (SPEC G6), or never match.
    ("nested quantifiers", (_OPEN, "OPEN.3: /<call=(?P<name>(a+)+b)>/"),
     "exponentially many ways", "OPEN", "OPEN.3"),
    ("overlapping quantifiers", (_OPEN, "OPEN.3: /<call=(?P<name>[a-z]+_?[a-z]+)>/"),
     "polynomial in its length", "OPEN", "OPEN.3"),
    ("a lookahead that rereads a loop", ('CLOSE.3: "</call>"', "CLOSE.3: /<\\/call[^<]*(?=\\s*<)/"),
     "polynomial in its length", "CLOSE", "CLOSE.3"),
    ("a back-reference", ('CLOSE.3: "</call>"', "CLOSE.3: /<(\\/)call>\\1?/"),
     "refers back to a group", "CLOSE", "CLOSE.3"),
    ("an atom longer than an atom can be", (_WRAPPER, 'WRAPPER_OPEN.3: "<' + "x" * 1100 + '>"'),
     "is at least 1,102 characters long", "WRAPPER_OPEN", "WRAPPER_OPEN"),
    ("a terminal too large to check", (_WRAPPER, "WRAPPER_OPEN.3: " + " | ".join(
        f'"<w{n}>"' for n in range(1000))), "too large", "WRAPPER_OPEN", "WRAPPER_OPEN"),
    ("an opener whose loop reads on over the next place it starts",
     (_WRAPPER, "WRAPPER_OPEN.3: /<c=[^>]*x>/"), "can read the start of another match",
     "WRAPPER_OPEN", "WRAPPER_OPEN"),
    ("a tag whose loop reads an opener's first character",
     ("PARAM_OPEN.3: /<arg=(?P<name>[a-z]+)>/", "PARAM_OPEN.3: /<arg=(?P<name>[^>]+)>/"),
     "'<', the first character of", "PARAM_OPEN", "PARAM_OPEN"),
]


@pytest.mark.parametrize(("edit", "message", "rule", "line_of"),
                         [case[1:] for case in SILENT_MISTAKES],
                         ids=[case[0] for case in SILENT_MISTAKES])
def test_a_silent_grammar_mistake_is_an_error_at_load(tmp_path: Path, edit: tuple[str, str],
                                                      message: str, rule: str | None,
                                                      line_of: str | None) -> None:
    assert_load_error(tmp_path, *edit, message, rule, line_of)


def test_a_grammar_nested_thousands_deep_names_file_and_line(tmp_path: Path) -> None:
    # Lark, interegular and the regex parser recurse on nesting: a RecursionError
    # becomes a GrammarError naming the line where the nesting is deepest. (At Python's
    # default limit: a program that raised it may load such a grammar.)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        _nested_thousands_deep(tmp_path)
    finally:
        sys.setrecursionlimit(limit)


def _nested_thousands_deep(tmp_path: Path) -> None:
    for old, new in (("invoke: OPEN param* CLOSE",
                      "invoke: OPEN " + "(" * 3000 + "param" + ")" * 3000 + "* CLOSE"),
                     ('CLOSE.3: "</call>"', "CLOSE.3: /" + "(?:" * 3000 + "<\\/call>" + ")" * 3000 + "/")):
        error = assert_load_error(tmp_path, old, new, "nested too deeply", None,
                                  new.split(":")[0])
        assert error.line is not None


def test_a_conflict_keeps_larks_whole_message(tmp_path: Path) -> None:
    # Two rules that reduce the same tokens: Lark lists both, and so does the error.
    with pytest.raises(toolparse.GrammarError) as info:
        load_edited(tmp_path, "orphan_block: invoke",
                    "orphan_block: invoke | other\nother: OPEN param* CLOSE")
    error = info.value
    assert "Reduce/Reduce collision" in str(error)
    assert "<invoke : OPEN CLOSE>" in str(error) and "<other : OPEN CLOSE>" in str(error)
    assert error.rule in {"invoke", "other"}  # Lark lists the rules in no fixed order
    error = assert_load_error(
        tmp_path, "param: PARAM_OPEN (TEXT | LT)* PARAM_CLOSE",
        "param: PARAM_OPEN (TEXT | LT)* PARAM_CLOSE?\n     | PARAM_OPEN (TEXT | LT)* CLOSE",
        "Shift/Reduce conflict for terminal CLOSE", "CLOSE")
    assert "* <param : PARAM_OPEN" in str(error)


def test_an_atom_with_a_lookahead_may_continue_itself(tmp_path: Path) -> None:
    # GLM's name: a word that only a tag may follow; the lookahead says where it stops.
    dialect = load_edited(tmp_path, "invoke: OPEN param* CLOSE",
                          'invoke: BARE name CLOSE\nname: NAME\nBARE.3: "<call>"\n'
                          "NAME.2: /[a-z]+(?=\\s*<)/")
    text = "<calls><call> lookup </call></calls>"
    assert [c.name for c in toolparse.parse(text, dialect=dialect).calls] == ["lookup"]
    for chunks in (list(text), [text[:15], text[15:]]):  # cut inside the name, too
        events = stream(chunks, dialect=dialect)
        assert [c.name for e in events if isinstance(e, toolparse.ToolCallBlock)
                for c in e.calls] == ["lookup"]


def test_repair_needs_the_glm_tokens_around_key_and_value(tmp_path: Path) -> None:
    from toolparse._dialect.loader import key_value_tokens

    assert key_value_tokens("glm45")[0].startswith("<")
    with pytest.raises(toolparse.GrammarError, match="rule 'param' must be a head terminal made of three"):
        key_value_tokens("deepseek")


# ---- what the terminals do, read from the rules (roles.py) -----------------------------------

def test_a_broken_wrapped_block_does_not_end_at_the_close_of_a_bare_call(tmp_path: Path) -> None:
    # `orphan_block: invoke` makes CLOSE end a bare call, but inside a wrapper it closes a
    # call, not the block: the broken block's span runs to the wrapper close, and the call
    # after the broken one does not run (SPEC 3.2).
    dialect = load_edited(tmp_path, "", "")
    block = "<calls><call=a><arg=x>1</arg>stray</call><call=b></call></calls>"
    (failed, rest) = toolparse.parse(block + " ok", dialect=dialect).events
    assert isinstance(failed, toolparse.Text) and failed.text == block and failed.failure
    assert rest == toolparse.Text(" ok")


def test_a_call_whose_tag_opens_the_block_starts_at_the_token_after_it(tmp_path: Path) -> None:
    # GLM's and Hermes's shape: the call's tag is the block's opening tag. A prose mention
    # of the tag is a failed mention, not broken calls, so the text after it goes on.
    dialect = load_edited(tmp_path, "block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE\norphan_block: invoke\n"
                          "invoke: OPEN param* CLOSE",
                          'block: invoke\ninvoke: BARE name param* CLOSE\nname: NAME\nBARE.3: "<call>"\n'
                          "NAME.2: /[a-z]+(?=\\s*<)/")
    grammar = dialect._grammars[0]
    assert grammar.roles.call_starts == {"NAME"} and grammar.roles.block_opens == {"BARE"}
    events = toolparse.parse("Wrap calls in <call> tags. <call>ping</call>", dialect=dialect).events
    assert [type(e).__name__ for e in events] == ["Text", "Text", "Text", "ToolCallBlock"]
    assert events[1].text == "<call> " and events[1].failure.reason == "unexpected_token"


# ---- docs/grammars.md's worked example of a new dialect, as the page shows it ----------------

def worked_example() -> tuple[str, list[str]]:
    """The grammar the page builds (its `lark` blocks, in order) and the error lines it
    shows."""
    from markdown_it import MarkdownIt

    page = (Path(__file__).resolve().parents[1] / "docs" / "grammars.md").read_text(encoding="utf-8")
    section = page.split("## Worked example: a new dialect from scratch", 1)[1].split("\n## ", 1)[0]
    fences = [t for t in MarkdownIt("commonmark").parse(section) if t.type == "fence"]
    grammar = "\n".join(t.content for t in fences if t.info.strip() == "lark")
    errors = [t.content.strip() for t in fences if t.info.strip() == "" and ", line " in t.content]
    return grammar, errors


def test_the_worked_example_of_a_new_dialect_works_as_the_page_says(tmp_path: Path) -> None:
    grammar, errors = worked_example()
    path = tmp_path / "brackets.lark"
    path.write_text(grammar, encoding="utf-8")
    acme = toolparse.Dialect.from_file(path)
    assert acme.description.startswith("Acme-7's calls") and acme.typing == "schema"
    answer = ("Reading it.\n\n<<calls>>\n<<call read_file>>\n<<arg path>>README.md<</arg>>\n"
              "<</call>>\n<</calls>>\n")
    assert [(c.name, c.arguments) for c in toolparse.parse(answer, dialect=acme).calls] == [
        ("read_file", {"path": "README.md"})]
    assert toolparse.parse("```\n" + answer + "```\n", dialect=acme).calls == ()
    events = stream(list(answer), dialect=acme)
    assert [type(e).__name__ for e in events if not isinstance(e, toolparse.Text)] == ["ToolCallBlock"]
    # The two mistakes the page shows, with the messages it shows.
    no_ws, swallow = errors
    for edited, shown in ((grammar.replace("WS: /\\s+/\n%ignore WS", ""), no_ws),
                          (grammar.replace("TEXT.1: /[^<]+/", "TEXT.1: /[^>]+/"), swallow)):
        path.write_text(edited, encoding="utf-8")
        with pytest.raises(toolparse.GrammarError) as info:
            toolparse.Dialect.from_file(path)
        assert str(info.value).endswith(shown), (str(info.value), shown)


def test_only_candidates_an_earlier_atom_could_beat_get_a_second_look() -> None:
    # The streaming lexer takes a match near the end of a chunk at once unless an
    # earlier atom could still beat it there: one that can start with the same
    # character. A value's text (`[^<]+`) and whitespace cannot start like a tag.
    from toolparse._dialect.lexer import StateLexer, TerminalSpec
    specs = [TerminalSpec.compile(name, pattern, (), 0, 0) for name, pattern in (
        ("CLOSE", "</parameter>"), ("TEXT", "[^<]+"), ("LT", "<"), ("WS", r"\s+"),
        ("ANY", r"[\s\S]"))]
    lexer = StateLexer.build(specs)
    assert lexer.careful == {"LT", "ANY"}
    # A match followed by as many characters as `</parameter>` reads (and one more)
    # needs no second look: no earlier atom can still be arriving there.
    assert lexer.second_look["LT"] == len("</parameter>") + 1
    assert lexer.second_look["TEXT"] == lexer.second_look["WS"] == -1
    assert [spec.name for spec in lexer.earlier_atoms["ANY"]] == ["CLOSE", "LT"]
    # And the outcome is the same however the text is cut.
    text = 'see <tool_calls>\n<invoke name="f">\n<parameter name="a">x < y\n</parameter>' \
           '\n</invoke>\n</tool_calls>'
    for size in (1, 2, 3, 5, 7):
        events = stream([text[k:k + size] for k in range(0, len(text), size)])
        assert [c.arguments for b in events if isinstance(b, toolparse.ToolCallBlock)
                for c in b.calls] == [{"a": "x < y"}]


def test_an_atom_that_cannot_go_on_past_a_complete_match_is_no_threat() -> None:
    # `<parameter .../>` comes before `<parameter ...>` in Lark's order, but once the
    # second has matched (its `>` came) the first cannot be arriving: no second look.
    # An atom that can go on (`<ab>` after `<a`) still gets one.
    from toolparse._dialect.lexer import StateLexer, TerminalSpec
    from toolparse._syntax.dfa import dfa_for, may_continue_into
    open_, empty = r'<parameter(?:\s+\w+="[^"<]*")*\s*>', r'<parameter(?:\s+\w+="[^"<]*")*\s*/>'
    specs = [TerminalSpec.compile(name, pattern, (), 3, 0) for name, pattern in (
        ("EMPTY", empty), ("OPEN", open_), ("AB", "<ab>"), ("A", "<a"))]
    lexer = StateLexer.build(specs)
    assert lexer.earlier_atoms["OPEN"] == ()
    assert [spec.name for spec in lexer.earlier_atoms["A"]] == ["AB"]
    assert lexer.careful == {"A"}
    # `[^>]*>` can match `<p/>`, the whole of the other: that one may still be there.
    assert may_continue_into(dfa_for("<p[^>]*>"), dfa_for("<p[^>]*/>"))
    assert not may_continue_into(dfa_for("<p>"), dfa_for("<p/>"))


def test_the_automaton_says_what_a_terminal_can_start_with_as_regex_would() -> None:
    # The lexer asks which characters a terminal's match can start with of its cached
    # automaton (a warm start then needs no `regex` module); where a terminal has one,
    # the answer is the partial match's, for every terminal of every bundled grammar.
    from toolparse._dialect.lexer import can_start
    from toolparse._syntax.dfa import can_finish, dfa_for

    asked = 0
    for dialect in bundled_dialects():
        for grammar in toolparse.Dialect.bundled(dialect)._grammars:
            specs = list(grammar.terminals.values())
            chars = {c for spec in specs for c in spec.starts or ()} | set("<a \n\"]{")
            # (`\x1c`-`\x1f` are `\s` to `re`, which the lexer matches with, and not to
            # the `regex` module, whose partial match this compares with.)
            chars -= set("\x1c\x1d\x1e\x1f")
            for spec in specs:
                if spec.dfa is None:
                    continue
                for char in chars:
                    asked += 1
                    assert can_start(spec, char) == (
                        spec.partial.match(char, partial=True) is not None), (spec.name, char)
    assert asked > 300
    # A state from which no match can be completed is no start either.
    dfa = dfa_for("ab")
    assert dfa is not None and not can_finish(dfa, -1)
    assert can_finish(dfa, dfa.table[dfa.initial]["a"])


def test_whitespace_is_every_character_re_reads_as_backslash_s() -> None:
    # `first_chars` knows what `\s` begins with (so whitespace and a tag that cannot
    # begin with it are known apart): exactly the code points `re` matches.
    import sys

    from toolparse._syntax.regexp import WHITESPACE, first_chars
    space = re.compile(r"\s")
    assert WHITESPACE == {chr(c) for c in range(sys.maxunicode + 1) if space.match(chr(c))}
    assert first_chars(r"\s+") == WHITESPACE
    assert first_chars(r"[\s<]x") == WHITESPACE | {"<"}
    assert first_chars(r"[\s\S]") is None
