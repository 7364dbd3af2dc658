"""The notebook display in a real browser: headless Chromium loads the HTML of a
ParseResult, a script in the page reads what the browser made of it (computed colours,
what a closed fold hides, how many lines a code argument takes), and `--dump-dom` hands
that back.

Skipped only when no Chromium is installed and TOOLPARSE_REQUIRE_BROWSER is unset; CI
(`.ci/run`) installs Debian's `chromium` and sets the variable, so there a missing
browser fails the run.

`python tests/test_browser.py docs/display.png` remakes the screenshot in the docs.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import toolparse

BROWSERS = ("chromium", "chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")

READ = {"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"], "additionalProperties": False}}}
WRITE = {"type": "function", "function": {"name": "write_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"], "additionalProperties": False}}}

LONG_PLAN = "".join(f"{n}. Step {n} of the plan, explained at some length so that it wraps.\n"
                    for n in range(1, 41))
ANSWER = f"""I will check the file, then fix it. A call looks like this:

```xml
<tool_calls>
  <invoke name="read_file"><parameter name="path">example.txt</parameter></invoke>
</tool_calls>
```

{LONG_PLAN}
<tool_calls>
  <invoke name="read_file">
    <parameter name="path">src/app.py</parameter>
    <parameter name="limit">200</parameter>
  </invoke>
</tool_calls>
<tool_calls><invoke name="read_file">{{"path": "setup.cfg",}}</invoke></tool_calls>
<tool_calls><invoke name="delete_repo"><parameter name="name">app</parameter></invoke></tool_calls>
<tool_calls>
  <invoke name="read_file"><parameter name="path">a.txt</parameter> and then</invoke>
</tool_calls>
<tool_calls>
  <invoke name="write_file">
    <parameter name="path">src/app.py</parameter>
    <parameter name="content"><![CDATA[def main() -> None:
    print("hello")


if __name__ == "__main__":
    main()
]]></parameter>
  </invoke>
</tool_calls>
Done: use `<tool_calls>` only when you mean it.
"""

# Runs in the page once it has loaded: what the browser made of the display.
PROBE = """
const all = (selector) => [...document.querySelectorAll(selector)];
const shown = (element) => element.getClientRects().length > 0;
const report = {
  blocks: all(".tp-block").map((e) => [e.classList[1], getComputedStyle(e).backgroundColor]),
  legend: all(".tp-legend .tp-key").map((e) => [e.classList[1], e.textContent]),
  statusLabels: all("tr.tp-call .tp-label").map((e) => [e.textContent, getComputedStyle(e).backgroundColor]),
  rules: all(".tp-rules").map((e) => e.textContent),
  failedLabels: all(".tp-flow .tp-label.tp-failed").map((e) => [e.textContent, e.title]),
  failedText: all(".tp-flow .tp-failed:not(.tp-label)").map((e) => e.textContent),
  inCode: all(".tp-flow .tp-in-code:not(.tp-label)").map((e) => [e.textContent, e.title]),
  inCodeLabels: all(".tp-flow .tp-label.tp-in-code").map((e) => e.textContent),
  folds: all("details.tp-more").map((d) => ({
    open: d.open, summary: d.querySelector("summary").textContent,
    hiddenShown: [...d.children].filter((c) => c.tagName !== "SUMMARY").some(shown)})),
  code: all("pre.tp-code").map((e) => ({
    text: e.textContent,
    lines: Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight))})),
  failureRows: all("tr.tp-failure").map((e) => e.textContent),
  flowText: document.querySelector(".tp-flow").innerText,
};
document.getElementById("report").textContent = JSON.stringify(report);
"""


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def page(result: toolparse.ParseResult, *, probe: bool) -> str:
    script = f'<pre id="report"></pre><script>{PROBE}</script>' if probe else ""
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>toolparse display</title>'
            '</head><body style="margin: 16px; width: 1100px; font-family: sans-serif;">'
            f"{result._repr_html_()}{script}</body></html>")


def run_browser(browser: str, html_text: str, *extra: str) -> str:
    """Load `html_text` in headless Chromium with `extra` flags; its standard output."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "display.html"
        source.write_text(html_text, encoding="utf-8")
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={Path(folder) / 'profile'}", *extra, source.as_uri()],
            capture_output=True, text=True, timeout=180, check=False, cwd=folder)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def parsed_answer() -> toolparse.ParseResult:
    return toolparse.parse(ANSWER, tools=[READ, WRITE])


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_browser()
    if found is None:
        if os.environ.get("TOOLPARSE_REQUIRE_BROWSER"):
            pytest.fail("TOOLPARSE_REQUIRE_BROWSER is set but no chromium is installed "
                        "(Debian: apt-get install chromium)")
        pytest.skip("no chromium installed (Debian: apt-get install chromium); set "
                    "TOOLPARSE_REQUIRE_BROWSER=1 to make this a failure")
    return found


@pytest.fixture(scope="module")
def report(browser: str) -> dict[str, Any]:
    dom = run_browser(browser, page(parsed_answer(), probe=True), "--dump-dom")
    found = re.search(r'<pre id="report">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), "the page's probe did not run:\n" + dom[-2000:]
    value: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return value


def test_blocks_show_in_their_status_colours(report: dict[str, Any]) -> None:
    colours = {"valid": "rgba(40, 167, 69, 0.22)", "repaired": "rgba(255, 160, 0, 0.26)",
               "rejected": "rgba(220, 53, 69, 0.22)"}
    statuses = [name.removeprefix("tp-") for name, _ in report["blocks"]]
    assert statuses == ["valid", "repaired", "rejected", "valid"]
    for status, (_, background) in zip(statuses, report["blocks"]):
        assert background == colours[status]
    labels = dict(report["statusLabels"])
    assert set(labels) == {"valid", "repaired", "rejected: unknown_tool"}
    assert len(set(labels.values())) == 3  # three label colours
    assert report["rules"] == ["rules: repair_json_syntax"]


def test_the_legend_is_there(report: dict[str, Any]) -> None:
    assert report["legend"] == [
        ["tp-valid", "valid call"], ["tp-repaired", "repaired call"],
        ["tp-rejected", "rejected call"], ["tp-unchecked", "unchecked call (no tools given)"],
        ["tp-failed", "failed block: text, nothing ran"], ["tp-in-code", "in code, not run"],
        ["tp-reasoning", "reasoning: apart from the answer, never run"]]


def test_the_failed_block_shows_its_reason(report: dict[str, Any]) -> None:
    ((label, title),) = report["failedLabels"]
    assert label == "failed: unexpected_token"
    assert title.startswith("failed at character ") and "expected" in title
    (text,) = report["failedText"]
    assert text.startswith("<tool_calls>\n  <invoke") and "and then" in text
    assert text.endswith("</tool_calls>")
    (row,) = report["failureRows"]
    assert "unexpected_token" in row and "PARAMETER_OPEN" in row


def test_tags_in_code_are_marked_not_run(report: dict[str, Any]) -> None:
    marked = [(text, title) for text, title in report["inCode"]]
    assert marked[0] == ("<tool_calls>", "in a fenced code block, line 4: not run")
    assert marked[1][0].startswith('<invoke name="read_file">')
    assert marked[-1] == ("<tool_calls>", f"in a code span, line {ANSWER.count(chr(10))}: not run")
    assert report["inCodeLabels"] == ["in code, not run"] * len(marked)


def test_long_text_is_folded_and_the_fold_hides_it(report: dict[str, Any]) -> None:
    (fold,) = report["folds"]
    assert fold["open"] is False and fold["hiddenShown"] is False
    assert fold["summary"].startswith("… ") and "more characters" in fold["summary"]
    assert "Step 1 of the plan" in report["flowText"]
    assert "Step 40 of the plan" not in report["flowText"]  # folded away


def test_code_arguments_are_preformatted_on_their_own_lines(report: dict[str, Any]) -> None:
    (code,) = report["code"]
    assert code["text"].startswith('def main() -> None:\n    print("hello")\n')
    assert code["lines"] >= 6  # rendered on six lines, not one with literal "\n"


def test_a_screenshot_renders(browser: str, tmp_path: Path) -> None:
    shot = tmp_path / "display.png"
    run_browser(browser, page(parsed_answer(), probe=False), "--window-size=1140,900",
                f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1140, 900)


def main(argv: list[str]) -> int:
    """Write the screenshot of the display to `argv[0]` (default docs/display.png)."""
    browser = find_browser()
    if browser is None:
        print("no chromium installed", file=sys.stderr)
        return 1
    target = Path(argv[0] if argv else Path(__file__).parents[1] / "docs" / "display.png").resolve()
    run_browser(browser, page(parsed_answer(), probe=False), "--window-size=1140,1060",
                f"--screenshot={target}")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
