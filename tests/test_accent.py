"""The chat's accent colour is the kernel's (the synced ``accent``): a view asks for it with
``set_accent`` (a browser tool's ``ctx.setAccent``), a cell assigns ``chat.accent``, and every view
shows it. Views set it as a CSS custom property, so only a colour is taken: nothing that could
carry other CSS (docs/wire.md)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import traitlets

from agui_widget import AgentChat, DemoAgent

from .genui_support import Captured

COLOURS = ["teal", "#e91e63", "#abc", "rgb(0 128 128 / 50%)", "oklch(70% 0.1 200)", "color-mix(in srgb, teal 40%, white)", ""]
NOT_COLOURS = [
    "red; background: url(https://example.com/x.png)",
    "url(https://example.com/x.png)",
    "url(//example.com/x.png)",
    "var(--jp-brand-color1)",
    "expression(alert(1))",
    "red}body{display:none",
    "</style><script>alert(1)</script>",
    'rgb("1")',
    "rgb(0, 0, 0",
    "red\nblue",
    "image-set(a 1x)",
    "x" * 201,
]


def view_update(chat: AgentChat, state: dict[str, Any]) -> None:
    """What ipywidgets does with a view's standard ``update`` comm message."""
    chat._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


@pytest.mark.parametrize("colour", COLOURS)
def test_a_views_request_sets_the_accent_every_view_shows(colour: str) -> None:
    chat = Captured(DemoAgent(delay=0))
    if colour == "":
        chat.accent = "navy"
    chat.view_says({"kind": "set_accent", "color": f" {colour} "})
    assert chat.accent == colour
    assert chat.get_state("accent") == {"accent": colour}, "a synced trait: the views get it"
    assert chat.of_kind("notice") == []


@pytest.mark.parametrize("colour", NOT_COLOURS)
def test_what_is_not_a_colour_is_refused_with_a_notice_and_logged(colour: str, caplog: pytest.LogCaptureFixture) -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.accent = "teal"
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says({"kind": "set_accent", "color": colour})
    assert chat.accent == "teal", "nothing changes"
    (notice,) = chat.of_kind("notice")
    assert notice["level"] == "warning" and notice["text"].startswith("set_accent: color: ")
    assert any("set_accent" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("payload", [{"kind": "set_accent"}, {"kind": "set_accent", "color": 42}])
def test_a_request_without_a_colour_is_refused(payload: dict[str, Any]) -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.view_says(payload)
    assert chat.accent == ""
    (notice,) = chat.of_kind("notice")
    assert notice["text"].startswith("set_accent: ")


def test_a_cell_sets_the_accent_and_the_views_get_it() -> None:
    chat = Captured(DemoAgent(delay=0))
    seen: list[str] = []
    chat.observe(lambda change: seen.append(change["new"]), "accent")
    chat.accent = "teal"
    assert chat.get_state("accent") == {"accent": "teal"} and seen == ["teal"]
    chat.accent = ""
    assert chat.accent == "" and seen == ["teal", ""]
    assert AgentChat(DemoAgent(delay=0), accent="#e91e63").accent == "#e91e63"


@pytest.mark.parametrize("colour", NOT_COLOURS)
def test_a_cell_cannot_set_what_is_not_a_colour(colour: str) -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.accent = "teal"
    with pytest.raises(traitlets.TraitError, match=r"chat\.accent: "):
        chat.accent = colour
    assert chat.accent == "teal"


class Recorded(Captured):
    """A Captured chat that also keeps the trait updates it sends to views."""

    def send_state(self, key: Any = None) -> None:
        self.__dict__.setdefault("states_sent", []).append(key)


def test_a_view_cannot_overwrite_the_accent() -> None:
    chat = Recorded(DemoAgent(delay=0))
    chat.accent = "teal"
    chat.__dict__["states_sent"] = []
    view_update(chat, {"accent": "red"})
    assert chat.accent == "teal"
    assert chat.__dict__["states_sent"] == [["accent"]], "the views get the kernel's value back"
