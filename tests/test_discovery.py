from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from tensorlint.engine.discovery import DEFAULT_EXCLUDES, discover, parse_gitignore


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")


def rel(paths: Iterable[Path], root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in paths]


# --------------------------------------------------------------------------- basics


def test_discover_collects_python_files_only(tmp_path: Path) -> None:
    make(tmp_path, "a.py", "pkg/b.py", "pkg/sub/c.py", "notes.txt", "pkg/data.json", "stub.pyi")

    assert rel(discover([tmp_path]), tmp_path) == ["a.py", "pkg/b.py", "pkg/sub/c.py"]


@pytest.mark.parametrize("name", DEFAULT_EXCLUDES, ids=DEFAULT_EXCLUDES)
def test_discover_skips_default_excluded_directories(tmp_path: Path, name: str) -> None:
    make(tmp_path, "keep.py", f"{name}/skipped.py", f"pkg/{name}/deep.py")

    assert rel(discover([tmp_path]), tmp_path) == ["keep.py"]


def test_discover_returns_paths_joined_from_the_given_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, "src/pkg/a.py", "src/b.py")
    monkeypatch.chdir(tmp_path)

    assert discover([Path("src")]) == [Path("src/b.py"), Path("src/pkg/a.py")]
    assert discover([Path(".")]) == [Path("src/b.py"), Path("src/pkg/a.py")]


def test_discover_is_sorted_and_deduplicated(tmp_path: Path) -> None:
    make(tmp_path, "z.py", "a.py", "m/b.py")

    result = discover([tmp_path / "z.py", tmp_path, tmp_path / "m", tmp_path / "a.py"])

    assert rel(result, tmp_path) == ["a.py", "m/b.py", "z.py"]
    assert result == discover([tmp_path / "m", tmp_path])


def test_discover_deduplicates_by_resolved_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, "a.py")
    monkeypatch.chdir(tmp_path)

    assert discover([Path("a.py"), tmp_path / "a.py", Path("./a.py")]) == [Path("a.py")]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_discover_does_not_follow_symlinked_directories(tmp_path: Path) -> None:
    make(tmp_path, "project/a.py", "elsewhere/b.py")
    os.symlink(tmp_path / "elsewhere", tmp_path / "project" / "link")

    assert rel(discover([tmp_path / "project"]), tmp_path) == ["project/a.py"]


# --------------------------------------------------------------------------- explicit paths


def test_explicit_files_are_always_returned(tmp_path: Path) -> None:
    make(tmp_path, ".gitignore", "build/gen.py", "ignored.py", "script", "skip/me.py")
    (tmp_path / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    explicit = [
        tmp_path / "build" / "gen.py",
        tmp_path / "ignored.py",
        tmp_path / "script",
        tmp_path / "skip" / "me.py",
    ]

    result = discover(explicit, exclude=["skip"], root=tmp_path)

    assert result == sorted(explicit)


def test_missing_paths_are_returned_not_dropped(tmp_path: Path) -> None:
    make(tmp_path, "a.py")
    missing = tmp_path / "missing.py"

    assert discover([tmp_path, missing]) == [tmp_path / "a.py", missing]


def test_an_explicitly_named_excluded_directory_is_walked(tmp_path: Path) -> None:
    make(tmp_path, "build/gen.py", "build/__pycache__/x.py")

    assert rel(discover([tmp_path / "build"]), tmp_path) == ["build/gen.py"]


# --------------------------------------------------------------------------- exclude


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("generated", ["src/a.py", "tests/test_a.py"]),
        ("src/generated/*", ["src/a.py", "tests/test_a.py"]),
        ("test_*.py", ["src/a.py", "src/generated/g.py"]),
        ("tests/*", ["src/a.py", "src/generated/g.py"]),
        ("**/generated/*.py", ["src/a.py", "tests/test_a.py"]),
        ("src", ["tests/test_a.py"]),
        ("nothing-matches", ["src/a.py", "src/generated/g.py", "tests/test_a.py"]),
    ],
    ids=lambda value: str(value),
)
def test_exclude_patterns_skip_matching_paths(
    tmp_path: Path, pattern: str, expected: list[str]
) -> None:
    make(tmp_path, "src/a.py", "src/generated/g.py", "tests/test_a.py")

    assert rel(discover([tmp_path], exclude=[pattern], root=tmp_path), tmp_path) == expected


def test_exclude_patterns_are_relative_to_the_root(tmp_path: Path) -> None:
    make(tmp_path, "src/gen/a.py", "src/b.py")

    anchored = discover([tmp_path / "src"], exclude=["src/gen"], root=tmp_path)
    unanchored = discover([tmp_path / "src"], exclude=["src/gen"])

    assert rel(anchored, tmp_path) == ["src/b.py"]
    assert rel(unanchored, tmp_path) == ["src/b.py", "src/gen/a.py"]


def test_exclude_patterns_without_root_are_relative_to_the_walked_directory(
    tmp_path: Path,
) -> None:
    make(tmp_path, "src/gen/a.py", "src/b.py")

    assert rel(discover([tmp_path / "src"], exclude=["gen/*"]), tmp_path) == ["src/b.py"]


# --------------------------------------------------------------------------- gitignore


def test_root_gitignore_is_honoured(tmp_path: Path) -> None:
    make(tmp_path, "keep.py", "secret.py", "out/gen.py")
    (tmp_path / ".gitignore").write_text("# comment\n\nsecret.py\nout/\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["keep.py"]


def test_gitignore_negation_reincludes_a_file(tmp_path: Path) -> None:
    make(tmp_path, "gen_a.py", "gen_keep.py", "main.py")
    (tmp_path / ".gitignore").write_text("gen_*.py\n!gen_keep.py\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["gen_keep.py", "main.py"]


def test_gitignore_later_patterns_win(tmp_path: Path) -> None:
    make(tmp_path, "a.py", "b.py")
    (tmp_path / ".gitignore").write_text("!a.py\n*.py\n!b.py\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["b.py"]


def test_gitignore_trailing_slash_matches_directories_only(tmp_path: Path) -> None:
    make(tmp_path, "cache/a.py", "pkg/cache/b.py", "cache.py")
    (tmp_path / ".gitignore").write_text("cache/\ncache.py/\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["cache.py"]


def test_gitignore_anchored_patterns_match_only_at_their_directory(tmp_path: Path) -> None:
    make(tmp_path, "gen.py", "pkg/gen.py", "docs/api/x.py", "pkg/docs/api/y.py")
    (tmp_path / ".gitignore").write_text("/gen.py\ndocs/api\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["pkg/docs/api/y.py", "pkg/gen.py"]


def test_nested_gitignore_applies_to_its_own_directory(tmp_path: Path) -> None:
    make(tmp_path, "a/local.py", "a/sub/local.py", "b/local.py", "a/top.py")
    (tmp_path / "a" / ".gitignore").write_text("local.py\n/top.py\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["b/local.py"]


def test_nested_gitignore_can_negate_a_parent_pattern(tmp_path: Path) -> None:
    make(tmp_path, "gen.py", "pkg/gen.py")
    (tmp_path / ".gitignore").write_text("gen.py\n", encoding="utf-8")
    (tmp_path / "pkg" / ".gitignore").write_text("!gen.py\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["pkg/gen.py"]


def test_files_in_an_ignored_directory_cannot_be_reincluded(tmp_path: Path) -> None:
    make(tmp_path, "out/keep.py")
    (tmp_path / ".gitignore").write_text("out/\n!out/keep.py\n", encoding="utf-8")

    assert discover([tmp_path]) == []


def test_root_gitignore_applies_when_walking_a_subdirectory(tmp_path: Path) -> None:
    make(tmp_path, "src/pkg/gen.py", "src/pkg/a.py", "src/pkg/sub/gen.py")
    (tmp_path / ".gitignore").write_text("src/pkg/gen.py\n", encoding="utf-8")

    result = discover([tmp_path / "src" / "pkg"], root=tmp_path)

    assert rel(result, tmp_path) == ["src/pkg/a.py", "src/pkg/sub/gen.py"]


def test_git_info_exclude_and_work_tree_gitignore_apply_inside_a_repository(
    tmp_path: Path,
) -> None:
    make(tmp_path, ".git/info/", "src/a.py", "src/local_only.py", "src/tracked_gen.py")
    (tmp_path / ".git" / "info" / "exclude").write_text("local_only.py\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("src/tracked_gen.py\n", encoding="utf-8")

    assert rel(discover([tmp_path / "src"]), tmp_path) == ["src/a.py"]


def test_gitignore_in_a_repository_overrides_info_exclude(tmp_path: Path) -> None:
    make(tmp_path, ".git/info/", "a.py")
    (tmp_path / ".git" / "info" / "exclude").write_text("a.py\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("!a.py\n", encoding="utf-8")

    assert rel(discover([tmp_path]), tmp_path) == ["a.py"]


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "ignored"),
    [
        ("*.py", "a/b/c.py", False, True),
        ("a*", "b/abc", False, True),
        ("a/*.py", "a/b/c.py", False, False),
        ("a/*.py", "a/c.py", False, True),
        ("**/foo", "x/y/foo", False, True),
        ("**/foo", "foo", False, True),
        ("**/foo/bar", "x/foo/bar", False, True),
        ("abc/**", "abc/x/y", False, True),
        ("abc/**", "abc", True, False),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("a/**/b", "ab/b", False, False),
        ("/top", "top", False, True),
        ("/top", "sub/top", False, False),
        ("doc/frotz", "x/doc/frotz", False, False),
        ("file?.py", "file1.py", False, True),
        ("file?.py", "file/.py", False, False),
        ("file[0-9].py", "file7.py", False, True),
        ("file[!0-9].py", "file7.py", False, False),
        ("file[!0-9].py", "filex.py", False, True),
        ("\\#hash", "#hash", False, True),
        ("\\!bang", "!bang", False, True),
        ("trailing\\ ", "trailing ", False, True),
        ("spaces   ", "spaces", False, True),
        ("dir/", "dir", False, False),
        ("dir/", "dir", True, True),
    ],
    ids=lambda value: str(value),
)
def test_gitignore_pattern_syntax(pattern: str, path: str, is_dir: bool, ignored: bool) -> None:
    rules = parse_gitignore(pattern + "\n")
    result = False
    for rule in rules:
        if rule.matches(path, is_dir):
            result = not rule.negated

    assert rules
    assert result is ignored


def test_gitignore_comments_and_blank_lines_make_no_rules() -> None:
    assert parse_gitignore("# a comment\n\n   \n#*.py\n") == []
