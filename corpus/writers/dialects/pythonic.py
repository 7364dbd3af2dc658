"""pythonic: a list of Python calls in `<|python_start|>...<|python_end|>` (Llama 4;
the same list as Llama 3.2 and ToolACE write it). A missing `<|python_end|>` ends the
block where the list closes (SPEC 5.3 a).

Its own cases are the texts vLLM's `pythonic` and `llama4_pythonic` parser tests and
SGLang's PythonicDetector tests parse, rewritten as cases: what SPEC 5.3 c gives for
each, and where that differs, the difference docs/dialects.md explains. The bare list
with no marker counts only at the start of the stream (SPEC 5.3 b): in an answer it is
text.
"""

from __future__ import annotations

from writers.cases import case
from writers.dialects.pythonic_calls import PyCalls, py_call, pythonic_dialect
from writers.segments import Block, Failed

D = "pythonic"
START, END = "<|python_start|>", "<|python_end|>"
CALLS = PyCalls(START, END, listed=True)
LA = ("get_weather", {"city": "LA", "metric": "C"})
DOE = ("register_user", {"name": "Doe", "age": 9})


def _own() -> None:
    g = D
    case(g, "missing-end", "No <|python_end|>: the block ends where the list closes, and "
         "what follows is text (SPEC 5.3 a)",
         Block(f"{START}[get_weather(city='LA', metric='C'),register_user(name='Doe', age=9)]",
               (py_call(*LA), py_call(*DOE))), " Then I will answer.", dialect=D)
    case(g, "engine-compact", "Calls with no space between them",
         Block(f"{START}[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]{END}",
               (py_call(*LA), py_call(*DOE))), dialect=D)
    case(g, "engine-text-around", "Text before and after the block",
         "User wants to get the weather in Mars. ",
         Block(f"{START}[get_weather(location='Mars', unit='celsius')]{END}",
               (py_call("get_weather", {"location": "Mars", "unit": "celsius"}),)),
         " In this way we will get the weather in Mars.", dialect=D)
    case(g, "engine-numbers", "Signed ints and floats, in a list too",
         Block(f"{START}[move(x=-1.5, y=2.0, deltas=[-1, -2, 3]), set_temperature(value=-5)]{END}",
               (py_call("move", {"x": -1.5, "y": 2.0, "deltas": [-1, -2, 3]}),
                py_call("set_temperature", {"value": -5}))), dialect=D)
    case(g, "engine-unary-on-no-number", "A minus before a string or True is no literal: "
         "the block fails (not_literal)",
         Failed(f'{START}[move(x=-"hello", y=0)]{END}', "not_literal", at='-"'), "\n",
         Failed(f"{START}[move(x=-True, y=0)]{END}", "not_literal", at="-T"), dialect=D)
    case(g, "engine-positional", "A positional argument fails the block (not_literal; "
         "SGLang drops it and makes a call with no arguments)",
         Failed(f"{START}[get_weather('Tokyo')]{END}", "not_literal", at="')"), dialect=D)
    case(g, "engine-malformed", "A keyword with no value, and brackets the model got "
         "wrong, fail the block",
         Failed(f"{START}[get_weather(city=)]{END}", at=")]"), "\n",
         Failed(f"{START}[foo(x=1])]{END}", at="])]"), dialect=D)
    case(g, "engine-infinite-number", "A number JSON cannot carry rejects its own call "
         "(invalid_json, G11); its sibling is a call",
         Block(f"{START}[calc(x=1e999), get_weather(city='LA', metric='C')]{END}",
               (py_call("calc", {}), py_call(*LA))), dialect=D)
    case(g, "bare-list-in-an-answer", "A Python list of calls in the middle of an answer, "
         "with no marker, is text (SPEC 5.3 b)",
         "I will check the weather for you. [get_weather(city='Tokyo')]\n", dialect=D)


pythonic_dialect(D, CALLS, tag_names=r"<\|(python_start|python_end)\|>", own=_own)
