"""`python -m benchmarks`: the same as `toolparse bench`."""

import sys

from toolparse._bench import main

sys.exit(main())
