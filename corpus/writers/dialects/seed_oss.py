"""seed_oss: `<seed:tool_call><function=N><parameter=K>v</parameter>`, `<seed:think>` reasoning."""

from __future__ import annotations

from writers.cases import case
from writers.dialects import DialectWriter, Named, register, schema_args
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Arg, Block, Failed, Thinking, args_call, written

OPEN, CLOSE = "<seed:tool_call>", "</seed:tool_call>"
THINK, UNTHINK = "<seed:think>", "</seed:think>"


def seed_block(*calls: tuple[str, dict[str, Arg]]) -> Block:
    """The Seed-OSS template's layout: each tag on its own line, a value inline."""
    body = "\n".join(f"<function={name}>\n" + "".join(
        f"<parameter={k}>{written(v)}</parameter>\n" for k, v in args.items()) + "</function>"
        for name, args in calls)
    return Block(f"{OPEN}\n{body}\n{CLOSE}", tuple(args_call(n, a) for n, a in calls))


def seed_oss() -> None:
    g = d = "seed_oss"
    real = seed_block(("read_file", {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{OPEN}\n<function=run_command>\n<parameter=command>make</parameter>\noops\n"
              "</function>\n<function=run_command>\n<parameter=command>rm -rf build"
              f"</parameter>\n</function>\n{CLOSE}")
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=seed_block(("write_file", {"path": "README.md",
                                                     "content": MARKDOWN_VALUE})),
                 typed=seed_block(("read_file", {"path": "a.py", "limit": ("20", 20),
                                                 "follow": ("true", True)})))
    weather = seed_block(("get_weather", {"location": "Barcelona, Spain"}))
    both = seed_block(("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"}))
    # The serving engines' test texts (facts of the format): thinking with budget
    # reflections, then the call; the format spelled out while thinking, then the call.
    reflect = ("The user's current thinking budget is 512.</seed:cot_budget_reflect>\nLet me "
               "check.\n<seed:cot_budget_reflect>I have used 131 tokens, and there are 381 "
               "tokens remaining for use.</seed:cot_budget_reflect>\n The unit is optional.")
    case(g, "budget-reflections", "Thinking with budget reflections (other seed: tags are "
         "reasoning text), then the call", Thinking(reflect, THINK + reflect + UNTHINK), "\n",
         weather, dialect=d)
    spelled = f"Let me format the call. The format is {both.raw}. Let me go with that."
    case(g, "format-spelled-while-thinking", "Seed-OSS spells the call out while thinking "
         "(SPEC 11): that one is reasoning, the call after the region runs",
         Thinking(spelled, THINK + spelled + UNTHINK), both, dialect=d)
    case(g, "missing-parameter-close", "A value whose </parameter> is missing ends at the next "
         "<parameter= or at </function> (leniency)",
         Block(f"{OPEN}\n<function=edit>\n<parameter=path>a.py\n<parameter=line>3\n"
               f"</function>\n{CLOSE}", (args_call("edit", {"path": "a.py", "line": "3"}),)),
         "\n", dialect=d)
    case(g, "bare-function-is-text", "A <function=...> with no wrapper is no Seed-OSS block: "
         "text (qwen3_coder reads it)", "<function=run>\n<parameter=command>ls</parameter>\n"
         "</function>\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    # One template newline before and after a value is not the value's (value_edges).
    return [seed_block(*schema_args(named, nl, edges=True))]


register(DialectWriter("seed_oss", _blocks, seed_oss, (OPEN, "<function={name}>"),
                       reasoning="seed_think"))
