"""lfm2: a list of Python calls, or a JSON array of calls, in
`<|tool_call_start|>...<|tool_call_end|>` (LiquidAI LFM2, LFM2.5).

Its own cases are the texts vLLM's LFM2 parser tests parse (tests/tool_parsers/
test_lfm2_tool_parser.py), rewritten as cases: what SPEC 5.3 c gives for each, and
where that differs from vLLM, the difference docs/dialects.md explains.
"""

from __future__ import annotations

import json

from writers.cases import case
from writers.dialects.pythonic_calls import PyCalls, py_call, pythonic_dialect
from writers.segments import Block, Failed

D = "lfm2"
START, END = "<|tool_call_start|>", "<|tool_call_end|>"
CALLS = PyCalls(START, END, listed=True)
GROCERY = ("grocery.orderIngredients(ingredientList=[{'name': 'Lasagna noodles', "
           "'amount': 250, 'unit': 'g'}], deliveryAddress='845 Willow Lane, Springfield, "
           "IL 62704')")
GROCERIES = {"ingredientList": [{"name": "Lasagna noodles", "amount": 250, "unit": "g"}],
             "deliveryAddress": "845 Willow Lane, Springfield, IL 62704"}


def _written(text: str, *meant: tuple[str, dict[str, object]]) -> Block:
    return CALLS.block([], written=[text], meant=list(meant))


def _own() -> None:
    g = D
    case(g, "engine-content-after", "Text after the block is content",
         _written("get_candidate_status(candidate_id='12345')",
                  ("get_candidate_status", {"candidate_id": "12345"})),
         "\nChecking the current status of candidate ID 12345.", dialect=D)
    case(g, "engine-dotted-name", "A dotted name, a list of dicts",
         _written(GROCERY, ("grocery.orderIngredients", GROCERIES)), dialect=D)
    case(g, "engine-strings", "A bracket, a raw newline and a NUL inside strings; a set "
         "becomes a list; a zero-padded integer is read as decimal",
         _written("exec(command='grep -F \"]\" log.txt')",
                  ("exec", {"command": 'grep -F "]" log.txt'})), "\n",
         _written("exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')",
                  ("exec", {"command": "cat > f.py << EOF\nimport csv\nprint(1)\nEOF"})), "\n",
         _written("exec(command='printf a\x00b')", ("exec", {"command": "printf a\x00b"})), "\n",
         _written("label(tags={'urgent', 'bug'})", ("label", {"tags": ["urgent", "bug"]})), "\n",
         _written("set_date(month=07, day=05)", ("set_date", {"month": 7, "day": 5})), dialect=D)
    case(g, "engine-nested-quotes", "A quote of the string's own kind, unescaped, ends the "
         "string: the rest is no Python and fails the block (vLLM guesses where it ends)",
         Failed(f"{START}[bash(command='sed -n '360,450p' /testbed/common.py')]{END}",
                at="360"), dialect=D)
    case(g, "engine-empty-list", "An empty list is a block of no call",
         Block(f"{START}[]{END}", ()), "\n", Block(f"{START}[ ]{END}", ()), dialect=D)
    case(g, "engine-bytes-sibling", "A bytes value fails the whole block as its text, "
         "its good sibling too (G4; vLLM keeps the sibling)",
         Failed(f"{START}[get_candidate_status(candidate_id='12345'), bad(x=b'z')]{END}",
                "not_literal", at="b'z'"), dialect=D)
    case(g, "engine-around", "Text before and after a block, whitespace after the start "
         "token, and a body echoed after the block, which is text (vLLM hides it)",
         "Let me check. ",
         Block(f"{START} [get_weather()]{END}", (py_call("get_weather", {}),)),
         f"[get_weather()]{END}\nDone.", dialect=D)
    element = {"name": "get_weather", "arguments": {"city": "Paris"}}
    case(g, "json-array", "The JSON-tools template's form: a JSON array of calls, "
         "double-quoted dicts inside Python values too",
         Block(f"{START}[{json.dumps(element)}, {json.dumps({'name': 'get_time'})}]{END}",
               (py_call("get_weather", {"city": "Paris"}), py_call("get_time", {}))), "\n",
         _written('grocery.orderIngredients(ingredientList=[{"name": "apple", "quantity": '
                  '"2"}, {"name": "bread", "quantity": "1"}])',
                  ("grocery.orderIngredients", {"ingredientList": [
                      {"name": "apple", "quantity": "2"}, {"name": "bread", "quantity": "1"}]})),
         dialect=D)


pythonic_dialect(D, CALLS, tag_names=r"<\|(tool_call_start|tool_call_end)\|>", own=_own)
