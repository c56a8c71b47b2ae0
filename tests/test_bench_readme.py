"""The README's precision and recall tables are written by the benches
(``--readme``), between marker comments, never typed: their format is the
benches' own, and rewriting a table leaves the rest of the file alone."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from bench import precision, readme, recall, unread

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
STAMP = re.compile(
    r"^Printed by `(?P<command>python -m bench (?:precision|recall|unread)[^`]*)` on "
    r"(?P<day>\d{4}-\d{2}-\d{2}), tensorlint \S+ \(git [0-9a-f]{7,40}\)\.$"
)


def _section() -> str:
    return README.split("## Precision and recall\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("name", sorted(readme.COMMANDS))
def test_each_bench_table_of_the_readme_is_between_its_markers_in_the_bench_format(
    name: str,
) -> None:
    content = readme.block(README, name)  # (each marker once, in order)
    assert readme.begin(name) in _section()
    first, blank, *table = content.splitlines()
    match = STAMP.match(first)
    assert match is not None, first
    assert readme.COMMANDS[name].startswith(match.group("command"))
    assert datetime.date.fromisoformat(match.group("day")) <= datetime.date.today()
    assert blank == ""
    # the rows are the benches' own rendering: render an example and compare shapes
    if name == "precision":
        example = precision.readme_table([("default", "blind", precision.Tally())], {}).splitlines()
    elif name == "unread":
        profiles = list(unread.PROFILES)
        example = unread.render([], {p: {} for p in profiles}, {}, profiles).splitlines()
    else:
        example = recall.render([], [recall.HIGH, "default", "strict"]).splitlines()
    assert table[0].split(" ")[1:3] == example[0].split(" ")[1:3]  # "N labels" / "N real"
    heads = [line for line in table if line.startswith("|")][:2]
    assert heads == [line for line in example if line.startswith("|")][:2]
    # and the regeneration command is documented where the tables are
    assert readme.COMMANDS[name] in _section()


def test_writing_a_table_replaces_only_what_is_between_its_markers(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(README, encoding="utf-8")
    readme.write(path, "recall", "Printed by ... \n\n| | default |\n|---|---|\n| all real | 1/2 |")
    text = path.read_text(encoding="utf-8")
    assert readme.block(text, "recall").endswith("| all real | 1/2 |")
    assert readme.block(text, "precision") == readme.block(README, "precision")
    assert readme.replace(text, "recall", readme.block(README, "recall")) == README


def test_a_file_without_the_markers_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text("# no tables here\n", encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        readme.write(path, "precision", "x")
    message = str(info.value)
    assert message.startswith(f"{path}: cannot write the precision table: ")
    assert readme.begin("precision") in message and "\n" not in message
    assert path.read_text(encoding="utf-8") == "# no tables here\n"


def test_the_stamp_names_the_command_the_day_and_the_commit() -> None:
    line = readme.stamp("python -m bench recall --strict", datetime.date(2026, 11, 26))
    assert line.startswith("Printed by `python -m bench recall --strict` on 2026-11-26, ")
    if "(git " in line and "uncommitted" not in line:
        assert STAMP.match(line)


def test_the_precision_table_is_the_scores_totals() -> None:
    def label(package: str, line: str, code: str, verdict: str, sampled: bool = True) -> tuple:
        key = precision.Key(package, "a.py", line, code)
        return key, precision.Label(key, "1", verdict, "why", sampled=sampled)

    blind = sorted(precision.BLIND)[0]
    labels = dict(
        [
            label("p", "3", "TL101", "REAL"),
            label("p", "9", "TL102", "FP"),
            label(blind, "5", "TL101", "FP"),
            label(blind, "7", "TL101", "REAL"),  # drawn, not found: a miss
            label(blind, "8", "TL101", "REAL", sampled=False),  # listed as reported only
        ]
    )
    found = {
        precision.Key("p", "a.py", "3", "TL101"): "m",
        precision.Key("p", "b.py", "1", "TL111"): "m",
        precision.Key(blind, "a.py", "5", "TL101"): "m",
    }
    _, _, by_set, _ = precision.score(found, labels)
    totals = [("default", group, by_set[group]) for group in ("blind", "development", "all")]
    table = precision.readme_table(totals, labels).splitlines()
    assert table[0] == "5 labels on 5 sites (3 REAL, 0 WEAK, 2 FP):"
    # the reported-only REAL label is not a miss: it scores findings, never recall
    blind_count = len(precision.BLIND)
    development_count = len(precision.PACKAGES) + len(precision.LOCAL) - blind_count
    assert table[-3] == f"| default | blind ({blind_count}) | 1 | 0 | 0 | 1 | 0 | 0% | 0/1 (0%) |"
    assert table[-2] == (
        f"| default | development ({development_count}) | 2 | 1 | 0 | 0 | 1 | 100% | 1/1 (100%) |"
    )
    assert table[-1] == "| default | all | 3 | 1 | 0 | 1 | 1 | 50% | 1/2 (50%) |"
