from toolparse._stream.parser import DEFAULT_MAX_CAPTURE, StreamParser
from toolparse._stream.whole import parse

__all__ = ["DEFAULT_MAX_CAPTURE", "StreamParser", "parse"]
