"""``python -m qlsbench.cli``: the ``qlsbench`` command."""

import sys

from qlsbench.cli import main

sys.exit(main())
