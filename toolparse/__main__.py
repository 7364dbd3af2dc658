"""`python -m toolparse`: the command line (see toolparse/_cli.py)."""

import sys

from toolparse._cli import main

sys.exit(main())
