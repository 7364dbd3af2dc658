"""Realistic answers: scenarios written as a model writes them, in DeepSeek markup."""

from __future__ import annotations

from dataclasses import dataclass

from writers.cases import case, crlf
from writers.segments import (
    CANONICAL,
    DSML_ASCII,
    DSML_FULL,
    Call,
    Code,
    Failed,
    Segment,
    block,
    block_text,
    cdata,
    dsml,
    indent,
    json_value,
    number,
    text,
)

# ---- realistic answers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    slug: str
    language: str
    intro: str
    steps: tuple[str, str, str]
    real: tuple[Call, ...]
    example: Call
    follow_up: Call
    outro: str = ""


SCENARIOS = [
    Scenario("read-config", "en",
             "To see why the service fails on start, I need the settings it loads.",
             ("Read `config/settings.yaml`.", "Compare the port with the one in the logs.",
              "Suggest a fix."),
             (Call("read_file", (cdata("path", "config/settings.yaml"),)),),
             Call("read_file", (cdata("path", "path/to/file"),)),
             Call("read_file", (cdata("path", "logs/service.log"), number("limit", 100))),
             "I'll look at the port setting as soon as the file comes back."),
    Scenario("run-tests", "en",
             "Let's find out which tests fail before changing anything.",
             ("Run the test suite.", "Read the first failure.", "Fix the code it points to."),
             (Call("run_shell", (cdata("command", "python -m pytest -x -q"), number("timeout", 300))),),
             Call("run_shell", (cdata("command", "<your command>"),)),
             Call("run_shell", (cdata("command", "git diff --stat"),))),
    Scenario("web-search", "en",
             "I don't have reliable information about that release, so I'll search for it.",
             ("Search for the release notes.", "Open the official announcement.", "Summarise the changes."),
             (Call("web_search", (text("query", "Python 3.13 release notes free-threading"), number("max_results", 5))),),
             Call("web_search", (text("query", "your query here"),)),
             Call("fetch_url", (text("url", "https://docs.python.org/3.13/whatsnew/3.13.html"),)),
             "Once I have the results I'll give you a short summary."),
    Scenario("write-module", "en",
             "Here is the helper module you asked for; I'll write it to disk.",
             ("Create `utils/geometry.py`.", "Add the `area` function.", "Run a quick check."),
             (Call("write_file", (cdata("path", "utils/geometry.py"),
                                  cdata("content", 'import math\n\n\ndef area(radius: float) -> float:\n'
                                                   '    """The area of a circle."""\n    return math.pi * radius ** 2\n'))),),
             Call("write_file", (cdata("path", "file.py"), cdata("content", "..."))),
             Call("run_shell", (cdata("command", "python -c 'from utils.geometry import area; print(area(2))'"),))),
    Scenario("weather", "en",
             "Sure! Let me check the forecast for Lisbon.",
             ("Get tomorrow's forecast.", "Check the chance of rain.", "Recommend what to pack."),
             (Call("get_weather", (text("city", "Lisbon"), text("unit", "celsius"), text("day", "tomorrow"))),),
             Call("get_weather", (text("city", "CITY"),)),
             Call("get_weather", (text("city", "Porto"), text("unit", "celsius"))),
             "I'll tell you what to pack when the forecast arrives."),
    Scenario("sql", "en",
             "The report needs last month's orders above 100 euros, so I'll query the database.",
             ("Query the orders table.", "Group the totals by customer.", "Format a table."),
             (Call("sql_query", (cdata("query", "SELECT customer_id, SUM(total) AS spent\nFROM orders\n"
                                                "WHERE total > 100 AND created_at >= date('now', '-1 month')\n"
                                                "GROUP BY customer_id\nHAVING spent < 10000;"),
                                 text("database", "shop"))),),
             Call("sql_query", (cdata("query", "SELECT ..."),)),
             Call("sql_query", (cdata("query", "SELECT COUNT(*) FROM customers;"), text("database", "shop")))),
    Scenario("calendar", "en",
             "I'll put the design review on the calendar for Thursday.",
             ("Create the event.", "Invite the team.", "Send a reminder the day before."),
             (Call("create_event", (text("title", "Design review"), text("start", "2024-06-13T14:00:00+02:00"),
                                    number("duration_minutes", 45),
                                    json_value("attendees", ["ana@example.com", "li@example.com"]),
                                    json_value("video_call", True))),),
             Call("create_event", (text("title", "TITLE"), text("start", "ISO-8601 time"))),
             Call("set_reminder", (text("event", "Design review"), text("when", "1 day before")))),
    Scenario("email", "en",
             "I'll send the summary to Marta now.",
             ("Draft the e-mail.", "Attach the figures.", "Send it."),
             (Call("send_email", (text("to", "marta@example.com"), text("subject", "Q2 numbers & next steps"),
                                  block_text("body", "Hi Marta,\n\nRevenue is up 12% (Q1: 1.2M, Q2: 1.34M).\n"
                                                     "Costs < budget for the first time.\n\nBest,\nSam", "    "))),),
             Call("send_email", (text("to", "someone@example.com"), text("subject", "Subject"))),
             Call("send_email", (text("to", "team@example.com"), text("subject", "FYI: Q2 numbers")))),
    Scenario("edit-code", "en",
             "The bug is an off-by-one in the loop bound; I'll fix it in place.",
             ("Open `src/pager.py`.", "Change `range(n + 1)` to `range(n)`.", "Re-run the pager tests."),
             (Call("edit_file", (cdata("path", "src/pager.py"),
                                 cdata("old", "    for i in range(n + 1):\n        yield page(i)"),
                                 cdata("new", "    for i in range(n):\n        yield page(i)"))),),
             Call("edit_file", (cdata("path", "FILE"), cdata("old", "OLD"), cdata("new", "NEW"))),
             Call("run_shell", (cdata("command", "pytest tests/test_pager.py -q"),)),
             "That should stop the last page from repeating."),
    Scenario("list-dir", "en",
             "First I need to see how the project is laid out.",
             ("List the top-level directory.", "Find the entry point.", "Read it."),
             (Call("list_directory", (text("path", "."), json_value("recursive", False))),),
             Call("list_directory", (text("path", "DIR"),)),
             Call("read_file", (cdata("path", "pyproject.toml"),))),
    Scenario("fetch-url", "en",
             "I'll fetch the API page so I can quote the exact limits.",
             ("Fetch the rate-limit page.", "Find the per-minute limit.", "Compare it with your traffic."),
             (Call("fetch_url", (text("url", "https://api.example.com/docs/limits?section=rate&format=html"),)),),
             Call("fetch_url", (text("url", "https://example.com"),)),
             Call("fetch_url", (text("url", "https://status.example.com/history?days=7"),))),
    Scenario("python-exec", "en",
             "Let me compute that exactly rather than estimate it.",
             ("Write a short script.", "Run it.", "Report the number."),
             (Call("python", (block_text("code", "total = 0\nfor n in range(1, 1001):\n    if n % 3 == 0 or n % 5 == 0:\n"
                                                "        total += n\nprint(total)", "    "),)),),
             Call("python", (cdata("code", "print('hello')"),)),
             Call("python", (cdata("code", "print(sum(range(1001)))"),))),
    Scenario("git-commit", "en",
             "All tests pass, so I'll commit the change.",
             ("Stage the files.", "Commit with a clear message.", "Push the branch."),
             (Call("git_commit", (cdata("message", "Fix pager off-by-one\n\nThe last page was yielded twice when n\n"
                                                   "was a multiple of the page size."),
                                  json_value("files", ["src/pager.py", "tests/test_pager.py"]))),),
             Call("git_commit", (cdata("message", "MESSAGE"),)),
             Call("run_shell", (cdata("command", "git push origin HEAD"),))),
    Scenario("translate-zh", "zh",
             "好的，我先把这段说明翻译成英文。",
             ("翻译原文。", "检查术语是否一致。", "给出最终版本。"),
             (Call("translate", (text("text", "请在提交前运行所有测试。"), text("target", "en"))),),
             Call("translate", (text("text", "原文"), text("target", "目标语言"))),
             Call("translate", (text("text", "测试通过后再合并。"), text("target", "en"))),
             "翻译结果返回后，我会再检查一遍术语。"),
    Scenario("search-zh", "zh",
             "这个问题需要最新的数据，我来搜索一下。",
             ("搜索相关新闻。", "阅读最权威的来源。", "总结要点。"),
             (Call("web_search", (text("query", "2024年 中国 新能源汽车 销量"), number("max_results", 8))),),
             Call("web_search", (text("query", "关键词"),)),
             Call("fetch_url", (text("url", "https://example.cn/news/ev-2024"),))),
    Scenario("files-zh", "zh",
             "我需要先看看日志文件里的错误信息。",
             ("读取日志文件。", "找出第一条错误。", "分析原因。"),
             (Call("read_file", (cdata("path", "logs/错误.log"), number("limit", 50))),),
             Call("read_file", (cdata("path", "文件路径"),)),
             Call("run_shell", (cdata("command", "grep -n ERROR logs/错误.log | head"),)),
             "拿到日志后我会告诉你问题出在哪里。"),
    Scenario("compare-cities", "en",
             "I'll get both forecasts at once so we can compare the two cities.",
             ("Get the Madrid forecast.", "Get the Rome forecast.", "Compare temperatures and rain."),
             (Call("get_weather", (text("city", "Madrid"), text("unit", "celsius"))),
              Call("get_weather", (text("city", "Rome"), text("unit", "celsius")))),
             Call("get_weather", (text("city", "CITY"),)),
             Call("get_weather", (text("city", "Athens"), text("unit", "celsius"))),
             "Then I'll tell you which city looks better for the weekend."),
    Scenario("container-logs", "en",
             "The container keeps restarting; its last log lines should say why.",
             ("Fetch the last 50 log lines.", "Look for the exit reason.", "Check the memory limit."),
             (Call("run_shell", (cdata("command", "docker logs --tail 50 api-server 2>&1"),)),),
             Call("run_shell", (cdata("command", "docker logs <container>"),)),
             Call("run_shell", (cdata("command", "docker inspect --format '{{.HostConfig.Memory}}' api-server"),))),
    Scenario("issue-json", "en",
             "I'll file the bug with the details we collected.",
             ("Create the issue.", "Label it.", "Link the failing test."),
             (Call("create_issue", json_body='{"title": "Pager repeats the last page", "labels": ["bug"], "priority": 2}',
                   json_value={"title": "Pager repeats the last page", "labels": ["bug"], "priority": 2}),),
             Call("create_issue", json_body='{"title": "..."}', json_value={"title": "..."}),
             Call("add_comment", (text("issue", "#142"), text("body", "Failing test: tests/test_pager.py::test_last_page")))),
    Scenario("docs-lookup", "en",
             "Let me check what the documentation says about ownership in C++ & Rust.",
             ("Search the docs.", "Read the best match.", "Explain the difference."),
             (Call("search_docs", (text("query", "C++ & Rust: unique_ptr<T> vs Box<T>"), text("scope", "language-guides"))),),
             Call("search_docs", (text("query", "QUERY"),)),
             Call("read_doc", (text("id", "rust-book/ch15-01-box"),)),
             "I'll explain the difference once I've read the relevant pages."),
]

PHRASES = {
    "en": {
        "format": "The call format looks like this:",
        "inline": "A call is wrapped in {wrapper} and each tool is named with {invoke}.",
        "now": "That was only an example. Now the real call:",
        "call": "Here is the call:",
        "plan": "Here's the plan:",
        "start": "Starting with step 1:",
        "after": "For reference, the general shape of such a call is:",
        "first": "First call:",
        "then": "Once that is done, the follow-up:",
        "quote": "Format reference:",
        "attempt": "my call",
        "retry": "Sorry, that call was malformed. Let me try again:",
        "mention": "I'll wrap the call in {wrapper} as usual.",
    },
    "zh": {
        "format": "调用格式如下：",
        "inline": "调用需要用 {wrapper} 包裹，并用 {invoke} 指定工具。",
        "now": "上面只是示例。现在正式调用：",
        "call": "现在调用：",
        "plan": "计划如下：",
        "start": "先执行第一步：",
        "after": "供参考，这类调用的一般形式是：",
        "first": "第一步调用：",
        "then": "完成之后，再执行：",
        "quote": "格式参考：",
        "attempt": "调用工具",
        "retry": "抱歉，上面的调用格式不对。我重新调用：",
        "mention": "我会像往常一样用 {wrapper} 包裹调用。",
    },
}

RECIPES: list[tuple[str, str, str, bool, bool]] = [
    # (template, where the example is, spelling, compact real block, CRLF)
    ("explain", "fence", "canonical", False, False),
    ("steps", "list-fence", "canonical", False, False),
    ("explain", "inline", "dsml", False, False),
    ("call-first", "tilde-fence", "canonical", False, False),
    ("explain", "indented", "dsml-ascii", False, False),
    ("steps", "none", "dsml", False, False),
    ("explain", "quote-fence", "canonical", True, False),
    ("two-blocks", "fence", "canonical", False, False),
    ("explain", "nested-fence", "dsml-function-calls", False, False),
    ("explain", "fence", "canonical", False, True),
    ("steps", "inline", "canonical", True, False),
    ("two-blocks", "tilde-fence", "dsml", False, True),
    ("retry", "none", "canonical", False, False),
    ("mention", "none", "dsml", False, False),
    ("explain", "fence", "dsml-ascii", True, False),
    ("steps", "tilde-fence", "canonical", False, True),
]

SPELLINGS = {"canonical": CANONICAL, "dsml": DSML_FULL, "dsml-ascii": DSML_ASCII,
             "dsml-function-calls": dsml("｜", "function_calls")}


VARIANTS_PER_SCENARIO = 6


def realistic() -> None:
    for i, scenario in enumerate(SCENARIOS):
        for j in range(VARIANTS_PER_SCENARIO):
            recipe = RECIPES[(i * VARIANTS_PER_SCENARIO + j + i // 3) % len(RECIPES)]
            name, description, segments = compose(scenario, *recipe)
            case("realistic", name, description, *segments)


def compose(s: Scenario, template: str, where: str, spelling_name: str, compact: bool,
            use_crlf: bool) -> tuple[str, str, list[Segment | str]]:
    """One answer as a model writes it: prose, maybe an example of the format (in code,
    so text), and the real call(s)."""
    words = PHRASES[s.language]
    spelling = SPELLINGS[spelling_name]
    nl = "\r\n" if use_crlf else "\n"
    real = block(*s.real, spelling=spelling, compact=compact, nl=nl)
    ex = block(s.example, spelling=spelling).raw
    wrapper = f"`<{spelling.wrapper_open}>`"
    invoke_tag = f'`<{spelling.invoke} name="{s.example.name}">`'

    def shown(lead: str) -> list[Segment | str]:
        """The example, introduced by `lead`, as its own paragraph(s)."""
        if where == "inline":
            head, tail = words["inline"].split("{wrapper}")
            middle, end = tail.split("{invoke}")
            return [head, Code(wrapper), middle, Code(invoke_tag), end + "\n\n"]
        if where == "none":
            return []
        if where == "quote-fence":
            return [f"> {words['quote']}\n>\n", Code(f"> ```xml\n{indent(ex, '> ')}\n> ```"), "\n\n"]
        fenced = {
            "fence": f"```xml\n{ex}\n```",
            "list-fence": f"```xml\n{ex}\n```",
            "tilde-fence": f"~~~xml\n{ex}\n~~~",
            "indented": indent(ex, "    "),
            "nested-fence": f"````markdown\n```xml\n{ex}\n```\n````",
        }[where]
        return [lead + "\n\n", Code(fenced), "\n\n"]

    outro: list[Segment | str] = ["\n\n" + s.outro + "\n"] if s.outro else ["\n"]
    segments: list[Segment | str]
    if template == "explain":
        transition = words["call"] if where in ("inline", "none") else words["now"]
        segments = [s.intro + "\n\n", *shown(words["format"]), transition + "\n\n", real, *outro]
    elif template == "steps":
        steps = [f"{n}. {step}" for n, step in enumerate(s.steps, 1)]
        if where == "list-fence":
            plan: list[Segment | str] = [
                f"{s.intro}\n\n{words['plan']}\n\n{steps[0]} {words['format']}\n\n",
                Code(indent(f"```xml\n{ex}\n```", "   ")), "\n\n" + "\n".join(steps[1:]) + "\n\n"]
        else:
            plan = [f"{s.intro}\n\n{words['plan']}\n\n" + "\n".join(steps) + "\n\n", *shown(words["format"])]
        segments = [*plan, words["start"] + "\n\n", real, *outro]
    elif template == "call-first":
        segments = [s.intro + "\n\n", real, "\n\n", *shown(words["after"]),
                    (s.outro or words["then"].rstrip(":：")) + "\n"]
    elif template == "retry":
        # The attempt is a prose mention: the wrapper fails at its first word.
        attempt = f"{words['attempt']} {s.real[0].name}\n</{spelling.wrapper_close}>"
        segments = [s.intro + "\n\n", Failed(f"<{spelling.wrapper_open}>\n"), attempt + "\n\n",
                    words["retry"] + "\n\n", real, *outro]
    elif template == "mention":
        before, after = words["mention"].split("{wrapper}")
        segments = [s.intro + " " + before, Failed(f"<{spelling.wrapper_open}> "),
                    after.lstrip(" ") + "\n\n", real, *outro]
    else:  # two-blocks
        follow = block(s.follow_up, spelling=spelling, compact=compact, nl=nl)
        segments = [s.intro + "\n\n", *shown(words["format"]), words["first"] + "\n\n", real,
                    "\n\n" + words["then"] + "\n\n", follow, "\n"]
    if use_crlf:
        segments = list(crlf(*segments))
    parts = [template, where, spelling_name] + (["compact"] if compact else []) + (["crlf"] if use_crlf else [])
    description = (f"A realistic {'Chinese ' if s.language == 'zh' else ''}answer ({s.slug}): "
                   f"{template}, example: {where}, {spelling_name} tags"
                   + (", compact block" if compact else "") + (", CRLF" if use_crlf else ""))
    return f"{s.slug}-{'-'.join(parts)}", description, segments


