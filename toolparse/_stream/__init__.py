from toolparse._stream.parser import DEFAULT_MAX_CAPTURE, StreamParser, parse

__all__ = ["DEFAULT_MAX_CAPTURE", "StreamParser", "parse"]
