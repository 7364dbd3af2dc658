from toolparse._cli.main import main

__all__ = ["main"]
