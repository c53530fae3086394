"""The kernel side of MCP Apps (the MCP Apps extension, ``_meta.ui.resourceUri``): what the app in
a tool's card asks of the tool's MCP server, through the kernel.

A view asks for the app's HTML (``mcp_app``), and the app calls the server's tools (``mcp_call``)
and reads its resources (``mcp_read``). Each request names the tool call whose card holds the app,
so the kernel answers only for a call in the transcript whose tool (an ``McpTool``) declares an
app, and only with that tool's server. A tool the server's ``approve`` policy asks about is
refused until the view sends the call again as approved by the user; any other mistake is an
error answer, never an exception in the kernel.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol

from ..wire import _codec

log = logging.getLogger("agui_widget")

MAX_APP_BYTES = 10_000_000
"""The largest app HTML sent to a view (bytes of UTF-8)."""
APP_MIME_TYPE = "text/html;profile=mcp-app"
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")


class AppRefused(ValueError):
    """A request the kernel will not carry out; its text is the answer's error."""


class McpAppTool(Protocol):
    """What the kernel needs of a tool with an app (``agui_widget.inputs._mcp_tools.McpTool``)."""

    name: str
    app_uri: str | None
    server: Any

    def needs_approval(self, remote_name: str) -> bool: ...


class McpApps:
    """Answers one chat's views about the MCP Apps in its tool cards."""

    def __init__(
        self,
        messages: Callable[[], Sequence[dict[str, Any]]],
        tools: Callable[[], Sequence[Any]],
        send: Callable[[dict[str, Any]], None],
    ) -> None:
        self._messages = messages
        self._tools = tools
        self._send = send
        self._tasks: set[asyncio.Task[None]] = set()
        self._server_tools: dict[int, tuple[Any, dict[str, Any]]] = {}
        """id(server) -> (server, its tools by name as MCP lists them), listed once per server."""

    # -- the requests -------------------------------------------------------------------------

    def app(self, request_id: str, tool_call_id: str) -> None:
        """Answers with the app's HTML and its CSP domains (an ``mcp_app`` message)."""

        async def answer() -> None:
            try:
                html, csp = await self._read_app(self._tool_of(tool_call_id))
            except AppRefused as refused:
                self._send(_codec.mcp_app_message(request_id, tool_call_id, None, None, str(refused)))
            else:
                self._send(_codec.mcp_app_message(request_id, tool_call_id, html, csp, None))

        self._start(answer(), request_id)

    def call(self, request_id: str, tool_call_id: str, name: str, arguments: dict[str, Any], approved: bool) -> None:
        """Calls ``name`` on the server of the call's tool (an ``mcp_result`` message)."""

        async def answer() -> None:
            tool = self._tool_of(tool_call_id)
            await self._check_callable(tool, name)
            if not approved and tool.needs_approval(name):
                error = f"{name} asks the user before it runs; the call needs the user's approval"
                self._send(_codec.mcp_result_message(request_id, None, error, needs_approval=True))
                return
            timeout = getattr(tool, "timeout", None)  # the tool's own bound holds for the app's calls too
            pending = (
                tool.server.call_tool(name, arguments, timeout=timeout) if timeout else tool.server.call_tool(name, arguments)
            )
            result = await _server_answer(pending, f"calling {name}")
            self._send(_codec.mcp_result_message(request_id, _as_json(result), None))

        self._start(answer(), request_id)

    def read(self, request_id: str, tool_call_id: str, uri: str) -> None:
        """Reads ``uri`` from the server of the call's tool (an ``mcp_result`` message)."""

        async def answer() -> None:
            tool = self._tool_of(tool_call_id)
            result = await _server_answer(tool.server.read_resource(uri), f"reading {uri}")
            self._send(_codec.mcp_result_message(request_id, _as_json(result), None))

        self._start(answer(), request_id)

    def _start(self, answer: Coroutine[Any, Any, None], request_id: str) -> None:
        async def guarded() -> None:
            try:
                await answer
            except AppRefused as refused:
                self._send(_codec.mcp_result_message(request_id, None, str(refused)))
            except Exception as exc:  # never into the kernel: the app is told, the log keeps it
                log.exception("agui-widget: an MCP App's request failed")
                self._send(
                    _codec.mcp_result_message(request_id, None, f"the kernel could not answer ({type(exc).__name__}: {exc})")
                )

        task = asyncio.get_running_loop().create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- what a request names -----------------------------------------------------------------

    def _tool_of(self, tool_call_id: str) -> McpAppTool:
        """The tool with an app that call ``tool_call_id`` of the transcript called."""
        name = _called_tool(self._messages(), tool_call_id)
        if name is None:
            raise AppRefused(f"there is no tool call {tool_call_id!r} in this chat")
        tool = next((t for t in self._tools() if getattr(t, "name", None) == name), None)
        if tool is None:
            raise AppRefused(f"the chat has no tool named {name!r} (call {tool_call_id!r})")
        if not getattr(tool, "app_uri", None) or getattr(tool, "server", None) is None:
            raise AppRefused(f"tool {name!r} has no MCP App")
        return tool

    async def _check_callable(self, tool: McpAppTool, name: str) -> None:
        """Refuses a tool the server does not list, or one it keeps from apps (``visibility``)."""
        server = tool.server
        listed = self._server_tools.get(id(server))
        if listed is None or listed[0] is not server:
            list_tools = getattr(server, "list_tools", None)
            if list_tools is None:  # a server that cannot list its tools answers for itself
                return
            result = await _server_answer(list_tools(), "listing the server's tools")
            specs = (_as_json(t) for t in getattr(result, "tools", None) or ())
            listed = (server, {str(spec.get("name")): spec for spec in specs})
            self._server_tools[id(server)] = listed
        spec = listed[1].get(name)
        if spec is None:
            raise AppRefused(f"the MCP server has no tool named {name!r}")
        visibility = _ui_meta(spec).get("visibility")
        if isinstance(visibility, list) and "app" not in visibility:
            raise AppRefused(f"tool {name!r} is not callable from an app (its visibility is {visibility})")

    async def _read_app(self, tool: McpAppTool) -> tuple[str, dict[str, Any] | None]:
        uri = str(tool.app_uri)
        result = await _server_answer(tool.server.read_resource(uri), f"reading {uri}")
        contents = [_as_json(c) for c in getattr(result, "contents", None) or ()]
        content = next((c for c in contents if c.get("uri") == uri), contents[0] if contents else None)
        if content is None:
            raise AppRefused(f"the MCP server sent nothing for {uri}")
        mime = str(content.get("mimeType") or "")
        if mime and not mime.startswith("text/html"):
            raise AppRefused(f"{uri} is {mime}, not an app's HTML ({APP_MIME_TYPE})")
        html = _text_of(content, uri)
        if len(html.encode("utf-8", "surrogatepass")) > MAX_APP_BYTES:
            raise AppRefused(f"{uri} is larger than {MAX_APP_BYTES:,} bytes")
        return html, _csp_of(content)


def _called_tool(messages: Sequence[dict[str, Any]], tool_call_id: str) -> str | None:
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict) and call.get("id") == tool_call_id:
                function = call.get("function")
                return function.get("name") if isinstance(function, dict) else None
    return None


async def _server_answer(pending: Any, doing: str) -> Any:
    """The server's answer; an error of the server or its link as an :class:`AppRefused`."""
    try:
        return await pending
    except (asyncio.CancelledError, AppRefused):
        raise
    except Exception as exc:
        raise AppRefused(f"the MCP server failed {doing}: {type(exc).__name__}: {exc}") from exc


def _text_of(content: dict[str, Any], uri: str) -> str:
    text = content.get("text")
    if isinstance(text, str):
        return text
    blob = content.get("blob")
    if isinstance(blob, str):
        try:
            return base64.b64decode(blob, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError) as exc:
            raise AppRefused(f"{uri} is not UTF-8 HTML: {exc}") from None
    raise AppRefused(f"{uri} holds no text")


def _ui_meta(holder: dict[str, Any]) -> dict[str, Any]:
    """``holder["_meta"]["ui"]`` (the MCP Apps extension's part of a tool or a resource)."""
    meta = holder.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def _csp_of(content: dict[str, Any]) -> dict[str, Any] | None:
    """The domains the resource's ``_meta.ui.csp`` asks for: lists of strings, nothing else."""
    csp = _ui_meta(content).get("csp")
    if not isinstance(csp, dict):
        return None
    kept = {key: [d for d in csp[key] if isinstance(d, str)] for key in CSP_KEYS if isinstance(csp.get(key), list)}
    return kept or None


def _as_json(result: Any) -> dict[str, Any]:
    """An MCP result as MCP writes it (``structuredContent``, ``_meta``, ``isError``)."""
    dump = getattr(result, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(result, dict):
        return result
    raise AppRefused(f"the MCP server answered with a {type(result).__name__}, not a result")
