"""The inline phase: code spans, raw HTML and autolinks, links, and the tickets that
wait on them (`state.py` says how the state is laid out, `runner.py` how text is fed)."""
