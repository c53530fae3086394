"""chat.render_state: the shared state (or one key of it) shown live in the chat."""

from __future__ import annotations

import asyncio
from typing import Any

from agui_widget import steps_checklist
from agui_widget.adapters import AgentAdapter, EventStream

from .genui_support import Captured
from .support import until


class Stepper(AgentAdapter):
    """Adds three steps to the state and completes them one by one, then answers."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause

    async def _events(self, input, stream: EventStream):
        steps = [{"description": name, "status": "pending"} for name in ("fetch", "plot", "report")]
        yield stream.state_delta([{"op": "add", "path": "/steps", "value": steps}])
        for index in range(len(steps)):
            await asyncio.sleep(self.pause)
            yield stream.state_delta([{"op": "replace", "path": f"/steps/{index}/status", "value": "completed"}])
        yield stream.text("all done")


async def test_a_checklist_follows_the_state_while_the_run_changes_it_then_stays_after_the_answer():
    chat = Captured(Stepper(pause=0.08), batch_window=0.01)
    key = None

    @chat.render_state(key="steps")
    def checklist(steps: Any) -> Any:
        return steps_checklist(steps)

    await chat.send("go")
    key = chat.of_kind("render")[0]["key"]
    renders = chat.renders(key)
    htmls = [r["bundle"]["text/html"] for r in renders]
    completed = [h.count("agui-step-completed") for h in htmls]
    # Live: the checklist was shown with fewer completed steps before it was shown with all of them.
    assert completed[0] < 3 and completed[-1] == 3 and completed == sorted(completed)
    # While the run changed it, it sat at the end; when the run ended it was pinned after the answer.
    assert renders[0]["after"] is None
    assert renders[-1]["after"] == chat.messages[-1]["id"] and chat.messages[-1]["content"] == "all done"


async def test_the_whole_state_is_passed_without_a_key_and_an_absent_key_renders_nothing():
    chat = Captured(Stepper(), state={"title": "T"})
    values: list[Any] = []
    chat.render_state(lambda state: values.append(state) or f"title: {state.get('title')}")
    chat.render_state(lambda steps: "never", key="missing")
    assert values == [{"title": "T"}]
    assert [r["bundle"]["text/markdown"] for r in chat.of_kind("render")] == ["title: T"]
    chat.state = {"title": "U"}
    assert chat.of_kind("render")[-1]["bundle"]["text/markdown"] == "title: U"
    assert all("never" not in str(r["bundle"]) for r in chat.of_kind("render"))


async def test_unchanged_values_are_not_rendered_again_and_errors_are_shown():
    chat = Captured(Stepper())
    calls: list[Any] = []

    def flaky(value: Any) -> str:
        calls.append(value)
        if value == 2:
            raise ValueError("two is bad")
        return str(value)

    chat.state = {"n": 1, "other": 0}
    chat.render_state(flaky, key="n")
    chat.update_state(other=5)  # n unchanged
    assert calls == [1]
    chat.update_state(n=2)
    render = chat.of_kind("render")[-1]
    assert render["bundle"] is None and "ValueError: two is bad" in render["error"]


async def test_a_view_that_connects_gets_the_state_render_after_its_snapshot():
    chat = Captured(Stepper())
    chat.render_state(steps_checklist, key="steps")
    await chat.send("go")
    chat.view_says({"kind": "hello", "viewId": "v2"})
    sent = chat.__dict__["sent"]
    snapshot_at = max(i for i, m in enumerate(sent) if m["kind"] == "snapshot")
    assert [m["kind"] for m in sent[snapshot_at + 1 :]] == ["render"]
    assert "agui-step-completed" in sent[-1]["bundle"]["text/html"]
    await until(lambda: chat.status == "idle")
