"""A root-qualified skill, `agent/skills/crm__triage.md`, overrides the mounted skill."""

from __future__ import annotations

from eve_build.consumer.build import build_agent
from tests.consumer.conftest import MakeApp, build_errors

SKILL = "---\ndescription: Our own way to {what}.\n---\nDo it our way.\n"


def test_a_root_qualified_skill_replaces_the_mounted_one(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm")
    skills = root / "agent" / "skills"
    (skills / "crm__summarize.md").write_text(SKILL.format(what="summarize"))
    (skills / "crm__triage").mkdir()
    (skills / "crm__triage" / "SKILL.md").write_text(SKILL.format(what="triage"))

    compiled = build_agent(root).compiled

    by_name = {s.name: s for s in compiled.root.skills}
    assert (by_name["crm__summarize"].source, by_name["crm__summarize"].file) == (
        "root-override", "agent/skills/crm__summarize.md")
    assert (by_name["crm__triage"].source, by_name["crm__triage"].file) == (
        "root-override", "agent/skills/crm__triage/SKILL.md")
    assert by_name["crm__triage"].details["description"] == "Our own way to triage."
    assert by_name["crm__triage"].identity != ""  # still the package skill's identity
    assert by_name["escalate"].source == "agent"


def test_a_qualified_skill_of_an_unknown_namespace_is_an_error(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm")
    (root / "agent" / "skills" / "billing__triage.md").write_text(SKILL.format(what="bill"))

    [problem] = build_errors(root)

    assert problem.startswith(
        "agent/skills/billing__triage.md: error agent/override-namespace-unknown: "
        "`agent/skills/billing__triage.md` is named like an override of `billing__triage`, "
        "but nothing is mounted under the namespace `billing`")
