"""The documentation a new user reads holds together: every "SPEC N" citation names a
section of docs/spec.md, every relative link opens, and nothing points at a file outside
the repository."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "docs" / "spec.md"

# Where citations live: the package, its grammars, the documents and the tests.
CITING = sorted(
    [*REPO.joinpath("toolparse").rglob("*.py"), *REPO.joinpath("grammars").glob("*.lark"),
     *REPO.joinpath("docs").rglob("*.md"), *REPO.joinpath("tests").glob("*.py"),
     REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "corpus" / "README.md",
     REPO / "docs" / "examples" / "quickstart.ipynb"])

# "SPEC 3.2", "SPEC G4", "SPEC section 6", "SPEC 6.1; G9, G10", "SPEC 3.2, G4".
CITATION = re.compile(r"(?<![\w.])SPEC(?: section)? (G\d+a?|\d+(?:\.\d+)?)((?:[,;] G\d+a?)*)")
DOCUMENTS = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "CONTRIBUTING.md", *sorted(REPO.joinpath("docs").glob("*.md"))]


def spec_sections() -> set[str]:
    """The section numbers (`3.2`) and guarantees (`G4`, `G3a`) docs/spec.md defines."""
    text = SPEC.read_text(encoding="utf-8")
    found = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, re.MULTILINE))
    found |= set(re.findall(r"^### (G\d+)\. ", text, re.MULTILINE))
    found |= set(re.findall(r"\*\*(G\d+a)\*\*", text))
    return found


def test_the_spec_has_the_stable_section_numbers() -> None:
    sections = spec_sections()
    assert {f"G{n}" for n in range(1, 12)} | {"G3a"} <= sections
    assert {"1", "2", "3", "3.1", "3.2", "4", "4.1", "4.2", "4.3", "4.4", "4.5", "5", "5.1",
            "5.2", "6", "6.1", "7", "8", "9", "10"} <= sections


def citations() -> list[tuple[str, int, str]]:
    found = []
    for path in CITING:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in CITATION.finditer(line):
                refs = [match.group(1)] + re.findall(r"G\d+a?", match.group(2))
                found += [(str(path.relative_to(REPO)), number, ref) for ref in refs]
    return found


def test_every_spec_citation_names_a_section_of_docs_spec() -> None:
    found = citations()
    assert len(found) > 100  # the pattern still matches the way the code cites
    sections = spec_sections()
    unknown = [f"{path}:{line}: SPEC {ref}" for path, line, ref in found if ref not in sections]
    assert not unknown, "citations of sections docs/spec.md does not have:\n" + "\n".join(unknown)


@pytest.mark.parametrize("path", [REPO / "README.md", REPO / "CONTRIBUTING.md",
                                  REPO / "toolparse" / "__init__.py",
                                  *sorted(REPO.joinpath("docs").glob("*.md"))],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_the_places_users_read_say_where_spec_is(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path == SPEC or "SPEC" not in text:
        return
    assert "spec.md" in text, f"{path.name} cites SPEC but does not say it is docs/spec.md"


def test_no_document_points_outside_the_repository() -> None:
    for path in [*DOCUMENTS, REPO / "corpus" / "README.md", *REPO.joinpath("toolparse").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "SPEC.md" not in text, f"{path.relative_to(REPO)} names SPEC.md"
        assert "../shared" not in text and "outside this repository" not in text, path


def links(markdown: str) -> list[str]:
    """The link and image targets of a Markdown document, as CommonMark with GitHub's
    tables reads it (so nothing inside code; each table cell is read on its own, as the
    docs are shown)."""
    from markdown_it import MarkdownIt

    targets = []
    stack = list(MarkdownIt("commonmark").enable("table").parse(markdown))
    while stack:
        token = stack.pop()
        stack.extend(token.children or ())
        if token.type in ("link_open", "image"):
            targets.append(str(token.attrs.get("href") or token.attrs.get("src")))
    return targets


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_open(path: Path) -> None:
    found = links(path.read_text(encoding="utf-8"))
    if path == SPEC:
        assert "semantics.md" in found  # the reader finds the pages
    for target in found:
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#")[0]).resolve()
        assert file.exists(), f"{path.relative_to(REPO)} links to {target}, which does not exist"


# ---- the README --------------------------------------------------------------------------

def readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def python_blocks(markdown: str) -> list[str]:
    """The fenced code blocks whose info string is `python`, in order."""
    from markdown_it import MarkdownIt

    return [token.content for token in MarkdownIt("commonmark").parse(markdown)
            if token.type == "fence" and token.info.strip() == "python"]


def test_the_readme_examples_run_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks(readme())
    assert len(blocks) >= 2
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in blocks:  # one after the other, as a reader pastes them
        exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    # What the comments and the prose promise.
    assert printed[0] == "read_file {'path': 'README.md', 'limit': 200}"
    assert "block: ['read_file']" in printed
    executed = [line for line in printed if line.startswith("execute ")]
    assert len(executed) == 1 and '"limit":200' in executed[0]
    assert any(line.startswith("to the model: call_") and "delete_repo" in line for line in printed)
    assert any(line.startswith("failed block: unexpected_token at ") for line in printed)
    # The OpenAI adapter: the call comes out of the content as tool_calls.
    assert "{'role': 'assistant', 'content': 'Checking. '} None" in printed
    assert any("'name': 'get_weather', 'arguments': '{\"city\":\"Paris\"}'" in line
               and line.endswith("tool_calls") for line in printed)


def test_the_readme_setup_commands_come_first() -> None:
    commands = [line[4:] for line in readme().splitlines()
                if line.startswith("    python3 -m venv .venv && ")]
    assert len(commands) == 2
    assert commands[0].endswith(".venv/bin/toolparse corpus")
    assert commands[1].endswith(".venv/bin/pytest")  # .ci/run runs this one
    first_heading = readme().index("\n## ")
    assert all(readme().index(command) < first_heading for command in commands)


def test_the_readme_figures_are_the_corpus_figures() -> None:
    from toolparse import corpus

    text = " ".join(readme().split())
    stated = re.search(r"more than (\d+) cases, each run under (\w+) chunkings", text)
    assert stated, "the README no longer states the corpus figures"
    cases = corpus.find_cases()
    # "More than N": true, and close enough to be worth saying.
    assert int(stated.group(1)) < len(cases) < int(stated.group(1)) + 100
    words = {"four": 4, "five": 5, "six": 6, "seven": 7}
    assert words[stated.group(2)] == len(corpus.chunkings(cases[0]))


def test_the_readme_lists_every_bundled_dialect_and_command() -> None:
    from toolparse._cli.main import COMMANDS
    from toolparse._dialect import bundled_dialects

    text = readme()
    for name in bundled_dialects():
        assert f"| `{name}`" in text, f"the README does not list the dialect {name}"
    for command in COMMANDS:
        name = command.__name__.rsplit(".", 1)[-1]
        assert f"| `toolparse {name}` |" in text, f"the README does not list `toolparse {name}`"


# ---- what docs/spec.md section 2 says of the types -------------------------------------------

USER_CODE = '''
import toolparse

tools: toolparse.ToolDefinitions = [{"name": "f", "parameters": {"type": "object"}}]
repair: toolparse.RepairOption = {"repairJsonSyntax": False}
result = toolparse.parse("x", tools=tools, repair=repair)
status: toolparse.CallStatus = result.calls[0].status
toolparse.parse("x", tools=123)
toolparse.StreamParser(repair=3)
'''


def test_tools_123_fails_a_type_check(tmp_path: Path) -> None:
    from mypy import api

    (tmp_path / "user.py").write_text(USER_CODE, encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(tmp_path)  # away from the repository's own mypy settings
    try:
        stdout, stderr, _ = api.run(["--strict", "--no-incremental", "--no-color-output",
                                     "user.py"])
    finally:
        os.chdir(cwd)
    errors = [line for line in stdout.splitlines() if ": error: " in line]
    assert [line.split(":")[1] for line in errors] == ["8", "9"], stdout + stderr
    assert 'Argument "tools" to "parse" has incompatible type "int"' in errors[0]
    assert 'Argument "repair" to "StreamParser" has incompatible type "int"' in errors[1]


# ---- docs/cli.md shows real output -------------------------------------------------------------

def test_the_cli_page_shows_what_the_commands_print(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from markdown_it import MarkdownIt

    from toolparse._cli import main

    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    fences = [token for token in MarkdownIt("commonmark").parse(page) if token.type == "fence"]
    answer, pretty = [f.content for f in fences if f.info == "" and "tool_calls" in f.content][:2]
    (records,) = [f.content for f in fences if f.info == "json"]
    (tmp_path / "answer.txt").write_text(answer, encoding="utf-8")
    (tmp_path / "tools.json").write_text(json.dumps([{"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]),
        encoding="utf-8")
    arguments = [str(tmp_path / "answer.txt"), "--tools", str(tmp_path / "tools.json")]
    assert main(["parse", *arguments]) == 0
    assert capsys.readouterr().out == pretty
    assert main(["parse", *arguments, "--format", "jsonl", "--id-prefix", "call_"]) == 0
    assert capsys.readouterr().out == records
