"""``python -m conformance`` is the ``ppconf`` command."""

import sys

from conformance._cli import main

sys.exit(main())
