"""Make the recordings that ship in agui_widget/recordings/ (run: ``python scripts/make_recordings.py``).

Both are made with the project's offline agents and say so in their label: they show the format
and let tests and lessons replay without a model, but they are not a real model's output.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

from agui_widget import AgentChat, confirm_tool

OUT = Path(__file__).resolve().parent.parent / "agui_widget" / "recordings"
OFFLINE = "not a real model's output"


async def answer_when_asked(chat: AgentChat, run: Any, answer: Any) -> None:
    """Answer the run's frontend tool call or interrupt from Python as soon as it waits."""
    while not run.done and not (chat.pending_tool_calls or chat.interrupts):
        await asyncio.sleep(0.01)
    for call in chat.pending_tool_calls:
        chat.respond(call["toolCallId"], answer)
    for item in chat.interrupts:
        chat.resume(item["interruptId"], answer)
    await run


async def demo_tour() -> AgentChat:
    """The built-in demo agent: a backend tool, shared state, an interrupt and a frontend tool."""
    chat = AgentChat()
    await chat.send("weather in Paris")
    await chat.send("add buy milk")
    await answer_when_asked(chat, chat.send("delete my list"), {"approved": True})
    await answer_when_asked(chat, chat.send("make it teal"), {"ok": True, "color": "teal"})
    return chat


def _booking(text: str) -> dict[str, Any]:
    party = re.search(r"for (\d+)", text)
    time = re.search(r"at ([\w: ]+?(?:am|pm))", text)
    return {"party": int(party.group(1)) if party else 2, "time": time.group(1) if time else "8 pm"}


async def langchain_booking() -> AgentChat:
    """A LangChain agent on the scripted model: a frontend approval, then a backend tool."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from agui_widget.adapters.langchain import ScriptedChatModel, agui_middleware

    def script(messages: list[Any], tool_names: Any) -> Any:
        last = messages[-1]
        request = next(m.text for m in reversed(messages) if m.type == "human")
        booking = _booking(request.lower())
        if last.type == "tool" and last.name == "book_table":
            return f"Booked: {last.content}"
        if last.type == "tool":
            if json.loads(last.content).get("approved"):
                return AIMessage("", tool_calls=[{"id": f"call-{len(messages)}", "name": "book_table", "args": booking}])
            return "All right, I did not book anything."
        if "book" in request.lower():
            message = f"Book a table for {booking['party']} at {booking['time']}?"
            call = {"id": f"call-{len(messages)}", "name": "confirm_booking", "args": {"message": message}}
            return AIMessage("I need your OK first.", tool_calls=[call])
        return "I book restaurant tables. Try *book a table for 4 at 8 pm*."

    @tool
    def book_table(party: int, time: str) -> str:
        """Book a restaurant table. Only after the user approved it with confirm_booking."""
        return f"a table for {party} at {time}, reference R-{100 + party}."

    agent = create_agent(
        ScriptedChatModel(respond=script, delay=0.02),
        tools=[book_table],
        system_prompt="You book restaurant tables. Always call confirm_booking and wait for approval before book_table.",
        middleware=[agui_middleware()],
    )
    chat = AgentChat(
        agent, tools=[confirm_tool("confirm_booking", "Ask the user to approve a booking. Returns {approved: bool}.")]
    )
    await chat.send("Hello! What can you do?")
    await answer_when_asked(chat, chat.send("Book a table for 4 at 8 pm"), {"approved": True})
    return chat


RECORDINGS = {
    "demo_tour": (demo_tour, f"Made with agui-widget's built-in demo agent (scripted, offline): {OFFLINE}."),
    "langchain_booking": (
        langchain_booking,
        f"Made with a LangChain agent on agui-widget's ScriptedChatModel (scripted, offline): {OFFLINE}.",
    ),
}


async def main(names: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    for name in names or list(RECORDINGS):
        make, label = RECORDINGS[name]
        chat = await make()
        path = chat.save_recording(OUT / f"{name}.agui.jsonl", label=label)
        print(f"wrote {path.relative_to(OUT.parent.parent)} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
