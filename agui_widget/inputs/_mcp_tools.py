"""MCP servers' tools for the chat: ``mcp_tools(server)``, each tool one the kernel answers.

Each tool the server offers the model becomes an :class:`McpTool`: a :class:`PythonTool` whose call
the kernel answers through the MCP client (``answer_call``), with the server's JSON schema and
name. To the agent nothing differs from a Python tool, approval and timeouts included; the card
shows the result's text, images and structured content (``_mcp_results``).

The server is started here, once, to list its tools: a server that cannot start fails the cell
that named it. It is reused by every chat and run, and stops with the last chat holding it or with
the kernel (``_mcp_connection``, where the connection's interface is described).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..vocabulary._content import to_json_text
from ._live_context import LiveContext
from ._mcp_connection import START_TIMEOUT, McpServer, McpServerError, ServerSpec, server_for
from ._tools import PythonTool

if TYPE_CHECKING:
    from mcp.types import CallToolResult, Resource, Tool

RESOURCE_TIMEOUT = 10.0
"""Seconds reading a resource for a run's context may take (the run waits for it)."""

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class Approval:
    """Which of a server's tools ask the user before they run: all, none, or those named."""

    everything: bool = False
    named: frozenset[str] = frozenset()

    def __call__(self, remote_name: str) -> bool:
        return self.everything or remote_name in self.named


@dataclass(frozen=True)
class McpTool(PythonTool):
    """A tool of an MCP server, answered by the kernel through the MCP client.

    ``server`` is the connection (:class:`~agui_widget.inputs._mcp_connection.McpServer`:
    ``call_tool``, ``read_resource``, ``list_tools``), ``remote_name`` the server's name for the
    tool (``name`` has ``prefix=`` before it), ``app_uri`` the ``ui://`` resource of its MCP App
    (``_meta.ui.resourceUri``), if any. Calling the object in a cell calls the tool and returns
    the ``CallToolResult``.
    """

    server: McpServer | None = field(default=None, compare=False, repr=False)
    remote_name: str = ""
    app_uri: str | None = None
    approval: Approval = field(default_factory=Approval, compare=False, repr=False)
    context: tuple[LiveContext, ...] = field(default=(), compare=False, repr=False)
    """The server's resources as context entries (``resources=True``): a chat given the tool sends them."""

    def needs_approval(self, remote_name: str) -> bool:
        """Whether a call of the server's tool ``remote_name`` asks the user first: the
        ``mcp_tools(approve=...)`` policy, for any of its tools (an app may call one not offered
        to the model)."""
        return self.approval(remote_name)

    async def answer_call(self, args_text: str) -> dict[str, Any]:
        """The tool message answering a call (``run_python_tool`` hands MCP tools' calls here)."""
        from ._mcp_results import result_message
        from ._python_tools import failed

        assert self.server is not None
        try:
            arguments = json.loads(args_text.strip() or "{}")
        except ValueError as exc:
            return failed(f"invalid arguments for {self.name}: not JSON ({exc})")
        if not isinstance(arguments, dict):
            return failed(f"invalid arguments for {self.name}: an object of named arguments, not {to_json_text(arguments)}")
        try:
            result = await self.server.call_tool(self.remote_name, arguments, timeout=self.timeout)
        except TimeoutError:
            return failed(f"{self.name} did not finish within {self.timeout:g} s")
        except McpServerError as exc:
            return failed(str(exc))
        except Exception as exc:  # a protocol error (an unknown tool, arguments the server refused), a malformed result
            return failed(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        return result_message(result, self.remote_name)

    def hold(self, owner: Any) -> None:
        """A chat uses this tool: its server runs until the chat closes (or the kernel exits)."""
        assert self.server is not None
        self.server.hold(owner)

    def release(self, owner: Any) -> None:
        """The chat closed: the server stops when no other open chat uses it."""
        assert self.server is not None
        self.server.release(owner)


class McpTools(list[McpTool]):
    """What :func:`mcp_tools` returns: a list of tools, with the ``server`` they come from and its
    resources as ``context`` entries (``resources=True``; a chat given these tools sends them)."""

    def __init__(self, tools: Sequence[McpTool], server: McpServer, context: Sequence[LiveContext] = ()) -> None:
        super().__init__(tools)
        self.server = server
        self.context = list(context)

    def call(self, name: str, /, **arguments: Any) -> CallToolResult:
        """Call any of the server's tools from a cell (one only its MCP App calls too): its result."""
        return self.server.run(self.server.call_tool(name, arguments), None)

    def read(self, uri: str) -> str:
        """One of the server's resources, as the text a context entry would send."""
        from ._mcp_results import resource_text

        return resource_text(self.server.run(self.server.read_resource(uri), RESOURCE_TIMEOUT))


def mcp_tools(
    server: str | Sequence[str],
    *,
    approve: bool | Collection[str] = False,
    timeout: float | None = None,
    include: Collection[str] | None = None,
    exclude: Collection[str] | None = None,
    prefix: str | None = None,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    resources: bool = False,
) -> McpTools:
    """The tools of an MCP server, for ``AgentChat(tools=...)``: the kernel answers their calls.

    ``server`` is a command that starts a stdio server (a list of arguments, or a string split as a
    shell would), or the ``http(s)://`` URL of a streamable-HTTP server. The server starts now, to
    list its tools (a server that cannot start raises :class:`McpServerError` naming the command
    and its stderr's last lines), and is reused by every chat; it stops when the last chat using
    it closes, or with the kernel.

    ``approve``: True (or a list of the server's tool names) asks Approve / Deny before each call.
    ``timeout``: seconds a call may take; past them the call is answered with an error.
    ``include`` / ``exclude``: the server's tool names to offer, or to leave out. ``prefix``: put
    before every name (``"fs_"``), for two servers that offer tools of one name. ``headers``: HTTP
    headers (a token). ``env``: environment variables for the command, over the SDK's minimal
    environment (``PATH``, ``HOME``, ...: the kernel's own variables, API keys among them, are not
    passed on unless given, e.g. ``env=dict(os.environ)``). ``resources=True``: the server's
    resources are also sent as context, read at each run's start (``.context`` of the result; a
    chat made with these tools sends them).

    Tools an MCP App alone may call (``_meta.ui.visibility`` without ``"model"``) are not offered.
    """
    if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
        raise ValueError("timeout must be a positive number of seconds (or None)")
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"prefix is a string put before each tool's name, not {type(prefix).__name__}")
    spec = ServerSpec.of(server, headers=headers, env=env)
    if importlib.util.find_spec("mcp") is None:
        raise ImportError("mcp_tools() needs the MCP SDK: pip install 'agui-widget[mcp]'")
    connection = server_for(spec)
    listed = connection.run(connection.list_tools(), START_TIMEOUT + 30).tools
    names = [tool.name for tool in listed]
    approval = _approval(approve, names, spec.label)
    include_set = _known(include, names, "include", spec.label)
    exclude_set = _known(exclude, names, "exclude", spec.label)
    context = _resource_context(connection) if resources else []
    tools = [
        _tool(connection, tool, prefix or "", approval, timeout, tuple(context))
        for tool in listed
        if _offered(tool) and (include_set is None or tool.name in include_set) and tool.name not in (exclude_set or ())
    ]
    return McpTools(tools, connection, context)


def _tool(
    server: McpServer, tool: Tool, prefix: str, approval: Approval, timeout: float | None, context: tuple[LiveContext, ...]
) -> McpTool:
    return McpTool(
        name=prefix + tool.name,
        description=tool.description or tool.title or "",
        parameters=dict(tool.input_schema or _EMPTY_OBJECT_SCHEMA),
        fn=functools.partial(_call_now, server, tool.name),
        approve=approval(tool.name),
        timeout=timeout,
        server=server,
        remote_name=tool.name,
        app_uri=_ui(tool).get("resourceUri") or (tool.meta or {}).get("ui/resourceUri"),
        approval=approval,
        context=context,
    )


def _call_now(server: McpServer, remote_name: str, **arguments: Any) -> CallToolResult:
    """A call of the tool from a cell: its result, as the server sent it."""
    return server.run(server.call_tool(remote_name, arguments), None)


def _ui(tool: Tool) -> dict[str, Any]:
    ui = (tool.meta or {}).get("ui")
    return ui if isinstance(ui, dict) else {}


def _offered(tool: Tool) -> bool:
    """Whether the model is offered the tool: not when its app alone may call it."""
    visibility = _ui(tool).get("visibility")
    return not isinstance(visibility, list) or "model" in visibility


def _approval(approve: bool | Collection[str], names: list[str], label: str) -> Approval:
    if isinstance(approve, bool):
        return Approval(everything=approve)
    named = _known(approve, names, "approve", label)
    return Approval(named=frozenset(named or ()))


def _known(given: Collection[str] | None, names: list[str], what: str, label: str) -> frozenset[str] | None:
    """The tool names ``given`` (for include=, exclude=, approve=), each one the server has."""
    if given is None:
        return None
    if isinstance(given, str) or not all(isinstance(name, str) for name in given):
        raise TypeError(f"{what}= takes a list of tool names, not {given!r}")
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ValueError(
            f"{what}=: the MCP server {label} has no tool {', '.join(map(repr, unknown))}; its tools: {', '.join(names)}"
        )
    return frozenset(given)


def _resource_context(server: McpServer) -> list[LiveContext]:
    """The server's resources (not its apps' HTML) as context entries read at each run's start."""
    from ._mcp_connection import APP_MIME_TYPE

    listed = server.run(server.list_resources(), START_TIMEOUT + 30).resources
    return [_live(server, resource) for resource in listed if resource.mime_type != APP_MIME_TYPE]


def _live(server: McpServer, resource: Resource) -> LiveContext:
    uri = str(resource.uri)
    what = resource.description or resource.title or resource.name
    return LiveContext(f"{what} (the MCP resource {uri})", functools.partial(_read_now, server, uri))


def _read_now(server: McpServer, uri: str) -> str:
    from ._mcp_results import resource_text

    return resource_text(server.run(server.read_resource(uri), RESOURCE_TIMEOUT))


__all__ = ["McpServerError", "McpTool", "McpTools", "mcp_tools"]
