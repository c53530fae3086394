"""``%load_ext agui_widget`` in a real kernel: the error button under a failing cell's traceback and
what its click sends, the hint where no widget can show, and ``%%chat`` / ``%chat`` streaming the
answer into the cell's output. The demo agent answers (agui_widget/adapters/_demo.py)."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from typing import Any

import pytest

from agui_widget.notebook._errors import ASK, HINT, NO_CHAT, SENT

from .kernel_harness import REPO_ROOT, ExecResult, FakeFrontEnd, WidgetComm, kernel_env
from .test_kernel import assert_clean

pytestmark = pytest.mark.kernel

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SHOW_A_CHAT = "from agui_widget import AgentChat, DemoAgent\nchat = AgentChat(DemoAgent(delay={delay}))\nchat"


class NotebookFrontEnd(FakeFrontEnd):
    """The fake front end, also keeping what a notebook needs here: every display by its id (the
    first and each update, with the request they were addressed to) and the order of each cell's
    outputs."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.displays: dict[str, list[tuple[str | None, dict[str, Any]]]] = {}
        self.kinds: dict[str | None, list[str]] = {}

    def _on_execution_output(self, kind: str, content: dict[str, Any], parent: dict[str, Any], now: float) -> None:
        super()._on_execution_output(kind, content, parent, now)
        if kind in ("display_data", "update_display_data", "error"):
            self.kinds.setdefault(parent.get("msg_id"), []).append(kind)
        display_id = (content.get("transient") or {}).get("display_id")
        if display_id and kind in ("display_data", "update_display_data"):
            self.displays.setdefault(display_id, []).append((parent.get("msg_id"), content.get("data") or {}))

    def display_of(self, cell: ExecResult) -> str:
        """The id of the display a cell showed (the one ``%%chat`` keeps up to date)."""
        ids = [(o.get("transient") or {}).get("display_id") for o in cell.outputs]
        ids = [i for i in ids if i]
        assert len(ids) == 1, f"the cell showed {len(ids)} displays with an id: {cell.outputs}"
        return ids[0]

    def shown(self, display_id: str) -> str:
        """The Markdown a display shows now."""
        return self.displays[display_id][-1][1]["text/markdown"]


@pytest.fixture
async def fe():
    front = NotebookFrontEnd()
    try:
        await front.start()
        yield front
    finally:
        await front.shutdown()


async def show_chat(fe: NotebookFrontEnd, delay: float = 0.002) -> WidgetComm:
    """``chat``, a demo chat shown as a cell's last expression."""
    return await fe.create_widget(SHOW_A_CHAT.format(delay=delay))


async def until_idle(fe: NotebookFrontEnd, chat: str = "chat", timeout: float = 30.0) -> None:
    """Waits (in the kernel) until the chat has no turn left to run."""
    await fe.execute(f"while {chat}.active_run is not None:\n    await {chat}.active_run\n", timeout=timeout)


async def until_shown(fe: NotebookFrontEnd, display_id: str, expected: str, timeout: float = 10.0) -> None:
    """Waits until the display shows ``expected``."""
    try:
        await fe.wait_for(lambda: display_id in fe.displays and fe.shown(display_id) == expected, timeout, "the display")
    except AssertionError:
        shown = fe.shown(display_id) if display_id in fe.displays else None
        raise AssertionError(f"the display shows {shown!r}, not {expected!r}") from None


# -- loading ----------------------------------------------------------------------------------------


async def test_loading_twice_adds_nothing_twice_and_unloading_puts_back_what_was_there(fe):
    await fe.execute(
        "from IPython.core.magic import register_line_magic\n"
        "@register_line_magic\n"
        "def chat(line):\n"
        "    print('the user\\'s own chat magic:', line)\n"
        "del chat\n"
        "ip = get_ipython()\n"
        "before = (list(ip.events.callbacks['post_run_cell']), 'chat' in ip.magics_manager.magics['cell'])\n"
    )
    await fe.execute("%load_ext agui_widget")
    await fe.execute("import agui_widget\nagui_widget.load_ipython_extension(ip)")  # once more, by hand
    loaded = await fe.evaluate(
        "[len(ip.events.callbacks['post_run_cell']) - len(before[0]), 'chat' in ip.magics_manager.magics['cell'],"
        " ip.magics_manager.magics['line']['chat'].__module__]"
    )
    assert loaded == [1, True, "agui_widget.notebook._magics"]

    again = await fe.execute("%load_ext agui_widget")
    assert again.ok and "already loaded" in again.stdout
    await fe.execute("%unload_ext agui_widget")
    unloaded = await fe.evaluate(
        "[ip.events.callbacks['post_run_cell'] == before[0], 'chat' in ip.magics_manager.magics['cell']]"
    )
    assert unloaded == [True, False]
    assert (await fe.execute("%chat hello")).stdout == "the user's own chat magic: hello\n"
    errored = await fe.execute("1/0", check=False)
    assert errored.error and errored.error["ename"] == "ZeroDivisionError"
    assert not [o for o in errored.outputs if WIDGET_VIEW in (o.get("data") or {})], "no button once unloaded"


# -- errors ask the chat ----------------------------------------------------------------------------


def button_of(fe: NotebookFrontEnd, cell: ExecResult) -> WidgetComm:
    views = [o["data"] for o in cell.outputs if WIDGET_VIEW in (o.get("data") or {})]
    assert len(views) == 1, f"the cell should show one widget, the button: {cell.outputs}"
    assert views[0]["text/plain"] == HINT, "without widgets, a front end shows the hint"
    button = fe.widgets[views[0][WIDGET_VIEW]["model_id"]]
    assert button.state["_model_name"] == "ButtonModel" and button.state["description"] == ASK
    return button


def decoded(part: dict[str, Any]) -> str:
    assert part["type"] == "document" and part["source"]["mimeType"] == "text/plain", part
    return base64.b64decode(part["source"]["value"]).decode("utf-8")


async def test_a_raising_cell_shows_its_traceback_then_the_button_which_asks_the_chat_shown_last(fe):
    await fe.execute("%load_ext agui_widget")
    await show_chat(fe)
    mark = fe.mark()

    cell = await fe.execute("x = 1\ny = 0\nx / y", check=False)

    assert cell.error is not None and cell.error["ename"] == "ZeroDivisionError", "IPython's own error output"
    assert any("x / y" in ANSI.sub("", line) for line in cell.error["traceback"]), "the traceback as IPython shows it"
    assert fe.kinds[cell.msg_id] == ["error", "display_data"], "the button comes under the traceback"
    button = button_of(fe, cell)

    fe.send_custom(button, {"event": "click"})  # what the button's view sends when clicked
    await fe.wait_for_trait(button, "description", lambda text: text == SENT)
    assert button.state["disabled"] is True, "one click, one question"
    await until_idle(fe)

    user, answer = await fe.evaluate("chat.messages[-2:]")
    assert user["role"] == "user" and answer["role"] == "assistant" and answer["content"]
    text, error, source = user["content"]
    assert text == {"type": "text", "text": "What went wrong? My cell raised ZeroDivisionError: division by zero"}
    assert [error["metadata"], source["metadata"]] == [
        {"filename": "error.txt", "agui_widget": {"context": "error"}},
        {"filename": "cell.py", "agui_widget": {"context": "cell"}},
    ]
    assert decoded(source) == "x = 1\ny = 0\nx / y"
    report = decoded(error)
    assert report.startswith("ZeroDivisionError: division by zero\n") and "x / y" in report
    assert "\x1b[" not in report, "no ANSI codes"
    assert fe.problems(mark) == ["ZeroDivisionError: division by zero"]


async def test_the_button_says_so_when_no_chat_is_shown_and_works_once_one_is(fe):
    await fe.execute("%load_ext agui_widget\nfrom agui_widget import AgentChat\nhidden = AgentChat()")
    cell = await fe.execute("int('x')", check=False)
    button = button_of(fe, cell)
    mark = fe.mark()

    fe.send_custom(button, {"event": "click"})
    await fe.wait_for_trait(button, "description", lambda text: text == NO_CHAT)
    assert button.state["disabled"] is False, "it can be clicked again once a chat is shown"
    assert await fe.evaluate("hidden.messages") == [], "a chat never shown is not the one"
    assert_clean(fe, mark)

    await fe.execute("hidden")  # shown as a cell's last expression
    fe.send_custom(button, {"event": "click"})
    await fe.wait_for_trait(button, "description", lambda text: text == SENT)
    await until_idle(fe, "hidden")
    assert await fe.evaluate("hidden.messages[0]['content'][0]['text']") == (
        "What went wrong? My cell raised ValueError: invalid literal for int() with base 10: 'x'"
    )


async def test_a_chat_taking_no_attachments_still_gets_the_error_and_the_cell_as_context(fe):
    await fe.execute("%load_ext agui_widget\nfrom agui_widget import AgentChat\nchat = AgentChat(attachments=False)")
    await fe.execute("chat")
    cell = await fe.execute("def f():\n    raise KeyError('k')\nf()", check=False)
    fe.send_custom(button_of(fe, cell), {"event": "click"})
    await until_idle(fe)
    parts = await fe.evaluate("chat.messages[0]['content']")
    assert parts[0] == {"type": "text", "text": "What went wrong? My cell raised KeyError: 'k'"}
    assert [part["metadata"] for part in parts[1:]] == [
        {"filename": "error.txt", "agui_widget": {"context": "error"}},
        {"filename": "cell.py", "agui_widget": {"context": "cell"}},
    ]
    assert "raise KeyError('k')" in decoded(parts[1]) and decoded(parts[2]).startswith("def f():")


async def test_ask_about_error_from_a_cell_and_no_button_for_a_usage_error_or_an_exit(fe):
    await fe.execute("%load_ext agui_widget")
    await show_chat(fe)
    for code in ("%chat", "raise SystemExit", "raise KeyboardInterrupt"):
        cell = await fe.execute(code, check=False)
        assert cell.status == "error", code
        assert [o for o in cell.outputs if WIDGET_VIEW in (o.get("data") or {})] == [], f"no button after {code!r}"

    await fe.execute("{}['missing']", check=False)
    await fe.execute("from agui_widget.notebook import ask_about_error\nrun = ask_about_error()\nawait run")
    parts = await fe.evaluate("chat.messages[0]['content']")
    assert parts[0]["text"] == "What went wrong? My cell raised KeyError: 'missing'"
    assert decoded(parts[2]) == "{}['missing']"


def test_where_no_widget_can_show_the_hint_stands_in():
    """A plain IPython console (no kernel, so no front end that shows widgets) prints the hint."""
    script = "%load_ext agui_widget\n1/0\nprint('after')\n"
    done = subprocess.run(
        [sys.executable, "-m", "IPython", "--simple-prompt", "--quick", "--no-banner", "--colors=NoColor"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env=kernel_env(),
    )
    out = done.stdout
    assert "ZeroDivisionError" in out and HINT in out, out + done.stderr
    assert out.index("ZeroDivisionError") < out.index(HINT) < out.index("after")


# -- %%chat and %chat ---------------------------------------------------------------------------


async def test_cell_magic_streams_the_answer_into_the_cell_and_the_turn_is_in_the_transcript(fe):
    await fe.execute("%load_ext agui_widget")
    await show_chat(fe, delay=0.005)

    cell = await fe.execute("%%chat\nhelp\n")
    assert cell.result is None and cell.stdout == "", "the magic prints nothing and returns nothing"
    display_id = fe.display_of(cell)
    await fe.execute("between = 'another cell runs while the answer streams'")
    await until_idle(fe)

    await until_shown(fe, display_id, await fe.evaluate("chat.messages[-1]['content']"))
    assert await fe.evaluate("[m['role'] for m in chat.messages]") == ["user", "assistant"]
    assert await fe.evaluate("chat.messages[0]['content']") == "help"
    updates = fe.displays[display_id]
    assert {parent for parent, _ in updates} == {cell.msg_id}, "every update is addressed to the asking cell"
    assert all(data["text/plain"] == data["text/markdown"] for _, data in updates)
    tokens = len(await fe.evaluate("[e for e in chat.events if e.type == 'TEXT_MESSAGE_CONTENT']"))
    assert len(updates) < tokens / 2, f"throttled: {len(updates)} display updates for {tokens} tokens"


async def test_cell_magic_with_a_name_and_the_line_magic(fe):
    await fe.execute("%load_ext agui_widget")
    await show_chat(fe)
    await fe.execute("from agui_widget import AgentChat\nclass Box:\n    pass\nbox = Box()\nbox.other = AgentChat()")

    named = await fe.execute("%%chat box.other\nweather in Lisbon")
    await until_idle(fe, "box.other")
    said = await fe.evaluate("[m['content'] for m in box.other.messages if m['role'] == 'assistant' and m.get('content')]")
    await until_shown(
        fe, fe.display_of(named), f'{said[0]}\n\n*Tool call* `get_weather` `{{"city": "Lisbon"}}` — done\n\n{said[1]}'
    )
    assert await fe.evaluate("chat.messages") == [], "the chat shown last was not asked"

    line = await fe.execute("%chat say {hello} to $nobody")
    await until_idle(fe)
    assert await fe.evaluate("chat.messages[0]['content']") == "say {hello} to $nobody", "sent as typed"
    await until_shown(fe, fe.display_of(line), await fe.evaluate("chat.messages[-1]['content']"))

    await fe.execute("display(box.other)\nmessages_before = len(box.other.messages)")  # now the chat shown last
    await fe.execute("%chat help")
    await until_idle(fe, "box.other")
    assert await fe.evaluate("box.other.messages[messages_before]['content']") == "help"
    assert await fe.evaluate("len(chat.messages)") == 2


async def test_the_cell_shows_how_a_turn_ended_an_error_or_a_stop(fe):
    await fe.execute("%load_ext agui_widget")
    await fe.execute(
        "from agui_widget import AgentChat, DemoAgent\ndef broken(messages):\n    return 1 / 0\nfailing = AgentChat(broken)"
    )
    failed = await fe.execute("%%chat failing\nanything")
    await until_idle(fe, "failing")
    error = await fe.evaluate("failing.error")
    assert "ZeroDivisionError" in error
    await until_shown(fe, fe.display_of(failed), f"**Error:** {error}")

    await fe.execute("slow = AgentChat(DemoAgent(delay=0.05))\nslow")
    asked = await fe.execute("%chat help")
    display_id = fe.display_of(asked)
    await fe.wait_for(lambda: "demo agent" in fe.shown(display_id), 20, "the answer to start")
    await fe.execute("slow.stop()")
    await until_idle(fe, "slow")
    kept = await fe.evaluate("slow.messages[-1]['content']")
    await until_shown(fe, display_id, f"{kept}\n\n*Stopped.*")


async def test_magic_errors_say_what_is_wrong(fe):
    await fe.execute("%load_ext agui_widget")

    async def usage_error(code: str) -> str:
        """What IPython says of a magic's UsageError: one line, no traceback."""
        cell = await fe.execute(code, check=False)
        assert cell.status == "error" and cell.stderr.startswith("UsageError: "), cell
        assert not [o for o in cell.outputs if WIDGET_VIEW in (o.get("data") or {})], "no error button for a usage error"
        return cell.stderr.removeprefix("UsageError: ").strip()

    assert "no chat has been shown yet" in await usage_error("%%chat\nhello")
    assert "no chat has been shown yet" in await usage_error("%chat hello")
    assert await usage_error("%%chat nosuch\nhello") == "%%chat: there is no variable 'nosuch' in the notebook"
    await fe.execute("number = 5")
    assert await usage_error("%%chat number\nhello") == "%%chat: 'number' is not an AgentChat (its type is int)"
    assert "not 'two words'" in await usage_error("%%chat two words\nhello")
    await show_chat(fe)
    assert await usage_error("%%chat\n   \n") == "%%chat: there is no text to send (the cell is empty)"
    assert await usage_error("%chat") == "%chat: there is no text to send (%chat TEXT)"
    assert await fe.evaluate("chat.messages") == []
