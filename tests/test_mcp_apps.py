"""MCP Apps, the kernel's side: what the app in a tool's card asks of the tool's MCP server.

A view asks for the app's HTML (`mcp_app`) and the app calls the server's tools (`mcp_call`) or
reads its resources (`mcp_read`), each for a call of the transcript whose tool declares an app.
The server's approve policy holds for the app's calls as for the model's: the kernel refuses a
call the user has not approved. Anything else wrong is an error answer, never an exception.
Here the server is a stand-in with the MCP SDK's types; tests/browser/test_mcp_app.py runs the
demo server and its app in Chromium.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import mcp.types as mt
import pytest
from pydantic import TypeAdapter

from agui_widget import DemoAgent, mcp_tools
from agui_widget.inputs._mcp_connection import stop_all
from agui_widget.inputs._tools import PythonTool
from agui_widget.teaching.mcp_demo import COMMAND, COUNTER_APP
from agui_widget.wire import _codec
from agui_widget.wire._payloads import KernelMessage

from .genui_support import Captured
from .support import until

APP = "ui://demo/counter.html"
HTML = "<!doctype html><html><body><button>+1</button></body></html>"
KERNEL_MESSAGE: TypeAdapter[Any] = TypeAdapter(KernelMessage)


class FakeServer:
    """An MCP server's client side, as an McpTool holds it: a counter app's tools."""

    def __init__(self, *, html: str | None = HTML, csp: dict[str, Any] | None = None, fails: bool = False) -> None:
        self.count = 0
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.html, self.csp, self.fails = html, csp, fails

    async def list_tools(self) -> mt.ListToolsResult:
        app_only = {"ui": {"resourceUri": APP, "visibility": ["app"]}}
        model_only = {"ui": {"visibility": ["model"]}}
        return mt.ListToolsResult(
            tools=[
                mt.Tool(name="counter", input_schema={"type": "object"}, _meta={"ui": {"resourceUri": APP}}),
                mt.Tool(name="increment", input_schema={"type": "object"}, _meta=app_only),
                mt.Tool(name="reset", input_schema={"type": "object"}, _meta=app_only),
                mt.Tool(name="secret", input_schema={"type": "object"}, _meta=model_only),
            ]
        )

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float | None = None) -> mt.CallToolResult:
        self.calls.append((name, arguments))
        if self.fails:
            raise ConnectionError("the server went away")
        self.count = arguments.get("start", self.count + arguments.get("by", 1)) if name != "reset" else 0
        text = mt.TextContent(type="text", text=f"The counter is at {self.count}.")
        return mt.CallToolResult(content=[text], structured_content={"count": self.count})

    async def read_resource(self, uri: str) -> mt.ReadResourceResult:
        if self.html is None:
            return mt.ReadResourceResult(contents=[])
        meta = {"ui": {"csp": self.csp}} if self.csp is not None else None
        content = mt.TextResourceContents(uri=uri, mime_type="text/html;profile=mcp-app", text=self.html, _meta=meta)
        return mt.ReadResourceResult(contents=[content])


@dataclass(frozen=True)
class AppTool(PythonTool):
    """What the chat knows of an MCP tool with an app (the shape of McpTool)."""

    app_uri: str | None = APP
    server: Any = field(default=None, compare=False)
    remote_name: str = "counter"
    asks: frozenset[str] = frozenset()

    def needs_approval(self, remote_name: str) -> bool:
        return remote_name in self.asks


def counter_tool(server: FakeServer, **extra: Any) -> AppTool:
    def counter(start: int = 0) -> dict[str, int]:
        return {"count": start}

    return AppTool(name="counter", description="A counter.", fn=counter, server=server, **extra)


async def chat_with_a_counter_call(tool: PythonTool) -> tuple[Captured, str]:
    chat = Captured(DemoAgent(delay=0), tools=[tool])
    await chat.send('call counter {"start": 2}')
    await until(lambda: chat.status == "idle", what="the counter's call answered")
    call_id = next(c["id"] for m in chat.messages for c in m.get("toolCalls") or ())
    return chat, call_id


async def answer(chat: Captured, kind: str, request_id: str) -> dict[str, Any]:
    def found() -> dict[str, Any] | None:
        return next((m for m in chat.of_kind(kind) if m["requestId"] == request_id), None)

    await until(lambda: found() is not None, what=f"the {kind} answer to {request_id}")
    message = found()
    assert message is not None
    KERNEL_MESSAGE.validate_python(message)
    return message


async def test_the_view_gets_the_apps_html_and_the_csp_domains_its_resource_asks_for() -> None:
    csp = {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com", 7], "other": ["x"]}
    chat, call_id = await chat_with_a_counter_call(counter_tool(FakeServer(csp=csp)))

    chat.view_says({"kind": "mcp_app", "requestId": "r1", "toolCallId": call_id})

    app = await answer(chat, "mcp_app", "r1")
    assert app == {
        "kind": "mcp_app",
        "requestId": "r1",
        "toolCallId": call_id,
        "html": HTML,
        "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
        "error": None,
    }


async def test_an_app_sent_as_a_base64_blob_is_read_as_utf8_html() -> None:
    server = FakeServer()

    async def read_resource(uri: str) -> mt.ReadResourceResult:
        blob = base64.b64encode("<p>café</p>".encode()).decode()
        return mt.ReadResourceResult(
            contents=[mt.BlobResourceContents(uri=uri, mime_type="text/html;profile=mcp-app", blob=blob)]
        )

    server.read_resource = read_resource  # type: ignore[method-assign]
    chat, call_id = await chat_with_a_counter_call(counter_tool(server))

    chat.view_says({"kind": "mcp_app", "requestId": "r1", "toolCallId": call_id})

    assert (await answer(chat, "mcp_app", "r1"))["html"] == "<p>café</p>"


async def test_the_app_calls_a_server_tool_and_gets_its_result_as_mcp_writes_it() -> None:
    server = FakeServer()
    chat, call_id = await chat_with_a_counter_call(counter_tool(server))
    server.count = 2

    chat.view_says({"kind": "mcp_call", "requestId": "c1", "toolCallId": call_id, "name": "increment", "arguments": {"by": 1}})

    result = await answer(chat, "mcp_result", "c1")
    assert result["error"] is None and result["needsApproval"] is False
    assert result["result"]["structuredContent"] == {"count": 3}
    assert result["result"]["content"] == [{"type": "text", "text": "The counter is at 3."}]
    assert server.calls == [("increment", {"by": 1})]


async def test_a_tool_that_asks_first_is_refused_until_the_call_comes_approved() -> None:
    server = FakeServer()
    chat, call_id = await chat_with_a_counter_call(counter_tool(server, asks=frozenset({"reset"})))
    server.count = 5

    chat.view_says({"kind": "mcp_call", "requestId": "c1", "toolCallId": call_id, "name": "reset"})
    refused = await answer(chat, "mcp_result", "c1")
    assert refused["needsApproval"] is True and refused["result"] is None
    assert "approval" in refused["error"]
    assert server.calls == [], "the kernel never runs an unapproved call"

    chat.view_says({"kind": "mcp_call", "requestId": "c2", "toolCallId": call_id, "name": "reset", "approved": True})
    approved = await answer(chat, "mcp_result", "c2")
    assert approved["result"]["structuredContent"] == {"count": 0}
    assert server.calls == [("reset", {})]


async def test_the_app_reads_a_resource_of_its_server() -> None:
    chat, call_id = await chat_with_a_counter_call(counter_tool(FakeServer()))

    chat.view_says({"kind": "mcp_read", "requestId": "m1", "toolCallId": call_id, "uri": APP})

    result = (await answer(chat, "mcp_result", "m1"))["result"]
    assert result["contents"][0]["text"] == HTML
    assert result["contents"][0]["mimeType"] == "text/html;profile=mcp-app"


@pytest.mark.parametrize(
    ("request_fields", "error"),
    [
        ({"kind": "mcp_app", "toolCallId": "nope"}, "there is no tool call 'nope' in this chat"),
        ({"kind": "mcp_call", "toolCallId": "nope", "name": "increment"}, "there is no tool call 'nope' in this chat"),
        ({"kind": "mcp_read", "toolCallId": "nope", "uri": APP}, "there is no tool call 'nope' in this chat"),
        ({"kind": "mcp_call", "name": "missing"}, "the MCP server has no tool named 'missing'"),
        ({"kind": "mcp_call", "name": "secret"}, "tool 'secret' is not callable from an app"),
    ],
)
async def test_a_request_the_kernel_cannot_carry_out_gets_an_error_answer(request_fields: dict[str, Any], error: str) -> None:
    server = FakeServer()
    chat, call_id = await chat_with_a_counter_call(counter_tool(server))

    chat.view_says({"requestId": "x1", "toolCallId": call_id, **request_fields})

    kind = "mcp_app" if request_fields["kind"] == "mcp_app" else "mcp_result"
    reply = await answer(chat, kind, "x1")
    assert error in reply["error"]
    assert server.calls == []
    assert chat.of_kind("notice") == [], "an error answer, not a notice of a failed request"


async def test_a_tool_without_an_app_has_none_to_give() -> None:
    chat, call_id = await chat_with_a_counter_call(counter_tool(FakeServer(), app_uri=None))

    chat.view_says({"kind": "mcp_app", "requestId": "r1", "toolCallId": call_id})

    assert (await answer(chat, "mcp_app", "r1"))["error"] == "tool 'counter' has no MCP App"


@pytest.mark.parametrize(
    ("server", "error"),
    [
        (FakeServer(html=None), f"the MCP server sent nothing for {APP}"),
        (FakeServer(fails=True), "the MCP server failed calling increment: ConnectionError: the server went away"),
    ],
)
async def test_a_server_that_fails_is_an_error_answer(server: FakeServer, error: str) -> None:
    chat, call_id = await chat_with_a_counter_call(counter_tool(server))
    server.calls.clear()

    chat.view_says({"kind": "mcp_app", "requestId": "r1", "toolCallId": call_id})
    chat.view_says({"kind": "mcp_call", "requestId": "c1", "toolCallId": call_id, "name": "increment"})

    app, call = await answer(chat, "mcp_app", "r1"), await answer(chat, "mcp_result", "c1")
    assert error in (app["error"] or "") + (call["error"] or "")


def test_the_view_sees_a_tools_app() -> None:
    tool = counter_tool(FakeServer())
    assert tool.spec()["appUri"] == APP
    assert counter_tool(FakeServer(), app_uri=None).spec()["appUri"] is None


def test_the_answers_fit_their_declarations() -> None:
    KERNEL_MESSAGE.validate_python(_codec.mcp_app_message("r", "c", "<p>", {"connectDomains": []}, None))
    KERNEL_MESSAGE.validate_python(_codec.mcp_app_message("r", "c", None, None, "no app"))
    KERNEL_MESSAGE.validate_python(_codec.mcp_result_message("r", {"content": []}, None))
    KERNEL_MESSAGE.validate_python(_codec.mcp_result_message("r", None, "asks first", needs_approval=True))


async def test_with_the_demo_server_the_counter_app_counts_through_the_kernel_and_asks_first_when_told() -> None:
    try:
        tools = mcp_tools(COMMAND, include=["counter"], approve=["increment"], env={"AGUI_WIDGET_TEST_SERVER": "apps"})
        (counter,) = tools
        assert counter.app_uri == COUNTER_APP
        chat, call_id = await chat_with_a_counter_call(counter)
        tool_message = next(m for m in chat.messages if m["role"] == "tool")
        assert tool_message["metadata"]["agui_widget"]["mcp"]["result"]["structuredContent"] == {"count": 2}

        chat.view_says({"kind": "mcp_app", "requestId": "r1", "toolCallId": call_id})
        app = await answer(chat, "mcp_app", "r1")
        assert app["error"] is None and "<html" in app["html"].lower()

        chat.view_says(
            {"kind": "mcp_call", "requestId": "c1", "toolCallId": call_id, "name": "increment", "arguments": {"by": 1}}
        )
        assert (await answer(chat, "mcp_result", "c1"))["needsApproval"] is True
        chat.view_says({"kind": "mcp_call", "requestId": "c2", "toolCallId": call_id, "name": "increment", "approved": True})
        assert (await answer(chat, "mcp_result", "c2"))["result"]["structuredContent"] == {"count": 3}
        chat.view_says({"kind": "mcp_call", "requestId": "c3", "toolCallId": call_id, "name": "nope"})
        assert (await answer(chat, "mcp_result", "c3"))["error"] == "the MCP server has no tool named 'nope'"
        chat.view_says({"kind": "mcp_read", "requestId": "m1", "toolCallId": call_id, "uri": "demo://counter"})
        assert (await answer(chat, "mcp_result", "m1"))["result"]["contents"][0]["text"] == "The counter is at 3."
        chat.close()
    finally:
        stop_all()
