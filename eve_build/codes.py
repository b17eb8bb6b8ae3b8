"""Every diagnostic code, with when it is emitted. Codes never change once released.

This table is data: docs/reference/diagnostics.md is generated from it and a test
checks that every code the package emits is listed here.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    # project: reading pyproject.toml
    "project/pyproject-missing": "There is no pyproject.toml in the project root.",
    "project/pyproject-invalid": "pyproject.toml is not valid TOML.",
    "project/name-missing": "`[project].name` or `[project].version` is missing or invalid.",
    "project/eve-table-missing": "pyproject.toml has no `[tool.eve.extension]` table.",
    "project/option-invalid": "An option in `[tool.eve.extension]` has the wrong type or value.",
    "project/source-missing": "The source folder named by `tool.eve.extension.source` is absent.",
    "project/external-dependency-undeclared":
        "`external-dependencies` names a package missing from the dependencies.",
    # discover: walking the slots
    "discover/reserved-entry": "An extension root holds an entry that belongs to the agent.",
    "discover/name-invalid": "A file or folder name is not a valid contribution name.",
    "discover/name-collision": "Two paths in one slot give the same name.",
    "discover/identifier-clash": "Two tool names map to the same Python identifier.",
    "discover/name-too-long": "A tool name is longer than providers accept (64).",
    "discover/name-long": "A tool name leaves little room for a namespace prefix (over 48).",
    "discover/extension-module-missing": "The source root has no `extension.py`.",
    "discover/unexpected-entry": "A folder where the slot only takes modules.",
    "discover/instructions-duplicate": "Both instructions.md and instructions.py exist.",
    "discover/path-outside-package": "A symlink points outside the package.",
    "discover/agent-module-missing": "A subagent folder has no `agent.py`.",
    "discover/skill-file-missing": "A packaged skill folder has no SKILL.md.",
    # load: importing definitions
    "load/syntax-error": "A module does not parse.",
    "load/import-failed": "A module raised while being imported.",
    "load/definition-missing": "A module lacks the definition its slot expects.",
    "load/definition-wrong-kind": "A module binds a definition of another kind.",
    # definitions
    "config/not-a-model": "The extension config is not a pydantic BaseModel subclass.",
    "config/async-validator": "The config model has an async validator.",
    "config/schema-failed": "The config model cannot produce a JSON Schema.",
    "tool/description-missing": "A tool has no description.",
    "tool/input-missing": "A tool has no pydantic input model.",
    "tool/output-invalid": "A tool's output is not a pydantic model.",
    "tool/execute-missing": "A tool has no callable execute.",
    "tool/approval-invalid": "A tool's approval is not always(), once() or never().",
    "tool/schema-failed": "A tool's input or output model cannot produce a JSON Schema.",
    "dynamic/resolve-missing": "A define_dynamic has no callable resolve.",
    "channel/route-invalid": "A channel route does not start with `/`.",
    "channel/method-invalid": "A channel method is not an HTTP method.",
    "channel/handle-missing": "A channel has no callable handle.",
    "connection/url-missing": "A connection has no url.",
    "connection/kind-invalid": "A connection kind is not `mcp` or `openapi`.",
    "schedule/run-or-markdown": "A schedule has both or neither of `run` and `markdown`.",
    "schedule/cron-invalid": "A schedule's cron is not 5 valid fields.",
    "hook/events-invalid": "A hook names an unknown event or a handler that is not callable.",
    "skill/frontmatter-invalid": "A skill's frontmatter is not valid YAML.",
    "skill/description-missing": "A packaged skill has no `description`.",
    "subagent/description-missing": "A subagent's define_agent() has no description.",
    "instructions/render-missing": "define_instructions() has no callable render.",
    "state/name-duplicate": "Two define_state() calls of one extension use one name.",
    # output
    "output/write-failed": "The output could not be written; the previous output is kept.",
}
