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


# -- issue 24: positions, byte-exact writes, hostile JSON, IPython syntax ------------------

#: the first cell of the notebooks below: it names an accelerator, so that a
#: ``.numpy()`` on a tensor that requires grad is TL102, fixed with ``.detach()``
PRELUDE = "import torch\nuse_gpu = torch.cuda.is_available()\n"


def _code_cell(source: str) -> dict[str, object]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


def _write_notebook(path: Path, *sources: str) -> Path:
    cells = [_code_cell(source) for source in (PRELUDE, *sources)]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _cell_source(path: Path, index: int) -> str:
    source = json.loads(path.read_text(encoding="utf-8"))["cells"][index]["source"]
    return source if isinstance(source, str) else "".join(source)


#: characters ``str.splitlines`` breaks lines at, but Python, IPython and Jupyter do not
NOT_LINE_BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("char", NOT_LINE_BREAKS, ids=[f"U+{ord(c):04X}" for c in NOT_LINE_BREAKS])
def test_characters_python_does_not_break_lines_at_keep_positions_in_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    code = (
        f"# part one{char}part two\n"
        "x = torch.ones(2, requires_grad=True)\n"
        f"s = 'a{char}b'\n"
        "y = x.numpy()\n"
    )
    # in an earlier cell, the character shifted every later cell's lines
    path = _write_notebook(tmp_path / "nb.ipynb", code, "z = x\n" + code)
    assert main(["check", "--no-cache", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:cell 2:4:5: TL102" in out, out
    assert f"{path}:cell 3:5:5: TL102" in out, out
    assert "at line 2" in out and "at line 3" in out  # the evidence, as lines of the cell
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    assert _cell_source(path, 1) == code.replace("x.numpy()", "x.detach().numpy()")
    assert _cell_source(path, 2) == "z = x\n" + code.replace("x.numpy()", "x.detach().numpy()")
    assert _cell_source(path, 0) == PRELUDE


def _styled_notebook(as_strings: bool) -> dict[str, object]:
    """A notebook with what a rewrite could change: odd whitespace and line
    breaks in markdown, non-ASCII text, a raw cell, outputs, unsorted keys."""
    code = "# températures\nx = torch.ones(2, requires_grad=True)\ny = x.numpy()\nprint(y)"
    markdown = (
        "# Title  \n\n\t* item with a tab\t\n  indented text\r\n"
        "a form feed\f in text\nunicode: é, ü, 日本\u2028next\n<script>a</script>"
    )

    def source(text: str) -> object:
        return text if as_strings else text.splitlines(keepends=True)

    return {
        "nbformat_minor": 5,
        "cells": [
            {"metadata": {"tags": []}, "cell_type": "markdown", "source": source(markdown)},
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {"zoom": 1.5, "collapsed": False},
                "outputs": [
                    {
                        "data": {"text/plain": ["tensor([1., 1.])"], "image/png": "iVBORw0K\n"},
                        "execution_count": 1,
                        "metadata": {},
                        "output_type": "execute_result",
                    }
                ],
                "source": source(PRELUDE + code),
            },
            {"cell_type": "raw", "metadata": {}, "source": source("  raw\ttext \n\n")},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": source("")},
        ],
        "metadata": {"language_info": {"name": "python"}, "kernelspec": {"name": "python3"}},
        "nbformat": 4,
    }  # fmt: skip


def _hand_written(text: str) -> str:
    """What a person or another tool writes and ``json.dumps`` never does."""
    return (
        text.replace("</script>", "<\\/script>")
        .replace('"zoom": 1.5', '"zoom" : 1.50')
        .replace('"collapsed": false', '"collapsed":false')
        # items of a source list out of line, spaces after a comma
        .replace('\n    "  indented text', '\n        "  indented text')
        .replace('\n    "print(y)"', '\n            "print(y)"')
        .replace('requires_grad=True)\\n",', 'requires_grad=True)\\n",   ')
    )


NOTEBOOK_STYLES = {
    "indent-1": lambda nb: json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
    "indent-2-ascii-no-final-newline": lambda nb: json.dumps(nb, indent=2),
    "tabs": lambda nb: json.dumps(nb, indent="\t", ensure_ascii=False) + "\n",
    "compact": lambda nb: json.dumps(nb, separators=(",", ":"), ensure_ascii=False),
    "one-line-ascii": lambda nb: json.dumps(nb) + "\n",
    "crlf": lambda nb: json.dumps(nb, indent=1, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    "hand-written": lambda nb: _hand_written(json.dumps(nb, indent=1, ensure_ascii=False)),
}


@pytest.mark.parametrize("as_strings", [False, True], ids=["source-lists", "source-strings"])
@pytest.mark.parametrize("style", sorted(NOTEBOOK_STYLES))
def test_a_fix_changes_only_the_fixed_text_in_the_notebook_file(
    tmp_path: Path, style: str, as_strings: bool
) -> None:
    path = tmp_path / "styled.ipynb"
    before = NOTEBOOK_STYLES[style](_styled_notebook(as_strings))
    path.write_bytes(before.encode("utf-8"))
    assert before.count("y = x.numpy()") == 1
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    after = path.read_bytes().decode("utf-8")
    assert after == before.replace("y = x.numpy()", "y = x.detach().numpy()")


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github", "junit"])
def test_a_notebook_python_cannot_read_as_json_is_one_error_and_the_rest_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    (tmp_path / "digits.ipynb").write_text('{"cells": [], "execution_count": ' + "7" * 5000 + "}")
    depth = 100_000
    (tmp_path / "deep.ipynb").write_text('{"cells": [], "x": ' + "[" * depth + "]" * depth + "}")
    (tmp_path / "ok.py").write_text("import torch\n\n\ndef f(t):\n    return t.numpy()\n")
    code = main(["check", "--no-cache", "--output-format", output_format, str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 2
    assert "ok.py" in out and "TL101" in out
    if output_format == "text":
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert len(errors) == 2, out
        assert any("digits.ipynb" in e and "5000 digits" in e for e in errors), errors
        assert any("deep.ipynb" in e and "nested too deeply" in e for e in errors), errors
    else:
        assert "digits.ipynb" in out and "deep.ipynb" in out


def test_fix_writes_the_good_files_and_reports_a_notebook_json_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "digits.ipynb").write_text('{"cells": [], "execution_count": ' + "7" * 5000 + "}")
    good = _write_notebook(
        tmp_path / "good.ipynb", "x = torch.ones(2, requires_grad=True)\ny = x.numpy()\n"
    )
    assert main(["check", "--no-cache", "--fix", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "digits.ipynb" in out
    assert (
        _cell_source(good, 1) == "x = torch.ones(2, requires_grad=True)\ny = x.detach().numpy()\n"
    )


def test_ipython_syntax_is_masked_where_ipython_reads_it_and_nowhere_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = (
        "a, b = 1, 2\n"
        "x = (a\n    != b)\n"  # continuation lines: Python, not a shell escape or a magic
        "z = (3\n    % 2)\n"
        "s = '''\n%d items\n!not a shell line\n'''\n"
        "files = !ls\n"  # IPython's assignment forms
        "t = %time torch.ones(2)\n"
        "torch.ones?\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "y = w.numpy()  # but why?\n"  # a comment, not a help query
    )
    later = "\n%%bash\necho (\n"  # a cell magic after a blank line
    path = _write_notebook(tmp_path / "nb.ipynb", code, later)
    assert main(["check", "--no-cache", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error" not in out and "Checked 1 file: 1 parsed." in out, out
    assert f"{path}:cell 2:14:5: TL102" in out, out
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    assert _cell_source(path, 1) == code.replace("w.numpy()", "w.detach().numpy()")
    assert _cell_source(path, 2) == later


def test_reading_a_hostile_cell_stops_at_the_time_limit_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensorlint.engine import runner

    # quotes that never close, one after another: each is a token to follow
    _write_notebook(tmp_path / "quotes.ipynb", "!ls\nx = " + "'\\" * 3_000_000 + "\n")
    (tmp_path / "ok.py").write_text("import torch\n\n\ndef f(t):\n    return t.numpy()\n")
    monkeypatch.setenv(runner.BUDGET_VARIABLE, "0.5")
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "quotes.ipynb: not checked: it took longer than 0.5 s" in errors[0]
    assert "ok.py:5:12: TL101" in out


def test_a_cell_that_does_not_parse_is_skipped_and_the_others_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an exercise notebook: blanks left for the student do not parse
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import numpy as np\nimport torch\ndevice = 'cuda'"),
        nbformat.v4.new_code_cell("batch_size = \n    lr = ???"),
        nbformat.v4.new_code_cell("x = torch.ones(3, device=device)\nx.numpy()"),
        nbformat.v4.new_code_cell("def step(:\n    pass"),
    ]
    path = tmp_path / "exercise.ipynb"
    nbformat.write(nb, str(path))
    before = path.read_text()
    assert main(["check", str(path)]) == 2  # the file is not wholly checked: an error
    out = capsys.readouterr().out
    assert f"{path}:cell 3:2:1: TL101" in out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert "cell 2: syntax error at line 1" in errors[0]
    assert "cell 4: syntax error at line 1" in errors[0]
    assert "the other cells were checked" in errors[0]
    # the fix goes into the cell that parses; the skipped cells are kept byte for byte
    assert main(["check", "--fix", str(path)]) == 2
    fixed = nbformat.read(str(path), as_version=4)
    assert fixed.cells[2].source == "x = torch.ones(3, device=device)\nx.cpu().numpy()"
    assert fixed.cells[1].source == "batch_size = \n    lr = ???"
    assert fixed.cells[3].source == "def step(:\n    pass"
    assert sum(a != b for a, b in zip(before.splitlines(), path.read_text().splitlines())) == 1


def test_a_notebook_whose_every_cell_is_broken_names_each_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import torch\nt = torch.ones(1).numpy(("),
        nbformat.v4.new_code_cell("x = (\n"),
    ]
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, str(path))
    assert main(["check", str(path)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert f"{path}: cell " in errors[0]
    # (where Python places an unclosed bracket differs between versions)
    assert "cell 1: syntax error at line" in errors[0]
    assert "; cell 2: syntax error at line" in errors[0]
