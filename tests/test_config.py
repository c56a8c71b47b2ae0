from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from tensorlint.config import (
    KNOWN_KEYS,
    NUMPY_IDIOMS,
    Config,
    ConfigError,
    find_config_file,
    load_config,
    path_matches,
    per_file_ignored_codes,
)

TABLE = "[tool.tensorlint]\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- find_config_file


def test_find_config_file_walks_up_from_a_file_to_the_nearest_table(tmp_path: Path) -> None:
    config = write(tmp_path / "pyproject.toml", TABLE)
    source = write(tmp_path / "pkg" / "sub" / "mod.py", "")

    assert find_config_file([source]) == config.resolve()


def test_find_config_file_skips_pyproject_files_without_the_table(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", TABLE + "strict = true\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'pkg'\n")
    directory = tmp_path / "pkg" / "src"
    directory.mkdir()

    assert find_config_file([directory]) == outer.resolve()


def test_find_config_file_prefers_the_nearest_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", TABLE)
    inner = write(tmp_path / "pkg" / "pyproject.toml", "[tool.tensorlint]\nstrict = true\n")

    assert find_config_file([tmp_path / "pkg"]) == inner.resolve()


def test_find_config_file_starts_at_the_common_ancestor_of_several_paths(
    tmp_path: Path,
) -> None:
    outer = write(tmp_path / "pyproject.toml", TABLE)
    write(tmp_path / "a" / "pyproject.toml", TABLE)
    first = write(tmp_path / "a" / "x.py", "")
    second = write(tmp_path / "b" / "y.py", "")

    assert find_config_file([first, second]) == outer.resolve()


def test_find_config_file_uses_the_current_directory_without_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path / "pyproject.toml", TABLE)
    nested = tmp_path / "deep" / "er"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)

    assert find_config_file([]) == config.resolve()


def test_find_config_file_returns_none_when_no_file_has_the_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 80\n")
    source = write(tmp_path / "m.py", "")

    found = find_config_file([source])

    assert found is None or not found.is_relative_to(tmp_path.resolve())


def test_a_broken_pyproject_is_found_not_skipped(tmp_path: Path) -> None:
    """Broken TOML may hold our table: it is reported (exit 2), never skipped
    for a parent's settings or the defaults."""
    write(tmp_path / "pyproject.toml", TABLE)
    inner = write(tmp_path / "pkg" / "pyproject.toml", "[project\n")

    assert find_config_file([tmp_path / "pkg"]) == inner.resolve()
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(inner)


def test_a_broken_pyproject_naming_our_table_is_found_and_reported(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", TABLE)
    inner = write(tmp_path / "pkg" / "pyproject.toml", "[tool.tensorlint\n")

    found = find_config_file([tmp_path / "pkg"])
    assert found == inner.resolve()  # not silently the outer one, or defaults
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(found)


# --------------------------------------------------------------------------- load_config


def test_load_config_of_none_is_the_default_config() -> None:
    assert load_config(None) == Config()


def test_load_config_parses_every_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        """
[tool.tensorlint]
select = ["TL1", "TL201"]
ignore = ["TL102"]
extend-select = ["ALL"]
strict = true
numpy-idiom = "exact-copy"
assume-torch = true
exclude = ["generated/*", "legacy"]

[tool.tensorlint.per-file-ignores]
"tests/*" = ["TL1"]
"**/legacy/*.py" = ["TL", "TL003"]
""",
    )

    config = load_config(path)

    assert config == Config(
        select=("TL1", "TL201"),
        ignore=("TL102",),
        extend_select=("ALL",),
        strict=True,
        numpy_idiom="exact-copy",
        assume_torch=True,
        exclude=("generated/*", "legacy"),
        per_file_ignores=(("tests/*", ("TL1",)), ("**/legacy/*.py", ("TL", "TL003"))),
        root=tmp_path.resolve(),
        source=path.resolve(),
    )


def test_load_config_without_the_table_gives_defaults_with_root_and_source(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")

    config = load_config(path)

    assert config == Config(root=tmp_path.resolve(), source=path.resolve())


def test_load_config_keeps_missing_keys_at_their_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", TABLE + "strict = true\n")

    config = load_config(path)

    assert config._replace(strict=False, root=None, source=None) == Config()


@pytest.mark.parametrize("idiom", NUMPY_IDIOMS, ids=NUMPY_IDIOMS)
def test_load_config_accepts_every_numpy_idiom(tmp_path: Path, idiom: str) -> None:
    path = write(tmp_path / "pyproject.toml", TABLE + f'numpy-idiom = "{idiom}"\n')

    assert load_config(path).numpy_idiom == idiom


BAD_VALUES = [
    pytest.param('selct = ["TL1"]', "unknown key 'selct'", id="unknown-key"),
    pytest.param("strict = 'yes'", "'strict' must be true or false", id="strict-string"),
    pytest.param("assume-torch = 1", "'assume-torch' must be true or false", id="assume-int"),
    pytest.param('select = "TL1"', "'select' must be an array", id="select-string"),
    pytest.param("ignore = [1]", "'ignore' must be an array of strings", id="ignore-int-item"),
    pytest.param('select = ["E501"]', "'select' has invalid rule code 'E501'", id="foreign-code"),
    pytest.param(
        'extend-select = ["TL1234"]', "'extend-select' has invalid rule code", id="long-code"
    ),
    pytest.param('ignore = ["tl1"]', "'ignore' has invalid rule code 'tl1'", id="lower-code"),
    pytest.param('numpy-idiom = "fast"', "'numpy-idiom' must be one of", id="bad-idiom"),
    pytest.param("numpy-idiom = 3", "'numpy-idiom' must be one of", id="idiom-int"),
    pytest.param('exclude = "build"', "'exclude' must be an array", id="exclude-string"),
    pytest.param(
        'per-file-ignores = ["tests/*"]', "'per-file-ignores' must be a table", id="pfi-array"
    ),
    pytest.param(
        'per-file-ignores = { "tests/*" = "TL1" }',
        "'per-file-ignores.tests/*' must be an array",
        id="pfi-string-codes",
    ),
    pytest.param(
        'per-file-ignores = { "tests/*" = ["X1"] }',
        "'per-file-ignores.tests/*' has invalid rule code 'X1'",
        id="pfi-bad-code",
    ),
]


@pytest.mark.parametrize(("line", "expected"), BAD_VALUES)
def test_bad_values_are_config_errors_naming_the_file_and_the_key(
    tmp_path: Path, line: str, expected: str
) -> None:
    path = write(tmp_path / "pyproject.toml", TABLE + line + "\n")

    with pytest.raises(ConfigError) as info:
        load_config(path)

    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_unknown_key_error_lists_the_known_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", TABLE + "selct = []\n")

    with pytest.raises(ConfigError) as info:
        load_config(path)

    assert str(info.value) == (
        f"{path}: [tool.tensorlint] unknown key 'selct' (known: {', '.join(KNOWN_KEYS)})"
    )


def test_invalid_toml_is_a_one_line_config_error(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool.tensorlint]\nstrict = \n")

    with pytest.raises(ConfigError) as info:
        load_config(path)

    message = str(info.value)
    assert message.startswith(f"{path}: invalid TOML: ")
    assert "\n" not in message


def test_tensorlint_that_is_not_a_table_is_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool]\ntensorlint = 1\n")

    with pytest.raises(ConfigError, match=r"'tool\.tensorlint' must be a table"):
        load_config(path)


def test_missing_config_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "pyproject.toml"

    with pytest.raises(ConfigError, match=r"cannot read file"):
        load_config(path)


def test_config_error_survives_pickling(tmp_path: Path) -> None:
    error = ConfigError(tmp_path / "pyproject.toml", "bad thing")

    copy = pickle.loads(pickle.dumps(error))

    assert str(copy) == str(error) == f"{tmp_path / 'pyproject.toml'}: bad thing"


# --------------------------------------------------------------------------- patterns


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("tests/*", "tests/test_a.py", True),
        ("tests/*", "tests/unit/test_a.py", True),
        ("tests/*", "src/tests.py", False),
        ("test_*.py", "test_a.py", True),
        ("test_*.py", "pkg/sub/test_a.py", True),
        ("test_*.py", "pkg/a_test.py", False),
        ("**/legacy/*.py", "legacy/old.py", True),
        ("**/legacy/*.py", "a/b/legacy/old.py", True),
        ("**/legacy/*.py", "a/notlegacy/old.py", False),
        ("src/**", "src/a/b.py", True),
        ("./src/*.py", "src/a.py", True),
        ("m?.py", "m1.py", True),
        ("m?.py", "m12.py", False),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "b.py", False),
        ("[!ab].py", "c.py", True),
        ("pkg/mod.py", "other/pkg/mod.py", False),
    ],
    ids=lambda value: str(value),
)
def test_path_matches_uses_fnmatch_semantics(pattern: str, path: str, expected: bool) -> None:
    assert path_matches(pattern, path) is expected


def test_per_file_ignores_match_relative_to_the_config_root(tmp_path: Path) -> None:
    config = Config(
        per_file_ignores=(
            ("tests/*", ("TL1",)),
            ("test_*.py", ("TL2",)),
            ("**/legacy/*.py", ("TL",)),
            ("vendored", ("ALL",)),
        ),
        root=tmp_path,
    )

    assert per_file_ignored_codes(config, tmp_path / "tests" / "test_x.py") == ("TL1", "TL2")
    assert per_file_ignored_codes(config, tmp_path / "src" / "legacy" / "old.py") == ("TL",)
    assert per_file_ignored_codes(config, tmp_path / "vendored" / "lib" / "a.py") == ("ALL",)
    assert per_file_ignored_codes(config, tmp_path / "src" / "main.py") == ()


def test_per_file_ignores_anchor_at_the_root_not_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pkg" / "tests").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "pkg")
    config = Config(per_file_ignores=(("pkg/tests/*.py", ("TL1",)),), root=tmp_path)

    assert per_file_ignored_codes(config, Path("tests") / "t.py") == ("TL1",)
    assert per_file_ignored_codes(config, Path(os.curdir) / "t.py") == ()


def test_per_file_ignores_without_a_root_use_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = Config(per_file_ignores=(("scripts/*", ("TL3",)),))

    assert per_file_ignored_codes(config, Path("scripts/run.py")) == ("TL3",)
    assert per_file_ignored_codes(config, Path("src/run.py")) == ()


def test_per_file_ignores_do_not_repeat_codes(tmp_path: Path) -> None:
    config = Config(
        per_file_ignores=(("*.py", ("TL1", "TL2")), ("a.py", ("TL2", "TL3"))), root=tmp_path
    )

    assert per_file_ignored_codes(config, tmp_path / "a.py") == ("TL1", "TL2", "TL3")


def _start_directory_one_by_one(paths: list[Path]) -> Path:
    """The start of the config walk, each path resolved on its own."""
    dirs = []
    for path in paths:
        resolved = path.resolve()
        dirs.append(str(resolved if resolved.is_dir() else resolved.parent))
    return Path(os.path.commonpath(dirs))


def test_the_config_walk_starts_where_resolving_each_path_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folders of named files are resolved once each; links, ``..`` and
    folders named with a trailing slash still resolve as the path itself."""
    from tensorlint.config import _start_directory

    (tmp_path / "real" / "pkg").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "real" / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "other" / "b.py").write_text("x = 1\n")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "deep").symlink_to(tmp_path / "real" / "pkg", target_is_directory=True)
    (tmp_path / "real" / "pkg" / "to_other.py").symlink_to(tmp_path / "other" / "b.py")
    monkeypatch.chdir(tmp_path / "real")
    cases = [
        [Path("pkg/a.py")],
        [Path("pkg/a.py"), Path("pkg/to_other.py")],
        [Path("pkg/to_other.py")],
        [tmp_path / "link" / "pkg" / "a.py"],
        [tmp_path / "link" / ".." / "other" / "b.py"],
        [tmp_path / "deep" / ".." / "pkg" / "a.py"],  # `..` of a link: its target's parent
        [Path("pkg/")],
        [Path(".")],
        [Path("..")],
        [Path("pkg/missing.py")],
        [Path("pkg"), tmp_path / "link" / "pkg" / "a.py"],
    ]
    for paths in cases:
        assert _start_directory(paths) == _start_directory_one_by_one(paths), paths


DEEP = 100_000


@pytest.mark.parametrize(
    "value",
    ["[" * DEEP + "]" * DEEP, "{a = " * DEEP + "1" + "}" * DEEP],
    ids=["arrays", "inline-tables"],
)
@pytest.mark.parametrize("table", ["[tool.tensorlint]", "[tool.other]"])
def test_a_value_nested_too_deeply_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, table: str
) -> None:
    from tensorlint.cli import main

    path = write(tmp_path / "pyproject.toml", f"{table}\nselect = {value}\n")
    write(tmp_path / "m.py", "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert captured.err == f"error: {path}: invalid TOML: values nested too deeply to read\n"


def test_a_command_line_setting_nested_too_deeply_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorlint.cli import main

    write(tmp_path / "m.py", "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    setting = "select = " + "[" * DEEP + "]" * DEEP
    assert main(["check", "--no-cache", "--config", setting, str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == "error: --config: a value nested too deeply to read\n"


# --------------------------------------------------------------------------- extend-exclude, extend

GRAD_FILE = "import torch\n\n\ndef f(model, x):\n    return model(x).numpy()\n"


def _check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from tensorlint.cli import main

    code = main(["check", "--no-cache", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_extend_exclude_is_a_configuration_key_adding_to_exclude(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        TABLE + 'exclude = ["old"]\nextend-exclude = ["gen", "*_pb2.py"]\n',
    )
    config = load_config(path)
    assert config.exclude == ("old", "gen", "*_pb2.py")
    assert config.extend_exclude == ("gen", "*_pb2.py")
    for name in ("old/a.py", "gen/b.py", "src/c_pb2.py", "src/d.py"):
        write(tmp_path / name, GRAD_FILE)
    monkeypatch.chdir(tmp_path)
    code, out, err = _check(["--show-files", "."], capsys)
    assert (code, out.split(), err) == (0, ["src/d.py"], "")
    # --config 'exclude = [...]' replaces `exclude`, not `extend-exclude`
    _, out, _ = _check(["--show-files", "--config", "exclude = []", "."], capsys)
    assert sorted(out.split()) == ["old/a.py", "src/d.py"]
    _, out, _ = _check(["--show-files", "--config", 'extend-exclude = ["src"]', "."], capsys)
    assert out.split() == []


def test_a_nested_configuration_extends_its_parent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ruff's ``extend``: the parent's settings, this file's on top; without
    ``extend`` the nearest file stands alone (the parent's ``strict`` is not
    read)."""
    write(
        tmp_path / "pyproject.toml",
        TABLE + 'strict = true\nignore = ["TL212"]\nexclude = ["legacy/**", "**/gen_*.py"]\n'
        'extend-exclude = ["pkg/skip.py"]\n'
        '[tool.tensorlint.per-file-ignores]\n"pkg/sub/*" = ["TL102"]\n',
    )  # fmt: skip
    nested = write(tmp_path / "pkg" / "pyproject.toml", TABLE + 'extend-select = ["TL900"]\n')
    files = ["pkg/a.py", "pkg/sub/b.py", "pkg/skip.py", "pkg/gen_x.py", "pkg/legacy/c.py"]
    for name in [*files, "legacy/d.py"]:
        write(tmp_path / name, GRAD_FILE)
    monkeypatch.chdir(tmp_path / "pkg")  # (a run from here: the nested file is the top one)
    alone = load_config(nested)
    assert not alone.strict and alone.extends == ()
    _, out, _ = _check(["--show-files", "."], capsys)
    assert sorted(out.split()) == sorted(f.replace("pkg/", "", 1) for f in files)

    nested.write_text(TABLE + 'extend = "../pyproject.toml"\nextend-select = ["TL900"]\n')
    config = load_config(nested)
    assert config.strict and config.ignore == ("TL212",) and config.extend_select == ("TL900",)
    assert config.root == nested.parent.resolve() and config.source == nested.resolve()
    assert config.extends == ((tmp_path / "pyproject.toml").resolve(),)
    # the parent's patterns still match from the parent's folder: legacy/** is
    # ./legacy, not ./pkg/legacy; a nested file cannot widen them
    _, out, _ = _check(["--show-files", "."], capsys)
    assert sorted(out.split()) == ["a.py", "legacy/c.py", "sub/b.py"]
    _, out, _ = _check(["--show-settings", "sub/b.py"], capsys)
    assert f"    extends: {(tmp_path / 'pyproject.toml').resolve()}" in out
    assert "exclude: ['../legacy/**', '../**/gen_*.py', '../pkg/skip.py']" in out
    # the parent's strict and ignore, this file's TL900, the parent's
    # per-file-ignores for pkg/sub
    rules = out.split("rules: ")[1].split("\n")[0].split(", ")
    assert "TL111" in rules and "TL900" in rules
    assert "TL212" not in rules and "TL102" not in rules
    _, out, _ = _check(["--show-settings", "a.py"], capsys)
    assert "TL102" in out.split("rules: ")[1].split("\n")[0]


def test_a_nested_select_starts_the_rule_selection_anew(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", TABLE + 'ignore = ["TL102"]\nextend-select = ["TL301"]\n')
    nested = write(tmp_path / "a" / "pyproject.toml", TABLE + 'extend = "../pyproject.toml"\n')
    assert load_config(nested).ignore == ("TL102",)
    assert load_config(nested).extend_select == ("TL301",)
    nested.write_text(TABLE + 'extend = "../pyproject.toml"\nselect = ["TL1"]\n')
    config = load_config(nested)
    assert (config.select, config.ignore, config.extend_select) == (("TL1",), (), ())
    deeper = write(
        tmp_path / "a" / "b" / "pyproject.toml", TABLE + 'extend = "../pyproject.toml"\n'
    )
    config = load_config(deeper)  # a chain: b -> a -> the top
    assert config.select == ("TL1",) and len(config.extends) == 2


@pytest.mark.parametrize(
    ("key", "parent", "child", "field", "inherited", "own"),
    [
        ("unfixable", '["TL201"]', '["TL202"]', "unfixable", ("TL201",), ("TL202",)),
        ("respect-gitignore", "false", "true", "respect_gitignore", False, True),
        ("min-confidence", '"high"', '"medium"', "min_confidence", "high", "medium"),
    ],
)
def test_every_key_of_an_extended_file_is_inherited_or_replaced(
    tmp_path: Path, key: str, parent: str, child: str, field: str, inherited: object, own: object
) -> None:
    """A key the extending file does not set is the parent's; one it sets is its own
    (``unfixable`` and ``respect-gitignore`` were once dropped by ``extend``)."""
    write(tmp_path / "pyproject.toml", TABLE + f"{key} = {parent}\n")
    nested = write(tmp_path / "a" / "pyproject.toml", TABLE + 'extend = "../pyproject.toml"\n')
    assert getattr(load_config(nested), field) == inherited
    nested.write_text(TABLE + f'extend = "../pyproject.toml"\n{key} = {child}\n')
    assert getattr(load_config(nested), field) == own


@pytest.mark.parametrize(
    ("value", "words"),
    [('"missing/pyproject.toml"', "'extend': 'missing/pyproject.toml' is not a file"),
     ("3", "'extend' must be the path of a configuration file, got an integer 3"),
     ('"pyproject.toml"', "'extend' goes round in a circle")],
    ids=["missing", "not-a-string", "itself"],
)  # fmt: skip
def test_a_bad_extend_is_a_one_line_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, words: str
) -> None:
    path = write(tmp_path / "pyproject.toml", TABLE + f"extend = {value}\n")
    write(tmp_path / "m.py", GRAD_FILE)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ") and words in str(info.value)
    code, out, err = _check([str(tmp_path)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err


def test_a_circle_of_extends_and_an_error_in_the_base_name_their_files(tmp_path: Path) -> None:
    top = write(tmp_path / "pyproject.toml", TABLE + 'extend = "a/pyproject.toml"\n')
    nested = write(tmp_path / "a" / "pyproject.toml", TABLE + 'extend = "../pyproject.toml"\n')
    with pytest.raises(ConfigError, match="goes round in a circle") as info:
        load_config(nested)
    assert str(nested.resolve()) in str(info.value) and str(top.resolve()) in str(info.value)
    top.write_text(TABLE + "strict = 'yes'\n")
    with pytest.raises(ConfigError) as info:
        load_config(nested)
    assert str(info.value).startswith(f"{top.resolve()}: ") and "'strict'" in str(info.value)


def test_extend_is_for_files_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _check(["--config", 'extend = "../pyproject.toml"', str(tmp_path)], capsys)
    assert code == 2 and err.startswith("error: --config: 'extend' is read from a file only")


def test_the_readme_configuration_example_names_every_key_and_is_valid(tmp_path: Path) -> None:
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration\n", 1)[1]
    (example,) = re.findall(r"```toml\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    keys = re.findall(r"^([a-z-]+) = ", example, re.M)
    assert keys == [key for key in KNOWN_KEYS if key != "per-file-ignores"]
    assert "[tool.tensorlint.per-file-ignores]" in example
    write(tmp_path / "pyproject.toml", TABLE)  # what `extend` names
    config = load_config(write(tmp_path / "pkg" / "pyproject.toml", example))
    assert config.extends == ((tmp_path / "pyproject.toml").resolve(),)
