"""``python -m bench`` (``python -m bench precision`` for the labelled precision bench,
``python -m bench recall`` for real hazards mined from fix commits,
``python -m bench unread`` for conversion sites labelled blind on repositories no rule
was adjusted on, ``python -m bench load`` for many and big files)."""

import sys

if sys.argv[1:2] == ["load"]:
    from bench.load import main as load_main

    raise SystemExit(load_main(sys.argv[2:]))

if sys.argv[1:2] == ["recall"]:
    from bench.recall import main as recall_main

    raise SystemExit(recall_main(sys.argv[2:]))

if sys.argv[1:2] == ["unread"]:
    from bench.unread import main as unread_main

    raise SystemExit(unread_main(sys.argv[2:]))

if sys.argv[1:2] == ["precision"]:
    from bench.precision import main as precision_main

    raise SystemExit(precision_main(sys.argv[2:]))

from bench.cli import main

raise SystemExit(main())
