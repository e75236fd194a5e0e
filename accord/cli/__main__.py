"""``python -m accord.cli``: the same as the ``accord`` command."""

import sys

from accord.cli.main import main

sys.exit(main())
