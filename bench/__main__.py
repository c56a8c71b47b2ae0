"""``python -m bench`` (``python -m bench precision`` for the labelled precision bench)."""

import sys

if sys.argv[1:2] == ["precision"]:
    from bench.precision import main as precision_main

    raise SystemExit(precision_main(sys.argv[2:]))

from bench.cli import main

raise SystemExit(main())
