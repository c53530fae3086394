"""Branding: ``AgentChat(title=, welcome=, placeholder=, avatars=)`` and the assistant's name are
synced traits a cell can change later; a bad avatar is an error where it is set, an image becomes
a data: URL in the kernel, and the assistant is called by the agent's own name where it has one."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
import traitlets

from agui_widget import AgentChat, DemoAgent, RemoteAgent
from agui_widget.adapters import LangChainAgent
from agui_widget.chat._branding import MAX_AVATAR_URL, assistant_name_of

from .genui_support import Captured
from .langchain_fakes import model

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")
BRANDING = ("title", "welcome", "placeholder", "avatars", "assistant_name")


def chat(**options: Any) -> Captured:
    return Captured(DemoAgent(delay=0), **options)


def view_update(chat: AgentChat, state: dict[str, Any]) -> None:
    """What ipywidgets does with a view's standard ``update`` comm message."""
    chat._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


def test_a_chat_made_without_them_keeps_the_views_defaults() -> None:
    state = chat().get_state()
    assert {key: state[key] for key in BRANDING} == {
        "title": "",
        "welcome": "",
        "placeholder": "",
        "avatars": {},
        "assistant_name": "",
    }


def test_the_options_are_synced_traits_in_the_views_first_state() -> None:
    shown = chat(
        title="Sales analyst",
        welcome="**Hello!** Ask me about sales.",
        placeholder="Ask about your data…",
        avatars={"user": "🙂", "assistant": "https://example.org/bot.png"},
    )
    assert shown.get_state(list(BRANDING)) == {
        "title": "Sales analyst",
        "welcome": "**Hello!** Ask me about sales.",
        "placeholder": "Ask about your data…",
        "avatars": {"user": "🙂", "assistant": "https://example.org/bot.png"},
        "assistant_name": "",
    }
    assert all(shown.trait_metadata(name, "sync") for name in BRANDING)


def test_a_cell_changes_them_later_and_the_views_are_told() -> None:
    shown = chat()
    seen: list[tuple[str, Any]] = []
    shown.observe(lambda change: seen.append((change["name"], change["new"])), list(BRANDING))
    shown.title = "Support"
    shown.welcome = "Hi"
    shown.placeholder = "Type here"
    shown.avatars = {"assistant": "AB"}
    shown.assistant_name = "Ada"
    assert seen == [
        ("title", "Support"),
        ("welcome", "Hi"),
        ("placeholder", "Type here"),
        ("avatars", {"assistant": "AB"}),
        ("assistant_name", "Ada"),
    ]


def test_a_title_and_a_placeholder_are_one_line() -> None:
    assert chat(title="  Sales\n analyst ", placeholder="Ask\tme").get_state(["title", "placeholder"]) == {
        "title": "Sales analyst",
        "placeholder": "Ask me",
    }


def test_a_view_cannot_change_them() -> None:
    shown = chat(title="Mine")
    view_update(shown, {"title": "theirs", "avatars": {"user": "x"}})
    assert shown.title == "Mine" and shown.avatars == {}


@pytest.mark.parametrize(
    "avatars, message",
    [
        ("🙂", "avatars is a dict by role"),
        ({"bot": "🙂"}, 'given for "user" and "assistant", not bot'),
        (
            {"user": 3},
            "avatars\\['user'\\] is a URL, an emoji or short text, image bytes, a PIL image or an IPython Image, not int",
        ),
        ({"assistant": "javascript:alert(1)"}, "is not an avatar URL"),
        ({"assistant": " JavaScript:alert(1)"}, "is not an avatar URL"),
        ({"assistant": "data:text/html;base64,PHNjcmlwdD4="}, "is not an avatar URL"),
        ({"assistant": "ftp://example.org/a.png"}, "is not an avatar URL"),
        ({"assistant": 'https://example.org/a.png" onerror="x'}, "is not an avatar URL"),
        ({"user": "a very long name indeed"}, "text avatars are an emoji or up to 16 characters"),
        ({"user": "two\nlines"}, "text avatars are an emoji or up to 16 characters"),
        ({"user": b"not an image"}, "not an image the views can show"),
        ({"user": "data:image/png;base64," + "A" * MAX_AVATAR_URL}, "longer than"),
    ],
)
def test_a_bad_avatar_is_a_clear_error_and_changes_nothing(avatars: Any, message: str) -> None:
    shown = chat(avatars={"user": "🙂"})
    with pytest.raises(traitlets.TraitError, match=r"chat\.avatars: .*" + message):
        shown.avatars = avatars
    assert shown.avatars == {"user": "🙂"}
    with pytest.raises(traitlets.TraitError, match=message):
        chat(avatars=avatars)


def test_image_bytes_become_a_data_url_made_in_the_kernel() -> None:
    shown = chat(avatars={"assistant": PNG})
    assert shown.avatars == {"assistant": "data:image/png;base64," + base64.b64encode(PNG).decode()}


def test_an_ipython_image_becomes_its_own_data_url() -> None:
    from IPython.display import Image

    shown = chat(avatars={"user": Image(data=PNG)})
    assert shown.avatars["user"] == "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_a_pil_image_becomes_a_small_png_data_url() -> None:
    from PIL import Image

    photo = Image.new("RGB", (800, 400), "teal")
    url = chat(avatars={"user": photo}).avatars["user"]
    assert url.startswith("data:image/png;base64,")
    small = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert max(small.size) <= 128 and small.getpixel((0, 0)) == (0, 128, 128)
    assert photo.size == (800, 400), "the caller's image stays as it was"


def test_urls_and_short_texts_are_kept_and_empty_values_leave_the_default() -> None:
    avatars = {"user": "https://example.org/me.jpg", "assistant": "data:image/svg+xml;base64,PHN2Zy8+"}
    assert chat(avatars=avatars).avatars == avatars
    assert chat(avatars={"user": "👩‍👩‍👧‍👦", "assistant": "AB"}).avatars == {"user": "👩‍👩‍👧‍👦", "assistant": "AB"}
    assert chat(avatars={"user": None, "assistant": ""}).avatars == {}
    assert chat(avatars=None).avatars == {}


def test_the_assistant_is_called_by_the_name_a_langchain_agent_was_given() -> None:
    from langchain.agents import create_agent

    named = Captured(create_agent(model("Hello"), [], name="Ada"))
    assert named.assistant_name == "Ada" and named.get_state("assistant_name") == {"assistant_name": "Ada"}
    assert Captured(create_agent(model("Hello"), [])).assistant_name == "", "LangGraph's default name is no name"
    assert LangChainAgent(model("Hello")).display_name is None


def test_other_agents_are_called_by_a_name_given_to_them_only() -> None:
    assert assistant_name_of(RemoteAgent("http://localhost:1/agent", name="Helper")) == "Helper"
    assert assistant_name_of(RemoteAgent("http://localhost:1/agent")) == "", "not by its URL"
    assert assistant_name_of(DemoAgent()) == ""
    assert Captured(lambda messages: "hi").assistant_name == "", "not by a function's name"

    class OutsideAgent:
        name = "Scout"

        async def run(self, input: Any) -> Any:
            yield None

    assert assistant_name_of(OutsideAgent()) == "Scout"


def test_a_langroid_agent_is_called_by_its_configured_name() -> None:
    from .langroid_fakes import make_agent

    assert Captured(make_agent([])).assistant_name == "tester"


def test_a_chat_of_several_agents_leaves_the_name_to_the_picker_unless_one_is_given() -> None:
    several = Captured({"planner": DemoAgent(delay=0), "coder": DemoAgent(delay=0)})
    assert several.assistant_name == ""
    assert Captured({"a": DemoAgent(delay=0)}, assistant_name="Ada").assistant_name == "Ada"


def test_exports_and_the_kept_conversation_say_the_name_and_the_title() -> None:
    shown = chat(
        title="Sales analyst",
        messages=[{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": "hello"}],
    )
    assert "**Assistant:**" in shown.to_markdown()
    shown.assistant_name = "Ada"
    assert "**Ada:**" in shown.to_markdown() and "**Assistant:**" not in shown.to_markdown()
    kept = shown._saved.bundle()["text/markdown"]
    assert "### Sales analyst" in kept and "**Ada:**" in kept
    assert "###" not in chat()._saved.bundle()["text/markdown"], "no title, no heading"


def test_a_notebook_written_from_the_chat_says_the_name_too(tmp_path) -> None:
    import nbformat

    shown = chat(messages=[{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": "hello"}])
    cells = lambda: "\n".join(c.source for c in nbformat.read(tmp_path / "chat.ipynb", 4).cells)  # noqa: E731
    shown.to_notebook(tmp_path / "chat.ipynb")
    assert "**Assistant:**\n\nhello" in cells()
    shown.assistant_name = "Ada <the analyst>"
    shown.to_notebook(tmp_path / "chat.ipynb")
    assert "**Ada <\u200bthe analyst>:**\n\nhello" in cells(), "the name, its HTML made harmless as the answers' is"
    assert "<the analyst>" not in cells() and "**Assistant:**" not in cells()
