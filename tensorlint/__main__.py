from __future__ import annotations

import sys

from tensorlint.cli import main

sys.exit(main())
