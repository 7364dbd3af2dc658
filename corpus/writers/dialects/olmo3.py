"""olmo3: Python calls, one per line, in `<function_calls>...</function_calls>` (Olmo 3).

Its own cases are the texts vLLM's Olmo 3 parser tests parse (tests/tool_parsers/
test_olmo3_tool_parser.py), rewritten as cases: what SPEC 5.3 c gives for each, and
where that differs from vLLM, the difference docs/dialects.md explains.
"""

from __future__ import annotations

from writers.cases import case
from writers.dialects.pythonic_calls import PyCalls, pythonic_dialect
from writers.segments import Failed

D = "olmo3"
CALLS = PyCalls("<function_calls>", "</function_calls>", listed=False)

REGISTER = ("register_user(name='John Doe', age=37, address={'city': 'San Francisco', "
            "'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])")
REGISTERED = {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"},
              "role": None, "passed_test": True, "aliases": ["John", "Johnny"]}
WEATHER = "get_weather(city='San Francisco', metric='celsius')"
WEATHERED = {"city": "San Francisco", "metric": "celsius"}


def _own() -> None:
    g = D
    case(g, "engine-more-types", "Every kind of literal: a string, an int, a dict, None, "
         "True, a list; and JSON's null and true, which Olmo 3 also writes (accept-only)",
         CALLS.block([], written=[REGISTER], meant=[("register_user", REGISTERED)]), "\n",
         CALLS.block([], written=[REGISTER.replace("None", "null").replace("True", "true")],
                     meant=[("register_user", REGISTERED)]), dialect=D)
    case(g, "engine-parallel", "Two calls on two lines, then a call with no arguments and "
         "empty collections",
         CALLS.block([], written=[WEATHER, REGISTER],
                     meant=[("get_weather", WEATHERED), ("register_user", REGISTERED)]), "\n",
         CALLS.block([], written=["get_weather()", "do_something_cool(additional_data={})",
                                  "do_something_cool(steps=[])"],
                     meant=[("get_weather", {}), ("do_something_cool", {"additional_data": {}}),
                            ("do_something_cool", {"steps": []})]), dialect=D)
    case(g, "engine-escaped-strings", "Escaped quotes of either kind inside a string",
         CALLS.block([], written=["get_weather(city='Martha\\'s Vineyard', "
                                  "metric='\\\"cool units\\\"')"],
                     meant=[("get_weather", {"city": "Martha's Vineyard",
                                             "metric": '"cool units"'})]), dialect=D)
    case(g, "engine-bytes-sibling", "A bytes value is no JSON value: the whole block fails "
         "as text, its good sibling too (G4: nothing of a failed block runs; vLLM keeps "
         "the sibling)", Failed(f"<function_calls>bad(x=b'z')\n{WEATHER}</function_calls>",
                               "not_literal", at="b'z'"), dialect=D)
    case(g, "engine-mismatched-brackets", "Brackets the model got wrong fail the block",
         Failed("<function_calls>foo(x=1])</function_calls>", at="])"), dialect=D)
    case(g, "engine-no-call", "An answer with no call is its text",
         "How can I help you today?", dialect=D)


pythonic_dialect(D, CALLS, tag_names=r"</?(function_calls)>", own=_own)
