"""Rewrite every fixture's expected files from what tensorlint does now.

Run ``python tests/regen_fixtures.py`` after changing a rule, then read the
diff: the tests compare against these files and fail when they are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixture_cases import all_cases


def main() -> int:
    for case in all_cases():
        case.expected_path.write_text(case.findings_text(), encoding="utf-8")
        fixed = case.fixed_text()
        if fixed != case.source:
            case.fixed_path.write_text(fixed, encoding="utf-8")
        elif case.fixed_path.exists():
            case.fixed_path.unlink()
    print(f"regenerated {len(all_cases())} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
