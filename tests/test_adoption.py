"""Rough edges a new user hit in the first hour, each through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import GRAD, run, write

from tensorlint.cli import main

PLAIN = "def f(x):\n    return x + 1\n"


# -- 1: what is parsed, and the summary says so ---------------------------------


def test_the_summary_says_how_many_files_were_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "model.py", GRAD)
    write(tmp_path / "plain.py", PLAIN)
    write(tmp_path / "broken.py", "def f(:\n")  # no conversion: not parsed
    code, out, _ = run(["check", "--no-cache", str(tmp_path)], capsys)
    assert code == 1
    assert "Checked 3 files: 1 parsed, 2 without a conversion (not parsed)." in out


def test_a_syntax_error_in_a_file_that_may_hold_a_finding_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "broken.py", "import torch\n\ndef f(t:\n    return t.numpy()\n")
    code, out, _ = run(["check", "--no-cache", str(tmp_path)], capsys)
    assert code == 2
    assert "broken.py" in out and "syntax" in out.lower()


def test_cached_files_are_counted_as_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "model.py", GRAD)
    run(["check", "."], capsys)
    _, out, _ = run(["check", "."], capsys)
    assert "Checked 1 file: 1 unchanged since the last run (cached)." in out


# -- 2: a configuration file that cannot be read --------------------------------


def test_a_pyproject_that_is_not_toml_is_exit_2_even_without_our_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "pyproject.toml", "[project\nname = 'x'\n")
    write(tmp_path / "model.py", GRAD)
    code, _, err = run(["check", "--no-cache", str(tmp_path)], capsys)
    assert code == 2
    assert "pyproject.toml" in err and "invalid TOML" in err


def test_flake8_reports_the_broken_pyproject_as_tl000(tmp_path: Path) -> None:
    pytest.importorskip("flake8", reason="flake8 is in the test extra")
    write(tmp_path / "pyproject.toml", "[project\n")
    write(tmp_path / "model.py", GRAD)
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "TL", "model.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "TL000" in proc.stdout and "invalid TOML" in proc.stdout


# -- 5: --diff writes nothing and says so ---------------------------------------


def test_diff_says_would(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "model.py", GRAD)
    code, out, err = run(["check", "--no-cache", "--diff", str(path)], capsys)
    assert code == 1
    assert "+    return model(x).cpu().detach().numpy()" in out
    assert "would change 1 file." in err and "Would fix 2 findings (TL101 1, TL102 1)" in err
    assert "changed 1 file" not in err.replace("would change", "")
    assert path.read_text(encoding="utf-8") == GRAD


def test_diff_with_fix_only_exits_1_while_fixes_are_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As Ruff: ``--diff --fix-only`` is a dry run, and a dry run with fixes
    to apply fails (CI's "is everything fixed?")."""
    path = write(tmp_path / "model.py", GRAD)
    code, out, _ = run(["check", "--no-cache", "--diff", "--fix-only", str(path)], capsys)
    assert code == 1 and "+    return model(x).cpu().detach().numpy()" in out
    assert path.read_text(encoding="utf-8") == GRAD
    assert run(["check", "--no-cache", "--fix-only", str(path)], capsys)[0] == 0  # fixes them
    code, out, _ = run(["check", "--no-cache", "--diff", "--fix-only", str(path)], capsys)
    assert (code, out) == (0, "")


def test_diff_is_coloured_with_color_always_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import re

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    path = write(tmp_path / "model.py", GRAD)
    _, plain, _ = run(["check", "--no-cache", "--diff", str(path)], capsys)  # auto, not a TTY
    _, never, _ = run(["check", "--no-cache", "--diff", "--color", "never", str(path)], capsys)
    _, always, _ = run(["check", "--no-cache", "--diff", "--color", "always", str(path)], capsys)
    assert "\x1b" not in plain and never == plain
    assert "\x1b[31m-    return model(x).numpy()\x1b[0m\n" in always
    assert "\x1b[32m+    return model(x).cpu().detach().numpy()\x1b[0m\n" in always
    assert always.startswith(f"\x1b[1m--- a/{path}\x1b[0m\n\x1b[1m+++ b/{path}\x1b[0m\n\x1b[36m@@")
    assert re.sub(r"\x1b\[\d+m", "", always) == plain


# -- 10: options as Ruff users expect them ---------------------------------------


def test_no_python_files_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "notes.txt", "nothing here")
    code, out, err = run(["check", "--no-cache", str(tmp_path)], capsys)
    assert code == 0
    assert "No Python files found" in err
    assert "All checks passed" not in out


def test_repeated_select_adds_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        tmp_path / "model.py",
        "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n",
    )
    _, out, _ = run(
        ["check", "--no-cache", "--select", "TL101", "--select", "TL102", str(tmp_path)], capsys
    )
    assert " TL101 " in out and " TL102 " in out
    _, out, _ = run(["check", "--no-cache", "--select", "TL102", str(tmp_path)], capsys)
    assert " TL101 " not in out and " TL102 " in out


@pytest.mark.parametrize("args", [["--jobs", "-3"], ["--jobs", "0"], ["--sel", "TL1"]])
def test_bad_options_are_refused(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["check", *args, str(tmp_path)])
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


# -- 8: one meaning for noqa ------------------------------------------------------


@pytest.mark.parametrize(
    ("comment", "left"),
    [("# noqa: TL1", set()), ("# noqa: TL10", set()), ("# noqa: TL101", {"TL102"}),
     ("# noqa: TL2", {"TL101", "TL102"}), ("# noqa", set())],
)  # fmt: skip
def test_noqa_codes_and_prefixes_as_flake8_reads_them(
    comment: str, left: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = f"import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()  {comment}\n"
    write(tmp_path / "model.py", source)
    _, out, _ = run(["check", "--no-cache", "--output-format", "json", str(tmp_path)], capsys)
    assert {f["code"] for f in json.loads(out)["findings"]} == left


# -- 6 and 7: notebooks ----------------------------------------------------------


def _notebook(path: Path, cells: list[str]) -> Path:
    document = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": source.splitlines(keepends=True)}
            for source in cells
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


def test_notebook_messages_count_lines_in_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _notebook(
        tmp_path / "nb.ipynb",
        ["import torch\nimport numpy as np\n", "a = np.zeros(3)\nx = 1\n",
         "t = torch.from_numpy(a)\ny = 2\nt += 1\ns = a.sum()\n"],
    )  # fmt: skip
    _, out, _ = run(["check", "--no-cache", str(path)], capsys)
    assert "nb.ipynb:cell 3:1:" in out and "TL201" in out
    assert "at line 3" in out  # the line in cell 3, not of the joined cells (8)
    assert "line 8" not in out


def test_an_ipython_line_alone_in_a_block_keeps_the_notebook_parsable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        "import torch\ntry:\n    import einops\nexcept ImportError:\n    !pip install einops\n"
        "t = torch.ones(2).cuda()\nt.numpy()\n"
    )
    path = _notebook(tmp_path / "nb.ipynb", [source, "%%bash\n  echo indented\necho\n"])
    code, out, _ = run(["check", "--no-cache", str(path)], capsys)
    assert code == 1, out
    assert "cell 1:7:1: TL101" in out
    code, _, _ = run(["check", "--no-cache", "--fix", str(path)], capsys)
    fixed = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert "".join(fixed[0]["source"]) == source.replace("t.numpy()", "t.cpu().numpy()")
    assert "".join(fixed[1]["source"]) == "%%bash\n  echo indented\necho\n"


# -- 3: --force-exclude ----------------------------------------------------------


def test_force_exclude_applies_exclude_to_named_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nexclude = ["legacy/**", "gen_*.py"]\n')
    named = [
        str(write(tmp_path / "legacy" / "deep" / "old.py", GRAD)),
        str(write(tmp_path / "src" / "gen_model.py", GRAD)),
        str(write(tmp_path / ".venv" / "lib" / "dep.py", GRAD)),  # a default exclude
        str(write(tmp_path / "src" / "model.py", GRAD)),
    ]
    _, out, _ = run(["check", "--no-cache", *named], capsys)
    assert "old.py" in out and "gen_model.py" in out  # named files are checked
    _, out, _ = run(["check", "--no-cache", "--force-exclude", *named], capsys)
    assert "src/model.py" in out
    assert "old.py" not in out and "gen_model.py" not in out and "dep.py" not in out
    write(
        tmp_path / "pyproject.toml",
        '[tool.tensorlint]\nexclude = ["legacy"]\nforce-exclude = true\n',
    )
    _, out, _ = run(["check", "--no-cache", *named[:1], *named[3:]], capsys)
    assert "old.py" not in out and "src/model.py" in out


# -- 4: the nearest configuration per file ----------------------------------------


def test_each_file_gets_its_nearest_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    both = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\n")
    write(tmp_path / "a" / "pyproject.toml", '[tool.tensorlint]\nignore = ["TL101"]\n')
    write(tmp_path / "b" / "pyproject.toml", '[tool.tensorlint]\nexclude = ["gen"]\n')
    write(tmp_path / "a" / "m.py", both)
    write(tmp_path / "b" / "m.py", both)
    write(tmp_path / "b" / "gen" / "m.py", both)
    write(tmp_path / "c" / "m.py", both)
    _, out, _ = run(["check", "--no-cache", "a", "b", "c"], capsys)
    found = {line.split(": ")[0].split(":")[0] + " " + line.split()[1] for line in
             out.splitlines() if ": TL" in line}  # fmt: skip
    assert found == {"a/m.py TL102", "b/m.py TL101", "b/m.py TL102", "c/m.py TL101",
                     "c/m.py TL102"}  # fmt: skip
    # the command line overrides every file's configuration
    _, out, _ = run(["check", "--no-cache", "--select", "TL102", "b", "c"], capsys)
    assert "b/m.py" in out and "c/m.py" in out and " TL101 " not in out
    # --config names one file for all
    _, out, _ = run(["check", "--no-cache", "--config", "pyproject.toml", "a"], capsys)
    assert " TL101 " in out


def test_a_broken_nested_configuration_is_an_error_for_its_files_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\n")
    write(tmp_path / "a" / "pyproject.toml", '[tool.tensorlint]\nselect = ["XX9"]\n')
    write(tmp_path / "a" / "m.py", GRAD)
    write(tmp_path / "b" / "m.py", GRAD)
    code, out, _ = run(["check", "--no-cache", "."], capsys)
    assert code == 2
    assert "a/m.py: configuration:" in out and "XX9" in out
    assert "b/m.py:5:12: TL102" in out


# -- conventions Ruff users expect -------------------------------------------------

BOTH = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"


def test_statistics_and_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "a.py", BOTH)
    write(tmp_path / "b.py", GRAD)
    code, out, _ = run(["check", "--no-cache", "--statistics", str(tmp_path)], capsys)
    assert code == 1
    assert out.splitlines() == [  # most frequent first, then by code
        "    2\tTL101\t[*] numpy-on-accelerator-tensor",
        "    2\tTL102\t[*] numpy-on-grad-tensor",
        "[*] 4 fixable with `--fix`.",
    ]
    code, out, _ = run(["check", "--no-cache", "-q", str(tmp_path)], capsys)
    assert code == 1
    assert len(out.splitlines()) == 4 and all(": TL10" in line for line in out.splitlines())
    assert "Found" not in out and "Checked" not in out


def test_statistics_mark_a_rule_fixable_only_as_far_as_its_findings_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``[*]``: every finding of the rule has a fix ``--fix`` applies; ``[~]``:
    some have (Ruff's marks); the count below is the summary's."""
    write(tmp_path / "a.py", GRAD)  # a safe fix
    write(tmp_path / "b.py", "import tensorflow as tf\n" + GRAD)  # unsafe: tf has no .detach()
    _, summary, _ = run(["check", "--no-cache", "--select", "TL102", str(tmp_path)], capsys)
    assert "[*] 1 fixable with `--fix`." in summary.splitlines()
    assert "1 more fixable with `--fix --unsafe-fixes`." in summary.splitlines()
    code, out, _ = run(
        ["check", "--no-cache", "--select", "TL102", "--statistics", str(tmp_path)], capsys
    )
    assert code == 1
    assert out.splitlines() == [
        "    2\tTL102\t[~] numpy-on-grad-tensor",
        "[*] 1 fixable with `--fix`.",
        "1 more fixable with `--fix --unsafe-fixes`.",
    ]
    _, out, _ = run(
        [
            "check",
            "--no-cache",
            "--select",
            "TL102",
            "--statistics",
            "--unsafe-fixes",
            str(tmp_path),
        ],
        capsys,
    )
    assert out.splitlines() == [
        "    2\tTL102\t[*] numpy-on-grad-tensor",
        "[*] 2 fixable with `--fix --unsafe-fixes`.",
    ]


def test_extend_exclude_and_show_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nexclude = ["old"]\n')
    for name in ("old/a.py", "gen/b.py", "src/c.py"):
        write(tmp_path / name, GRAD)
    _, out, _ = run(["check", "--show-files", "."], capsys)
    assert sorted(out.split()) == ["gen/b.py", "src/c.py"]
    _, out, _ = run(["check", "--show-files", "--extend-exclude", "gen", "."], capsys)
    assert out.split() == ["src/c.py"]
    code, out, _ = run(["check", "--no-cache", "--extend-exclude", "gen", "."], capsys)
    assert code == 1 and "src/c.py" in out and "gen/b.py" not in out


def test_show_settings_names_the_configuration_a_file_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\nstrict = true\n")
    write(tmp_path / "a" / "pyproject.toml", '[tool.tensorlint]\nselect = ["TL2"]\n')
    write(tmp_path / "a" / "m.py", GRAD)
    code, out, _ = run(["check", "--show-settings", "a/m.py"], capsys)
    assert code == 0
    assert f"configuration: {(tmp_path / 'a' / 'pyproject.toml').resolve()}" in out
    assert "rules: TL201, TL202, TL204" in out


def test_show_settings_prints_every_setting_a_file_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "pyproject.toml",
        '[tool.tensorlint]\nunfixable = ["TL102"]\nrespect-gitignore = false\n'
        'target-version = "1.5"\nextend-converting-calls = ["pkg.plots.show:0"]\n',
    )
    write(tmp_path / "m.py", GRAD)
    code, out, _ = run(["check", "--show-settings", "--ignore-noqa", "m.py"], capsys)
    assert code == 0
    for line in (
        "  respect-gitignore: false\n",
        "  target-version: 1.5\n",
        "  unfixable: ['TL102']\n",
        "  extend-converting-calls: ['pkg.plots.show:0']\n",
        "  ignore-noqa: true\n",
    ):
        assert line in out
    code, out, _ = run(["check", "--show-settings", "m.py"], capsys)
    assert "  ignore-noqa: false\n" in out


def test_cache_dir_option_and_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "src" / "m.py", GRAD)
    run(["check", "--cache-dir", str(tmp_path / "c1"), "src"], capsys)
    assert (tmp_path / "c1").is_dir() and not (tmp_path / ".tensorlint_cache").exists()
    monkeypatch.setenv("TENSORLINT_CACHE_DIR", str(tmp_path / "c2"))
    run(["check", "src"], capsys)
    _, out, _ = run(["check", "src"], capsys)
    assert (tmp_path / "c2").is_dir() and "cached" in out


@pytest.mark.parametrize(
    ("comment", "left"),
    [("# tensorlint: noqa", set()), ("# tensorlint: noqa: TL101", {"TL102"}),
     ("#tensorlint:noqa:TL1", set()), ("x = 1  # tensorlint: noqa", {"TL101", "TL102"})],
)  # fmt: skip
def test_file_level_noqa(
    comment: str, left: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "m.py", f"{comment}\n{BOTH}")  # (not on a line of its own: no effect)
    _, out, _ = run(["check", "--no-cache", "--output-format", "json", str(tmp_path)], capsys)
    assert {f["code"] for f in json.loads(out)["findings"]} == left


def test_color(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "m.py", BOTH)
    _, out, _ = run(["check", "--no-cache", "--color", "always", str(tmp_path)], capsys)
    assert "\x1b[1m\x1b[31mTL101\x1b[0m" in out and "\x1b[36m [*]\x1b[0m" in out
    for choice in ("never", "auto"):  # (capsys is not a terminal)
        _, out, _ = run(["check", "--no-cache", "--color", choice, str(tmp_path)], capsys)
        assert "\x1b[" not in out and " TL101 " in out


class _Terminal:
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("choice", "environ", "expected"),
    [("auto", {}, True), ("auto", {"NO_COLOR": "1"}, False), ("auto", {"TERM": "dumb"}, False),
     ("never", {}, False), ("always", {"NO_COLOR": "1"}, True)],
)  # fmt: skip
def test_use_color(choice: str, environ: dict[str, str], expected: bool) -> None:
    from tensorlint.cli import use_color

    assert use_color(choice, _Terminal(), environ) is expected
    assert use_color("auto", object(), {"FORCE_COLOR": "1"}) is True
    assert use_color("auto", object(), {}) is False


def test_fix_only_and_show_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixable = write(tmp_path / "a.py", BOTH)
    write(
        tmp_path / "b.py",
        "import torch\n\n\ndef f(a):\n    t = torch.from_numpy(a)\n    t += 1\n    return a\n",
    )
    code, out, _ = run(["check", "--no-cache", "--fix-only", "--show-fixes", str(tmp_path)], capsys)
    assert code == 0  # a finding remains (TL201, unsafe), but --fix-only exits 0
    assert "Fixed 2 findings (TL101 1, TL102 1); 1 remaining." in out
    assert ": TL201 " not in out  # remaining findings are not listed
    assert "Fixes applied:" in out and f"{fixable}: TL101, TL102" in out
    assert ".cpu().detach().numpy()" in fixable.read_text(encoding="utf-8")


def test_config_key_value_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nignore = ["TL101"]\n')
    write(tmp_path / "m.py", BOTH)
    _, out, _ = run(
        ["check", "--no-cache", "--diff", "--config", 'numpy-idiom = "force"', "."], capsys
    )
    assert "numpy(force=True)" in out  # the inline setting applies, the file's ignore too
    write(
        tmp_path / "s.py",
        "import torch\n\n\ndef f(src):\n    t = torch.from_numpy(src)\n    return t\n",
    )
    _, out, _ = run(["check", "--no-cache", "s.py"], capsys)
    assert " TL211 " not in out
    _, out, _ = run(["check", "--no-cache", "--config", "strict = true", "s.py"], capsys)
    assert "s.py:5:" in out and " TL211 " in out
    code, _, err = run(["check", "--config", "numpy-idiom = 3", "."], capsys)
    assert code == 2 and "--config" in err and "numpy-idiom" in err
    code, _, err = run(["check", "--config", "colour = true", "."], capsys)
    assert code == 2 and "unknown key 'colour'" in err


def test_target_version_refuses_fixes_the_torch_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", BOTH)
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\ntarget-version = "1.12"\n')
    code, _, err = run(["check", "--no-cache", "--numpy-idiom", "force", "."], capsys)
    assert code == 2 and "needs torch >= 1.13" in err and "1.12" in err
    code, out, _ = run(["check", "--no-cache", "--diff", "--target-version", "1.13",
                        "--numpy-idiom", "force", "."], capsys)  # fmt: skip
    assert code == 1 and "numpy(force=True)" in out
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\ntarget-version = "one"\n')
    code, _, err = run(["check", "--no-cache", "."], capsys)
    assert code == 2 and "'target-version' must be a torch version" in err


def test_output_format_full_and_concise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = "import torch\n\n\ndef f(model, x):\n    y = model(x.cuda())\n    return y.numpy()\n"
    path = write(tmp_path / "m.py", source)
    _, text, _ = run(["check", "--no-cache", str(path)], capsys)
    _, concise, _ = run(["check", "--no-cache", "--output-format", "concise", str(path)], capsys)
    assert concise == text
    _, full, _ = run(["check", "--no-cache", "--output-format", "full", str(path)], capsys)
    assert "6 |     return y.numpy()\n  |            ^^^^^^^^^\n" in full
    assert "  = line 5: moved to a device that may be CUDA\n" in full
    assert [line for line in full.splitlines() if ": TL" in line] == [
        line for line in text.splitlines() if ": TL" in line
    ]


def test_stdin_gets_the_nearest_configuration_of_its_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\n")
    write(tmp_path / "a" / "pyproject.toml", '[tool.tensorlint]\nignore = ["TL101"]\n')
    monkeypatch.setattr("sys.stdin", io.StringIO(BOTH))
    _, out, _ = run(["check", "--stdin-filename", "a/m.py"], capsys)
    assert " TL102 " in out and " TL101 " not in out
