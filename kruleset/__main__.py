"""``python -m kruleset``: the ``kruleset`` command without the console script."""

import sys

from .cli import main

sys.exit(main())
