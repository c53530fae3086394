"""``chat.link(widget, key)``: a widget's trait and a key of the shared state, equal both ways.

A change of the widget reaches the state (and so the views and the agent's next run); a change of
the state, whoever made it (the agent, the view, a cell), sets the widget. No change echoes back,
a value the widget refuses is logged rather than raised in the agent's run, and unlinking stops
both directions.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncGenerator
from typing import Any

import ipykernel
import ipywidgets
import pytest
import traitlets
from ag_ui.core import RunAgentInput

from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.adapters._base import Emitted
from agui_widget.chat._links import StateLink

from .genui_support import Captured
from .kernel_harness import FakeFrontEnd
from .support import until


class SetsTheState(AgentAdapter):
    """Patches the state as each message asks (``n=7``, or ``snapshot {...}``) and keeps the state
    each run was given."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        self.seen.append(input.state)
        text = str(input.messages[-1].content)
        if text.startswith("snapshot "):
            yield stream.state_snapshot(json.loads(text.removeprefix("snapshot ")))
        else:
            key, value = text.split("=", 1)
            yield stream.state_delta([{"op": "add", "path": f"/{key}", "value": json.loads(value)}])
        yield stream.text("done")


class Counted(traitlets.HasTraits):
    """Any HasTraits object links too; this one counts the values it was given."""

    level = traitlets.Int(0)
    anything = traitlets.Any()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.given: list[int] = []
        self.observe(lambda change: self.given.append(change["new"]), names="level")


def state_assignments(chat: AgentChat) -> list[Any]:
    """Every value ``chat.state`` takes from now on."""
    seen: list[Any] = []
    chat.observe(lambda change: seen.append(change["new"]), names="state")
    return seen


async def test_the_widget_and_the_state_follow_each_other():
    agent = SetsTheState()
    chat = AgentChat(agent, state={"n": 5, "other": "kept"})
    slider = ipywidgets.IntSlider(value=1)
    link = chat.link(slider, "n")
    assert isinstance(link, StateLink) and slider.value == 5, "the state's value wins at link time"

    slider.value = 7  # the user drags the slider
    assert chat.state == {"n": 7, "other": "kept"}
    await chat.send("other='seen'")
    assert agent.seen[-1] == {"n": 7, "other": "kept"}, "the agent's next run sees the widget's value"

    chat.update_state(n=9)
    assert slider.value == 9
    chat.state = {"n": 3}
    assert slider.value == 3


def test_a_missing_key_takes_the_widgets_value():
    chat = AgentChat(DemoAgent(delay=0), state={"other": 1})
    chat.link(ipywidgets.IntSlider(value=4), "n")
    assert chat.state == {"other": 1, "n": 4}
    assert chat._session.state == {"other": 1, "n": 4}, "the session holds it too"


async def test_the_agents_state_delta_and_snapshot_set_the_widget():
    chat = AgentChat(SetsTheState(), state={"n": 1})
    slider = ipywidgets.IntSlider()
    chat.link(slider, "n")
    await chat.send("n=42")
    assert slider.value == 42
    await chat.send('snapshot {"n": 8, "more": true}')
    assert slider.value == 8


async def test_the_demo_agents_predicted_state_reaches_a_linked_widget():
    chat = AgentChat(DemoAgent(delay=0))
    document = ipywidgets.Textarea()
    chat.link(document, "document")
    assert chat.state == {"document": ""}
    await chat.send("write a document about tea")
    assert document.value.startswith("Tea\n\nTea is") and document.value == chat.state["document"]
    document.value = "My own words."
    assert chat.state["document"] == "My own words."


def test_a_state_edit_from_the_view_sets_the_widget():
    chat = Captured(DemoAgent(delay=0), state={"n": 1})
    slider = ipywidgets.IntSlider()
    chat.link(slider, "n")
    chat.view_says({"kind": "state_edit", "patch": [{"op": "replace", "path": "/n", "value": 33}]})
    assert slider.value == 33


def test_no_change_echoes_back():
    chat = AgentChat(DemoAgent(delay=0), state={"level": 1})
    widget = Counted()
    chat.link(widget, "level", trait="level")
    assignments = state_assignments(chat)
    widget.given.clear()

    widget.level = 2
    assert len(assignments) == 1 and widget.given == [2], "the widget's change went into the state once"
    chat.update_state(level=3)
    assert widget.given == [2, 3] and len(assignments) == 2
    chat.update_state(other=True)
    assert widget.given == [2, 3], "a change of another key leaves the widget alone"


def test_unlinking_stops_both_directions():
    chat = AgentChat(DemoAgent(delay=0), state={"n": 1})
    slider = ipywidgets.IntSlider()
    link = chat.link(slider, "n")
    assert chat.link(slider, "n") is link, "linking again gives the same link"
    link.unlink()
    slider.value = 50
    chat.update_state(n=60)
    assert (slider.value, chat.state["n"]) == (50, 60)
    link.unlink()  # twice: nothing to do

    other = ipywidgets.FloatSlider()
    chat.link(other, "x")
    chat.unlink(other, "x")
    other.value = 2.5
    assert chat.state["x"] == 0.0
    with pytest.raises(ValueError, match=r"FloatSlider.value is not linked to state\['x'\]"):
        chat.unlink(other, "x")


def test_bad_links_are_refused_clearly():
    chat = AgentChat(DemoAgent(delay=0), state={"n": "many"})
    slider = ipywidgets.IntSlider(value=2)
    with pytest.raises(TypeError, match="a top-level key of the state, a str, not tuple"):
        chat.link(slider, ("plan", "steps"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        chat.link(slider, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="IntSlider has no trait 'valu'"):
        chat.link(slider, "n", trait="valu")
    with pytest.raises(TypeError, match="not dict"):
        chat.link({"value": 1}, "n")  # type: ignore[arg-type]
    with pytest.raises(traitlets.TraitError):
        chat.link(slider, "n")  # the state's value does not fit the slider
    slider.value = 3
    assert chat.state == {"n": "many"}, "the refused link was not made"
    with pytest.raises(TypeError, match="holds JSON"):
        chat.link(Counted(anything=object()), "thing", trait="anything")

    listed = AgentChat(DemoAgent(delay=0), state=[1, 2])
    with pytest.raises(ValueError, match="needs a dict state"):
        listed.link(slider, "n")


async def test_a_value_the_widget_refuses_is_logged_not_raised_in_the_run(caplog):
    chat = AgentChat(SetsTheState(), state={"n": 1})
    slider = ipywidgets.IntSlider()
    chat.link(slider, "n")
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        run = await chat.send('n="lots"')
    assert run.status == "finished" and chat.status == "idle" and chat.error == ""
    assert slider.value == 1 and chat.state["n"] == "lots"
    [warning] = [r.getMessage() for r in caplog.records if "chat.link" in r.getMessage()]
    assert "IntSlider.value did not take state['n'] = 'lots' (the widget keeps 1)" in warning
    chat.update_state(other=1)
    assert len([r for r in caplog.records if "chat.link" in r.getMessage()]) == 1, "not tried again for another key"
    await chat.send("n=4")
    assert slider.value == 4, "the next value that fits is taken"


async def test_a_value_the_widget_coerces_goes_back_into_the_state():
    chat = AgentChat(SetsTheState(), state={"n": 1})
    slider = ipywidgets.IntSlider(max=100)
    chat.link(slider, "n")
    await chat.send("n=500")
    assert slider.value == 100
    await until(lambda: chat.state["n"] == 100, what="the slider's value back in the state")
    assert chat._session.state["n"] == 100, "the agent's next run sees what the slider holds"

    ranged = ipywidgets.IntRangeSlider(value=(1, 5))
    chat.link(ranged, "span")
    await chat.send("span=[2, 6]")
    assert ranged.value == (2, 6) and chat.state["span"] == [2, 6], "a tuple is the state's list: no loop"


# -- a real kernel: a front end (a notebook, Voilà) moves the slider ------------------------------


LINKED_SLIDER = (
    "import ipywidgets, threading\n"
    "from agui_widget import AgentChat, DemoAgent\n"
    "chat = AgentChat(DemoAgent(delay=0.001), state={'n': 5})\n"
    "slider = ipywidgets.IntSlider()\n"
    "link = chat.link(slider, 'n')\n"
    "threads = []\n"
    "_update = chat.update_state\n"
    "def _spy(*args, **kwargs):\n"
    "    threads.append(threading.current_thread().name)\n"
    "    return _update(*args, **kwargs)\n"
    "chat.update_state = _spy\n"
)


@pytest.mark.kernel
async def test_in_a_kernel_a_front_ends_slider_and_the_state_follow_each_other():
    async with FakeFrontEnd.running() as fe:
        slider = await fe.create_widget(LINKED_SLIDER, "IntSliderModel")
        assert slider.state["value"] == 5, "the front end shows the state's value"
        fe.send_update(slider, {"value": 12})  # the user drags the slider
        assert await _eventually(fe, "chat.state['n']", 12)
        await fe.execute("chat.update_state(n=30)")
        await fe.wait_for_trait(slider, "value", lambda value: value == 30)
        assert await fe.evaluate("threads") == ["MainThread", "MainThread"]


@pytest.mark.kernel
@pytest.mark.skipif(ipykernel.version_info < (7,), reason="kernel subshells came with ipykernel 7")
async def test_in_a_kernel_a_slider_moved_on_a_subshell_changes_the_state_on_the_kernels_loop():
    """JupyterLab may send widget comms on a kernel subshell's thread: the state changes on the loop."""
    async with FakeFrontEnd.running() as fe:
        slider = await fe.create_widget(LINKED_SLIDER, "IntSliderModel")
        subshell = await fe.create_subshell()
        await fe.execute(f"slider.comm._reply_subshell_id = {subshell!r}")
        fe.send_comm(slider.comm_id, {"method": "update", "state": {"value": 40}, "buffer_paths": []}, subshell_id=subshell)
        assert await _eventually(fe, "chat.state['n']", 40)
        assert await fe.evaluate("threads") == ["MainThread"]


async def _eventually(fe: FakeFrontEnd, expression: str, expected: Any, timeout: float = 10.0) -> bool:
    """Whether ``expression`` evaluates to ``expected`` in the kernel within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await fe.evaluate(expression) == expected:
            return True
    return False
