"""Agent sessions and their store (DESIGN.md sections 12-13).

`store.py` is the interface (`open_session_store`, `SessionStore`, the records);
`sqlite.py` and `postgres.py` are its two engines over the queries of `sql.py` and the
tables of `schema.py`; `listing.py` is the core of `eve sessions`.
"""
