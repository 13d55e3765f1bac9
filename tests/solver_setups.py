"""Options that make a built-in solver that has required options buildable, for tests that build every solver.

Every other built-in builds with its defaults; ``external`` needs to be told where its solver is. Here it runs a
dense solve in another process, by this interpreter (an environment of its own is tests/test_external.py's).
"""

import sys
from pathlib import Path

EXTERNAL_LU = {"environment": sys.executable, "entry": f"{Path(__file__).parent / 'data' / 'external_lu.py'}:solve"}

#: Options a built-in cannot be built without, by name.
REQUIRED = {"external": EXTERNAL_LU}
