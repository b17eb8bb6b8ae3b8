"""Every diagnostic code, with when it is emitted. Codes never change once released.

This table is data: docs/reference/diagnostics.md is generated from it and a test
checks that every code the package emits is listed here.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    # project: reading pyproject.toml
    "project/pyproject-missing": "There is no pyproject.toml in the project root.",
    "project/pyproject-invalid": "pyproject.toml is not valid TOML.",
    "project/name-invalid": "`[project].name` is not a valid distribution or import name.",
    "project/name-missing": "`[project].name` or `[project].version` is missing or invalid.",
    "project/eve-table-missing": "pyproject.toml has no `[tool.eve.extension]` table.",
    "project/option-invalid": "An option in `[tool.eve.extension]` has the wrong type or value.",
    "project/source-missing": "The source folder named by `tool.eve.extension.source` is absent.",
    "project/external-dependency-undeclared":
        "`external-dependencies` names a package missing from the dependencies.",
    "project/field-invalid": "A `[project]` field of the agent app's pyproject.toml has the "
        "wrong type (`dependencies = \"x\"`, `project` not a table).",
    # discover: walking the slots
    "discover/reserved-entry": "An extension root holds an entry that belongs to the agent.",
    "discover/name-invalid": "A file or folder name is not a valid contribution name.",
    "discover/name-collision": "Two paths in one slot give the same name.",
    "discover/identifier-invalid": "A tool name is no Python identifier in the tools module.",
    "discover/identifier-clash": "Two tool names map to the same Python identifier.",
    "discover/name-too-long": "A tool name is longer than providers accept (64).",
    "discover/name-long": "A tool name leaves little room for a namespace prefix (over 48).",
    "discover/extension-module-missing": "The source root has no `extension.py`.",
    "discover/unexpected-entry": "A folder where the slot only takes modules.",
    "discover/folder-unknown": "A folder whose name is close to a slot's but is not one.",
    "discover/instructions-duplicate": "Both instructions.md and instructions.py exist.",
    "discover/path-outside-package": "A symlink points outside the package.",
    "discover/agent-module-missing": "A subagent folder has no `agent.py`.",
    "discover/skill-file-missing": "A packaged skill folder has no SKILL.md.",
    # load: importing definitions
    "load/syntax-error": "A module does not parse.",
    "load/import-failed": "A module raised while being imported.",
    "load/definition-missing": "A module lacks the definition its slot expects.",
    "load/definition-wrong-kind": "A module binds a definition of another kind.",
    "load/definition-wrong-slot": "A module in one slot folder defines only what another slot "
    "holds (`channel = define_channel(...)` in tools/).",
    # first-day authoring (issue: a stranger's first day)
    "load/definition-misnamed": "A module binds its definition under another name than the slot's.",
    "load/definition-argument-unknown": "A define_*() call passes an argument it does not take.",
    "definition/signature-invalid":
        "A definition's function cannot take the arguments the host calls it with.",
    "tool/prompt-invalid": "A tool's `prompt_snippet` or `prompt_guidelines` is not text.",
    "channel/route-duplicate": "Two channels of one extension claim the same method and route.",
    "discover/skill-dynamic-unsupported":
        "A Python module in `skills/`: dynamic skills are not supported.",
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
    "connection/headers-invalid": "A connection's headers are not a mapping.",
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
    "output/foreign-files": "The output folder holds files that no eve build wrote.",
    "output/write-failed": "The output could not be written; the previous output is kept.",
    # runtime: loading the compiled agent (`eve call`, the test harness)
    "runtime/compiled-missing": "There is no `.eve/compile/compiled-agent.json`: run `eve build`.",
    "runtime/compiled-invalid": "The compiled agent is malformed or of another format version.",
    "runtime/mount-failed": "A mount file raised while it was imported or its factory called.",
    "runtime/mount-stale": "A mount file now mounts another package than the compiled agent.",
    "runtime/env-missing": "An `env(...)` value of a mount names an unset environment variable.",
    "runtime/env-file-invalid": "A line of the project's `.env` or `.env.local` is not "
                                "`NAME=value`, or the file cannot be read.",
    "runtime/extension-failed": "A mounted extension package cannot be imported.",
    "runtime/definition-failed": "A compiled contribution cannot be imported or changed kind.",
    # state: session snapshots and their migration
    "state/snapshot-invalid": "A session snapshot is not valid JSON or not a snapshot.",
    "state/key-ambiguous":
        "An old package-prefixed state key matches the state of several mounts.",
    "state/key-dropped": "An old package-prefixed state key was dropped: nothing takes it.",
    # agent: the consuming agent (`eve build`, `eve info`)
    "agent/not-found": "No agent folder (`agent/`, or a flat agent with instructions.md) here.",
    "agent/instructions-missing": "The root agent has no instructions.md.",
    "agent/instructions-unreadable": "An instructions.md cannot be read as UTF-8 text.",
    "agent/instructions-tool-missing": "An instructions fragment's `{{tool:NAME}}` names a "
        "tool the agent does not have (disabled, or never there); the prompt leaves the "
        "fragment out.",
    "agent/override-namespace-unknown":
        "An agent-root `<ns>__<name>` file names a namespace that is not mounted.",
    "agent/definition-wrong-kind": "The root agent's agent.py binds something else than an agent.",
    # mount: mount files and what they resolve to
    "mount/namespace-invalid": "A mount file's name is not a valid namespace.",
    "mount/duplicate": "Both `extensions/<ns>.py` and `extensions/<ns>/extension.py` exist.",
    "mount/definition-missing": "A mount file does not bind `mount`.",
    "mount/definition-wrong-kind": "A mount file's `mount` is not a Mount or a mount factory.",
    "mount/package-unknown": "A mount file imports no module that could be the extension.",
    "mount/package-not-found": "The extension a mount file imports is not in the workspace "
        "nor installed.",
    "mount/package-mismatch": "A mount file's `mount` comes from another package than it imports.",
    "mount/config-invalid": "A mount's config does not validate against the extension's model.",
    "mount/config-unknown-field": "A mount's config names an option the extension ignores.",
    "mount/override-unknown": "An override names a contribution the extension does not have.",
    "mount/override-unsupported": "A directory mount holds a folder that cannot override anything.",
    "mount/route-conflict": "Two channels claim the same method and route.",
    "mount/nesting-too-deep": "Mounts inside extension subagents nest too deep (a cycle?).",
    # compat: the compatibility check, before any extension code is imported
    "compat/manifest-missing": "The mounted package has no compatibility manifest.",
    "compat/manifest-invalid": "The manifest is malformed, of another kind or of an unknown "
        "format.",
    "compat/capability-dropped": "The extension requires a capability version that was dropped.",
    "compat/capability-newer": "The extension requires a capability version newer than "
        "eve-build's.",
    "compat/capability-unknown": "The extension requires a capability eve-build does not know.",
    "compat/external-dependency-missing": "An external dependency of the extension is not "
        "installed.",
    # workspace: uv workspaces with source-backed extensions
    "workspace/pyproject-invalid": "The workspace pyproject.toml cannot be read or its members "
        "are not a list.",
    "workspace/member-pyproject-invalid": "A workspace member's pyproject.toml is not valid "
        "TOML, so it cannot be built or mounted.",
    "workspace/extension-build-failed": "A workspace extension failed to build; the agent is not "
        "built.",
    # serve: `eve serve`, `eve dev` serving, schedules, `eve prompt` (docs/serving.md)
    "serve/extra-missing": "Serving needs the `serve` extra (starlette, uvicorn): "
        "pip install 'eve-build[serve]'.",
    "serve/port-in-use": "The host and port `eve serve` should listen on are taken.",
    "serve/address-invalid": "`eve serve` cannot listen on the host or port given.",
    "serve/workers-invalid": "`eve serve --workers` is past its maximum (4 per CPU core): "
        "usage error, exit 2.",
    "serve/schedule-unknown": "`eve schedule run` names a schedule the agent does not have.",
    "serve/subagent-unknown": "`--subagent` names a subagent the agent does not have.",
    "serve/route-invalid": "A channel route's path parameters cannot be served (a name used "
        "twice, an unknown convertor).",
    # local: local extensions (scripts in .eve/extensions/, -e paths) and their trust
    "local/name-invalid": "A local extension, or a tool or command it defines, has a bad name.",
    "local/extension-module-missing": "A local extension folder has no `extension.py`.",
    "local/path-missing": "An `-e PATH` names no `.py` file and no folder with `extension.py`.",
    "local/syntax-error": "A local extension's module does not parse; it is not loaded.",
    "local/setup-failed": "A local extension raised on import or in `setup`; it is not loaded.",
    "local/setup-missing": "A local extension defines no callable `setup(ctx)`.",
    "local/spec-invalid": "`setup` returned no Spec, or a Spec field holds the wrong type.",
    "local/spec-field-unknown": "`setup` built a Spec with a field Spec does not take.",
    "local/timeout": "A local extension's import and `setup` took longer than 5 s.",
    "local/tool-invalid": "A local tool is not a valid define_tool() definition; it is left out.",
    "local/command-invalid": "A local command is not a define_command() with a callable `run`.",
    "local/event-unknown": "A local hook or observer names an event it cannot handle.",
    "local/name-taken": "A local tool or command name is already taken (the later one is left "
        "out), or `new-local` found an extension of that name.",
    "local/project-untrusted": "The project's `.eve/extensions/` is not approved, or changed "
        "since it was: skipped until `eve trust`.",
    "local/trust-file-invalid": "`$EVE_HOME/trust.json` is corrupt: no project folder is "
        "trusted.",
    # node: project extensions in their own process (DESIGN section 8, `eve node`)
    "node/project-invalid": "`eve node add` of a folder without pyproject.toml.",
    "node/name-invalid": "A node's name (its folder name or `--name`) is not a valid name.",
    "node/already-registered": "`eve node add` of a name registered for another folder.",
    "node/registry-invalid": "`$EVE_HOME/nodes.json` cannot be read or is of another format.",
    "node/not-registered": "`eve node start|stop|remove` of a name `eve node add` never "
        "registered.",
    "node/extension-missing": "A node's project has no `extension.py`.",
    "node/install-failed": "Creating a node's venv or installing its project failed.",
    "node/start-failed": "A node exited or did not answer `describe` after `eve node start`.",
    "node/not-running": "No longer emitted: `eve node stop` of a stopped node exits 0 with a "
        "note.",
    "node/socket-unsafe": "A node's socket is another user's or others may connect: refused.",
    "node/stale": "A node's socket or pid file outlived its process; they were removed.",
    "node/describe-failed": "A running node did not answer `describe` in time, or with garbage.",
    "node/dropped": "A node died, hung or sent garbage while the host used it.",
    # nodes and extension output: hostile registries, describes and names (issue 23)
    "node/registry-entry-invalid": "An entry of `nodes.json` has a bad name or path: left out.",
    # mcp and connections at run time: `eve mcp`, `eve connections [--probe]` (docs/mcp.md)
    "mcp/sdk-missing": "The MCP SDK (the `eve-build[mcp]` extra) is not installed.",
    "connection/env-missing": "A connection's URL or header needs an environment variable that "
        "is not set.",
    "connection/resolve-failed": "A connection could not be resolved at load (a dynamic resolve "
        "raised or returned no connection).",
    "connection/url-invalid": "A resolved connection URL is not an http(s) URL.",
    "connection/unreachable": "Probing: the MCP server cannot be reached or did not answer in "
        "time.",
    "connection/auth-failed": "Probing: the MCP server refused the connection's credentials "
        "(HTTP 401 or 403).",
    "connection/not-mcp": "Probing: the server answered, but not as an MCP server.",
    # consumer in real life (issue 11): upgrades, source-backed installs, per-mount env, add
    "compat/built-with-newer-eve": "The extension was built by a newer eve-build than this one.",
    "runtime/extension-changed": "An installed extension differs from the one the agent was "
        "built against (upgraded, downgraded, rebuilt or removed).",
    "add/target-not-found": "`eve add` was given a path or wheel that does not exist.",
    "add/not-an-extension": "`eve add` was given something that is not an eve extension.",
    "add/install-failed": "Installing the extension into the project's environment failed.",
    "add/namespace-invalid": "The namespace `eve add` would mount under is not a valid name.",
    "add/namespace-taken": "The namespace `eve add` would mount under is already a mount.",
    "add/project-invalid": "The agent project's pyproject.toml is missing or cannot be edited.",
    "add/build-failed": "The agent does not build with the extension mounted; `eve add` was "
        "undone.",
    # init: `eve init NAME`, an agent project in one command (issue 28)
    "init/name-invalid": "`eve init` was given a name that cannot name a project "
        "(usage error, exit 2).",
    "init/target-not-empty": "`eve init`'s target folder is not empty (without `--force`): "
        "nothing was written.",
    "init/target-not-a-folder": "`eve init`'s target is a file, or a file is in the way of "
        "a scaffold file: nothing was written.",
    # engine: user code imported at build time, in worker processes under a time budget
    "engine/budget-invalid": "`import-timeout` or EVE_IMPORT_TIMEOUT is not a positive number "
        "of seconds.",
    "engine/import-timeout": "Importing a module took longer than the import budget; it was "
        "stopped.",
    "engine/worker-crashed": "The build worker died while importing a module (a crash, "
        "`os._exit`).",
    "engine/stray-thread": "Importing a module left a non-daemon thread running.",
    # reliability: the last resort and bounded input (issue 10, docs/reliability.md)
    "discover/symlink-broken": "A symlink loops, leads to its own folder or points to nothing.",
    "discover/tree-too-deep": "A folder is nested deeper than discovery follows (100).",
    "source/text-invalid": "An instructions or skill file is not UTF-8 or starts with a BOM.",
    "skill/description-invalid": "A skill's `description` is not text.",
    "project/option-unknown": "`[tool.eve.extension]` has a key eve-build does not know.",
    "project/version-unnormalized": "`[project].version` is not in its PEP 440 normal form.",
    "pack/file-outside-package": "A package-root file the sdist ships links outside the package.",
    "workspace/member-invalid": "A workspace `members`/`exclude` pattern is empty, absolute, "
        "`.` or leaves the workspace.",
    "state/snapshot-unwritable": "The migrated snapshot cannot be written where `-o` points.",
    "discover/slot-not-folder": "A file carries a slot's name (`tools`, `skills`, ...).",
    "mount/override-beside-flat-mount": "An override folder sits beside a flat mount file "
        "(only directory mounts take overrides).",
    "mount/tool-name-too-long": "A mounted tool name, namespace included, passes 64 "
        "characters.",
    "compat/output-edited": "An installed extension's files differ from its manifest hashes.",
    "internal/unexpected": "eve-build hit an unexpected error (a bug): a short report, no "
        "traceback.",
    # security: what may enter an artifact (issue 23, items 2, 3, 14, 20, 21)
    "discover/hard-link-outside": "A source file is a hard link with a name outside the "
        "source folder.",
    "pack/path-outside-project": "A file the sdist or wheel would ship is, or leads to, a "
        "path outside the project.",
    "pack/file-not-regular": "A file the sdist or wheel would ship is a FIFO, socket or "
        "device.",
    "pack/output-edited": "The output about to be packed differs from what its build wrote.",
    "project/dependency-invalid": "A `[project].dependencies` entry is not a PEP 508 "
        "requirement.",
    "project/output-unsafe": "`tool.eve.extension.output` is a file, a dangling symlink or "
        "inside an earlier build's output.",
    "model/default-not-json": "A field's default has no JSON form, so the manifest's schema "
        "shows none.",
    # models: field-level problems of config, input and output models (issue 14)
    "model/name-undefined": "A field type of a model names something that is not defined.",
    "model/default-invalid": "A field's default does not validate against the field's own type.",
    # mcp interop: connection tools in the runtime (issues 19, 22, 23; docs/mcp.md)
    "connection/tool-skipped": "A tool of an MCP connection is left out of the agent: its "
        "`<connection>__<tool>` name is taken or is not a valid tool name.",
    # session store: sessions, served state and schedule runs (issues 21-22, docs/deploying.md)
    "session/store-invalid": "The session store file is not a SQLite database, or cannot be "
        "read as one; it is left as it is.",
    "session/store-foreign": "The session store database holds someone else's tables and no "
        "eve-build schema; it is left as it is.",
    "session/store-too-new": "The session store has a newer schema version than this "
        "eve-build knows; upgrade eve-build.",
    "session/store-unreachable": "The PostgreSQL session store cannot be reached (connection "
        "refused, authentication, timeout).",
    "session/store-unwritable": "The session store cannot be written (permissions, a full "
        "disk, a lock held too long).",
    "session/store-url-invalid": "EVE_SESSION_STORE names a URL scheme eve-build does not "
        "know.",
    "session/store-extra-missing": "A PostgreSQL session store needs psycopg 3 (`pip install "
        "'eve-build[postgres]'`).",
    "session/store-special-file": "The session store path (or its `-wal`/`-journal` file) is "
        "a FIFO, device or socket, or a link to one: it is never opened.",
    "session/store-replaced": "The SQLite session store file was deleted or replaced while "
        "in use: nothing more is committed into it; restart to open the store anew.",
    "session/scope-adopted": "The store's legacy state scope `serve/agent` (shared by every "
        "agent before scopes named the project) was adopted by another project.",
    "session/id-unknown": "There is no session with this id in the store.",
    "session/id-invalid": "A session id is not 1-128 letters, digits, `.`, `_` or `-`.",
    "session/id-taken": "A session with this id already exists.",
    # session: agent sessions with a model (issue 22, eve_build/session/)
    "session/extra-missing": "`eve run`, `eve chat` or the session routes need the "
        "`eve-build[agent]` extra (pydantic-ai).",
    "session/model-missing": "No model is configured: no `--model`, no `EVE_MODEL`, no "
        "`define_agent(model=...)`.",
    "session/model-provider-missing": "A model name has no `provider:` prefix.",
    "session/provider-unknown": "A model name's provider is not one pydantic-ai knows.",
    "session/provider-extra-missing": "The provider's client library is not installed.",
    "session/api-key-missing": "The provider's API key variable is not set.",
    "session/model-unreachable": "The model's endpoint refused or dropped the connection.",
    "session/model-auth": "The provider answered HTTP 401/403: the key is wrong.",
    "session/model-rate-limited": "The provider answered HTTP 429.",
    "session/model-http-error": "The provider answered another HTTP error (4xx/5xx).",
    "session/model-timeout": "The model did not answer within `EVE_MODEL_TIMEOUT` seconds.",
    "session/turn-timeout": "A message did not finish within `EVE_TURN_TIMEOUT` seconds (its "
        "whole deadline); it was cancelled, nothing of it committed (HTTP 504).",
    "session/failed": "A session request over HTTP failed with an error that carries no "
        "diagnostic of its own (the agent has no good build yet, ...).",
    "session/model-failed": "The model's answer could not be used (retries exhausted, "
        "a malformed response).",
    "session/request-limit": "The run reached its request or tool-call limit "
        "(`--max-requests`).",
    "session/subagent-tool-skipped": "A subagent's delegation tool name is taken by a tool.",
    "session/body-invalid": "A session HTTP request's body is not the JSON object asked for.",
    "session/busy": "A message for a session arrived while a turn of it runs (in this or "
        "another process on the session store).",
    # one owner for a session: the store (issue 26 items 1-3, eve_build/session/claims.py)
    "session/moved-on": "Another process committed a turn to the session after this turn "
        "started from the store; this turn was not committed.",
    "session/input-invalid": "A line given to `eve chat` is not UTF-8 text: it is not sent, "
        "the chat goes on.",
    "session/command-unknown": "A `/command` or `/skill:NAME` typed in `eve chat` names none "
        "the agent has: nothing is sent, the chat goes on (`/help` lists them).",
    # first day: CLI and lifecycle (issue 19)
    "add/write-failed": "`eve add` could not write `pyproject.toml` or the mount file (an "
        "immutable or read-only file, a full disk); everything was put back.",
    "add/restore-failed": "`eve add` failed and could not put the extension's previous "
        "installation back.",
    "project/version-dynamic": "`[project].version` is dynamic; an extension needs a static "
        "version.",
    # serve and runtime hardening (issue 23, items 8, 9, 12, 15, 22; docs/reliability.md)
    "serve/body-too-large": "A request body is larger than `--max-body`: answered 413, never "
        "read whole.",
    "serve/channel-raised": "A channel handler raised: answered 500, one log line.",
    "serve/channel-timeout": "A channel handler did not answer within `--channel-timeout`: "
        "500.",
    "serve/channel-result-invalid": "A channel handler returned a value that cannot be sent "
        "(not JSON, another type): 500.",
    "serve/response-invalid": "A response has a status outside 100-599 or a header holding "
        "CR, LF or NUL: 500 instead.",
    "serve/internal-error": "A route failed outside any channel handler: 500, one log line.",
    # serve: who may call a route, and what an error answer looks like (issue 26 item 10,
    # issue 30; docs/deploying.md, docs/serving.md)
    "serve/host-refused": "A request's `Host` names no admitted host (DNS rebinding): 421.",
    "serve/origin-refused": "A request's `Origin` is neither the server's own nor an "
        "`--allow-origin` (a page of another site): 403.",
    "serve/content-type-refused": "A body sent to a JSON route (or read with "
        "`request.json()`) does not say `Content-Type: application/json`: 415.",
    "serve/allow-host-invalid": "An `--allow-host` (or EVE_ALLOW_HOSTS) value is not a host "
        "name or address.",
    "serve/allow-origin-invalid": "An `--allow-origin` (or EVE_ALLOW_ORIGINS) value is not "
        "`scheme://host[:port]`.",
    "serve/route-unknown": "No route or channel is served at the requested path: 404.",
    "serve/method-not-allowed": "The path is served, but not for the request's method: 405.",
    "serve/not-ready": "`eve dev` has no good build to serve yet: 503.",
    "serve/channel-unavailable": "A channel's mount did not open (an `env()` value is unset): "
        "503, the handler is not called.",
    "serve/body-invalid": "A channel's `request.json()` was given a body that is not JSON: 400.",
    "setting/value-invalid": "A numeric setting (an environment variable or an option) is "
        "not a number in its range.",
    # special files, signals, trust and the cache (issue 23 round two)
    "source/special-file": "A FIFO, device or socket (or a link to one) where eve-build "
        "reads files: it is never read.",
    "engine/cache-folder-foreign": "The build cache folder (EVE_CACHE_DIR) holds files the "
        "cache did not write: the build runs without the cache and changes nothing there.",
    # ask the person: ctx.ask on the CLI and over HTTP (issue 27 item 3, docs/sessions.md)
    "tool/ask-schema-invalid": "A `ctx.ask(..., schema=Model)` names a model that is not a "
        "flat model of str, int, float, bool, Enum or Literal fields (optional or not).",
    "session/input-required": "A tool asked the person (`ctx.ask`) and nobody can answer: "
        "no terminal and no `--answer` for its fields; nothing of the message was kept.",
    "session/answer-invalid": "An answer (`--answer field=value`, an HTTP answer) does not "
        "fit the question's schema: `eve run` fails, HTTP answers 422 and the question stays "
        "open.",
    "session/input-unknown": "An HTTP answer names a question the session never asked: 404.",
    "session/input-closed": "An HTTP answer reached a question already answered or timed out "
        "(EVE_INPUT_TIMEOUT): 409.",
}
