"""Local extensions (DESIGN section 7): code on this machine, loaded beside the built agent.

Host-side API (kept backward-compatible; other runtime pieces build on it):

- **Records.** `LocalExtension` (record.py) is one local extension: `name`, `origin`
  (`explicit` | `project` | `global` | `node`), `path`, `status` (`loaded` | `dropped` |
  `untrusted` | `shadowed` | `stopped`), `running` (processes only), `spec`, `context`,
  `binding`, `diagnostics`, and once placed by the host: `tools`, `commands`,
  `guidelines`, `hooks` (intercepting) and `events` (observers by event name).
- **Sources.** A `LocalSource` (record.py) has `load(request: LoadRequest) ->
  list[LocalExtension]` and `close()`. `ScriptSource` (scripts.py) imports `.py` files
  and folders and calls `setup(ctx)` with the 5 s budget. A source of processes (project
  nodes) returns records whose `spec` holds proxies (a `Tool` whose `execute` calls over
  the socket, commands and handlers likewise), `origin="node"` and `running`; nothing
  else changes. `derive_local_sources(explicit)` (load.py) is the one list every command
  uses: add a source there.
- **Loading.** `load_agent(root, extensions=[...])` (eve_build.runtime) loads the local
  extensions by default (`local=False` leaves them out); `open_agent(...,
  local_sources=[...])` takes any sources. Inside, `open_local_layer(...)` (load.py)
  makes a `LocalLayer` (layer.py) and the `Agent` applies it over its root surface:
  `LocalHost.load` (host.py) shadows same-named later records, checks each Spec
  (spec.py), drops taken tool and command names with a warning naming winner and
  loser, and gives `ToolEntry`s (tools are called like any tool, with a ctx that has
  `report_progress` and the extension's ctx) and `HookEntry`s (hooks and observers run
  after the agent's and the mounts', sorted by extension name, with the hook budget).
- **The running agent.** `agent.local_extensions` (records), `agent.commands()`
  (`CommandInfo`: name, description, arg_hint, extension), `agent.run_command(name,
  args)` / `arun_command` (`CommandReply`: ok, text; raises CommandNotFoundError),
  `agent.guidelines()` (`Guideline`: extension, text; `eve prompt` prints these),
  `agent.reload_extensions()` (refused while a call runs; emits `extensions.changed`),
  and `agent.local.request.session` (`LocalSession`: notices, queued user messages and
  appended entries, saved in the snapshot under `local`).
- **Around it.** `trust.py` (`check_trust`, `approve_trust`, `revoke_trust`),
  `listing.py` (`derive_extension_rows`, the `eve extensions list` rows),
  `messages.py` (`handle_message`, `eve message`), `template.py` (`eve extension
  new-local`).

Layer 4, run side, its top: may import `node`, `connections`, `runtime`, the authored
layer, formats and the foundation; never `host` or the build side (the script template
is found by the foundation module `eve_build.toolchain`).
"""

from __future__ import annotations

from eve_build.local.context import LocalSession, Notice
from eve_build.local.host import CommandInfo, Guideline, LocalHost
from eve_build.local.layer import CommandNotFoundError, CommandReply, LocalLayer
from eve_build.local.load import LOCAL_BUDGET, derive_local_sources, open_local_layer
from eve_build.local.record import LoadRequest, LocalExtension, LocalSource, derive_binding
from eve_build.local.scripts import ScriptSource

__all__ = [
    "LOCAL_BUDGET", "CommandInfo", "CommandNotFoundError", "CommandReply", "Guideline",
    "LoadRequest", "LocalExtension", "LocalHost", "LocalLayer", "LocalSession", "LocalSource",
    "Notice", "ScriptSource", "derive_binding", "derive_local_sources", "open_local_layer",
]
