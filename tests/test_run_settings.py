"""Run settings (``AgentChat(settings=...)``): a spec of choices, ranges and switches, checked when
set; the current values (``chat.setting_values``) go with each run as ``forwardedProps`` under
their own names (over the chat's ``forwarded_props``, under a turn's own), are set from Python or
by a view's ``settings`` request (a bad one is a notice and changes nothing), and each thread
keeps its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import traitlets
from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent

from agui_widget import AgentChat
from agui_widget.adapters._model_settings import model_settings

from .genui_support import Captured

SPEC = {"model": ["gpt-4o-mini", "llama3.2"], "temperature": (0.0, 2.0, 0.7), "stream": True}


class Recording:
    """An agent that answers nothing and keeps every RunAgentInput it gets."""

    def __init__(self) -> None:
        self.inputs: list[RunAgentInput] = []

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.inputs.append(input)
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


def test_the_spec_becomes_a_choice_a_range_and_a_switch_with_their_defaults() -> None:
    chat = AgentChat(settings={**SPEC, "max_tokens": (1, 4096, 512)})
    assert chat.settings["model"] == {"kind": "choice", "choices": ["gpt-4o-mini", "llama3.2"], "default": "gpt-4o-mini"}
    assert chat.settings["temperature"] == {
        "kind": "range", "min": 0.0, "max": 2.0, "default": 0.7, "step": 0.02, "integer": False
    }  # fmt: skip
    assert chat.settings["max_tokens"]["step"] == 1 and chat.settings["max_tokens"]["integer"] is True
    assert chat.settings["stream"] == {"kind": "switch", "default": True}
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 0.7, "stream": True, "max_tokens": 512}
    assert AgentChat(settings={"t": (0.0, 1.0, 0.5, 0.25)}).settings["t"]["step"] == 0.25


def test_a_chat_without_settings_has_none_and_forwards_nothing_new() -> None:
    chat = AgentChat()
    assert chat.settings == {} and chat.setting_values == {}


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({"model": []}, "settings['model']"),
        ({"model": ["a", "a"]}, "distinct"),
        ({"temperature": (0.0, 2.0)}, "settings['temperature']"),
        ({"temperature": (2.0, 0.0, 1.0)}, "min < max"),
        ({"temperature": (0.0, 2.0, 3.0)}, "min <= default <= max"),
        ({"n": (0, 10, 5, 0)}, "step > 0"),
        ({"x": "text"}, "a list of choices"),
        ({"": True}, "non-empty strings"),
        (["model"], "dict of name"),
    ],
)
def test_a_bad_spec_is_a_clear_error_naming_the_key(spec: Any, said: str) -> None:
    with pytest.raises(traitlets.TraitError, match=said.replace("[", r"\[").replace("]", r"\]")):
        AgentChat(settings=spec)


def test_values_set_from_python_are_checked_against_the_spec() -> None:
    chat = AgentChat(settings={**SPEC, "n": (1, 10, 3)})
    chat.set_setting("model", "llama3.2")
    chat.setting_values = {"temperature": 1.25}
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 1.25, "stream": True, "n": 3}, "unnamed: defaults"
    chat.set_setting("n", 7.0)
    assert chat.setting_values["n"] == 7 and isinstance(chat.setting_values["n"], int)
    for name, bad in [("model", "gpt-5"), ("temperature", 2.5), ("stream", 1), ("n", 2.5), ("nope", 1)]:
        with pytest.raises(traitlets.TraitError, match=repr(name) if name != "nope" else "no run setting named nope"):
            chat.set_setting(name, bad)
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 1.25, "stream": True, "n": 7}


async def test_the_values_go_with_each_run_over_the_chats_forwarded_props_and_under_a_turns_own() -> None:
    agent = Recording()
    chat = Captured(agent, settings=SPEC, forwarded_props={"model": "fixed", "seed": 7})
    await chat.send("first")
    assert agent.inputs[-1].forwarded_props == {"model": "gpt-4o-mini", "seed": 7, "temperature": 0.7, "stream": True}
    chat.set_setting("model", "llama3.2")
    await chat.send("second", forwarded_props={"temperature": 0.1})
    assert agent.inputs[-1].forwarded_props == {"model": "llama3.2", "seed": 7, "temperature": 0.1, "stream": True}
    assert model_settings(agent.inputs[-1].forwarded_props) == {"model": "llama3.2", "temperature": 0.1}, "adapters read them"


async def test_a_views_settings_request_sets_the_next_runs_values() -> None:
    agent = Recording()
    chat = Captured(agent, settings=SPEC)
    chat.view_says({"kind": "settings", "values": {"model": "llama3.2", "temperature": 1.4, "stream": False}})
    assert chat.setting_values == {"model": "llama3.2", "temperature": 1.4, "stream": False}
    assert chat.of_kind("notice") == []
    await chat.send("hi")
    assert agent.inputs[-1].forwarded_props == {"model": "llama3.2", "temperature": 1.4, "stream": False}


@pytest.mark.parametrize(
    "values",
    [{"model": "gpt-5"}, {"temperature": 9}, {"stream": "yes"}, {"unknown": 1}, {"model": "llama3.2", "temperature": -1}],
)
def test_a_bad_value_from_a_view_is_a_notice_and_changes_nothing(values: dict[str, Any]) -> None:
    chat = Captured(Recording(), settings=SPEC)
    chat.view_says({"kind": "settings", "values": values})
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 0.7, "stream": True}
    (notice,) = chat.of_kind("notice")
    assert notice["level"] == "warning" and notice["text"].startswith("settings:")


def test_a_malformed_settings_request_is_ignored() -> None:
    chat = Captured(Recording(), settings=SPEC)
    chat.view_says({"kind": "settings", "values": "model=llama3.2"})
    assert chat.setting_values["model"] == "gpt-4o-mini"


async def test_each_thread_keeps_its_own_values_across_switches() -> None:
    agent = Recording()
    chat = Captured(agent, settings=SPEC)
    first = chat.thread_id
    chat.set_setting("model", "llama3.2")
    second = chat.new_thread()
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 0.7, "stream": True}, "a new thread: defaults"
    chat.set_setting("temperature", 0.2)
    chat.switch(first)
    assert chat.setting_values["model"] == "llama3.2" and chat.setting_values["temperature"] == 0.7
    await chat.send("on the first thread")
    assert agent.inputs[-1].forwarded_props == {"model": "llama3.2", "temperature": 0.7, "stream": True}
    chat.switch(second)
    assert chat.setting_values == {"model": "gpt-4o-mini", "temperature": 0.2, "stream": True}


def test_a_reloaded_view_is_given_the_spec_and_the_values() -> None:
    chat = AgentChat(settings=SPEC)
    chat.set_setting("stream", False)
    state = chat.get_state()
    assert state["settings"]["model"]["choices"] == ["gpt-4o-mini", "llama3.2"]
    assert state["setting_values"] == {"model": "gpt-4o-mini", "temperature": 0.7, "stream": False}


def test_assigning_a_new_spec_starts_from_its_defaults() -> None:
    chat = AgentChat(settings=SPEC)
    chat.set_setting("model", "llama3.2")
    chat.settings = {"model": ["a", "b"]}
    assert chat.setting_values == {"model": "a"}
    chat.settings = chat.settings  # a checked spec is taken back as it is
    assert chat.settings == {"model": {"kind": "choice", "choices": ["a", "b"], "default": "a"}}
