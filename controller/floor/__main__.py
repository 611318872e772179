"""``python -m controller.floor``: the same as the ``table-floor`` console script."""

import sys

from controller.floor.cli import main

sys.exit(main())
