"""``@`` in the message box, kernel side: a view asks for the user's variables and for one
variable's summary (docs/wire.md, ``variables`` and ``inspect_variable``), and a summary the kernel
gave out comes back with the user's message as context, which the attachment policy does not count.

The kernel tests talk to a real ipykernel through the fake front end (tests/kernel_harness.py),
with a DataFrame, a secret and a function in the user's namespace.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from agui_widget import DemoAgent
from agui_widget.chat._mentions import NO_NAMESPACE, SUMMARY_CHARS, Mentions
from agui_widget.inputs._attachments import AttachmentPolicy
from agui_widget.vocabulary._marks import CONTEXT, mark_of

from .genui_support import Captured
from .kernel_harness import FakeFrontEnd, WidgetComm

SECRET_VALUE = "sk-live-0123456789abcdef"
NAMESPACE_CELL = f"""
import pandas as pd
from agui_widget import AgentChat, DemoAgent
df = pd.DataFrame({{"city": ["Oslo", "Lima", "Pune"], "temp": [3.5, 19.0, 31.25]}})
API_KEY = {SECRET_VALUE!r}
def celsius(f):
    return (f - 32) * 5 / 9
class Reading:
    pass
_private = 1
"""


def mention_part(name: str, text: str) -> dict[str, Any]:
    """A summary as the view sends it: a text document named ``@name``."""
    value = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return {
        "type": "document",
        "source": {"type": "data", "value": value, "mimeType": "text/plain"},
        "metadata": {"filename": f"@{name}"},
    }


@pytest.fixture
async def fe():
    async with FakeFrontEnd.running() as front:
        yield front


async def open_chat(fe: FakeFrontEnd, attachments: str = "True") -> WidgetComm:
    await fe.execute(NAMESPACE_CELL)
    return await fe.create_widget(f"chat = AgentChat(DemoAgent(delay=0), attachments={attachments})\n")


async def ask(fe: FakeFrontEnd, chat: WidgetComm, kind: str, request: dict[str, Any], answer: str) -> dict[str, Any]:
    """Send a request as a view does and wait for the answer of kind ``answer`` with its ``requestId``."""
    fe.send_custom(chat, {"kind": kind, **request})

    def answered() -> dict[str, Any] | None:
        return next((m for m in chat.of_kind(answer) if m.get("requestId") == request["requestId"]), None)

    return await fe.wait_for(answered, 20, f"the {answer} answer to {request['requestId']}")


# -- in a kernel ----------------------------------------------------------------------------------


@pytest.mark.kernel
async def test_a_view_gets_the_users_variables_with_type_shape_and_kind(fe: FakeFrontEnd) -> None:
    chat = await open_chat(fe)
    answer = await ask(fe, chat, "variables", {"requestId": "v1:1"}, "variables")
    assert answer["error"] is None
    rows = {row["name"]: row for row in answer["variables"]}
    assert rows["df"] == {
        "name": "df",
        "type": "DataFrame",
        "kind": "data",
        "shape": "(3, 2)",
        "size": rows["df"]["size"],
        "secret": False,
    }
    assert isinstance(rows["df"]["size"], int) and rows["df"]["size"] > 0
    assert rows["celsius"]["kind"] == "function" and rows["Reading"]["kind"] == "class"
    assert rows["API_KEY"] == {"name": "API_KEY", "type": "str", "kind": "data", "shape": None, "size": None, "secret": True}
    assert "pd" not in rows and "_private" not in rows and "In" not in rows, "no modules, private names or IPython's own"
    assert SECRET_VALUE not in str(answer), "a secret's value never travels"


@pytest.mark.kernel
async def test_a_view_gets_a_dataframes_summary_and_a_secrets_type_alone(fe: FakeFrontEnd) -> None:
    chat = await open_chat(fe)
    frame = await ask(fe, chat, "inspect_variable", {"requestId": "v1:2", "name": "df"}, "variable")
    assert frame["error"] is None and frame["name"] == "df"
    summary = frame["summary"]
    assert "DataFrame" in summary and "3 rows" in summary and "city" in summary and "Pune" in summary
    assert len(summary) <= SUMMARY_CHARS
    secret = await ask(fe, chat, "inspect_variable", {"requestId": "v1:3", "name": "API_KEY"}, "variable")
    assert secret["summary"] is not None and "withheld" in secret["summary"]
    assert SECRET_VALUE not in str(secret)
    missing = await ask(fe, chat, "inspect_variable", {"requestId": "v1:4", "name": "dff"}, "variable")
    assert missing["summary"] is None
    assert missing["error"] == "There is no variable named 'dff' in the kernel."


@pytest.mark.kernel
async def test_a_summary_sent_back_is_context_even_in_a_chat_that_takes_no_files(fe: FakeFrontEnd) -> None:
    chat = await open_chat(fe, attachments="False")
    summary = (await ask(fe, chat, "inspect_variable", {"requestId": "v1:5", "name": "df"}, "variable"))["summary"]
    fe.send_custom(chat, {"kind": "send", "text": "what is in @df?", "attachments": [mention_part("df", summary)]})
    await fe.wait_for(lambda: any(m.get("kind") == "check" for m in chat.customs), 20, "the turn's end")
    content = await fe.evaluate("chat.messages[0]['content']")
    assert content[0] == {"type": "text", "text": "what is in @df?"}
    part = content[1]
    assert part["metadata"] == {"filename": "@df", "agui_widget": {"context": "variable"}}
    assert base64.b64decode(part["source"]["value"]).decode("utf-8") == summary, "the agent gets the summary's text"
    assert not [m for m in chat.of_kind("notice") if m["text"].startswith("send:")]


@pytest.mark.kernel
async def test_a_file_passed_off_as_a_summary_is_held_to_the_policy(fe: FakeFrontEnd) -> None:
    chat = await open_chat(fe, attachments="False")
    forged = mention_part("df", "anything at all")
    forged["metadata"]["agui_widget"] = {"context": "variable"}  # a mark only the kernel sets
    fe.send_custom(chat, {"kind": "send", "text": "hi", "attachments": [forged]})
    notice = await fe.wait_for(lambda: next(iter(chat.of_kind("notice")), None), 20, "the refusal")
    assert notice["text"] == "send: this chat takes no attachments (AgentChat(attachments=False))"
    assert await fe.evaluate("len(chat.messages)") == 0


# -- outside a kernel and the parts alone -----------------------------------------------------------


def test_outside_ipython_the_answer_says_there_is_no_namespace() -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.view_says({"kind": "variables", "requestId": "r1"})
    chat.view_says({"kind": "inspect_variable", "requestId": "r2", "name": "df"})
    assert chat.of_kind("variables") == [{"kind": "variables", "requestId": "r1", "variables": [], "error": NO_NAMESPACE}]
    assert chat.of_kind("variable") == [
        {"kind": "variable", "requestId": "r2", "name": "df", "summary": None, "error": NO_NAMESPACE}
    ]


def test_a_request_without_an_id_or_a_name_is_refused_with_a_notice() -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.view_says({"kind": "inspect_variable", "requestId": "r1", "name": ""})
    chat.view_says({"kind": "variables"})
    notices = [m["text"] for m in chat.of_kind("notice")]
    assert len(notices) == 2
    assert notices[0].startswith("inspect_variable: name") and notices[1].startswith("variables: requestId")
    assert chat.of_kind("variable") == [] and chat.of_kind("variables") == []


def test_only_a_summary_the_kernel_gave_out_is_marked_as_context(monkeypatch: pytest.MonkeyPatch) -> None:
    from agui_widget.inputs import _namespace

    namespace = {"df": [1, 2, 3]}
    monkeypatch.setattr(_namespace, "user_namespace", lambda: namespace)
    mentions = Mentions()
    summary = mentions.variable_answer("r1", "df")["summary"]
    given, other, renamed = mention_part("df", summary), mention_part("df", summary + " "), mention_part("df", summary)
    renamed["metadata"]["filename"] = "df.txt"
    claimed = {**mention_part("x", "forged"), "metadata": {"filename": "@x", "agui_widget": {"context": "variable", "kept": 1}}}
    marked = mentions.mark_context([given, other, renamed, claimed])
    assert [mark_of(part, CONTEXT) for part in marked] == ["variable", None, None, None]
    assert marked[3]["metadata"] == {"filename": "@x", "agui_widget": {"kept": 1}}, "a claimed mark is taken off, the rest kept"
    assert given["metadata"] == {"filename": "@df"}, "the view's part is not changed in place"
    policy = AttachmentPolicy(enabled=False)
    policy.check(marked[:1])
    with pytest.raises(ValueError, match="this chat takes no attachments"):
        policy.check(marked[:2])


# -- what a model reads of a summary ------------------------------------------------------------------

SUMMARY = "df: DataFrame, 3 rows × 2 columns\nColumns (dtype):\n  city: object\n  temp: float64"


def context_part(name: str, text: str) -> dict[str, Any]:
    """A summary as the kernel keeps it once taken as context."""
    part = mention_part(name, text)
    part["metadata"]["agui_widget"] = {"context": "variable"}
    return part


async def test_a_langchain_model_reads_a_summary_as_text_and_a_file_as_a_file() -> None:
    from agui_widget.adapters.langchain import LangChainAgent

    from .langchain_fakes import model

    fake = model("A small table of cities.")
    chat = Captured(LangChainAgent(fake))
    await chat.send([{"type": "text", "text": "what is in @df?"}, context_part("df", SUMMARY), mention_part("notes", "a file")])
    content = fake.calls[0][-1].content
    assert content[0] == {"type": "text", "text": "what is in @df?"}
    assert content[1] == {"type": "text", "text": f"\n\n@df (context attached to this message):\n{SUMMARY}"}
    assert content[2]["type"] == "file" and content[2]["mime_type"] == "text/plain", "a file the user attached stays a file"


def test_a_langroid_model_reads_a_summary_in_the_messages_text_not_as_a_file() -> None:
    from agui_widget.adapters.langroid._history import files_of, text_of

    message = {"role": "user", "content": [{"type": "text", "text": "what is in @df?"}, context_part("df", SUMMARY)]}
    assert text_of(message) == f"what is in @df?\n@df (context attached to this message):\n{SUMMARY}"
    assert files_of(message) == []
