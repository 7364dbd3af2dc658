"""The scenarios of `realistic`, written in each other dialect (its writer in `dialects/`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from writers.cases import case, crlf
from writers.dialects import WRITERS, rank, writers
from writers.realistic import PHRASES, SCENARIOS, Scenario
from writers.segments import Block, Call, Code, Failed, Segment, indent

# ---- realistic answers in the other dialects -----------------------------------------------
#
# The scenarios of `realistic`, written in each dialect: its own markup for the example
# and the real calls, and the same prose. Values are meant as each dialect reads them
# without tools: strings for typing=schema (a number is its text), the JSON's values for
# typing=json.

DIALECT_RECIPES: list[tuple[str, str, bool]] = [
    # (template, where the example is, CRLF)
    ("explain", "fence", False), ("steps", "list-fence", False), ("explain", "inline", False),
    ("call-first", "tilde-fence", False), ("two-blocks", "indented", True),
    ("mention", "none", False), ("steps", "fence", False),
]


def _scenario_args(call: Call) -> dict[str, Any]:
    if call.json_value is not None:
        return dict(call.json_value)
    return {p.name: p.value for p in call.params}


def dialect_blocks(dialect: str, calls: Sequence[Call], nl: str = "\n") -> list[Segment | str]:
    """`calls` written in `dialect` with `nl` line ends: its blocks, a newline between."""
    named = [(c.name, _scenario_args(c)) for c in calls]
    blocks = WRITERS[dialect].blocks(named, nl)
    if nl != "\n":
        blocks = [replace(b, raw=b.raw.replace("\n", nl)) for b in blocks]
    out: list[Segment | str] = []
    for b in blocks:
        out += [nl, b] if out else [b]
    return out


def _shown(dialect: str, s: Scenario, where: str, lead: str) -> list[Segment | str]:
    """The example call of scenario `s`, in code, introduced by `lead`."""
    words = PHRASES[s.language]
    ex = "\n".join(b.raw if isinstance(b, Block) else b
                   for b in dialect_blocks(dialect, (s.example,)) if isinstance(b, Block))
    if where == "inline":
        wrapper, call_tag = WRITERS[dialect].mentions
        head, tail = words["inline"].split("{wrapper}")
        middle, end = tail.split("{invoke}")
        return [head, Code(f"`{wrapper}`"), middle, Code(f"`{call_tag.format(name=s.example.name)}`"),
                end + "\n\n"]
    if where == "none":
        return []
    if where == "quote-fence":
        return [f"> {words['quote']}\n>\n", Code(f"> ```\n{indent(ex, '> ')}\n> ```"), "\n\n"]
    fenced = {"fence": f"```\n{ex}\n```", "list-fence": f"```\n{ex}\n```",
              "tilde-fence": f"~~~\n{ex}\n~~~", "indented": indent(ex, "    ")}[where]
    return [lead + "\n\n", Code(fenced), "\n\n"]


def compose_dialect(dialect: str, s: Scenario, template: str, where: str,
                    use_crlf: bool) -> tuple[str, str, list[Segment | str]]:
    """One answer of scenario `s` in `dialect`, as `compose` writes a deepseek one."""
    words = PHRASES[s.language]
    nl = "\r\n" if use_crlf else "\n"
    real = dialect_blocks(dialect, s.real, nl)
    outro: list[Segment | str] = ["\n\n" + s.outro + "\n"] if s.outro else ["\n"]
    shown = _shown(dialect, s, where, words["format"])
    if template == "explain":
        transition = words["call"] if where in ("inline", "none") else words["now"]
        segments: list[Segment | str] = [s.intro + "\n\n", *shown, transition + "\n\n", *real, *outro]
    elif template == "steps":
        steps = [f"{n}. {step}" for n, step in enumerate(s.steps, 1)]
        ex = "\n".join(b.raw for b in dialect_blocks(dialect, (s.example,)) if isinstance(b, Block))
        segments = [f"{s.intro}\n\n{words['plan']}\n\n{steps[0]} {words['format']}\n\n",
                    Code(indent(f"```\n{ex}\n```", "   ")), "\n\n" + "\n".join(steps[1:]) + "\n\n",
                    words["start"] + "\n\n", *real, *outro]
    elif template == "call-first":
        segments = [s.intro + "\n\n", *real, "\n\n", *_shown(dialect, s, where, words["after"]),
                    (s.outro or words["then"].rstrip(":：")) + "\n"]
    elif template == "mention":
        before, after = words["mention"].split("{wrapper}")
        tag = WRITERS[dialect].mentions[0] + " "
        segments = [s.intro + " " + before, Failed(tag) if WRITERS[dialect].mention_fails else tag,
                    after.lstrip(" ") + "\n\n", *real, *outro]
    else:  # two-blocks
        segments = [s.intro + "\n\n", *shown, words["first"] + "\n\n", *real,
                    "\n\n" + words["then"] + "\n\n", *dialect_blocks(dialect, (s.follow_up,), nl), "\n"]
    if WRITERS[dialect].answer is not None:
        segments = WRITERS[dialect].answer(segments)
    if use_crlf:
        segments = list(crlf(*segments))
    description = (f"A realistic {'Chinese ' if s.language == 'zh' else ''}answer in {dialect} "
                   f"markup ({s.slug}): {template}, example: {where}" + (", CRLF" if use_crlf else ""))
    name = "-".join([dialect, s.slug, template, where] + (["crlf"] if use_crlf else []))
    return name, description, segments


def realistic_dialects() -> None:
    for writer in (w for w in writers() if w.realistic):
        for j, recipe in enumerate(DIALECT_RECIPES):
            scenario = SCENARIOS[(rank(writer) * 5 + j * 3) % len(SCENARIOS)]
            name, description, segments = compose_dialect(writer.name, scenario, *recipe)
            case("realistic", name, description, *segments, dialect=writer.name)
