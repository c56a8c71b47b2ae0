"""List the conversion lines of repositories for a blind labelling batch.

    python tools/unread_sites.py --seed 64 OWNER/NAME=DIR ... > lines.tsv

For each repository (its files exported under DIR), every line of its `.py`
files and notebook code cells that holds an explicit conversion
(`.numpy(`, `torch.from_numpy(`, `torch.as_tensor(`) or a call that may
convert a tensor implicitly (NumPy functions, `plt.plot/imshow/scatter/hist(`,
`.imshow(`, `cv2.imwrite(`) is listed, comment lines left out; a seeded
sample (seed `<seed>:<repo>`) of up to 8 explicit and 4 implicit lines is
printed as `repo<TAB>loc<TAB>sample`, `loc` as `bench unread` reads it
(`path:line`, `path:cellN:line` with N counting code cells from 1).
Nothing here runs tensorlint: the lines of its findings are added by the
one who prepares the batch, unmarked, after this list is made.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.precision import file_lines

EXPLICIT = re.compile(r"\.numpy\(|torch\.from_numpy\(|torch\.as_tensor\(")
IMPLICIT = re.compile(
    r"\bnp\.(?:array|asarray|asanyarray|ascontiguousarray|mean|sum|std|max|min|argmax|argmin"
    r"|stack|vstack|hstack|concatenate|float32|float64|save|savez|savetxt|copy|isnan"
    r"|allclose|sqrt|exp|log|clip|round|abs|median|percentile)\("
    r"|\bplt\.(?:plot|imshow|scatter|hist)\(|\.imshow\(|\bcv2\.imwrite\("
)


def lines_of(root: Path) -> Iterator[tuple[str, str]]:
    """(loc, text) of every line of the tree's Python files and notebook code cells."""
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".ipynb") or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for key, line in file_lines(rel, text):  # (``3:12`` in notebook cell 3)
            yield (f"{rel}:cell{key}" if ":" in key else f"{rel}:{key}"), line


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", required=True)
    parser.add_argument("repos", nargs="+", metavar="OWNER/NAME=DIR")
    args = parser.parse_args(argv)
    for item in args.repos:
        repo, _, folder = item.partition("=")
        explicit: list[str] = []
        implicit: list[str] = []
        for loc, line in lines_of(Path(folder)):
            if line.lstrip().startswith("#"):
                continue
            if EXPLICIT.search(line):
                explicit.append(loc)
            elif IMPLICIT.search(line):
                implicit.append(loc)
        rng = random.Random(f"{args.seed}:{repo}")
        chosen = rng.sample(explicit, min(8, len(explicit)))
        chosen += rng.sample(implicit, min(4, len(implicit)))
        for loc in chosen:
            print(f"{repo}\t{loc}\tsample")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
