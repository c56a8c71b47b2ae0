"""Jupyter notebooks: checked per cell, fixed in place, everything else kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tensorlint.cli import main

nbformat = pytest.importorskip("nbformat", reason="notebook tests need nbformat (test extra)")


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Exploring the model"),
        nbformat.v4.new_code_cell(
            # names an accelerator: a notebook that never does gives no evidence
            "import numpy as np\nimport torch\nuse_gpu = torch.cuda.is_available()\n"
            "%matplotlib inline"
        ),
        nbformat.v4.new_code_cell("!pip install einops\nmodel = torch.nn.Linear(2, 1)"),
        nbformat.v4.new_code_cell("out = model(torch.ones(1, 2))\npreds = out.numpy()"),
        nbformat.v4.new_code_cell("%%bash\necho this is not python ("),
    ]
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", name="stdout", text="done\n")]
    nb.cells[3].execution_count = 3
    nbformat.write(nb, str(path))


def test_findings_are_reported_by_cell_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "explore.ipynb"
    make_notebook(path)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:cell 3:2:9: TL102" in out
    assert "syntax" not in out and "error" not in out  # magics did not break parsing


def test_fixes_are_written_back_keeping_outputs_metadata_and_formatting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "explore.ipynb"
    make_notebook(path)
    before = path.read_text()
    assert main(["check", "--fix", str(path)]) == 0
    after = path.read_text()
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[3].source == "out = model(torch.ones(1, 2))\npreds = out.cpu().detach().numpy()"
    assert nb.cells[3].outputs[0]["text"] == "done\n"
    assert nb.cells[1].source.endswith("%matplotlib inline")
    assert nb.cells[2].source.startswith("!pip install einops")
    assert nb.metadata["kernelspec"]["name"] == "python3"
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(changed) == 1 and "cpu().detach()" in changed[0][1]
    assert after.endswith("\n") == before.endswith("\n")
    assert main(["check", str(path)]) == 0


def test_a_notebook_that_is_not_json_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "ok.py").write_text("import torch\n\n\ndef f(t):\n    return t.numpy()\n")
    assert main(["check", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "broken.ipynb" in errors[0] and "not valid JSON" in errors[0]
    assert "ok.py:5:12: TL101" in out


def test_notebook_json_text_round_trips_when_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "clean.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import torch\nx = torch.ones(2).numpy()")]
    nbformat.write(nb, str(path))
    before = path.read_bytes()
    assert main(["check", "--fix", str(path)]) == 0
    assert path.read_bytes() == before
    source = json.loads(before)["cells"][0]["source"]
    assert "".join(source) == "import torch\nx = torch.ones(2).numpy()"


def test_fix_edits_are_reported_in_cell_coordinates(tmp_path: Path) -> None:
    from tensorlint.engine.runner import RunOptions, check_file
    from tensorlint.registry import select
    from tensorlint.rule import Settings

    path = tmp_path / "explore.ipynb"
    make_notebook(path)
    result = check_file(path, Settings(enabled=select()), RunOptions())
    (finding,) = [d for d in result.diagnostics if d.code == "TL102"]
    assert finding.fix is not None
    (edit,) = finding.fix.edits
    assert (finding.cell, finding.start.line, edit.start.line) == (3, 2, 2)


def test_a_shell_escape_continued_by_a_backslash_is_not_python(tmp_path: Path) -> None:
    path = tmp_path / "prep.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("! python prepare.py --data_dir data \\\n        --max_len 510"),
        nbformat.v4.new_code_cell(
            "import torch\nx = torch.ones(2, requires_grad=True)\ny = x.numpy()"
        ),
    ]
    nbformat.write(nb, str(path))
    from tensorlint.engine.runner import RunOptions, check_file
    from tensorlint.registry import select
    from tensorlint.rule import Settings

    result = check_file(path, Settings(enabled=select(strict=True)), RunOptions())
    assert result.error is None
    assert [(d.cell, d.start.line, d.code) for d in result.diagnostics] == [(2, 3, "TL102")]


def test_a_fix_that_removes_lines_keeps_every_line_in_its_cell(tmp_path: Path) -> None:
    path = tmp_path / "collapse.ipynb"
    nb = nbformat.v4.new_notebook()
    first = (
        "import numpy as np\nimport torch\n%matplotlib inline\n"
        "w = torch.ones(2, device='cuda')\na = np.asarray(\n    w\n)\n!ls\nb = 1"
    )
    nb.cells = [
        nbformat.v4.new_code_cell(first),
        nbformat.v4.new_markdown_cell("text"),
        nbformat.v4.new_code_cell("c = 2\nd = np.asarray(\n  w)\ne = 3"),
    ]
    nbformat.write(nb, str(path))
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 0
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[0].source == first.replace("np.asarray(\n    w\n)", "w.cpu().detach().numpy()")
    assert cells[1].source == "text"
    assert cells[2].source == "c = 2\nd = w.cpu().detach().numpy()\ne = 3"


def test_a_cell_whose_source_is_not_text_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, source in (("null.ipynb", None), ("numbers.ipynb", [1, 2])):
        cell = {"cell_type": "code", "metadata": {}, "outputs": [], "source": source}
        (tmp_path / name).write_text(json.dumps({"cells": [cell], "metadata": {}}))
    assert main(["check", str(tmp_path)]) == 2
    errors = [line for line in capsys.readouterr().out.splitlines() if "error" in line]
    assert len(errors) == 2 and all("'source' is not text" in line for line in errors)
