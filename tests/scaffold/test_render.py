"""The scaffold's templates render to exactly the golden `demo` package."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from eve_build.errors import EveBuildError
from eve_build.scaffold import derive_context, render_scaffold
from eve_build.scaffold.render import derive_output_path, locate_templates
from tests.golden_files import assert_matches_golden
from tests.scaffold.helpers import GOLDEN_EVE_VERSION, GOLDEN_SCAFFOLD

EXPECTED_FILES = [
    ".github/workflows/ci.yml",
    ".gitignore",
    "AGENTS.md",
    "LICENSE",
    "README.md",
    "extension/extension.py",
    "extension/instructions.md",
    "extension/tools/greet.py",
    "pyproject.toml",
    "tests/test_greet.py",
]


def write_rendered(files: dict[str, str], root: Path) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    return root


def test_demo_renders_to_the_golden_files(tmp_path: Path, update_golden: bool) -> None:
    files = render_scaffold(derive_context("demo", eve_build_version=GOLDEN_EVE_VERSION))
    assert list(files) == EXPECTED_FILES
    assert_matches_golden(write_rendered(files, tmp_path), GOLDEN_SCAFFOLD, update=update_golden)


def test_rendering_is_pure_and_sorted() -> None:
    first = render_scaffold(derive_context("acme-crm"))
    assert first == render_scaffold(derive_context("acme-crm"))
    assert list(first) == sorted(first)


def test_the_name_is_templated_everywhere() -> None:
    files = render_scaffold(derive_context("acme-crm", eve_build_version="9.8.7"))
    assert 'name = "acme-crm"' in files["pyproject.toml"]
    assert '"eve-build==9.8.7"' in files["pyproject.toml"]
    assert "from acme_crm.tools import greet" in files["tests/test_greet.py"]
    assert "https://pypi.org/p/acme-crm" in files[".github/workflows/ci.yml"]
    everything = "\n".join(files.values())
    assert "demo" not in everything


def test_templates_come_from_the_checkout_when_not_shipped() -> None:
    import eve_build

    folder = locate_templates()
    package_dir = Path(eve_build.__file__).parent
    assert folder in (
        package_dir / "_templates" / "extension",
        package_dir.parent / "templates" / "extension",
    )
    assert (folder / "README.md.jinja").is_file()


@pytest.mark.parametrize(
    ("template", "output"),
    [
        ("dot-gitignore.jinja", ".gitignore"),
        ("dot-github/workflows/ci.yml.jinja", ".github/workflows/ci.yml"),
        ("extension/tools/greet.py.jinja", "extension/tools/greet.py"),
    ],
)
def test_output_paths(template: str, output: str) -> None:
    assert derive_output_path(PurePosixPath(template)) == output


def test_an_undefined_variable_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "broken.txt.jinja").write_text("{{ nonsense }}\n")
    with pytest.raises(
        EveBuildError,
        match=r"broken\.txt\.jinja`: the scaffold template does not render: 'nonsense' is undef",
    ):
        render_scaffold(derive_context("demo"), folder=tmp_path)


def test_the_readme_says_what_init_installed_the_test_extra() -> None:
    from eve_build.scaffold.steps import TEST_EXTRA

    readme = render_scaffold(derive_context("demo"))["README.md"]
    develop = readme.split("## Develop", 1)[1].split("has already done the first three", 1)[0]
    assert f'-e ".[{TEST_EXTRA}]"' in develop  # what `install_environment` installs
    assert '".[dev]"' not in develop
