"""Worker side of an extension build: import and check one batch of modules.

A job is plain data (paths and roles); each module's result is JSON-able, so it can
cross the process boundary and be cached, and is delivered as soon as it is known:

    "tools/search.py": {"imported": true, "import": [...diagnostics],
                        "check": [...diagnostics], "record": {...} | null,
                        "capabilities": ["tool"], "states": [["requests", "lib/state.py", 0, 9]],
                        "extra": {...}}

Roles: `extension`, `agent`, `instructions`, or a module slot's directory (`tools`...).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TypedDict

from eve_build import slots
from eve_build.diagnostics import error
from eve_build.formats.json_text import derive_json_text
from eve_build.load import checks, progress
from eve_build.load.contributions import _MISSING, _check_module, _Context
from eve_build.load.importer import LoadedModules, import_modules, isolated_package
from eve_build.naming import ContributionName
from eve_build.output.stubs import derive_stub_parts
from eve_build.sdk.definitions import DEFINITION_TYPES, Agent, Extension, Instructions, State
from eve_build.source.layout import ModuleEntry


class Job(TypedDict):
    package: str  # "acme_crm.extension"
    source: str  # the source folder
    package_root: str
    display: str  # "extension/"
    identity_prefix: str  # "acme_crm:"
    contributions: list[str]  # every contribution module of the tree (not shared code)
    modules: list[tuple[str, str, str]]  # (path, role, name)


def check_batch(job: Job) -> dict[str, Any]:
    """Import and check each module of the job, in order, in this (worker) process;
    each module's result is delivered to the parent as soon as it is known. No bytecode
    is written into the author's source folder (`__pycache__`): the build reads it, and
    writing it cost a cold 1000-tool build 0.1 s of CPU; bytecode already there is used."""
    sys.dont_write_bytecode = True  # this is a worker: it ends after the batch
    source, display = Path(job["source"]), job["display"]
    package_root = Path(job["package_root"])
    contributions = set(job["contributions"])
    scanner = StateScanner(job["package"], contributions)
    with isolated_package(job["package"], source):
        ctx = _Context(source, display, job["identity_prefix"], LoadedModules(job["package"]))
        for path, role, name in job["modules"]:
            loaded, imported = import_modules(job["package"], source, [path], display=display,
                                              package_root=package_root)
            ctx.loaded.modules.update(loaded.modules)
            ctx.loaded.failed |= loaded.failed
            ctx.found, ctx.capabilities = [], set()
            record, extra = _check_role(ctx, path, role, name)
            result = {
                "imported": path not in loaded.failed,
                "import": [d.to_json() for d in imported],
                "check": [d.to_json() for d in ctx.found],
                "record": record,
                "capabilities": sorted(ctx.capabilities),
                "states": scanner.find(path),
                "extra": extra,
            }
            progress.deliver_encoded(path, encode_result(result, f"{display}{path}"))
    return {}


def warm_up() -> None:
    """Run once in the zygote: pydantic imports and builds much of itself on the first
    model and the first JSON Schema; done here, no worker pays for it."""
    from pydantic import create_model

    model = create_model("WarmUp", query=(str, ...), limit=(int, 1))
    derive_json_text(model.model_json_schema())


def encode_result(result: dict[str, Any], shown: str) -> str:
    """The JSON text of `result`, with its record's manifest text (`recordText`, encoded
    here, in parallel) when it is plain JSON; else of the result without its record,
    and an error (a schema can carry values from user code: `json_schema_extra={"x":
    object()}`, NaN)."""
    try:
        if result["record"] is not None:
            result = {**result, "recordText": derive_json_text(result["record"])}
        return json.dumps(result, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problem = error(
            "tool/schema-failed", shown,
            f"what `{shown}` defines cannot be written as JSON ({exc}); a JSON Schema may "
            "hold only strings, numbers, booleans, null, lists and objects",
            "check `json_schema_extra`, defaults and examples of its models: use JSON values",
        )
        result = {key: value for key, value in result.items() if key != "recordText"}
        return json.dumps({**result, "record": None, "extra": {}, "states": [],
                           "check": [*result["check"], problem.to_json()]})


def _check_role(ctx: _Context, path: str, role: str, name: str
                ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    if role == "extension":
        value = ctx.definition(path, slots.EXTENSION_ATTRIBUTE, (Extension,))
        if value is _MISSING:
            return None, {}
        schema, problems = checks.check_extension(value, ctx.where(path,
                                                                   slots.EXTENSION_ATTRIBUTE))
        ctx.found.extend(problems)
        if schema is not None:
            ctx.capabilities.add("config")
        model = value.config_model if schema is not None else None
        params, classes = derive_stub_parts(model)
        return None, {"configSchema": schema, "stubParameters": params, "stubClasses": classes}
    if role == "agent":
        agent = ctx.definition(path, slots.AGENT_ATTRIBUTE, (Agent,))
        if agent is _MISSING:
            return None, {}
        details, problems = checks.check_agent(agent, ctx.where(path, slots.AGENT_ATTRIBUTE))
        ctx.found.extend(problems)
        return details, {}
    if role == "instructions":
        value = ctx.definition(path, slots.INSTRUCTIONS_ATTRIBUTE, (Instructions,))
        if value is not _MISSING:
            ctx.found.extend(checks.check_instructions(
                value, ctx.where(path, slots.INSTRUCTIONS_ATTRIBUTE)))
        return None, {}
    slot = slots.SLOTS_BY_DIRECTORY[role]
    definition = ctx.definition(path, slot.attribute, DEFINITION_TYPES[slot.kind])
    if definition is _MISSING:
        return None, {}
    item = _check_module(ctx, ModuleEntry(slot, ContributionName(name), path), definition)
    return item, {"kind": type(definition).__name__}


class StateScanner:
    """`define_state()` values visible after importing a module: those of the module
    itself and of every shared (non-contribution) module imported so far, as
    [name, file, ordinal in its module]. A contribution's states are reported only by
    its own result, so a cached result never carries another contribution's old state.
    A fourth item, the line of the define_state() call, follows when known.
    Each module is scanned once, when it first appears in `sys.modules`."""

    def __init__(self, package: str, contributions: set[str]) -> None:
        self.prefix = f"{package}."
        self.contributions = contributions
        self.seen: set[str] = set()  # names in sys.modules looked at (each once)
        self.known: dict[str, tuple[str, list[list[Any]]]] = {}  # dotted -> (file, states)

    def find(self, path: str) -> list[list[Any]]:
        new = sys.modules.keys() - self.seen
        self.seen |= new
        for dotted in sorted(new):
            if dotted.startswith(self.prefix):
                scanned = self._scan(dotted)
                if scanned[1]:  # only modules with states are looked at again
                    self.known[dotted] = scanned
        found: list[list[Any]] = []
        for dotted, (shown, states) in self.known.items():
            if (shown == path or shown not in self.contributions) and dotted in sys.modules:
                found.extend(states)
        return found

    def _scan(self, dotted: str) -> tuple[str, list[list[Any]]]:
        module = sys.modules[dotted]
        file = getattr(module, "__file__", None)
        stem = dotted.removeprefix(self.prefix).replace(".", "/")
        shown = f"{stem}/__init__.py" if file and file.endswith("__init__.py") else f"{stem}.py"
        if not file:
            return shown, []
        seen: list[State] = []
        for value in list(vars(module).values()):
            if isinstance(value, State) and value.module in ("", dotted) \
                    and not any(value is other for other in seen):
                seen.append(value)
        return shown, [[state.name, shown, index, state.line]
                       for index, state in enumerate(seen)]
