"""``python -m gdpproof.cli``: the console script ``gdpproof`` without an installed entry point."""

import sys

from . import main

sys.exit(main())
