"""``python -m qlsbench``: the command line, for environments where the console script is not installed
(the workflow's rules call it so, from the workflow's own source)."""

import sys

from qlsbench.console import main

sys.exit(main())
