"""``python -m controller.cli``: ``table-controller`` without the installed console script."""

import sys

from controller.cli import main

sys.exit(main())
