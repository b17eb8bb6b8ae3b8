"""The project's `.env` and `.env.local` (eve_build.project.envfiles): precedence, problems
with file:line, expansion, and lending to `os.environ` only while asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eve_build.project.envfiles import (
    ENVIRONMENT,
    layer_environ,
    lending,
    read_env_files,
)


def test_the_process_wins_then_env_local_then_env(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ALL=from-env\nFILES=from-env\nONLY_ENV=plain\n")
    (tmp_path / ".env.local").write_text("ALL=from-local\nFILES=from-local\n")
    files = read_env_files(tmp_path, {})
    process = {"ALL": "from-process"}

    environ = layer_environ(files, process)

    assert (environ["ALL"], environ["FILES"], environ["ONLY_ENV"]) == (
        "from-process", "from-local", "plain")
    assert [files.origin(name, process) for name in ("ALL", "FILES", "ONLY_ENV", "NONE")] == [
        ENVIRONMENT, ".env.local", ".env", None]


def test_no_files_set_nothing(tmp_path: Path) -> None:
    files = read_env_files(tmp_path, {})
    assert (files.values, files.problems) == ({}, ())
    assert layer_environ(files, {"A": "1"}) == {"A": "1"}


def test_quotes_export_comments_and_expansion(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        '# a comment\nexport HOST=db.example.com\nQUOTED="two words # not a comment"\n'
        "URL=https://${HOST}/v1 # trailing\nUSER_HOME=${HOME_DIR}/x\nBARE\n")
    files = read_env_files(tmp_path, {"HOME_DIR": "/home/ada"})
    assert files.values == {"HOST": "db.example.com", "QUOTED": "two words # not a comment",
                            "URL": "https://db.example.com/v1", "USER_HOME": "/home/ada/x"}
    assert files.problems == ()


def test_a_malformed_line_is_a_diagnostic_with_file_and_line_not_its_text(
        tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("GOOD=1\n")
    (tmp_path / ".env.local").write_text(
        "A=1\n\n# note\nthis is not-a-binding sk-secret-in-a-bad-line\nB=2\n")
    files = read_env_files(tmp_path, {})

    [problem] = files.problems
    assert (problem.code, problem.file, problem.line) == ("runtime/env-file-invalid",
                                                          ".env.local", 4)
    assert problem.message == "line 4 of `.env.local` is not `NAME=value`"
    assert "sk-secret" not in problem.message + problem.hint
    assert files.values == {"GOOD": "1", "A": "1", "B": "2"}


def test_a_file_that_is_not_utf8_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"KEY=\xff\xfe\n")
    [problem] = read_env_files(tmp_path, {}).problems
    assert (problem.code, problem.file) == ("runtime/env-file-invalid", ".env")
    assert "not UTF-8" in problem.message


def test_settings_are_not_secrets(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("EVE_MODEL=openai:gpt-4.1\nCRM_API_KEY=k-123456\n")
    assert read_env_files(tmp_path, {}).secrets() == {"CRM_API_KEY": "k-123456"}


def test_lending_adds_only_what_the_process_lacks_and_takes_it_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVE_TEST_KEPT", "process")
    monkeypatch.delenv("EVE_TEST_LENT", raising=False)
    with lending({"EVE_TEST_KEPT": "file", "EVE_TEST_LENT": "file"}):
        assert (os.environ["EVE_TEST_KEPT"], os.environ["EVE_TEST_LENT"]) == ("process", "file")
    assert os.environ["EVE_TEST_KEPT"] == "process"
    assert "EVE_TEST_LENT" not in os.environ
