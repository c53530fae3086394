"""The built-in demo agent: scripted, offline, and honest about it.

It shows every part of the protocol the widget handles, at a pace a person can follow: streamed
Markdown, a backend tool, a frontend tool (the chat's accent colour), shared state (a to-do list
that cells can read and change), an approval before a risky action (an interrupt), reasoning,
progress steps and an error; and, given ``notebook_tools()``, the user's kernel: its variables,
code run in it, the last error (``_demo_notebook``). ``help`` lists what it can show.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    CustomEvent,
    RunAgentInput,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..inputs._attachments import describe
from ..inputs._tools import FrontendTool, js_tool
from ..vocabulary._content import message_text, parse_json_text
from ..vocabulary._custom_events import PREDICT_STATE_EVENT, SUGGESTIONS
from ._base import AgentAdapter, Emitted, EventStream, json_patch, new_id
from ._demo_notebook import NOTEBOOK_TOOL_NAMES, NotebookRequest, not_offered, notebook_request, notebook_summary

ACCENT_TOOL = js_tool(
    "set_accent_color",
    "Change the chat's accent colour. Takes any CSS colour.",
    {
        "type": "object",
        "properties": {"color": {"type": "string", "description": "A CSS colour, e.g. 'teal' or '#e91e63'."}},
        "required": ["color"],
    },
    "ctx.setAccent(args.color); return { ok: true, color: args.color };",
)

HELP = """I'm the **agui-widget demo agent**: a scripted agent with no model and no network, here to \
show what the chat can do. Try one of these:

| say | what happens |
|---|---|
| `weather in Paris` | a **backend tool** call, shown as a tool card |
| `make it teal` | a **frontend tool**: the browser changes the chat's accent colour |
| `add buy milk` | **shared state**: a to-do list, also in `chat.state` in Python |
| `show my list` | reads the shared state back |
| `done 1` | ticks item 1 off |
| `delete my list` | asks for your **approval** first (an interrupt) |
| `plan a trip` | **progress**: steps streamed into the state |
| `think about it` | **reasoning** before the answer |
| `markdown` | a Markdown showcase: a table, code and math |
| `chart` / `table` | a backend tool that returns a **matplotlib figure** / a **DataFrame** |
| `write a document about tea` | **predictive state**: `state["document"]` follows the streamed tool arguments |
| `ask a sub-agent` | a **sub-agent** at work, shown nested |
| `activity` | an **activity** card updated as it goes |
| `a2ui` | an **A2UI surface**: a form the agent drew; submit it and the agent gets the values |
| `suggest` | **suggestions** for what to say next, as chips |
| `fail` | an **error**, to see how one is reported |
| `tools` | lists the tools this chat gives me (yours too: `AgentChat(tools=[my_function])`) |
| `settings` | shows the run's `forwardedProps`: what the chat's settings picker sends (`AgentChat(settings={...})`) |
| `call my_function x=1` | calls one of them with these arguments (or a JSON object) |
| `variables` | lists your kernel's variables (give me the notebook tools: `AgentChat(tools=notebook_tools())`) |
| `inspect df` | a summary of one variable: a DataFrame's shape, dtypes and head |
| `run df.describe()` | runs code in your kernel as a cell would, after you approve it |
| `what went wrong` | reads the last error and says what it means |
| 📎 attach an image or a file | says what it received: type, size, and an image's size in pixels |

Everything you see travels as AG-UI events: `chat.events` in Python holds them all."""

MARKDOWN_SHOWCASE = """Here is some **Markdown**, streamed token by token.

### A table

| protocol event | what it does |
|---|---|
| `TEXT_MESSAGE_CONTENT` | appends a delta to a message |
| `TOOL_CALL_ARGS` | streams a tool call's arguments |
| `STATE_DELTA` | patches the shared state (RFC 6902) |

### Code

```python
chat = AgentChat()          # the demo agent
await chat.send("help")     # wait for the whole answer
print(chat.messages[-1]["content"])
```

### Math

Streaming cost grows linearly: $c(n) = a + b\\,n$, and the mean of $x_1,\\dots,x_n$ is

$$\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$$
"""

_WORDS = r"\S+\s*|\s+"


class DemoAgent(AgentAdapter):
    """A scripted agent. ``delay`` is the pause between tokens in seconds (0 for tests)."""

    frontend_tools: tuple[FrontendTool, ...] = (ACCENT_TOOL,)

    def __init__(self, delay: float = 0.03) -> None:
        self.delay = delay

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        messages = [m.model_dump(mode="json", by_alias=True) for m in input.messages]
        state = input.state if isinstance(input.state, dict) else {}
        last = messages[-1] if messages else {}
        action = submitted_action(input.forwarded_props)
        if action is not None:
            handler = self._say(stream, _action_answer(action))
        elif input.resume:
            handler = self._after_approval(input, stream, messages, state)
        elif last.get("role") == "tool":
            handler = self._after_frontend_tool(stream, last, messages)
        else:
            handler = self._reply(input, stream, last, state)
        async for item in handler:
            yield item

    # -- choosing a scenario ------------------------------------------------------------------

    def _reply(
        self, input: RunAgentInput, stream: EventStream, last: dict[str, Any], state: dict[str, Any]
    ) -> AsyncIterator[Emitted]:
        """The scenario the user's message asks for: the first of these groups to match it."""
        text = message_text(last).strip()
        lowered = text.lower()
        return (
            self._about_the_demo(stream, last, text, lowered)
            or self._notebook_scenario(stream, text)
            or self._tool_scenario(stream, input, text, lowered)
            or self._todo_scenario(stream, state, text, lowered)
            or self._showcase(stream, text, lowered)
            or self._say(
                stream,
                f"I'm a scripted demo agent (no model, no network), so I can't really answer "
                f"“{text}”. Say **help** to see what I can show you.",
            )
        )

    def _about_the_demo(
        self, stream: EventStream, last: dict[str, Any], text: str, lowered: str
    ) -> AsyncIterator[Emitted] | None:
        """What it received (attachments), or what it can show (help)."""
        attached = [part for part in last.get("content") or () if isinstance(part, dict) and part.get("type") != "text"]
        if attached and isinstance(last.get("content"), list):
            return self._say(stream, _attachments_text(attached))
        if not text or lowered in {"help", "?", "/help"} or "what can you" in lowered:
            return self._say(stream, HELP)
        return None

    def _notebook_scenario(self, stream: EventStream, text: str) -> AsyncIterator[Emitted] | None:
        """The kernel seen through the notebook tools: its variables, one variable, code run, the last error."""
        request = notebook_request(text)
        if request is None:
            return None
        if isinstance(request, str):
            return self._say(stream, request)
        return self._call_notebook_tool(stream, request)

    def _tool_scenario(self, stream: EventStream, input: RunAgentInput, text: str, lowered: str) -> AsyncIterator[Emitted] | None:
        """The chat's tools listed or called, a backend tool (the weather), a frontend tool (the accent)."""
        if lowered in {"tools", "list tools", "what tools", "which tools"}:
            return self._say(stream, _tools_text(input))
        if lowered in {"settings", "my settings", "what settings", "which settings"}:
            return self._say(stream, _settings_text(input.forwarded_props))
        if (call := re.match(_CALL, text)) is not None:
            return self._call_tool(stream, input, call.group(1), call.group(2))
        if "weather" in lowered:
            return self._weather(stream, text)
        if any(word in lowered for word in ("colour", "color", "accent", "theme", "make it")):
            return self._accent(stream, lowered)
        return None

    def _todo_scenario(
        self, stream: EventStream, state: dict[str, Any], text: str, lowered: str
    ) -> AsyncIterator[Emitted] | None:
        """The to-do list in the shared state: added to, ticked off, deleted (after approval), shown."""
        if re.match(r"(add|todo)\b", lowered):
            return self._add_todo(stream, state, text)
        if re.match(r"done\s+\d+", lowered):
            return self._tick(stream, state, lowered)
        if "delete" in lowered or "clear my list" in lowered or "risky" in lowered:
            return self._ask_to_delete(stream, state)
        if "list" in lowered or "todos" in lowered or "to-dos" in lowered:
            return self._show_list(stream, state)
        return None

    def _showcase(self, stream: EventStream, text: str, lowered: str) -> AsyncIterator[Emitted] | None:
        """One more part of the protocol on show: steps, reasoning, Markdown, predictive state, rich
        results, a sub-agent, an activity, suggestions, an error."""
        if lowered.startswith("plan"):
            return self._plan(stream, text)
        if lowered.startswith("think") or "reason" in lowered:
            return self._think(stream, text)
        if "markdown" in lowered or "showcase" in lowered:
            return self._say(stream, MARKDOWN_SHOWCASE)
        if lowered.startswith("write") or "document" in lowered:
            return self._write_document(stream, text)
        if "chart" in lowered or "plot" in lowered or "figure" in lowered:
            return self._rich_tool(stream, "make_chart", _chart)
        if "table" in lowered or "dataframe" in lowered:
            return self._rich_tool(stream, "make_table", _table)
        if "sub-agent" in lowered or "subagent" in lowered or "delegate" in lowered:
            return self._subagent(stream)
        if "a2ui" in lowered:
            return self._a2ui_form(stream)
        if "activity" in lowered:
            return self._activity(stream)
        if "suggest" in lowered:
            return self._suggest(stream)
        if lowered in {"fail", "error", "crash"}:
            return self._fail(stream)
        return None

    # -- building blocks ----------------------------------------------------------------------

    async def _pause(self, factor: float = 1.0) -> None:
        if self.delay:
            await asyncio.sleep(self.delay * factor)

    async def _say(self, stream: EventStream, text: str) -> AsyncIterator[Emitted]:
        """Stream text word by word at the demo's pace."""
        for token in re.findall(_WORDS, text):
            await self._pause()
            yield stream.text(token)
        yield stream.end_text()

    # -- scenarios ----------------------------------------------------------------------------

    async def _weather(self, stream: EventStream, text: str) -> AsyncIterator[Emitted]:
        match = re.search(r"\b(?:in|for|at)\s+([A-Za-z][\w .'-]*)", text)
        city = (match.group(1).strip(" ?.!") if match else "Paris").title()
        async for item in self._say(stream, f"Let me look up the weather in {city}."):
            yield item
        call = stream.tool_call_start("get_weather")
        call_id = call[0].tool_call_id  # type: ignore[attr-defined]
        yield call
        for piece in ('{"city": ', json.dumps(city), "}"):
            await self._pause()
            yield stream.tool_call_args(call_id, piece)
        yield stream.tool_call_end(call_id)
        await self._pause(10)
        report = _fake_weather(city)
        yield stream.tool_result(call_id, report)
        async for item in self._say(
            stream,
            f"It's **{report['temperature_c']} °C** and {report['conditions']} in {city} (made-up numbers: this is a demo).",
        ):
            yield item

    async def _accent(self, stream: EventStream, lowered: str) -> AsyncIterator[Emitted]:
        if not stream.is_frontend_tool(ACCENT_TOOL.name):
            async for item in self._say(
                stream, f"This chat has no `{ACCENT_TOOL.name}` frontend tool, so I can't change its colours."
            ):
                yield item
            return
        color = _colour_in(lowered)
        async for item in self._say(stream, f"I'll ask your browser to make the accent **{color}**."):
            yield item
        yield stream.tool_call(ACCENT_TOOL.name, {"color": color})
        # The run ends here with the call pending; the browser (or chat.respond) answers it.

    async def _call_tool(self, stream: EventStream, input: RunAgentInput, name: str, rest: str) -> AsyncIterator[Emitted]:
        """Call a tool the chat gave (a Python function, a browser tool...) with the arguments the
        user wrote: the demo has no model to choose them."""
        if not stream.is_frontend_tool(name):
            async for item in self._say(stream, f"This chat gives me no tool named `{name}`. {_tools_text(input)}"):
                yield item
            return
        try:
            args = _arguments_in(rest)
        except ValueError as exc:
            async for item in self._say(stream, f"I could not read those arguments: {exc}"):
                yield item
            return
        async for item in self._say(stream, f"Calling `{name}`."):
            yield item
        yield stream.tool_call(name, args)
        # The run ends with the call pending; the kernel (a Python tool), the browser or the user answers it.

    async def _call_notebook_tool(self, stream: EventStream, request: NotebookRequest) -> AsyncIterator[Emitted]:
        """Call one of ``notebook_tools()`` as the user asked, or say how to give it to the chat."""
        if not stream.is_frontend_tool(request.tool):
            offered = [name for name in NOTEBOOK_TOOL_NAMES if stream.is_frontend_tool(name)]
            async for item in self._say(stream, not_offered(request.tool, offered)):
                yield item
            return
        async for item in self._say(stream, request.intro):
            yield item
        yield stream.tool_call(request.tool, request.args)
        # The run ends with the call pending; the kernel runs it (after approval when the tool asks).

    async def _after_frontend_tool(
        self, stream: EventStream, tool_message: dict[str, Any], messages: list[dict[str, Any]]
    ) -> AsyncIterator[Emitted]:
        result = parse_json_text(tool_message.get("content"))
        error = tool_message.get("error")
        name, args = _call_of(messages, tool_message.get("toolCallId"))
        summary = notebook_summary(name, args, str(tool_message.get("content") or "")) if name and not error else None
        if isinstance(error, str) and error and error != "cancelled":
            text = f"The tool failed: `{_clipped(error)}`."
        elif isinstance(result, dict) and result.get("approved") is False:
            text = "You said no, so it did not run."
        elif summary is not None:
            text = summary
        elif isinstance(result, dict) and result.get("error"):
            text = f"Your browser could not do it: {result['error']}"
        elif isinstance(result, dict) and result.get("color"):
            text = f"Done: the accent is now **{result['color']}**."
        else:
            answer = _clipped(str(tool_message.get("content")))
            text = f"The tool answered:\n\n```\n{answer}\n```" if "\n" in answer else f"The tool answered: `{answer}`."
        async for item in self._say(stream, text):
            yield item

    async def _add_todo(self, stream: EventStream, state: dict[str, Any], text: str) -> AsyncIterator[Emitted]:
        item = re.sub(r"^(add|todo)\b[:\s]*", "", text, flags=re.IGNORECASE).strip() or "something"
        entry = {"text": item, "done": False}
        if isinstance(state.get("todos"), list):
            yield stream.state_delta([{"op": "add", "path": "/todos/-", "value": entry}])
            count = len(state["todos"]) + 1
        else:
            yield stream.state_snapshot({**state, "todos": [entry]})
            count = 1
        async for chunk in self._say(
            stream, f"Added “{item}”. Your list has {count} item{'s' if count != 1 else ''}; `chat.state` has it too."
        ):
            yield chunk

    async def _tick(self, stream: EventStream, state: dict[str, Any], lowered: str) -> AsyncIterator[Emitted]:
        todos = state.get("todos")
        if not isinstance(todos, list):
            todos = []
        number = int(re.findall(r"\d+", lowered)[0])
        if not 1 <= number <= len(todos):
            async for item in self._say(stream, f"There is no item {number} on your list of {len(todos)}."):
                yield item
            return
        yield stream.state_delta([{"op": "replace", "path": f"/todos/{number - 1}/done", "value": True}])
        async for item in self._say(stream, f"Ticked off “{todos[number - 1].get('text')}”."):
            yield item

    async def _show_list(self, stream: EventStream, state: dict[str, Any]) -> AsyncIterator[Emitted]:
        todos = state.get("todos") if isinstance(state.get("todos"), list) else []
        if not todos:
            text = "Your list is empty. Say `add buy milk`, or set `chat.state = {'todos': [...]}` in a cell."
        else:
            lines = [
                f"{i}. {'~~' if t.get('done') else ''}{t.get('text')}{'~~' if t.get('done') else ''}"
                for i, t in enumerate(todos, 1)
            ]
            text = "Here is your list, read from the shared state:\n\n" + "\n".join(lines)
        async for item in self._say(stream, text):
            yield item

    async def _ask_to_delete(self, stream: EventStream, state: dict[str, Any]) -> AsyncIterator[Emitted]:
        todos = state.get("todos") if isinstance(state.get("todos"), list) else []
        if not todos:
            async for item in self._say(stream, "Your list is already empty: nothing to delete."):
                yield item
            return
        async for item in self._say(stream, "Deleting your list cannot be undone, so I need your approval first."):
            yield item
        call = stream.tool_call("delete_todos", {"count": len(todos), "items": [t.get("text") for t in todos]})
        call_id = call[0].tool_call_id  # type: ignore[attr-defined]
        yield call
        stream.interrupt(
            "approval",
            message="Delete the one item of your to-do list?"
            if len(todos) == 1
            else f"Delete all {len(todos)} items of your to-do list?",
            tool_call_id=call_id,
            response_schema={"type": "object", "properties": {"approved": {"type": "boolean"}}},
        )

    async def _after_approval(
        self, input: RunAgentInput, stream: EventStream, messages: list[dict[str, Any]], state: dict[str, Any]
    ) -> AsyncIterator[Emitted]:
        entry = input.resume[0]  # type: ignore[index]
        approved = entry.status == "resolved" and isinstance(entry.payload, dict) and bool(entry.payload.get("approved"))
        call_id = _last_call_id(messages, "delete_todos")
        if approved:
            yield stream.state_delta([{"op": "replace", "path": "/todos", "value": []}])
            if call_id:
                yield stream.tool_result(call_id, {"deleted": True})
            text = "Approved: your list is now empty."
        else:
            if call_id:
                yield stream.tool_result(call_id, {"deleted": False, "reason": "denied by the user"})
            text = "Denied: I left your list as it was."
        async for item in self._say(stream, text):
            yield item

    async def _plan(self, stream: EventStream, text: str) -> AsyncIterator[Emitted]:
        goal = re.sub(r"^plan\s*", "", text, flags=re.IGNORECASE).strip() or "the task"
        steps = ["Gather what is needed", "Draft the plan", "Check it", "Write it up"]
        yield stream.state_delta(
            [{"op": "add", "path": "/plan", "value": {"goal": goal, "steps": [{"title": s, "status": "pending"} for s in steps]}}]
        )
        for index, title in enumerate(steps):
            yield stream.step_started(title)
            yield stream.state_delta([{"op": "replace", "path": f"/plan/steps/{index}/status", "value": "running"}])
            await self._pause(8)
            yield stream.state_delta([{"op": "replace", "path": f"/plan/steps/{index}/status", "value": "done"}])
            yield stream.step_finished(title)
        async for item in self._say(stream, f"Planned “{goal}” in {len(steps)} steps; see `chat.state['plan']`."):
            yield item

    async def _think(self, stream: EventStream, text: str) -> AsyncIterator[Emitted]:
        thoughts = "The user wants to see reasoning. A demo has nothing to reason about, so I will say so plainly."
        for token in re.findall(_WORDS, thoughts):
            await self._pause()
            yield stream.reasoning(token)
        yield stream.end_reasoning()
        async for item in self._say(stream, "That was a **reasoning** block: models that think aloud stream it first."):
            yield item

    async def _rich_tool(self, stream: EventStream, name: str, make: Any) -> AsyncIterator[Emitted]:
        """A backend tool whose result is a Python object shown in the chat (docs/generative-ui.md)."""
        try:
            value = make()
        except ImportError as exc:
            async for item in self._say(
                stream, f"`{name}` needs {exc.name or 'a package'} installed (`pip install matplotlib pandas`)."
            ):
                yield item
            return
        async for item in self._say(
            stream, f"Calling `{name}`; its result is a Python object, shown as it would be in a notebook."
        ):
            yield item
        call = stream.tool_call(name, {})
        yield call
        await self._pause(5)
        yield stream.tool_result(call[0].tool_call_id, value)  # type: ignore[attr-defined]
        async for item in self._say(stream, "The model got a text version of it; you see the object."):
            yield item

    async def _write_document(self, stream: EventStream, text: str) -> AsyncIterator[Emitted]:
        topic = (
            re.sub(r"^.*?\b(?:about|on)\s+", "", text, flags=re.IGNORECASE).strip(" .!?")
            if re.search(r"\b(about|on)\s", text, re.IGNORECASE)
            else "tea"
        )
        document = _document(topic)
        yield CustomEvent(
            name=PREDICT_STATE_EVENT, value=[{"state_key": "document", "tool": "write_document", "tool_argument": "document"}]
        )
        async for item in self._say(
            stream, f'Writing a short document about {topic}; watch `state["document"]` fill in as the arguments stream.'
        ):
            yield item
        call = stream.tool_call_start("write_document")
        call_id = call[0].tool_call_id  # type: ignore[attr-defined]
        yield call
        yield stream.tool_call_args(call_id, '{"document": "')
        for token in re.findall(_WORDS, document):
            await self._pause()
            yield stream.tool_call_args(call_id, json.dumps(token)[1:-1])
        yield stream.tool_call_args(call_id, '"}')
        yield stream.tool_call_end(call_id)
        yield stream.tool_result(call_id, {"written": True, "words": len(document.split())})
        async for item in self._say(stream, f"Done: {len(document.split())} words, in `chat.state['document']`."):
            yield item

    async def _subagent(self, stream: EventStream) -> AsyncIterator[Emitted]:
        async for item in self._say(stream, "I'll hand this to my research sub-agent."):
            yield item
        run_id = new_id("subagent")
        yield SubagentStartedEvent(subagent_run_id=run_id, name="researcher", description="looks things up")
        message_id = new_id("msg")
        yield TextMessageStartEvent(message_id=message_id, role="assistant", subagent_run_id=run_id)
        for token in re.findall(_WORDS, "Looking it up in the (pretend) library…"):
            await self._pause()
            yield TextMessageContentEvent(message_id=message_id, delta=token, subagent_run_id=run_id)
        yield TextMessageEndEvent(message_id=message_id, subagent_run_id=run_id)
        call_id = new_id("call")
        yield ToolCallStartEvent(
            tool_call_id=call_id, tool_call_name="search_library", parent_message_id=message_id, subagent_run_id=run_id
        )
        yield ToolCallArgsEvent(tool_call_id=call_id, delta='{"query": "AG-UI"}', subagent_run_id=run_id)
        yield ToolCallEndEvent(tool_call_id=call_id, subagent_run_id=run_id)
        await self._pause(5)
        yield ToolCallResultEvent(
            message_id=new_id("tool"), tool_call_id=call_id, role="tool", subagent_run_id=run_id,
            content=json.dumps({"found": "AG-UI is an open protocol between agents and user interfaces."}),
        )  # fmt: skip
        yield SubagentFinishedEvent(subagent_run_id=run_id, result={"found": 1})
        async for item in self._say(
            stream, "My sub-agent found it: **AG-UI is an open protocol between agents and user interfaces.**"
        ):
            yield item

    async def _activity(self, stream: EventStream) -> AsyncIterator[Emitted]:
        message_id = new_id("activity")
        yield ActivitySnapshotEvent(
            message_id=message_id, activity_type="progress", content={"markdown": "Indexing: **0** of 3 files"}
        )
        for done in range(1, 4):
            await self._pause(5)
            yield ActivityDeltaEvent(
                message_id=message_id, activity_type="progress",
                patch=json_patch([{"op": "replace", "path": "/markdown", "value": f"Indexing: **{done}** of 3 files"}]),
            )  # fmt: skip
        async for item in self._say(stream, "Indexed 3 files (an activity card showed the progress)."):
            yield item

    async def _a2ui_form(self, stream: EventStream) -> AsyncIterator[Emitted]:
        """A form as an A2UI surface, in the ``ACTIVITY_SNAPSHOT`` that ``@ag-ui/a2ui-middleware``
        makes of a tool's ``{"a2ui_operations": [...]}`` result."""
        call_id = new_id("call")
        yield ActivitySnapshotEvent(
            message_id=f"a2ui-surface-{call_id}",
            activity_type=A2UI_ACTIVITY,
            content={"a2ui_operations": a2ui_form(f"demo-form-{call_id[-8:]}")},
            replace=True,
        )
        async for item in self._say(stream, "Here is a form drawn with **A2UI**: fill it in and press **Submit**."):
            yield item

    async def _suggest(self, stream: EventStream) -> AsyncIterator[Emitted]:
        async for item in self._say(stream, "Here are a few things to try next:"):
            yield item
        yield CustomEvent(
            name=SUGGESTIONS,
            value=[
                "weather in Lisbon",
                {"title": "A chart", "message": "chart"},
                {"title": "Write a document", "message": "write a document about tea"},
            ],
        )

    async def _fail(self, stream: EventStream) -> AsyncIterator[Emitted]:
        async for item in self._say(stream, "About to fail on purpose"):
            yield item
        raise RuntimeError("the demo agent failed on purpose (you asked it to)")


A2UI_ACTIVITY = "a2ui-surface"
A2UI_BASIC_CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
"""The id under which A2UI's renderers register the basic catalogue (v0.9)."""


def a2ui_form(surface_id: str) -> list[dict[str, Any]]:
    """The demo's form as A2UI v0.9 messages (plain dicts: the demo needs no A2UI library): a text
    field, a choice and a Submit button whose action carries both values."""
    v = "v0.9"
    components: list[dict[str, Any]] = [
        {"id": "root", "component": "Card", "child": "form"},
        {"id": "form", "component": "Column", "children": ["title", "name", "drink", "submit"]},
        {"id": "title", "component": "Text", "text": "Tell me about you", "variant": "h3"},
        {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/form/name"}},
        {
            "id": "drink",
            "component": "ChoicePicker",
            "label": "Favourite drink",
            "options": [{"label": "Tea", "value": "tea"}, {"label": "Coffee", "value": "coffee"}],
            "value": {"path": "/form/drink"},
        },
        {
            "id": "submit",
            "component": "Button",
            "child": "submit-label",
            "variant": "primary",
            "action": {
                "event": {"name": "submit", "context": {"name": {"path": "/form/name"}, "drink": {"path": "/form/drink"}}}
            },
        },
        {"id": "submit-label", "component": "Text", "text": "Submit"},
    ]
    return [
        {"version": v, "createSurface": {"surfaceId": surface_id, "catalogId": A2UI_BASIC_CATALOG}},
        {"version": v, "updateComponents": {"surfaceId": surface_id, "components": components}},
        {
            "version": v,
            "updateDataModel": {"surfaceId": surface_id, "path": "/", "value": {"form": {"name": "", "drink": ["tea"]}}},
        },
    ]


def submitted_action(forwarded_props: Any) -> dict[str, Any] | None:
    """The user's action on a surface this run answers (``forwardedProps.a2uiAction.userAction``)."""
    wrapper = forwarded_props.get("a2uiAction") if isinstance(forwarded_props, dict) else None
    action = wrapper.get("userAction") if isinstance(wrapper, dict) else None
    return action if isinstance(action, dict) else None


def _action_answer(action: dict[str, Any]) -> str:
    given = action.get("context")
    context: dict[str, Any] = given if isinstance(given, dict) else {}
    values = [f"{key} = {', '.join(map(str, value)) if isinstance(value, list) else value}" for key, value in context.items()]
    what = "; ".join(values) if values else "nothing"
    return f"You submitted: {what} (action “{action.get('name')}” on surface `{action.get('surfaceId')}`)."


_CALL = r"(?is)^call\s+([A-Za-z_][\w.-]*)\s*(?:with\b)?\s*(.*)$"
_PAIR = r"(\w+)\s*=\s*(\"[^\"]*\"|'[^']*'|\[[^\]]*\]|\{[^}]*\}|\S+)"


def _attachments_text(parts: list[dict[str, Any]]) -> str:
    """What the demo can honestly say about attachments: what they are, never what they show."""
    lines = [f"- {describe(part)}" for part in parts]
    count = "an attachment" if len(parts) == 1 else f"{len(parts)} attachments"
    return (
        f"You sent me {count}:\n\n" + "\n".join(lines) + "\n\nI'm a scripted demo with no model, so I can tell "
        "what they are but not what is in them. A model that reads images or files gets them as they are."
    )


def _tools_text(input: RunAgentInput) -> str:
    if not input.tools:
        return "This chat gives me no tools."
    lines = [
        f"- `{tool.name}`: {tool.description.splitlines()[0] if tool.description else '(no description)'}" for tool in input.tools
    ]
    return (
        "The tools this chat gives me:\n\n"
        + "\n".join(lines)
        + "\n\nSay `call NAME x=1 y=two` (or `call NAME {...}`) to call one."
    )


def _settings_text(forwarded_props: Any) -> str:
    if not forwarded_props:
        return (
            "No settings reached me: this run's `forwardedProps` is empty. `AgentChat(settings={...})` puts a "
            "picker above the message box, and its values travel with every run as `forwardedProps`."
        )
    return (
        "This run's `forwardedProps` (what the settings picker and `chat.forwarded_props` send):\n\n```json\n"
        + json.dumps(forwarded_props, indent=2, sort_keys=True, ensure_ascii=False)
        + "\n```\n\nI'm a scripted demo, so they change nothing here; a LangChain or Langroid agent reads "
        "`model`, `temperature`, `max_tokens`, `top_p` and `stop` from them."
    )


def _arguments_in(text: str) -> dict[str, Any]:
    """``{"x": 1}`` or ``x=1 y="two words"``: each value is JSON when it reads as JSON, else text."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("the arguments must be a JSON object")
        return value
    pairs = re.findall(_PAIR, text)
    if not pairs:
        raise ValueError('write them as name=value pairs (x=1 y="two words") or as a JSON object')
    args: dict[str, Any] = {}
    for key, raw in pairs:
        if raw[:1] == "'" and raw[-1:] == "'":
            raw = json.dumps(raw[1:-1])
        try:
            args[key] = json.loads(raw)
        except ValueError:
            args[key] = raw
    return args


def _clipped(text: str, limit: int = 400) -> str:
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[:limit] + "…"


def _call_of(messages: list[dict[str, Any]], call_id: Any) -> tuple[str | None, dict[str, Any]]:
    """The name and arguments of the tool call ``call_id`` in the transcript."""
    for message in reversed(messages):
        for call in message.get("toolCalls") or ():
            if call.get("id") == call_id:
                function = call.get("function") or {}
                args = parse_json_text(function.get("arguments") or "{}")
                return function.get("name"), args if isinstance(args, dict) else {}
    return None, {}


def _last_call_id(messages: list[dict[str, Any]], name: str) -> str | None:
    for message in reversed(messages):
        for call in message.get("toolCalls") or ():
            if call.get("function", {}).get("name") == name:
                return call.get("id")
    return None


_COLOURS = (
    "teal", "red", "orange", "gold", "green", "blue", "purple", "pink", "crimson", "navy", "olive",
    "magenta", "indigo", "violet", "coral", "tomato", "black", "gray", "grey", "brown",
)  # fmt: skip


def _colour_in(lowered: str) -> str:
    hex_match = re.search(r"#[0-9a-f]{3,8}\b", lowered)
    if hex_match:
        return hex_match.group(0)
    for colour in _COLOURS:
        if re.search(rf"\b{colour}\b", lowered):
            return colour
    return "teal"


def _fake_weather(city: str) -> dict[str, Any]:
    seed = int(hashlib.sha256(city.lower().encode()).hexdigest(), 16)
    conditions = ["sunny", "cloudy", "rainy", "windy", "foggy"][seed % 5]
    return {"city": city, "temperature_c": 5 + seed % 25, "conditions": conditions}


def _chart() -> Any:
    """A matplotlib figure, drawn without pyplot (no backend, no global state)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4, 2.5))
    axes = figure.subplots()
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
    axes.plot(days, [18, 21, 19, 23, 22], marker="o")
    axes.set_title("Made-up temperatures (°C)")
    figure.tight_layout()
    return figure


def _table() -> Any:
    import pandas as pd

    return pd.DataFrame(
        {"city": ["Lisbon", "Oslo", "Nairobi"], "temperature_c": [21, 4, 24], "conditions": ["sunny", "snow", "cloudy"]}
    )


def _document(topic: str) -> str:
    return (
        f"{topic.capitalize()}\n\n"
        f"{topic.capitalize()} is a fine subject for a short document. This text streams into the "
        f"tool call's arguments, and the shared state follows it word by word: that is predictive "
        f"state. When the call completes, the document is final."
    )
