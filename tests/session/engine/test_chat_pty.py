"""`eve chat` in a real pseudo-terminal: streamed tokens, an approval prompt answered,
Ctrl-C during a turn (the turn is dropped, the session goes on), `/exit`; a tool's
question (`ctx.ask`) asked field by field in `eve chat`, `eve run` and `eve call`."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import sys
import time
from pathlib import Path

from eve_build.session.stores import open_session_store
from tests.session.engine.fake_openai import Script


class Terminal:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec at once (the test process has threads)
            os.execve(sys.executable, [sys.executable, *argv], env)
        self.output = ""

    def expect(self, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came; the terminal shows:\n{self.output}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.output += os.read(self.fd, 4096).decode(errors="replace")
                except OSError:  # the child is gone
                    break
        assert text in self.output, self.output
        start = self.output.index(text) + len(text)
        seen, self.output = self.output[:start], self.output[start:]
        return seen

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.expect_nothing()
        raise AssertionError("eve chat did not exit")

    def expect_nothing(self) -> None:
        ready, _, _ = select.select([self.fd], [], [], 0.05)
        if ready:
            with contextlib.suppress(OSError):  # the child is gone
                self.output += os.read(self.fd, 4096).decode(errors="replace")


def test_chat_in_a_terminal(app: Path, model_env: dict[str, str],
                            fake: tuple[str, Script]) -> None:
    script = fake[1]
    term = Terminal(["-m", "eve_build", "chat", "--model", "openai-chat:scripted",
                     "--path", str(app), "-e", str(app / "ext/talk.py")],
                    {**model_env, "TERM": "dumb"})
    term.expect("`/exit` to leave")
    term.expect("> ")

    script.steps = [{"text": "hello there my friend", "pause": 0.05}]
    term.send("hi\r")
    shown = term.expect("friend")
    assert "hello there my" in shown
    term.expect("> ")

    script.steps = [{"tools": [{"name": "wipe", "arguments": {"what": "disk"}}]},
                    {"text": "wiped it"}]
    term.send("wipe the disk\r")
    assert "approve `wipe`" in term.expect("[y/N] ")
    term.send("y\r")
    term.expect("tool: wipe ok")
    term.expect("wiped it")
    term.expect("> ")

    script.steps = [{"hang": 30}]
    term.send("take your time\r")
    deadline = time.monotonic() + 60
    while not any(r["messages"][-1].get("content") == "take your time"
                  for r in script.requests):
        assert time.monotonic() < deadline, "the hanging request never reached the model"
        term.expect_nothing()
    term.send("\x03")  # Ctrl-C: the terminal sends SIGINT to eve chat
    term.expect("cancelled: the turn was not kept")
    term.expect("> ")

    script.steps = [{"text": "still here"}]
    term.send("are you there?\r")
    term.expect("still here")
    term.expect("> ")
    term.send("/exit\r")
    assert term.wait() == 0

    store = open_session_store(app)
    try:
        (row,) = store.list_sessions()
        record = store.read_session(row.id)
        assert record is not None and row.turns == 3  # hi, wipe, are you there
        users = [p["content"] for m in record.messages for p in m["parts"]
                 if p.get("part_kind") == "user-prompt"]
        assert users == ["hi", "wipe the disk", "are you there?"]
    finally:
        store.close()


def test_chat_asks_a_tools_question_field_by_field(app: Path, model_env: dict[str, str],
                                                   fake: tuple[str, Script]) -> None:
    script = fake[1]
    book = [{"tools": [{"name": "book", "arguments": {"what": "Rome"}}]}, {"text": "booked"}]
    term = Terminal(["-m", "eve_build", "chat", "--model", "openai-chat:scripted",
                     "--path", str(app), "-e", str(app / "ext/talk.py")],
                    {**model_env, "TERM": "dumb"})
    term.expect("> ")

    script.steps = list(book)
    term.send("book Rome\r")
    term.expect("Booking Rome: the details?")
    term.expect("Name (who travels): ")
    term.send("\r")  # required, no default: asked again
    term.expect("an answer is needed (Ctrl-D declines the question)")
    term.expect("Name (who travels): ")
    term.send("Ada\r")
    term.expect("Seats (how many seats) (default: 2): ")
    term.send("lots\r")  # not an integer: asked again
    term.expect("try again")
    term.expect("Seats (how many seats) (default: 2): ")
    term.send("3\r")
    term.expect("Meal [veg/fish] (default: veg): ")
    term.send("fish\r")
    term.expect("tool: book ok")
    term.expect("booked")
    term.expect("> ")

    script.steps = list(book)
    term.send("book it again\r")
    term.expect("Name (who travels): ")
    term.send("\x04")  # Ctrl-D: the question is declined, the tool sees Declined
    term.expect("tool: book ok")
    term.expect("booked")
    term.expect("> ")
    term.send("/exit\r")
    assert term.wait() == 0

    store = open_session_store(app)
    try:
        (row,) = store.list_sessions()
        record = store.read_session(row.id)
        assert record is not None and row.turns == 2
        results = [p["content"] for m in record.messages for p in m["parts"]
                   if p.get("part_kind") == "tool-return"]
        assert results == [{"booked": True, "name": "Ada", "seats": 3, "meal": "fish"},
                           {"booked": False}]
    finally:
        store.close()


def test_run_on_a_terminal_asks_only_what_the_answers_leave(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "book", "arguments": {"what": "Rome"}}]},
                     {"text": "booked"}]
    term = Terminal(["-m", "eve_build", "run", "book Rome", "--answer", "seats=5",
                     "--model", "openai-chat:scripted", "--path", str(app), "-e",
                     str(app / "ext/talk.py")], {**model_env, "TERM": "dumb"})
    term.expect("Booking Rome: the details?")
    term.expect("Name (who travels): ")
    term.send("Ada\r")
    shown = term.expect("booked")
    assert "Seats" not in shown and "Meal" not in shown  # answered, or a default
    assert term.wait() == 0

    store = open_session_store(app)
    try:
        (row,) = store.list_sessions()
        record = store.read_session(row.id)
        assert record is not None
        (result,) = [p["content"] for m in record.messages for p in m["parts"]
                     if p.get("part_kind") == "tool-return"]
        assert result == {"booked": True, "name": "Ada", "seats": 5, "meal": "veg"}
    finally:
        store.close()


def test_call_on_a_terminal_asks_the_question_and_the_approval(
        app: Path, model_env: dict[str, str]) -> None:
    base = ["-m", "eve_build", "call", "--path", str(app), "-e", str(app / "ext/talk.py")]
    term = Terminal([*base, "book", '{"what": "Oslo"}'], {**model_env, "TERM": "dumb"})
    term.expect("Name (who travels): ")
    term.send("Ada\r")
    term.expect("Seats (how many seats) (default: 2): ")
    term.send("\r")
    term.expect("Meal [veg/fish] (default: veg): ")
    term.send("fish\r")
    term.expect('"name": "Ada"')
    assert term.wait() == 0

    term = Terminal([*base, "wipe", '{"what": "disk"}'], {**model_env, "TERM": "dumb"})
    assert 'approve `wipe` {"what": "disk"} (always)?' in term.expect("[y/N] ")
    term.send("y\r")
    term.expect('"wiped": "disk"')
    assert term.wait() == 0

    term = Terminal([*base, "wipe", '{"what": "disk"}'], {**model_env, "TERM": "dumb"})
    term.expect("[y/N] ")
    term.send("n\r")
    term.expect("refused: not approved")
    assert term.wait() == 1


def test_ctrl_c_at_a_question_cancels_the_turn_and_the_next_line_is_a_message(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    script = fake[1]
    term = Terminal(["-m", "eve_build", "chat", "--model", "openai-chat:scripted",
                     "--path", str(app), "-e", str(app / "ext/talk.py")],
                    {**model_env, "TERM": "dumb"})
    term.expect("> ")
    script.steps = [{"tools": [{"name": "book", "arguments": {"what": "Rome"}}]},
                    {"text": "booked"}]
    term.send("book Rome\r")
    term.expect("Name (who travels): ")
    term.send("\x03")  # Ctrl-C while the question waits: the turn goes, with its question
    term.expect("cancelled: the turn was not kept")
    term.expect("> ")
    script.steps = [{"text": "still here"}]
    term.send("are you there?\r")  # read by the question's prompt, handed to the chat
    term.expect("still here")
    term.expect("> ")
    term.send("/exit\r")
    assert term.wait() == 0

    store = open_session_store(app)
    try:
        (row,) = store.list_sessions()
        record = store.read_session(row.id)
        assert record is not None and row.turns == 1
        users = [p["content"] for m in record.messages for p in m["parts"]
                 if p.get("part_kind") == "user-prompt"]
        assert users == ["are you there?"]
    finally:
        store.close()
