"""``AgentChat``'s slash commands: ``/clear``, ``/new``, ``/threads``, ``/switch``, ``/export``, ``/help``, and
the notebook author's own (``AgentChat(commands={"name": fn})``).

A mixin of ``AgentChat``. The message box completes the names (the synced ``commands`` trait)
and sends a ``command`` request; the kernel runs the command here and answers the view that asked
with a ``command`` message: Markdown to show, a file to save, or the error. A command is never
sent to the agent nor added to the transcript; only what it does changes the chat.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import traitlets

from ..vocabulary._loops import running_loop
from ..wire import _codec

if TYPE_CHECKING:
    from ._view_link import ViewLink

log = logging.getLogger("agui_widget")

CommandFunction = Callable[[Any, str], Any]
"""``fn(chat, args)``: ``args`` is the text after the command's name; a coroutine function is
awaited on the kernel's loop. What it returns (not None) is shown as Markdown."""

COMMAND_NAME = re.compile(r"^[a-z0-9_-]{1,64}$")
BUILT_IN = {
    "clear": "Clear the conversation (the shared state is kept)",
    "new": "Start a new thread",
    "threads": "List the threads in the store",
    "switch": "Switch to a thread by its title or id",
    "export": "Save the conversation as Markdown",
    "help": "List the commands",
}


def description_of(function: Callable[..., Any]) -> str:
    """A command's one line: the first line of its docstring ('' without one)."""
    doc = inspect.getdoc(function) or ""
    return doc.strip().splitlines()[0].strip() if doc.strip() else ""


def checked_commands(commands: Mapping[str, CommandFunction] | None) -> dict[str, CommandFunction]:
    """The user's commands, checked: names of lowercase letters, digits, ``-`` and ``_`` that are
    not a built-in's, each a function."""
    if commands is None:
        return {}
    if not isinstance(commands, Mapping):
        raise TypeError(f'commands must be a dict of name to function ({{"name": fn}}), not {type(commands).__name__}')
    checked: dict[str, CommandFunction] = {}
    for name, function in commands.items():
        if not isinstance(name, str) or not COMMAND_NAME.match(name):
            raise ValueError(f"command name {name!r}: use lowercase letters, digits, - and _ (without the /)")
        if name in BUILT_IN:
            raise ValueError(f"command /{name} is built in; give yours another name")
        if not callable(function):
            raise TypeError(f"command /{name} must be a function fn(chat, args), not {type(function).__name__}")
        checked[name] = function
    return checked


def _specs(own: Mapping[str, CommandFunction]) -> list[dict[str, str]]:
    return [{"name": n, "description": d} for n, d in BUILT_IN.items()] + [
        {"name": n, "description": description_of(f)} for n, f in own.items()
    ]


def _threads_markdown(listing: list[dict[str, Any]], current: str) -> str:
    if not listing:
        return "No threads in the store yet."
    rows = ["| Thread | Title | Last activity | Messages |", "| --- | --- | --- | --- |"]
    for thread in listing:
        when = thread["updated"].strftime("%Y-%m-%d %H:%M UTC") if thread.get("updated") else ""
        mark = " (current)" if thread["thread_id"] == current else ""
        title = str(thread.get("title") or "(untitled)").replace("|", "\\|")
        rows.append(f"| `{thread['thread_id']}`{mark} | {title} | {when} | {thread.get('messages', 0)} |")
    return "\n".join(rows)


def thread_named(listing: list[dict[str, Any]], query: str) -> dict[str, Any]:
    """The thread ``/switch query`` means: the one of that id, else of that title (ignoring case),
    else the only one whose title holds it; a ValueError that says why when there is none or
    more than one."""
    wanted = " ".join(query.split())
    if not wanted:
        raise ValueError("/switch needs a thread's title or id; /threads lists them")
    for found in (
        [t for t in listing if t["thread_id"] == wanted],
        [t for t in listing if str(t.get("title") or "").casefold() == wanted.casefold()],
        [t for t in listing if wanted.casefold() in str(t.get("title") or "").casefold()],
    ):
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            names = ", ".join(f"`{t['thread_id']}` ({_title_of(t)})" for t in found[:5])
            raise ValueError(f"{len(found)} threads match {wanted!r}: {names}; give more of the title, or the id")
    raise ValueError(f"no thread matches {wanted!r}; /threads lists them")


def _title_of(thread: dict[str, Any]) -> str:
    return str(thread.get("title") or "") or "(untitled)"


class ChatSlash(traitlets.HasTraits):
    """The slash commands the message box offers, and running one a view asked for."""

    commands: traitlets.List[dict[str, str]] = traitlets.List(
        help="the slash commands the message box completes: {name, description}"
    ).tag(sync=True)

    if TYPE_CHECKING:  # what the methods read of the chat
        _link: ViewLink
        thread_id: str

        def clear(self, reset_state: bool = False) -> None: ...
        def new_thread(self, thread_id: str | None = None) -> str: ...
        def threads(self) -> list[dict[str, Any]]: ...
        def switch(self, thread_id: str) -> None: ...
        def to_markdown(self) -> str: ...

    _own_commands: dict[str, CommandFunction]
    _command_tasks: set[asyncio.Task[None]]

    def _set_commands(self, commands: Mapping[str, CommandFunction] | None) -> None:
        self._own_commands = checked_commands(commands)
        self.commands = _specs(self._own_commands)

    def run_command(self, request_id: str, name: str, args: str) -> None:
        """Run ``/name args`` for the view that sent ``request_id``; the answer goes back to it."""
        own = self.__dict__.get("_own_commands", {})
        if name not in BUILT_IN and name not in own:
            self._answer(request_id, name, error=f"Unknown command /{name}; /help lists them")
            return
        try:
            if name in BUILT_IN:
                self._built_in(request_id, name, args)
                return
            result = own[name](self, args)
        except Exception as exc:
            self._failed(request_id, name, exc)
            return
        if inspect.isawaitable(result):
            self._await(request_id, name, result)
        else:
            self._answer(request_id, name, text=None if result is None else str(result))

    def _built_in(self, request_id: str, name: str, args: str) -> None:
        if name == "clear":
            self.clear()
            self._answer(request_id, name)
        elif name == "new":
            self._answer(request_id, name, text=f"Started thread `{self.new_thread()}`.")
        elif name == "threads":
            self._answer(request_id, name, text=_threads_markdown(self.threads(), self.thread_id))
        elif name == "switch":
            thread = thread_named(self.threads(), args)
            self.switch(thread["thread_id"])
            self._answer(request_id, name, text=f"Switched to **{_title_of(thread)}**.")
        elif name == "export":
            file = {"filename": f"chat-{self.thread_id}.md", "mimeType": "text/markdown", "text": self.to_markdown()}
            self._answer(request_id, name, download=file)
        else:
            lines = [f"- `/{spec['name']}` {spec['description']}".rstrip() for spec in self.commands]
            self._answer(request_id, name, text="**Commands**\n\n" + "\n".join(lines))

    def _await(self, request_id: str, name: str, pending: Awaitable[Any]) -> None:
        loop = running_loop()
        if loop is None:  # a script, not a kernel: nothing can run the coroutine
            getattr(pending, "close", lambda: None)()
            self._failed(request_id, name, RuntimeError("an async command needs a running event loop"))
            return

        async def finish() -> None:
            try:
                result = await pending
            except Exception as exc:
                self._failed(request_id, name, exc)
                return
            self._answer(request_id, name, text=None if result is None else str(result))

        task = loop.create_task(finish(), name=f"agui-widget /{name}")
        tasks = self.__dict__.setdefault("_command_tasks", set())
        tasks.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(tasks.discard)

    def _failed(self, request_id: str, name: str, exc: Exception) -> None:
        log.warning("agui-widget: the command /%s failed", name, exc_info=exc)
        self._answer(request_id, name, error=f"/{name} failed: {type(exc).__name__}: {exc}")

    def _answer(
        self,
        request_id: str,
        name: str,
        text: str | None = None,
        error: str | None = None,
        download: dict[str, str] | None = None,
    ) -> None:
        self._link.transport.send(_codec.command_message(request_id, name, text, error, download))


__all__ = ["BUILT_IN", "ChatSlash", "CommandFunction", "checked_commands", "description_of", "thread_named"]
