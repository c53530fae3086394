"""``revision``: how marimo learns that the chat changed.

marimo re-runs the cells that read a widget's value (``mo.ui.anywidget(chat)``) only when a view
sends that value. Where marimo shows the chat, the kernel grows the synced ``revision`` trait when
the state, the transcript or the status changes (once a turn of the loop, not once a token), and a
view hands each new value back unchanged (js/src/kernel/revisionEcho.ts), which the kernel takes quietly.
Elsewhere nothing reads it, and it stays 0: no comm message is spent on it.
"""

from __future__ import annotations

import asyncio
import logging

from ag_ui.core import RunAgentInput

from agui_widget.adapters import AgentAdapter, EventStream

from .genui_support import Captured
from .support import until


class Tokens(AgentAdapter):
    """Streams ``n`` tokens, then sets a state key."""

    def __init__(self, n: int) -> None:
        self.n = n

    async def _events(self, input: RunAgentInput, stream: EventStream):
        for _ in range(self.n):
            await asyncio.sleep(0)
            yield stream.text("tok ")
        yield stream.state_delta([{"op": "add", "path": "/done", "value": True}])


def as_in_marimo(chat: Captured) -> Captured:
    """The chat as marimo hosts it (its comm says ``kernel = "marimo"``)."""
    chat._link._counts_revisions = True
    return chat


async def test_outside_marimo_it_stays_zero_through_runs_and_changes():
    chat = Captured(Tokens(20), state={"a": 1})
    await chat.send("go")
    chat.state = {"a": 2}
    chat.view_says({"kind": "state_edit", "patch": [{"op": "replace", "path": "/a", "value": 3}]})
    assert chat.revision == 0


async def test_in_marimo_a_run_grows_it_a_few_times_not_once_a_token():
    chat = as_in_marimo(Captured(Tokens(400)))
    seen: list[int] = []
    chat.observe(lambda change: seen.append(change["new"]), "revision")
    await chat.send("go")
    await until(lambda: not chat._link._revision_due)
    assert 1 <= len(seen) <= 6, seen  # the run's start, state changes, its end: not 400 tokens
    assert seen == sorted(seen) and len(set(seen)) == len(seen)


async def test_in_marimo_an_assignment_a_view_edit_and_a_transcript_change_each_grow_it():
    chat = as_in_marimo(Captured(Tokens(1), state={"a": 1}))
    before = chat.revision
    chat.state = {"a": 2}  # no loop turn needed: a cell's change grows it at once or on the next turn
    await until(lambda: chat.revision == before + 1)
    chat.view_says({"kind": "state_edit", "patch": [{"op": "replace", "path": "/a", "value": 3}]})
    await until(lambda: chat.revision == before + 2)
    chat.messages = [{"id": "u1", "role": "user", "content": "hello"}]
    await until(lambda: chat.revision == before + 3)


def test_a_change_made_with_no_loop_running_grows_it_at_once():
    chat = as_in_marimo(Captured(state={"a": 1}))
    chat.state = {"a": 2}
    assert chat.revision == 1


def test_a_views_echo_is_taken_quietly_and_other_writes_are_still_refused(caplog):
    chat = as_in_marimo(Captured(state={"a": 1}))
    chat.state = {"a": 2}
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.set_state({"revision": chat.revision})
        assert caplog.text == ""
        chat.set_state({"revision": chat.revision + 5})
        chat.set_state({"status": "running"})
    assert "revision" in caplog.text and "status" in caplog.text
    assert chat.revision == 1 and chat.status == "idle"
