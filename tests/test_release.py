"""eve-build is release-ready: complete metadata (pyroma 10/10) and a release workflow
that publishes with PyPI trusted publishing on version tags."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import yaml
from pyroma import projectdata, ratings

REPO = Path(__file__).resolve().parent.parent


def test_pyroma_rates_the_metadata_10_of_10() -> None:
    logging.disable(logging.INFO)  # pyroma and build log every step
    try:
        data = projectdata.get_data(str(REPO))
    finally:
        logging.disable(logging.NOTSET)

    score, problems = ratings.rate(data)

    assert problems == []
    assert score == 10


def test_the_release_workflow_publishes_tags_with_trusted_publishing() -> None:
    workflow: dict[Any, Any] = yaml.safe_load((REPO / ".github/workflows/release.yml").read_text())
    trigger = workflow[True]  # YAML 1.1 reads the key `on` as a boolean
    publish = workflow["jobs"]["publish"]

    assert trigger == {"push": {"tags": ["v*"]}}
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"] == "pypi"
    assert publish["needs"] == "build"
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish")
               for step in publish["steps"])
    assert not any("password" in step.get("with", {}) for step in publish["steps"])
    build_steps = " ".join(str(step.get("run", "")) for step in workflow["jobs"]["build"]["steps"])
    assert "twine check --strict" in build_steps
    assert '"v$version" = "$GITHUB_REF_NAME"' in build_steps
