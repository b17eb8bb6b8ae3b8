"""Agent sessions and their store (DESIGN.md sections 12-13).

`store.py` is the interface (`open_session_store`, `SessionStore`, the records);
`sqlite.py` and `postgres.py` are its two engines over the queries of `sql.py` and the
tables of `schema.py`; `listing.py` is the core of `eve sessions`.

The engine (issue 22):

- `run.py`: `run_message(path, text, RunRequest(...))`, the core of `eve run` and of
  each HTTP message: store, agent, session, one message, one commit.
- `engine.py`: `Session.asend(text)`: `message.received`, the turns (pydantic-ai),
  queued user messages, published events and custom messages.
- `toolset.py` (the agent's tools as a pydantic-ai toolset, every call through
  `acall_tool`), `extras.py` (`load_skill`, one delegation tool per subagent),
  `stream.py` (streamed chunks as `message.update`), `models.py` (which model, opened
  through pydantic-ai), `failures.py` (a failed run as a diagnostic), `transcript.py`
  (the result and the events a listener gets), `storage.py` (the store's one door).

Only `extra.py`, `errors.py`, `transcript.py`, `storage.py` and `run.py` import
without pydantic-ai; the rest are imported by commands that run a model.

Layer 5 (session): may import both layer-4 sides, the authored layer, formats and the
foundation; never `serve`, `mcp`, `dev`, `testing` or `cli` (the system prompt a turn
starts with is the run side's: eve_build.runtime.prompt).
"""
